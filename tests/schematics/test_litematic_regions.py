"""Litematica's regions and packed ``BlockStates`` through mcb: a file with several regions is written back with
every region (names, Positions, negative Sizes, cells, block entities and entities where they were), and the packing
agrees with the slow, obvious reading of the layout (the long array as one little-endian number)."""

from __future__ import annotations

import nbtlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcb.schematics.formats import encode_any, read_any
from mcb.schematics.formats.bit_packing import bits_for, pack_indices, unpack_indices
from mcb.schematics.formats.losses import format_losses

N = nbtlib.tag


def _packed(values: list[int], bits: int) -> list[int]:
    """Signed longs of ``values`` packed little end first, entries across longs: one big integer, cut in 64s."""
    big = sum(v << (i * bits) for i, v in enumerate(values))
    count = -(-len(values) * bits // 64)
    words = [(big >> (64 * k)) & (2**64 - 1) for k in range(count)]
    return [w - 2**64 if w >= 2**63 else w for w in words]


def _unpacked(words, bits: int, count: int) -> list[int]:
    big = sum((int(w) & (2**64 - 1)) << (64 * k) for k, w in enumerate(words))
    return [(big >> (i * bits)) & ((1 << bits) - 1) for i in range(count)]


def _xyz(v) -> nbtlib.Compound:
    return N.Compound({"x": N.Int(v[0]), "y": N.Int(v[1]), "z": N.Int(v[2])})


def _region(position, size, palette, cells, tile_entities=(), entities=()) -> nbtlib.Compound:
    bits = max(2, (len(palette) - 1).bit_length())
    return N.Compound(
        {
            "Position": _xyz(position),
            "Size": _xyz(size),
            "BlockStatePalette": N.List[N.Compound]([N.Compound({"Name": N.String(p)}) for p in palette]),
            "BlockStates": N.LongArray(_packed(cells, bits)),
            "TileEntities": N.List[N.Compound](list(tile_entities)),
            "Entities": N.List[N.Compound](list(entities)),
            "PendingBlockTicks": N.List[N.Compound]([]),
            "PendingFluidTicks": N.List[N.Compound]([]),
        }
    )


# Two regions that do not touch: "Keep" (3 x 2 x 2) saved with a negative Size on x and z, as when the selection
# is made from its far corner, and "Shed" (4 x 3 x 2) standing apart from it. A 5-entry palette: 3-bit entries,
# 21 to a long, so entries run across longs.
KEEP = ((12, 5, -3), (-3, 2, -2))  # its minimum corner is (10, 5, -4)
SHED = ((14, 4, 1), (4, 3, 2))
KEEP_PALETTE = ["minecraft:air", "minecraft:stone", "minecraft:oak_planks", "minecraft:chest", "minecraft:glass"]
SHED_PALETTE = ["minecraft:air", "minecraft:cobblestone", "minecraft:barrel", "minecraft:torch", "minecraft:dirt"]
KEEP_CELLS = [1, 2, 3, 4, 1, 0, 2, 2, 4, 4, 1, 3]
SHED_CELLS = [(i * 7 + 3) % 5 for i in range(24)]


@pytest.fixture
def two_regions(tmp_path):
    chest = N.Compound({"x": N.Int(2), "y": N.Int(0), "z": N.Int(0), "id": N.String("minecraft:chest")})
    barrel = N.Compound(
        {
            "x": N.Int(1),
            "y": N.Int(2),
            "z": N.Int(1),
            "id": N.String("minecraft:barrel"),
            "Items": N.List[N.Compound](
                [N.Compound({"Slot": N.Byte(0), "id": N.String("minecraft:apple"), "Count": N.Byte(3)})]
            ),
        }
    )
    pig = N.Compound(
        {"id": N.String("minecraft:pig"), "Pos": N.List[N.Double]([N.Double(1.5), N.Double(1.0), N.Double(0.5)])}
    )
    cells = list(SHED_CELLS)
    cells[(2 * 2 + 1) * 4 + 1] = 2  # the barrel's block at x 1, y 2, z 1: cell (y * Z + z) * X + x
    root = N.Compound(
        {
            "MinecraftDataVersion": N.Int(3700),
            "Version": N.Int(6),
            "Metadata": N.Compound({"Name": N.String("Farm"), "Author": N.String("test")}),
            "Regions": N.Compound(
                {
                    "Keep": _region(*KEEP, KEEP_PALETTE, KEEP_CELLS, [chest], [pig]),
                    "Shed": _region(*SHED, SHED_PALETTE, cells, [barrel]),
                }
            ),
        }
    )
    path = tmp_path / "farm.litematic"
    nbtlib.File(root, gzipped=True).save(path)
    return path, {"Keep": KEEP_CELLS, "Shed": cells}


def test_a_file_with_two_regions_is_written_with_both_cell_for_cell(two_regions, tmp_path):
    path, cells = two_regions
    schem = read_any(path)
    assert format_losses(schem, "litematic") == []  # the cells outside both regions stay outside the file
    out = tmp_path / "again.litematic"
    out.write_bytes(encode_any(schem, "litematic"))
    original, written = nbtlib.load(path), nbtlib.load(out)
    assert list(written["Regions"]) == ["Keep", "Shed"]
    assert int(written["Metadata"]["RegionCount"]) == 2
    for name in ("Keep", "Shed"):
        before, after = original["Regions"][name], written["Regions"][name]
        assert after["Position"] == before["Position"] and after["Size"] == before["Size"]  # negative Size kept
        palette = [str(e["Name"]) for e in after["BlockStatePalette"]]
        count = len(cells[name])
        states = [palette[i] for i in _unpacked(after["BlockStates"], bits_for(len(palette)), count)]
        stored = KEEP_PALETTE if name == "Keep" else SHED_PALETTE
        assert states == [stored[i] for i in cells[name]]
    (chest,) = written["Regions"]["Keep"]["TileEntities"]
    assert (int(chest["x"]), int(chest["y"]), int(chest["z"]), str(chest["id"])) == (2, 0, 0, "minecraft:chest")
    (barrel,) = written["Regions"]["Shed"]["TileEntities"]
    assert barrel == original["Regions"]["Shed"]["TileEntities"][0]
    (pig,) = written["Regions"]["Keep"]["Entities"]
    assert [float(v) for v in pig["Pos"]] == [1.5, 1.0, 0.5]  # from the region's Position, as read
    assert written["Regions"]["Shed"]["Entities"] == []
    again = read_any(out)
    assert again.size == schem.size and again.offset == schem.offset
    assert np.array_equal(again.void, schem.void)
    placed = ~schem.void
    assert [again.palette[i] for i in again.blocks[placed]] == [schem.palette[i] for i in schem.blocks[placed]]
    assert [(be.pos, be.id) for be in again.block_entities] == [(be.pos, be.id) for be in schem.block_entities]
    assert [(e.pos, e.id) for e in again.entities] == [(e.pos, e.id) for e in schem.entities]
    assert again.source.regions == schem.source.regions


def test_regions_that_no_longer_fit_the_model_are_written_as_one_region_and_said(two_regions, tmp_path):
    from mcb.schematics.transform import rotate_schematic

    path, _ = two_regions
    turned = rotate_schematic(read_any(path), 90)  # the box turned: the regions stored no longer describe it
    (loss,) = format_losses(turned, "litematic")
    assert loss["what"] == "void cells" and "written as air" in loss["detail"]
    out = tmp_path / "turned.litematic"
    out.write_bytes(encode_any(turned, "litematic"))
    written = nbtlib.load(out)
    assert list(written["Regions"]) == ["Farm"] and int(written["Metadata"]["RegionCount"]) == 1
    back = read_any(out)
    assert back.size == turned.size and back.void is None


@settings(max_examples=200, deadline=None)
@given(bits=st.integers(1, 31), data=st.data())
def test_packing_agrees_with_the_layout_read_as_one_number(bits, data):
    values = data.draw(st.lists(st.integers(0, 2**bits - 1), max_size=300))
    words = pack_indices(np.array(values, dtype=np.int64), bits)
    assert words.dtype == np.int64 and words.tolist() == _packed(values, bits)
    assert unpack_indices(words, bits, len(values)).tolist() == values
    assert unpack_indices(words.astype(">i8"), bits, len(values)).tolist() == values  # the longs as NBT holds them


def test_unpacking_reads_the_last_entries_from_a_cut_period():
    # 10-bit entries repeat every 32 entries in 5 longs: 33 entries need 6 longs, the last only 10 bits of one
    values = list(range(33))
    words = np.array(_packed(values, 10), dtype=np.int64)
    assert words.size == 6 and unpack_indices(words, 10, 33).tolist() == values


@pytest.mark.parametrize(
    "name",
    [
        "litematic_schematic4j_simple_v5.litematic",
        "v2_nucleation_Evaluator_entities.schem",
        "v2_schematic4j_interieur-exterieur.schem",
    ],
)
def test_block_entities_are_encoded_byte_for_byte_as_tags_would_encode_them(corpus, name):
    # the memo encodes each distinct (id, data) once; the bytes and the counts are those of every entry on its own
    from mcb.schematics.formats.common import without
    from mcb.schematics.formats.litematic_writer import tile_entity_list
    from mcb.schematics.nbt import TAG_COMPOUND, Compound, Int, List, String
    from mcb.schematics.nbt_encoder import encode_payload, tree_facts

    schem = read_any(corpus / name)
    assert schem.block_entities
    low = (1, 0, 2)
    plain = List((), TAG_COMPOUND)
    for be in schem.block_entities:
        entry = Compound(x=Int(be.pos[0] - low[0]), y=Int(be.pos[1] - low[1]), z=Int(be.pos[2] - low[2]))
        entry["id"] = String(be.id)
        entry.update(without(be.data, "x", "y", "z", "id"))
        plain.append(entry)
    pieces = tile_entity_list(schem.block_entities, low)
    expected: list[bytes] = []
    facts = encode_payload(expected, 9, plain)
    assert b"".join(pieces.pieces) == b"".join(expected)
    assert (pieces.tags, pieces.depth) == facts == tree_facts(plain)


@pytest.mark.parametrize("name", ["v3_nucleation_uss-texas.schem", "v2_schematic4j_interieur-exterieur.schem"])
def test_a_palette_is_encoded_byte_for_byte_as_its_compounds_would_be(corpus, name):
    from mcb.schematics.formats.common import compound_from_state, encoded_states
    from mcb.schematics.nbt import TAG_COMPOUND, List
    from mcb.schematics.nbt_encoder import encode_payload, tree_facts

    palette = read_any(corpus / name).palette
    for states in (palette, palette[:1], []):
        plain = List([compound_from_state(state) for state in states], TAG_COMPOUND)
        expected: list[bytes] = []
        encode_payload(expected, 9, plain)
        encoded = encoded_states(states)
        assert b"".join(encoded.pieces) == b"".join(expected)
        assert (encoded.tags, encoded.depth) == tree_facts(plain)


def test_dropping_extras_keeps_the_regions_and_the_cells_they_leave_out(two_regions, tmp_path):
    """convert --drop-extras of a Litematica file with an entity no format can write (no id) drops that entity
    only: the two regions and the cells outside both stay as they were (the gap used to become air, the regions
    one)."""
    from mcb.schematics.convert import convert_schematic

    path, _ = two_regions
    root = nbtlib.load(path)
    root["Regions"]["Keep"]["Entities"].append(N.Compound({"Pos": N.List[N.Double]([N.Double(0.5)] * 3)}))
    root.save(path)
    out = tmp_path / "kept.litematic"
    convert_schematic(path, out, fmt="litematic", drop_extras=True)
    source, written = read_any(path), read_any(out)
    assert list(nbtlib.load(out)["Regions"]) == ["Keep", "Shed"]
    assert written.void is not None and np.array_equal(written.void, source.void)
    assert len(written.entities) == len(source.entities) - 1


def test_one_entity_without_an_id_is_said_in_the_singular(two_regions):
    path, _ = two_regions
    root = nbtlib.load(path)
    root["Regions"]["Keep"]["Entities"].append(N.Compound({"Pos": N.List[N.Double]([N.Double(0.5)] * 3)}))
    root.save(path)
    (loss,) = [loss for loss in format_losses(read_any(path), "litematic") if loss["what"] == "without id"]
    assert loss["detail"] == "1 entity without an id is not written: no format can say what it is"
