"""Every format reads into the one model, cell for cell, checked against independent readings of the same files
(nbtlib for the NBT, plain integer arithmetic for Litematica's packed longs, minecraft-data's own legacy table)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import nbtlib
import pytest

from mcb.errors import InputError
from mcb.schematics.formats import read_any

SHARED_LEGACY = "legacy.json"
SAMPLES = Path(__file__).resolve().parents[2] / "schematics"


def _litematic_cell_oracle(region) -> list[int]:
    """Palette indices of a Litematica region, decoded the slow, obvious way: the long array as one big
    little-endian integer, entry i at bit i * bits."""
    palette = region["BlockStatePalette"]
    bits = max(2, (len(palette) - 1).bit_length())
    big = sum((int(v) & (2**64 - 1)) << (64 * k) for k, v in enumerate(region["BlockStates"]))
    volume = abs(int(region["Size"]["x"]) * int(region["Size"]["y"]) * int(region["Size"]["z"]))
    return [(big >> (i * bits)) & ((1 << bits) - 1) for i in range(volume)]


def _state(entry) -> str:
    props = entry.get("Properties")
    name = str(entry["Name"])
    return name + ("[" + ",".join(f"{k}={v}" for k, v in props.items()) + "]" if props else "")


@pytest.mark.parametrize(
    "name",
    [
        "litematic_nucleation_4x4_sliding_door.litematic",
        "litematic_schematic4j_simple_v5.litematic",
        "litematic_schematic4j_demo_v6.litematic",
        "notsponge_nucleation_xor_is_litematic.schem",
    ],
)
def test_litematica_cells_match_an_independent_decoding(corpus, name):
    raw = nbtlib.load(corpus / name)
    ((_, region),) = raw["Regions"].items()
    schem = read_any(corpus / name)
    sx, sy, sz = (int(region["Size"][a]) for a in "xyz")
    px, py, pz = (int(region["Position"][a]) for a in "xyz")
    low = tuple(p + s + 1 if s < 0 else p for p, s in ((px, sx), (py, sy), (pz, sz)))
    assert schem.offset == low  # the anchor is Position space's origin
    assert schem.size == (abs(sx), abs(sy), abs(sz))
    palette = [_state(e) for e in region["BlockStatePalette"]]
    oracle = _litematic_cell_oracle(region)
    X, Z = abs(sx), abs(sz)
    for i, index in enumerate(oracle):
        x, z, y = i % X, (i // X) % Z, i // (X * Z)
        assert schem.state_at(x, y, z) == palette[index], (x, y, z)


def test_litematica_negative_sizes_put_block_entities_on_their_blocks(corpus):
    door = read_any(corpus / "litematic_nucleation_4x4_sliding_door.litematic")
    # Position (15, 8, 3), Size (-16, -9, -4): the region runs back to (0, 0, 0), so region-relative = local
    (comparator,) = door.block_entities
    assert comparator.id == "minecraft:comparator" and comparator.pos == (9, 1, 3)
    assert door.state_at(*comparator.pos).startswith("minecraft:comparator[")
    simple = read_any(corpus / "litematic_schematic4j_simple_v5.litematic")
    assert simple.offset == (-2, -1, -2)  # Position (-2, 3, 2) + Size (5, -5, -5) + 1 on the negative axes
    assert sorted(be.id for be in simple.block_entities) == ["minecraft:chest", "minecraft:chest", "minecraft:furnace"]
    assert all(simple.state_at(*be.pos).startswith(be.id + "[") for be in simple.block_entities)


def test_litematica_entities_are_placed_from_the_region_position(corpus):
    demo = read_any(corpus / "litematic_schematic4j_demo_v6.litematic")
    (boat,) = demo.entities
    assert boat.id == "minecraft:boat"
    assert boat.pos == pytest.approx((2.625, 0.0, 2.2674432233597397))  # Position (0,0,0): Pos is already local
    assert "Rotation" in boat.data and "Pos" not in boat.data and "id" not in boat.data


def test_structures_keep_untouched_cells_apart_from_air(corpus):
    wires = read_any(corpus / "nbt_nucleation_wire_shapes.nbt")
    raw = nbtlib.load(corpus / "nbt_nucleation_wire_shapes.nbt")
    palette = [_state(e) for e in raw["palette"]]
    listed = {tuple(int(v) for v in b["pos"]): palette[int(b["state"])] for b in raw["blocks"]}
    for y in range(wires.height):
        for z in range(wires.length):
            for x in range(wires.width):
                state = listed.get((x, y, z))
                untouched = state is None or state == "minecraft:structure_void"
                assert bool(wires.void[y, z, x]) == untouched
                if not untouched:
                    assert wires.state_at(x, y, z) == state
    assert int(wires.void.sum()) == 5 * 3 * 9 - len(raw["blocks"])
    cart = read_any(corpus / "nbt_nucleation_cart_curve.nbt")
    (minecart,) = cart.entities
    assert minecart.id == "minecraft:minecart" and minecart.pos == (1.5, 1.0625, 4.5)


def _structure_file(path, palettes, blocks, size=(2, 1, 2)):
    root = nbtlib.Compound(
        {
            "DataVersion": nbtlib.Int(4903),
            "size": nbtlib.List[nbtlib.Int](list(size)),
            "palettes": nbtlib.List[nbtlib.List[nbtlib.Compound]](
                [
                    nbtlib.List[nbtlib.Compound]([nbtlib.Compound({"Name": nbtlib.String(n)}) for n in p])
                    for p in palettes
                ]
            ),
            "blocks": nbtlib.List[nbtlib.Compound](
                [
                    nbtlib.Compound({"state": nbtlib.Int(s), "pos": nbtlib.List[nbtlib.Int](list(pos))})
                    for s, pos in blocks
                ]
            ),
            "entities": nbtlib.List[nbtlib.Compound]([]),
        }
    )
    nbtlib.File(root, gzipped=True).save(path)
    return path


def test_a_multi_palette_structure_reads_the_palette_asked_for(tmp_path):
    path = _structure_file(
        tmp_path / "wreck.nbt",
        [["minecraft:stone", "minecraft:air"], ["minecraft:mossy_cobblestone", "minecraft:air"]],
        [(0, (0, 0, 0)), (1, (1, 0, 0)), (0, (0, 0, 1))],
    )
    first, second = read_any(path), read_any(path, palette_index=1)
    assert [first.state_at(0, 0, 0), first.state_at(1, 0, 0), first.state_at(0, 0, 1)] == [
        "minecraft:stone",
        "minecraft:air",
        "minecraft:stone",
    ]
    assert second.state_at(0, 0, 0) == second.state_at(0, 0, 1) == "minecraft:mossy_cobblestone"
    assert bool(first.void[0, 1, 1]) and not first.void[0, 0, 1]  # (1, 0, 1) is in no block entry
    assert first.source.palettes == 2 and "palette 0 was read" in first.source.notes[0]
    with pytest.raises(InputError, match="no palette 2"):
        read_any(path, palette_index=2)


def _legacy_table(shared) -> dict:
    return json.loads((shared / "blockdata" / "minecraft-data-legacy" / SHARED_LEGACY).read_text())["blocks"]


@pytest.mark.parametrize("name", ["legacy_schematic4j_9383.schematic", "legacy_schematic4j_12727.schematic"])
def test_legacy_cells_are_minecraft_data_states_except_where_a_block_entity_or_a_neighbour_completes_them(
    corpus, shared, name
):
    table = _legacy_table(shared)
    raw = nbtlib.load(corpus / name)
    schem = read_any(corpus / name)
    assert schem.size == (int(raw["Width"]), int(raw["Height"]), int(raw["Length"]))
    blocks, data = bytes(raw["Blocks"].astype("uint8")), bytes(raw["Data"].astype("uint8"))
    completed = (
        "flower_pot",
        "potted_",
        "_bed",
        "banner",
        "_skull",
        "_head",
        "note_block",
        "_door",
        "chest",
        "sunflower",
        "lilac",
        "tall_grass",
        "large_fern",
        "rose_bush",
        "peony",
        # shapes derived from neighbours (legacy_shapes): the block and its other properties stay
        "_fence",
        "_pane",
        "iron_bars",
        "_wall",
        "_stairs",
        "redstone_wire",
        "tripwire",
        "vine",
        "grass_block",
        "_stem",
    )
    same = changed = 0
    for i in range(len(blocks)):
        x, z, y = i % schem.width, (i // schem.width) % schem.length, i // (schem.width * schem.length)
        expected = table[f"{blocks[i]}:{data[i] & 15}"]
        got = schem.state_at(x, y, z)
        if got == expected:
            same += 1
        else:
            assert any(part in expected for part in completed), (x, y, z, expected, got)
            changed += 1
    assert same > 0.99 * len(blocks)


def test_legacy_block_entity_content_becomes_state(corpus):
    cottage = read_any(corpus / "legacy_schematic4j_9383.schematic")
    chest = next(be for be in cottage.block_entities if be.pos == (5, 3, 7))
    assert chest.id == "minecraft:chest" and cottage.state_at(5, 3, 7).startswith("minecraft:chest[")
    assert not any(be.id == "minecraft:flower_pot" for be in cottage.block_entities)  # 1.13 pots have none
    assert cottage.state_at(5, 4, 11) == "minecraft:flower_pot"  # its block entity held air
    big = read_any(corpus / "legacy_schematic4j_12727.schematic")
    changes = {c["change"].split(":")[0]: c for c in big.source.conversions}
    assert changes["flower pot plants"]["cells"] == 30 and changes["bed colours"]["cells"] == 8
    shapes = next(c for c in big.source.conversions if c["change"].startswith("shapes derived from their neighbours"))
    assert shapes["carried"] is True and "stairs" in shapes["change"] and "fences" in shapes["change"]
    potted = [s for s in big.palette if s.startswith("minecraft:potted_")]
    assert potted and len(big.block_entities) + 30 + 3 == 113  # 30 pots and 3 note blocks became states
    doors = [s for s in big.palette if "_door[" in s and "half=upper" in s]
    assert doors and all("facing=" in s for s in doors)


def test_legacy_block_entity_data_is_said_to_be_kept_as_1_12_wrote_it(corpus):
    from mcb.schematics.formats import read_any

    cabin = read_any(SAMPLES / "cabin.schematic")
    kept = [c for c in cabin.source.conversions if c["change"].startswith("block-entity data")]
    assert kept and kept[0]["cells"] == len(cabin.block_entities) and kept[0]["carried"] is False


def test_format_is_told_by_content_not_by_name(corpus, tmp_path):
    disguised = tmp_path / "really_a_structure.schem"
    disguised.write_bytes((corpus / "nbt_fawe_minecraft_structure.nbt").read_bytes())
    assert read_any(disguised).source.format == "structure"
    assert read_any(corpus / "notsponge_nucleation_xor_is_litematic.schem").source.format == "litematic"


def test_the_fawe_clipboard_saved_three_ways_reads_the_same(corpus):
    sponge = read_any(corpus / "v2_fawe_sponge2.schem")
    structure = read_any(corpus / "nbt_fawe_minecraft_structure.nbt")
    cells = [(x, 0, z) for x in range(2) for z in range(2)]
    assert [sponge.state_at(*c) for c in cells] == [structure.state_at(*c) for c in cells]


def test_gzip_and_raw_nbt_both_read(corpus, tmp_path):
    raw = tmp_path / "raw.litematic"
    raw.write_bytes(gzip.decompress((corpus / "litematic_schematic4j_demo_v6.litematic").read_bytes()))
    assert read_any(raw).source.compressed is False
    assert read_any(raw).size == (4, 3, 4)


UNREADABLE = {
    "v1_fawe_sponge1_degenerate.schem": "sponge.blockdata.too_few",  # an empty palette, no cells
    "v3_nucleation_stone_cube_1GB_inflated.schem": "nbt.limit.inflated",
}  # the 1 GB bomb


def test_every_corpus_file_reads_into_the_model_or_is_refused_for_its_known_fault(corpus):
    names = sorted(p.name for p in corpus.iterdir() if p.name != "README.md")
    assert len(names) == 33
    for name in names:
        if name in UNREADABLE:
            with pytest.raises(InputError) as caught:
                read_any(corpus / name)
            assert caught.value.rule == UNREADABLE[name], name
            continue
        schem = read_any(corpus / name)
        assert schem.volume == schem.blocks.size > 0 and schem.palette, name
        assert schem.source.format in ("sponge", "litematic", "structure", "legacy"), name
