#!/usr/bin/env python3
"""Build mcb's packaged vanilla block registry from minecraft-data (MIT) block lists.

Usage (raw upstream JSON stays outside the repository; only the compact result is committed):

    mkdir -p /tmp/mcd && cd /tmp/mcd && npm pack minecraft-data && tar xzf minecraft-data-*.tgz
    .venv/bin/python scripts/gen_registry.py --mcd /tmp/mcd/package \\
        --extra 26.2=/work/shared/blockdata/minecraft-data-pc-26.2/blocks.json

Writes:
  cli/mcb/blocks/data/registry.json.gz   every shipped release: name, DataVersion, blocks with property domains
                                         (values in game order) and default values, deduplicated across releases
  cli/mcb/blocks/releases.py             KNOWN_RELEASES (release -> DataVersion) and SHIPPED_RELEASES, so naming
                                         a release needs no data file

Decoding ``defaultState`` (spec sponge-rotation-blockdata.md §D.1): ``defaultState - minStateId`` is a mixed-radix
number over ``states`` in array order, the last property varying fastest; each digit indexes that property's values,
and a bool's values are (true, false).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA_FILE = ROOT / "cli" / "mcb" / "blocks" / "data" / "registry.json.gz"
RELEASES_MODULE = ROOT / "cli" / "mcb" / "blocks" / "releases.py"
FORMAT = 1
DEFAULT_RELEASE = "26.2"
OLDEST_SHIPPED = (1, 13)  # the flattening: older releases used numeric ids, not block states
# Releases newer than the npm package's protocolVersions.json knows (spec §D.3).
EXTRA_DATA_VERSIONS = {"26.2": 4903, "26.3": 5023}
RELEASE_NAME = re.compile(r"\d+(\.\d+)+")


def version_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.split("."))


class IncompleteData(ValueError):
    """The block list lacks information needed for validation; the release is not shipped."""


class IntDomains:
    """Value lists of int properties seen in complete block lists, to fill the ones older folders omit.

    Some minecraft-data folders (1.13-1.16, 1.18) give an int property only its ``num_values``. The values are taken
    from the same block and property with the same count in another release, else from any block whose property of
    that name and count has one unambiguous value list (e.g. ``age`` with 4 values is always 0..3). Anything else
    makes the release incomplete and it is not shipped.
    """

    # Facts for int properties that no complete list repeats (vanilla BlockStateProperties of that release).
    KNOWN = {
        ("cauldron", "level", 4): ("0", "1", "2", "3"),  # LEVEL_CAULDRON 0..3 until 1.17 split the cauldrons
    }

    def __init__(self) -> None:
        self.by_block: dict[tuple[str, str, int], tuple[str, ...]] = dict(self.KNOWN)
        self.by_property: dict[tuple[str, int], set[tuple[str, ...]]] = {}

    def learn(self, records: list[dict]) -> None:
        for record in records:
            for state in record.get("states") or []:
                if state["type"] == "int" and "values" in state:
                    values = tuple(str(value) for value in state["values"])
                    self.by_block.setdefault((record["name"], state["name"], len(values)), values)
                    self.by_property.setdefault((state["name"], len(values)), set()).add(values)

    def lookup(self, block: str, prop: str, count: int) -> tuple[str, ...]:
        if (block, prop, count) in self.by_block:
            return self.by_block[(block, prop, count)]
        candidates = self.by_property.get((prop, count), set())
        if len(candidates) == 1:
            return next(iter(candidates))
        raise IncompleteData(f"{block}.{prop} has no values list and none can be inferred")


def decode_block(
    record: dict, int_domains: IntDomains | None = None
) -> tuple[str, list[tuple[str, tuple[str, ...]]], list[int]]:
    """(name, [(property, values)], default value indices) for one minecraft-data block record."""
    properties: list[tuple[str, tuple[str, ...]]] = []
    for state in record.get("states") or []:
        if state["type"] == "bool":
            values: tuple[str, ...] = ("true", "false")
        elif "values" not in state:
            if state["type"] != "int" or int_domains is None:
                raise IncompleteData(f"{record['name']}.{state['name']} has no values list")
            values = int_domains.lookup(record["name"], state["name"], state["num_values"])
        else:
            values = tuple(str(value) for value in state["values"])
        if len(values) != state["num_values"] or len(set(values)) != len(values):
            raise ValueError(f"{record['name']}.{state['name']}: inconsistent values {values}")
        properties.append((state["name"], values))
    names = [name for name, _ in properties]
    if names != sorted(names) or len(set(names)) != len(names):
        raise ValueError(f"{record['name']}: properties not unique and sorted: {names}")
    count = 1
    for _, values in properties:
        count *= len(values)
    if record["maxStateId"] - record["minStateId"] + 1 != count:
        raise ValueError(f"{record['name']}: state id range does not match {count} combinations")
    offset = record["defaultState"] - record["minStateId"]
    if not 0 <= offset < count:
        raise ValueError(f"{record['name']}: defaultState outside its range")
    digits: list[int] = []
    for _, values in reversed(properties):  # last property varies fastest
        offset, digit = divmod(offset, len(values))
        digits.append(digit)
    return record["name"], properties, digits[::-1]


class Interner:
    """Assigns stable indices to equal values so repeated domains/blocks/lists are stored once."""

    def __init__(self) -> None:
        self.items: list = []
        self.index: dict = {}

    def add(self, key, item=None) -> int:
        if key not in self.index:
            self.index[key] = len(self.items)
            self.items.append(item if item is not None else key)
        return self.index[key]


def build(release_files: dict[str, tuple[int, Path, str]]) -> dict:
    domains, props, blocks, lists = Interner(), Interner(), Interner(), Interner()
    releases = []
    ordered = sorted(release_files.items(), key=lambda kv: kv[1][0])
    loaded = {release: json.loads(path.read_text(encoding="utf-8")) for release, (_, path, _) in ordered}
    int_domains = IntDomains()
    for release, _ in reversed(ordered):  # newest first: prefer the values of the nearest complete release
        int_domains.learn(loaded[release])
    for release, (data_version, _path, source) in ordered:
        records = loaded[release]
        try:
            decoded = [decode_block(record, int_domains) for record in records]
        except IncompleteData as exc:
            print(f"skipping {release} ({source}): {exc}", file=sys.stderr)
            continue
        block_ids = []
        for name, properties, defaults in decoded:
            prop_ids = tuple(props.add((pname, domains.add(values, list(values)))) for pname, values in properties)
            key = (name, prop_ids, tuple(defaults))
            block_ids.append(blocks.add(key, [name, list(prop_ids), defaults]))
        list_id = lists.add(tuple(block_ids), block_ids)
        releases.append([release, data_version, list_id, source])
    return {
        "format": FORMAT,
        "source": "npm minecraft-data (MIT, PrismarineJS); see SOURCES.md",
        "domains": domains.items,
        "properties": [list(item) for item in props.items],
        "blocks": blocks.items,
        "block_lists": lists.items,
        "releases": releases,
    }


def protocol_table(mcd_data: Path) -> list[dict]:
    return json.loads((mcd_data / "pc" / "common" / "protocolVersions.json").read_text(encoding="utf-8"))


def known_releases(rows: list[dict]) -> dict[str, int]:
    known = {
        row["minecraftVersion"]: row["dataVersion"]
        for row in rows
        if RELEASE_NAME.fullmatch(row["minecraftVersion"]) and (row.get("dataVersion") or 0) > 0
    }
    known.update(EXTRA_DATA_VERSIONS)
    return dict(sorted(known.items(), key=lambda kv: (kv[1], version_key(kv[0]))))


def shipped_files(
    mcd_data: Path, rows: list[dict], known: dict[str, int], extras: dict[str, Path], package_version: str
):
    """release -> (DataVersion, blocks.json, source text) for every release whose block list is known.

    A release without its own folder borrows the folder of a sibling with the same network protocol (hotfix
    releases such as 1.21.2/1.21.3, 1.21.7/1.21.8, 26.1/26.1.2 share their block registry).
    """
    paths = json.loads((mcd_data / "dataPaths.json").read_text(encoding="utf-8"))["pc"]
    protocol = {row["minecraftVersion"]: row.get("version") for row in rows}
    folder_of = {release: paths.get(release, {}).get("blocks") for release in known}
    for release in known:
        if folder_of[release] is None and protocol.get(release) is not None:
            siblings = [
                other
                for other in known
                if folder_of.get(other)
                and paths.get(other, {}).get("blocks")
                and protocol.get(other) == protocol[release]
            ]
            if siblings:
                folder_of[release] = paths[max(siblings, key=version_key)]["blocks"]
    files: dict[str, tuple[int, Path, str]] = {}
    for release, data_version in known.items():
        folder = folder_of[release]
        if folder and version_key(release)[:2] >= OLDEST_SHIPPED:
            files[release] = (
                data_version,
                mcd_data / folder / "blocks.json",
                f"minecraft-data {package_version} data/{folder}/blocks.json",
            )
    for release, path in extras.items():
        files[release] = (
            known[release],
            path,
            f"minecraft-data commit e385f588 (PR #1211) data/pc/{release}/blocks.json",
        )
    return files


def write_releases_module(known: dict[str, int], shipped: dict[str, int]) -> None:
    def render(mapping: dict[str, int]) -> str:
        return "{\n" + "".join(f"    {name!r}: {dv},\n" for name, dv in mapping.items()) + "}"

    RELEASES_MODULE.write_text(
        '"""Release names and DataVersions. GENERATED by scripts/gen_registry.py from minecraft-data'
        ' protocolVersions.json; do not edit."""\n\n'
        f"DEFAULT_RELEASE = {DEFAULT_RELEASE!r}\n\n"
        "# Every release that has a DataVersion in protocolVersions.json (1.7.4 and newer), oldest first.\n"
        f"KNOWN_RELEASES: dict[str, int] = {render(known)}\n\n"
        "# Releases whose block list is packaged in data/registry.json.gz, oldest first.\n"
        f"SHIPPED_RELEASES: dict[str, int] = {render(shipped)}\n",
        encoding="utf-8",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mcd", type=Path, required=True, help="unpacked npm package root (holds minecraft-data/)")
    parser.add_argument(
        "--extra",
        action="append",
        default=[],
        metavar="RELEASE=blocks.json",
        help="a block list for a release the package lacks (e.g. 26.2)",
    )
    args = parser.parse_args(argv)
    mcd_data = args.mcd / "minecraft-data" / "data"
    package_version = json.loads((args.mcd / "package.json").read_text(encoding="utf-8"))["version"]
    extras = {}
    for item in args.extra:
        release, _, path = item.partition("=")
        extras[release] = Path(path)
    rows = protocol_table(mcd_data)
    known = known_releases(rows)
    files = shipped_files(mcd_data, rows, known, extras, package_version)
    data = build(files)
    DATA_FILE.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps(data, separators=(",", ":"), sort_keys=False).encode("utf-8")
    tmp = DATA_FILE.with_suffix(".tmp")
    # mtime=0 keeps the file byte-identical between runs with the same input.
    with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as out:
        out.write(payload)
    tmp.replace(DATA_FILE)
    shipped = {name: dv for name, dv, _, _ in data["releases"]}
    write_releases_module(known, shipped)
    print(
        f"{len(shipped)} releases, {len(data['blocks'])} distinct block records, "
        f"{len(data['domains'])} domains, {len(payload):,} bytes JSON, {DATA_FILE.stat().st_size:,} bytes gzip",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
