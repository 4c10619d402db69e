"""Block entities are one eager model: a list of BlockEntity with real data. Through rotate/mirror their contents
must survive, their positions must move, and each entry owns its data."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from schem_nbt_bytes import document

from mcb.schematics.formats.sponge import read_schematic
from mcb.schematics.formats.sponge_writer import encode_schematic
from mcb.schematics.model import BlockEntity
from mcb.schematics.nbt import Compound, String
from mcb.schematics.rewrite import transform_file
from mcb.schematics.transform import mirror_schematic, rotate_schematic

W, H, L = 5, 2, 3
PALETTE = [
    "minecraft:air",
    "minecraft:chest[facing=north,type=single,waterlogged=false]",
    "minecraft:chiseled_bookshelf[facing=north,slot_0_occupied=true,slot_1_occupied=false,"
    "slot_2_occupied=false,slot_3_occupied=false,slot_4_occupied=false,slot_5_occupied=false]",
]


def item(slot: int, ident: str, count: int, lore: list[str]) -> list:
    """A chest item with nested containers: a compound of a list of strings and a compound inside."""
    return [
        ("Slot", 1, slot),
        ("id", 8, ident),
        ("Count", 1, count),
        (
            "tag",
            10,
            [
                ("display", 10, [("Lore", 9, (8, lore)), ("Name", 8, '{"text":"x"}')]),
                ("Enchantments", 9, (10, [[("id", 8, "minecraft:sharpness"), ("lvl", 2, 5)]])),
            ],
        ),
    ]


CONTENTS = [
    [("Items", 9, (10, [item(0, "minecraft:diamond_sword", 1, ["a", "b"]), item(13, "minecraft:stone", 64, [])]))],
    [("Items", 9, (10, [])), ("CustomName", 8, '{"text":"Loot é"}')],
    [("Items", 9, (10, [item(2, "minecraft:book", 1, ["ü"])])), ("Lock", 8, "")],
]


def schematic_bytes(
    entries: list[tuple[tuple[int, int, int], str, int]], blocks: list[int] | None = None, version: int = 2
) -> bytes:
    """A v2 (or v3) file with block entities ``(pos, id, contents index)``, written by the independent byte
    builder; v3 nests the contents in ``Data``."""
    cells = blocks or [1] * (W * H * L)
    if version == 3:
        block_entities = [
            [("Pos", 11, list(pos)), ("Id", 8, ident), ("Data", 10, CONTENTS[kind])] for pos, ident, kind in entries
        ]
        return document(
            [
                (
                    "Schematic",
                    10,
                    [
                        ("Version", 3, 3),
                        ("DataVersion", 3, 3700),
                        ("Width", 2, W),
                        ("Height", 2, H),
                        ("Length", 2, L),
                        ("Offset", 11, [0, 0, 0]),
                        (
                            "Blocks",
                            10,
                            [
                                ("Palette", 10, [(state, 3, i) for i, state in enumerate(PALETTE)]),
                                ("Data", 7, bytes(cells)),
                                ("BlockEntities", 9, (10, block_entities)),
                            ],
                        ),
                    ],
                )
            ],
            root_name="",
        )
    block_entities = [[("Pos", 11, list(pos)), ("Id", 8, ident), *CONTENTS[kind]] for pos, ident, kind in entries]
    return document(
        [
            ("Version", 3, 2),
            ("DataVersion", 3, 3700),
            ("Width", 2, W),
            ("Height", 2, H),
            ("Length", 2, L),
            ("Offset", 11, [0, 0, 0]),
            ("PaletteMax", 3, len(PALETTE)),
            ("Palette", 10, [(state, 3, i) for i, state in enumerate(PALETTE)]),
            ("BlockData", 7, bytes(cells)),
            ("BlockEntities", 9, (10, block_entities)),
        ]
    )


def every_cell() -> list[tuple[int, int, int]]:
    return [(x, y, z) for y in range(H) for z in range(L) for x in range(W)]


def test_rotating_keeps_nested_contents_and_moves_positions(tmp_path):
    entries = [(pos, "minecraft:chest", i % 2 if i % 7 else 2) for i, pos in enumerate(every_cell())]
    source = tmp_path / "chests.schem"
    source.write_bytes(schematic_bytes(entries))
    out = tmp_path / "turned.schem"
    transform_file(source, out, degrees=90)
    turned = read_schematic(out)
    original = read_schematic(source)
    expected = {(L - 1 - z, y, x): (be.id, dict(be.data)) for be in original.block_entities for x, y, z in [be.pos]}
    assert {be.pos: (be.id, dict(be.data)) for be in turned.block_entities} == expected
    sword = next(be for be in turned.block_entities if be.pos == (L - 1, 0, 2))  # was (2, 0, 0)
    lore = sword.data["Items"][0]["tag"]["display"]["Lore"]
    assert list(lore) == ["a", "b"] and int(sword.data["Items"][1]["Count"]) == 64
    assert source.read_bytes() == schematic_bytes(entries)  # the input is untouched


entry_lists = st.lists(
    st.tuples(
        st.sampled_from(every_cell()),
        st.sampled_from(["minecraft:chest", "minecraft:barrel"]),
        st.integers(0, len(CONTENTS) - 1),
    ),
    max_size=25,
)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(entry_lists, st.sampled_from([2, 3]), st.sampled_from([2, 3]))
def test_four_quarter_turns_or_two_mirrors_write_the_file_back(entries, version, source_version):
    schem = read_schematic(schematic_bytes(entries, version=source_version))
    assert all(type(be) is BlockEntity and isinstance(be.data, Compound) for be in schem.block_entities)
    turned = schem
    for _ in range(4):
        turned = rotate_schematic(turned, 90)
    mirrored = mirror_schematic(mirror_schematic(schem, "z", rules="geometric"), "z", rules="geometric")
    written = encode_schematic(schem, version)
    assert encode_schematic(turned, version) == written
    assert encode_schematic(mirrored, version) == written


def test_a_changed_entry_is_written_with_its_change(tmp_path):
    entries = [((x, 0, 0), "minecraft:chest", 1) for x in range(W)]
    schem = read_schematic(schematic_bytes(entries))
    schem.block_entities[2].data["CustomName"] = String("changed")
    back = read_schematic(encode_schematic(schem))
    names = [str(be.data["CustomName"]) for be in back.block_entities]
    assert names == ['{"text":"Loot é"}'] * 2 + ["changed"] + ['{"text":"Loot é"}'] * 2


def test_geometric_mirror_turns_the_books_of_bookshelves():
    shelf = [("Items", 9, (10, [[("Slot", 1, 0), ("id", 8, "minecraft:book"), ("Count", 1, 1)]]))]
    CONTENTS.append(shelf)
    try:
        data = schematic_bytes(
            [((x, 0, 0), "minecraft:chiseled_bookshelf", len(CONTENTS) - 1) for x in range(3)], blocks=[2] * (W * H * L)
        )
    finally:
        CONTENTS.pop()
    schem = read_schematic(data)
    mirrored = mirror_schematic(schem, "x", rules="geometric")
    assert sorted((be.pos, int(be.data["Items"][0]["Slot"])) for be in mirrored.block_entities) == [
        ((W - 1 - x, 0, 0), 2) for x in reversed(range(3))
    ]
    vanilla = mirror_schematic(read_schematic(data), "x", rules="vanilla")
    assert {int(be.data["Items"][0]["Slot"]) for be in vanilla.block_entities} == {0}


def test_block_entities_are_a_plain_list_whose_entries_own_their_data():
    schem = read_schematic(schematic_bytes([((x, 0, 1), "minecraft:chest", 1) for x in range(3)]))
    entries = schem.block_entities
    assert type(entries) is list and [be.pos for be in entries] == [(0, 0, 1), (1, 0, 1), (2, 0, 1)]
    first, second = entries[0], entries[1]
    assert first.data == second.data and first.data is not second.data
    first.data["Lock"] = String("key")
    assert "Lock" not in second.data
    assert str(entries[2].data["CustomName"]) == '{"text":"Loot é"}'


@settings(max_examples=60, deadline=None, derandomize=True)
@given(entry_lists)
def test_block_entities_are_read_in_the_files_order(entries):
    schem = read_schematic(schematic_bytes(entries))
    assert [be.id for be in schem.block_entities] == [ident for _, ident, _ in entries]


def test_rewrites_that_look_into_contents_read_them(tmp_path):
    # transform_file copies block-entity contents as bytes, except where it must read them: a v3 Data compound
    # written inline as v2, and the books of chiseled bookshelves under a geometric mirror.
    entries = [((x, 0, 0), "minecraft:chest", x % len(CONTENTS)) for x in range(W)]
    source = tmp_path / "v3.schem"
    source.write_bytes(schematic_bytes(entries, version=3))
    out = tmp_path / "v2.schem"
    transform_file(source, out, degrees=180, fmt="sponge2")
    turned, original = read_schematic(out), read_schematic(source)
    assert {be.pos: dict(be.data) for be in turned.block_entities} == {
        (W - 1 - x, y, L - 1 - z): dict(be.data) for be in original.block_entities for x, y, z in [be.pos]
    }
    shelf = [("Items", 9, (10, [[("Slot", 1, 0), ("id", 8, "minecraft:book"), ("Count", 1, 1)]]))]
    CONTENTS.append(shelf)
    try:
        source.write_bytes(
            schematic_bytes([((0, 0, 0), "minecraft:chiseled_bookshelf", len(CONTENTS) - 1)], blocks=[2] * (W * H * L))
        )
    finally:
        CONTENTS.pop()
    transform_file(source, out, mirror_axis="x", rules="geometric")
    assert [int(be.data["Items"][0]["Slot"]) for be in read_schematic(out).block_entities] == [2]
