"""Block-entity entries are encoded once per distinct (id, data) and spliced behind each Pos: the bytes must equal
encoding every entry on its own (checked against the independent builder in schem_nbt_bytes), whatever repeats."""

from __future__ import annotations

import gzip
import struct

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from schem_nbt_bytes import compound_body, name, payload

from mcb.schematics.formats.sponge import read_schematic
from mcb.schematics.formats.sponge_writer import encode_schematic
from mcb.schematics.model import BlockEntity, Schematic
from mcb.schematics.nbt import Byte, Compound, Double, Int, String

# (tag, value) pairs that compare equal in Python but encode differently are the dangerous ones for a memo.
VALUES = [(3, 0), (1, 0), (6, 0.0), (6, -0.0), (8, "a"), (8, "b"), (3, 1), (1, 1)]
TAG_CLASS = {1: Byte, 3: Int, 6: Double, 8: String}
IDS = ["minecraft:comparator", "minecraft:barrel"]


def entry_bytes(pos, ident, fields) -> bytes:
    return b"\x0b" + name("Pos") + payload(11, pos) + b"\x08" + name("Id") + payload(8, ident) + compound_body(fields)


def block_entities_section(tree: bytes, size: int) -> tuple[bytes, bytes]:
    """(the ``size`` bytes after the BlockEntities tag header, the tag byte that follows them)."""
    start = tree.index(b"\x09" + name("BlockEntities")) + 3 + len("BlockEntities")
    return tree[start : start + size], tree[start + size : start + size + 1]


entities = st.lists(
    st.tuples(
        st.tuples(st.integers(0, 3), st.integers(0, 1), st.integers(0, 3)),
        st.sampled_from(IDS),
        st.lists(
            st.tuples(st.sampled_from(["OutputSignal", "CustomName"]), st.sampled_from(VALUES)),
            max_size=2,
            unique_by=lambda field: field[0],
        ),
    ),
    max_size=12,
)


@settings(max_examples=150, deadline=None)
@given(entities, st.sampled_from([2, 3]), st.booleans())
def test_repeated_block_entities_encode_like_each_on_its_own(specs, version, shared):
    schem = Schematic(4, 2, 4, ["minecraft:stone"], np.zeros((2, 4, 4), dtype=np.int32), 4903)
    objects: dict[str, object] = {}  # shared: equal values are one object, as the reader gives them (memo hits)

    def tag_value(tag, value):
        made = TAG_CLASS[tag](value)
        return objects.setdefault(repr((tag, value)), made) if shared else made

    schem.block_entities = [
        BlockEntity(pos, ident, Compound((key, tag_value(tag, value)) for key, (tag, value) in data))
        for pos, ident, data in specs
    ]
    tree = gzip.decompress(encode_schematic(schem, version))
    parts = []
    for pos, ident, data in specs:
        fields = [(key, tag, value) for key, (tag, value) in data]
        if version == 3:
            parts.append(
                b"\x0b"
                + name("Pos")
                + payload(11, pos)
                + b"\x08"
                + name("Id")
                + payload(8, ident)
                + b"\x0a"
                + name("Data")
                + compound_body(fields)
                + b"\x00"
            )
        else:
            parts.append(entry_bytes(pos, ident, fields))
    expected = b"\x0a" + struct.pack(">i", len(specs)) + b"".join(parts)
    # v2: the Entities list follows; v3: BlockEntities is the last tag of Blocks (End follows)
    assert block_entities_section(tree, len(expected)) == (expected, b"\x09" if version == 2 else b"\x00")


