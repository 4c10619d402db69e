"""Upgrade a schematic's block states to a target release: renames by DataVersion, then what the release can hold.

    upgraded, report = upgrade_schematic(schem, registry)            # refuses unknown blocks (InputError)
    upgraded, report = upgrade_schematic(schem, registry, strict=False)  # only reports them (schem info)

One upgrade serves ``convert``, ``rotate``/``mirror``, ``info`` and the build path, so every command sees one
answer. Steps, each counted in the report (text and ``--json``), never silent:

1. **Renames** (spec formats-and-building.md §B) apply by the file's DataVersion — unless the palette disagrees
   with it: a block that exists only since a later release proves the number wrong (Nucleation writes 1343, 1.12.2,
   into files with modern states), and then only renames made after that release apply.
2. **Properties** the target release does not have for a block (a mod's, like a fence's ``north_east``), or values
   it does not allow, are dropped; the rest of the state is kept.
3. **Unknown blocks** are refused, naming them with their cell counts, unless ``replace_unknown`` maps them.
4. ``canonical=True`` (building, verifying) writes every state in full, as the server compares them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from mcb.blocks.state import BlockState, parse_state
from mcb.errors import InputError
from mcb.schematics.model import Schematic

# (old id, new id, the release that renamed it); cauldron is special-cased below (only its filled levels moved).
RENAMES = (
    ("sign", "oak_sign", "1.14"),
    ("wall_sign", "oak_wall_sign", "1.14"),
    ("stone_slab", "smooth_stone_slab", "1.14"),
    ("grass_path", "dirt_path", "1.17"),
    ("cauldron", "water_cauldron", "1.17"),
    ("grass", "short_grass", "1.20.3"),
    ("chain", "iron_chain", "1.21.9"),
)
# Values a release changed in place: 1.16 gave wall sides heights (none/low/tall) instead of true/false.
VALUE_CHANGES = (("_wall", ("north", "east", "south", "west"), "1.16", {"true": "low", "false": "none"}),)


@dataclass
class UpgradeReport:
    release: str
    data_version: dict = field(default_factory=dict)  # {"file", "read_as", "note"}
    renamed: list[dict] = field(default_factory=list)  # {"from", "to", "release", "cells"}
    dropped_properties: list[dict] = field(default_factory=list)  # {"block", "properties", "cells"}
    unknown: list[dict] = field(default_factory=list)  # {"block", "cells"}
    replaced_unknown: list[dict] = field(default_factory=list)  # {"from", "to", "cells"}
    conversions: list[dict] = field(default_factory=list)  # legacy reads: {"change", "cells", "carried"}
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.renamed or self.dropped_properties or self.replaced_unknown or self.unknown)

    def to_json(self) -> dict:
        return {
            "release": self.release,
            "data_version": self.data_version,
            "renamed": self.renamed,
            "dropped_properties": self.dropped_properties,
            "unknown": self.unknown,
            "replaced_unknown": self.replaced_unknown,
            "conversions": self.conversions,
            "notes": self.notes,
        }

    def lines(self) -> list[str]:
        """The report as sentences for text output."""
        out = []
        if self.data_version.get("note"):
            out.append(self.data_version["note"])
        out += [f"renamed {r['from']} -> {r['to']} ({r['release']}): {_cells(r['cells'])}" for r in self.renamed]
        out += [
            f"dropped {d['block']}'s "
            + ("property " if len(d["properties"]) == 1 else "properties ")
            + ", ".join(d["properties"])
            + f" (not in Minecraft {self.release}): {_cells(d['cells'])}"
            for d in self.dropped_properties
        ]
        out += [f"replaced unknown {r['from']} with {r['to']}: {_cells(r['cells'])}" for r in self.replaced_unknown]
        out += [f"unknown in Minecraft {self.release}: {u['block']} ({_cells(u['cells'])})" for u in self.unknown]
        out += [f"{c['change']}: {conversion_count(c)}" for c in self.conversions]
        return out + self.notes


def _cells(n: int) -> str:
    from mcb.wording import plural

    return plural(n, "cell")


def conversion_count(entry: dict) -> str:
    """A conversion's count in words: cells, or what its ``noun`` says (a legacy file's entities are no cells)."""
    from mcb.wording import plural

    return plural(entry["cells"], entry.get("noun", "cell"))


@lru_cache(maxsize=4096)
def first_release_with(name: str) -> str | None:
    """The oldest shipped release whose block list has ``name`` (namespaced), or None."""
    from mcb.blocks.registry import load_registry
    from mcb.blocks.releases import SHIPPED_RELEASES

    for release in sorted(SHIPPED_RELEASES, key=SHIPPED_RELEASES.__getitem__):
        if name in load_registry(release):
            return release
    return None


def _parsed(text: str) -> BlockState:
    """A palette state; one that does not parse is a block of that whole name (unknown to every release)."""
    from mcb.blocks.state import BlockStateError

    try:
        return parse_state(text)
    except BlockStateError:
        return BlockState(text, ())


def used_counts(schem: Schematic) -> dict[int, int]:
    """Cells per palette index, void cells left out (only these are placed)."""
    flat = schem.blocks.ravel() if schem.void is None else schem.blocks.ravel()[~schem.void.ravel()]
    counts = np.bincount(flat, minlength=len(schem.palette)) if flat.size else np.zeros(len(schem.palette), int)
    return {i: int(n) for i, n in enumerate(counts.tolist()) if n}


def read_as(schem: Schematic, names: list[str]) -> tuple[int, str | None]:
    """(the DataVersion the renames go by, a note when the palette disagrees with the file's)."""
    from mcb.blocks.registry import release_name
    from mcb.blocks.releases import SHIPPED_RELEASES

    file_dv = 0 if schem.source.data_version_assumed else (schem.data_version or 0)
    floor, proof = 0, None
    for name in names:
        release = first_release_with(name)
        if release is not None and SHIPPED_RELEASES[release] > floor:
            floor, proof = SHIPPED_RELEASES[release], (name, release)
    if proof is None or file_dv >= floor:
        return file_dv, None
    if schem.source.data_version_assumed:
        return floor, (
            f"the file has no DataVersion: it is read as Minecraft {proof[1]}, the oldest release with "
            f"every block it names ({proof[0]} exists only since then)"
        )
    said = f"DataVersion {file_dv}" + (f" (Minecraft {release_name(file_dv)})" if release_name(file_dv) else "")
    if floor == min(SHIPPED_RELEASES.values()):
        return floor, (
            f"{said} predates block states (Minecraft {proof[1]}), which the palette uses: the file is "
            f"read as {proof[1]}"
        )
    return floor, (
        f"{said} disagrees with the palette: {proof[0]} exists only since {proof[1]}, so the file is read "
        f"as {proof[1]} and no rename made before it is applied"
    )


def _rename(state: BlockState, since_dv: int, target_dv: int) -> tuple[BlockState, str | None]:
    from mcb.blocks.releases import KNOWN_RELEASES

    path = state.id
    for old, new, release in RENAMES:
        if path == old and since_dv < KNOWN_RELEASES[release] <= target_dv:
            if old == "cauldron":
                level = state.get("level")
                props = tuple(p for p in state.properties if p[0] != "level")
                if level in (None, "0"):  # an empty cauldron keeps its name and loses the level it no longer has
                    return BlockState(state.name, props), None
                return BlockState(f"minecraft:{new}", (("level", level),)), release
            return BlockState(f"minecraft:{new}", state.properties), release
    for suffix, keys, release, values in VALUE_CHANGES:
        if path.endswith(suffix) and since_dv < KNOWN_RELEASES[release] <= target_dv:
            return BlockState(
                state.name, tuple((k, values.get(v, v) if k in keys else v) for k, v in state.properties)
            ), None
    return state, None


def upgrade_schematic(
    schem: Schematic, registry, *, replace_unknown: str | None = None, strict: bool = True, canonical: bool = False
) -> tuple[Schematic, UpgradeReport]:
    """(the schematic with states the target release holds, what changed). Unused palette entries are dropped."""
    counts = used_counts(schem)
    parsed = {i: _parsed(schem.palette[i]) for i in counts}
    since, note = read_as(schem, sorted({p.name for p in parsed.values()}))
    report = UpgradeReport(
        release=registry.release,
        conversions=list(schem.source.conversions),
        notes=list(schem.source.notes),
        data_version={"file": schem.data_version, "read_as": since, "note": note},
    )
    renamed: Counter = Counter()
    dropped: dict[str, list] = {}  # block -> [property names, cells]
    unknown: Counter = Counter()
    unknown_at: list[int] = []
    states: dict[int, str] = {}
    for i, state in parsed.items():
        new, release = _rename(state, since, registry.data_version)
        if release is not None:
            renamed[(state.name, new.name, release)] += counts[i]
        info = registry.block(new.name)
        if info is None:
            unknown[new.name] += counts[i]
            unknown_at.append(i)
            states[i] = str(new)
            continue
        kept = [(key, value) for key, value in new.properties if value in info.properties.get(key, ())]
        if len(kept) < len(new.properties):
            entry = dropped.setdefault(new.name, [set(), 0])
            entry[0].update(key for key, value in new.properties if (key, value) not in kept)
            entry[1] += counts[i]
        text = str(BlockState(new.name, tuple(kept)))
        states[i] = registry.canonicalize(text) if canonical else text
    report.renamed = [{"from": a, "to": b, "release": r, "cells": n} for (a, b, r), n in renamed.items()]
    report.dropped_properties = [
        {"block": b, "properties": sorted(keys), "cells": n} for b, (keys, n) in dropped.items()
    ]
    if unknown:
        if replace_unknown is not None:
            target = registry.canonicalize(replace_unknown)  # refuses a replacement the release does not know
            for i in unknown_at:
                states[i] = target
            report.replaced_unknown = [{"from": b, "to": target, "cells": n} for b, n in unknown.items()]
        else:
            report.unknown = [{"block": b, "cells": n} for b, n in unknown.most_common()]
            if strict:
                raise unknown_blocks_error(report)
    palette = list(schem.palette)
    for i, text in states.items():
        palette[i] = text
    return replace(schem, palette=palette, data_version=registry.data_version), report


def target_registry(schem: Schematic, mc_version: str | int | None = None):
    """The release an offline edit or conversion writes: ``mc_version`` when given, else the file's own (as the
    palette proves it, see :func:`read_as`); legacy files and files without a DataVersion go to the default
    release."""
    from mcb.blocks.registry import load_registry
    from mcb.errors import UsageError

    if mc_version is not None:
        return load_registry(mc_version)
    if schem.source.format == "legacy" or schem.source.data_version_assumed or not schem.data_version:
        return load_registry(None)
    names = sorted({_parsed(schem.palette[i]).name for i in used_counts(schem)})
    try:
        return load_registry(read_as(schem, names)[0])
    except UsageError:  # older than every packaged list (e.g. a bogus 1.12.2 number on a palette of unknown names)
        return load_registry(None)


def check_replacement(state: str | None, mc_version: str | int | None = None) -> None:
    """Refuse a ``replace_unknown`` state the target release does not know, before any file is read (a typo
    would otherwise pass unnoticed on a file without unknown blocks)."""
    if state is None:
        return
    from mcb.blocks.registry import load_registry
    from mcb.blocks.state import BlockStateError
    from mcb.errors import UsageError

    try:
        load_registry(mc_version).canonicalize(state)
    except BlockStateError as error:
        raise UsageError(
            f"{{replace_unknown}} {state}: {error.template}",
            hint=error.hint_template,
            details={"field": "replace_unknown"},
        ) from None


def unknown_blocks_error(report: UpgradeReport) -> InputError:
    listed = ", ".join(f"{u['block']} ({_cells(u['cells'])})" for u in report.unknown[:8])
    more = f" and {len(report.unknown) - 8:,} more" if len(report.unknown) > 8 else ""
    from mcb.wording import plural

    return InputError(
        f"{plural(len(report.unknown), 'block')} unknown in Minecraft {report.release}: {listed}{more}",
        code="schem.unknown_blocks",
        hint="map them to a block of this release with "
        "{replace_unknown=BLOCK} (e.g. {replace_unknown=minecraft:air}), or choose the release they "
        "belong to with {mc_version}",
        details={"unknown": report.unknown, "release": report.release},
    )
