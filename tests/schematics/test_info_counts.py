"""`mcb schem info`'s counts, each computed here again from the file with nbtlib (not mcb's reader): non-air blocks
and the palette's cell counts (with thousands separators), the block entities (what the list leaves out is
counted), and a server line that agrees with the rows above it (issue 29, "Numbers")."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter

import nbtlib
import pytest

AIR = {"minecraft:air", "minecraft:cave_air", "minecraft:void_air"}


def _varints(data) -> list[int]:
    values, value, shift = [], 0, 0
    for byte in bytes(int(b) & 0xFF for b in data):
        value |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
        else:
            values.append(value)
            value, shift = 0, 0
    return values


def _sponge(path):
    """(cells per state string, block entity ids) of a Sponge v2 or v3 file."""
    root = nbtlib.load(path)
    if "Schematic" in root:  # v3
        blocks = root["Schematic"]["Blocks"]
        palette, data, entities = blocks["Palette"], blocks["Data"], blocks.get("BlockEntities", [])
    else:
        palette, data = root["Palette"], root["BlockData"]
        entities = root.get("BlockEntities", root.get("TileEntities", []))
    names = {int(index): str(state) for state, index in palette.items()}
    cells = Counter(names[i] for i in _varints(data))
    return cells, Counter(str(e["Id"]) for e in entities)


def _number(text: str) -> int:
    assert re.fullmatch(r"\d{1,3}(,\d{3})*", text), f"{text!r} is not a count with thousands separators"
    return int(text.replace(",", ""))


def _rows(stdout: str) -> dict[str, str]:
    return dict(line.split(":", 1) for line in stdout.splitlines() if re.match(r"^[a-zA-Z -]+: ", line))


@pytest.mark.parametrize("name", ["v3_nucleation_uss-texas.schem", "v2_schematic4j_interieur-exterieur.schem"])
def test_non_air_blocks_and_palette_counts_are_the_files(cli, corpus, name):
    cells, _ = _sponge(corpus / name)
    result = cli("schem", "info", str(corpus / name))
    assert result.exit_code == 0, result.stderr
    rows = _rows(result.stdout)
    assert _number(rows["non-air blocks"].strip()) == sum(n for s, n in cells.items() if s.split("[")[0] not in AIR)
    table = [line.split("│") for line in result.stdout.splitlines() if line.count("│") == 1]
    shown = [_number(count.strip()) for _state, count in table]
    assert len(shown) == 20 and shown == sorted(cells.values(), reverse=True)[:20]
    assert f"palette ({len(cells):,} states, the 20 most common)" in result.stdout


def test_the_block_entity_list_says_what_it_leaves_out(cli, corpus):
    """931 block entities of 23 kinds: four are named, and the rest is counted, so the numbers add up."""
    name = "v2_schematic4j_interieur-exterieur.schem"
    _, ids = _sponge(corpus / name)
    line = _rows(cli("schem", "info", str(corpus / name)).stdout)["block entities"].strip()
    match = re.fullmatch(r"([\d,]+) \((.*) and ([\d,]+) more of ([\d,]+) other ids\)", line)
    assert match, line
    named = {k: _number(n) for k, n in re.findall(r"(minecraft:\w+) x(\d{1,3}(?:,\d{3})*)", match.group(2))}
    assert _number(match.group(1)) == sum(ids.values()) == 931
    assert named == dict(ids.most_common(4))
    assert _number(match.group(3)) == sum(ids.values()) - sum(named.values())
    assert _number(match.group(4)) == len(ids) - 4


def test_the_server_line_names_the_field_it_refuses(cli, corpus):
    """Texas has no biomes: the refusal's words mention them, so the line says what the file really has that
    the server refuses (the v3 wrapper), not just "biomes/custom data"."""
    root = nbtlib.load(corpus / "v3_nucleation_uss-texas.schem")
    rows = _rows(cli("schem", "info", str(corpus / "v3_nucleation_uss-texas.schem")).stdout)
    assert rows["biomes"].strip() == "none" and "Biomes" not in root["Schematic"]
    server = rows["server"]
    assert "rejected (target 26.2): this is Sponge v3" in server
    assert f"unsupported root tags: {', '.join(root)}" in server  # the one root tag, Schematic


def test_the_upgrade_lines_and_the_server_hint_count_with_separators(cli, corpus):
    # Before: info said "... double chests): 1154 cells" and validate's hint "at most 4096 cells".
    path = corpus / "legacy_schematic4j_12727.schematic"
    info = cli("schem", "info", str(path))
    assert info.exit_code == 0, info.stderr
    (shapes,) = [line for line in info.stdout.splitlines() if "double chests)" in line]
    assert shapes.endswith("double chests): 1,154 cells")
    assert "fire faces: not stored by the numeric format, left at their 1.13 defaults: 5 cells" in info.stdout
    validated = cli("schem", "validate", str(path))
    assert "Sponge v2 files of at most 4,096 cells" in validated.stdout and "4096" not in validated.stdout


def test_the_convert_refusal_lists_block_entity_kinds_as_info_does(cli, corpus, tmp_path):
    # Before: "(29507x minecraft:comparator, 12076x minecraft:barrel, 213x minecraft:skull)", what it left out unsaid.
    source = nbtlib.load(corpus / "v2_nucleation_large_schematic.schem")
    ids = Counter(str(e["Id"]) for e in source["BlockEntities"]).most_common()
    result = cli(
        "schem", "convert", str(corpus / "v2_nucleation_large_schematic.schem"), "-o", str(tmp_path / "l.schem")
    )
    assert result.exit_code == 1
    rest = ids[3:]
    listed = ", ".join(f"{name} x{count:,}" for name, count in ids[:3])
    assert (
        f"{sum(n for _, n in ids):,} block entities ({listed} and {sum(n for _, n in rest):,} more of "
        f"{len(rest)} other ids): the server imports no block-entity data"
    ) in result.stderr
    assert not re.search(r"\d+x minecraft:", result.stderr)


def test_a_legacy_files_entities_are_counted_as_entities_not_cells(corpus):
    """The entity data a legacy file keeps as 1.12 wrote it is counted in entities (it said '73 cells')."""
    from mcb.schematics.formats import read_any
    from mcb.schematics.info import describe_schematic

    path = corpus / "legacy_schematic4j_12727.schematic"
    entities = len(read_any(path).entities)
    conversions = describe_schematic(path)["upgrade"]["conversions"]
    (kept,) = [c for c in conversions if c["change"].startswith("entity data")]
    assert (kept["cells"], kept["noun"]) == (entities, "entity")
    result = subprocess.run([sys.executable, "-m", "mcb", "schem", "info", str(path)], capture_output=True, text=True)
    assert f"a newer game may not read all of it: {entities} entities" in result.stdout