def test_changing_one_of_many_equal_block_entities_is_written(tmp_path):
    schem = Schematic(4, 1, 1, ["minecraft:stone"], np.zeros((1, 1, 4), dtype=np.int32), 4903)
    schem.block_entities = [
        BlockEntity((x, 0, 0), "minecraft:comparator", Compound(OutputSignal=Int(0))) for x in range(4)
    ]
    schem.block_entities[2].data["OutputSignal"] = Int(9)
    path = tmp_path / "out.schem"
    path.write_bytes(encode_schematic(schem))
    back = read_schematic(path)
    assert [(be.pos, int(be.data["OutputSignal"])) for be in back.block_entities] == [
        ((0, 0, 0), 0),
        ((1, 0, 0), 0),
        ((2, 0, 0), 9),
        ((3, 0, 0), 0),
    ]


def test_corpus_block_entities_survive_a_read_and_write(corpus, tmp_path):
    source = read_schematic(corpus / "v2_nucleation_c4_ai_last_played.schem")
    path = tmp_path / "copy.schem"
    path.write_bytes(encode_schematic(read_schematic(corpus / "v2_nucleation_c4_ai_last_played.schem")))
    copy = read_schematic(path)
    assert [(be.pos, be.id, dict(be.data)) for be in copy.block_entities] == [
        (be.pos, be.id, dict(be.data)) for be in source.block_entities
    ]


def test_equal_comparing_values_of_other_types_or_signs_are_not_shared():
    schem = Schematic(4, 1, 1, ["minecraft:stone"], np.zeros((1, 1, 4), dtype=np.int32), 4903)
    values = [Double(0.0), Double(-0.0), Int(0), Byte(0)]
    schem.block_entities = [
        BlockEntity((x, 0, 0), "minecraft:comparator", Compound(Power=value)) for x, value in enumerate(values)
    ]
    tree = gzip.decompress(encode_schematic(schem))
    expected = (
        b"\x0a"
        + struct.pack(">i", 4)
        + b"".join(
            entry_bytes((x, 0, 0), "minecraft:comparator", [("Power", tag, value)])
            for x, (tag, value) in enumerate([(6, 0.0), (6, -0.0), (3, 0), (1, 0)])
        )
    )
    assert block_entities_section(tree, len(expected)) == (expected, b"\x09")


items = st.lists(
    st.lists(
        st.tuples(st.sampled_from(["Slot", "Count", "id"]), st.sampled_from(VALUES)),
        max_size=3,
        unique_by=lambda field: field[0],
    ),
    max_size=3,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(IDS), items), max_size=10), st.sampled_from([2, 3]))
def test_repeated_inventories_encode_like_each_on_its_own(specs, version):
    # equal inventories are separate lists of separate item compounds sharing their values (as the reader builds
    # them): remembered by what they hold, yet values of another type that compare equal are told apart
    from mcb.schematics.nbt import List

    schem = Schematic(4, 2, 4, ["minecraft:stone"], np.zeros((2, 4, 4), dtype=np.int32), 4903)
    objects: dict[str, object] = {}

    def tag_value(tag, value):
        return objects.setdefault(repr((tag, value)), TAG_CLASS[tag](value))

    schem.block_entities = [
        BlockEntity(
            (i % 4, 0, 0),
            ident,
            Compound(Items=List([Compound((k, tag_value(t, v)) for k, (t, v) in item) for item in inventory], 10)),
        )
        for i, (ident, inventory) in enumerate(specs)
    ]
    tree = gzip.decompress(encode_schematic(schem, version))
    parts = []
    for i, (ident, inventory) in enumerate(specs):
        fields = [("Items", 9, (10, [[(k, t, v) for k, (t, v) in item] for item in inventory]))]
        if version == 3:
            parts.append(
                b"\x0b" + name("Pos") + payload(11, (i % 4, 0, 0)) + b"\x08" + name("Id") + payload(8, ident)
                + b"\x0a" + name("Data") + compound_body(fields) + b"\x00"
            )  # fmt: skip
        else:
            parts.append(entry_bytes((i % 4, 0, 0), ident, fields))
    expected = b"\x0a" + struct.pack(">i", len(specs)) + b"".join(parts)
    assert block_entities_section(tree, len(expected)) == (expected, b"\x09" if version == 2 else b"\x00")
