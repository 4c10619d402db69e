"""The reader builds each distinct scalar or short string once and shares it, and hands out one Encoded object for
byte-identical containers kept as bytes: sharing never mixes up tag types or bits, and writes stay the same."""

from __future__ import annotations

import gzip
import math
import struct

from hypothesis import given, settings
from hypothesis import strategies as st
from schem_nbt_bytes import compound_body, name, payload

from mcb.schematics.nbt import RAW, Byte, Double, Encoded, Float, Int, Long, ReadLimits, Short, String, read_nbt

CLASSES = {1: Byte, 2: Short, 3: Int, 4: Long, 5: Float, 6: Double, 8: String}
FORMATS = {1: ">b", 2: ">h", 3: ">i", 4: ">q", 5: ">f", 6: ">d"}
# Equal bytes under other tag types, floats that compare equal (or unequal to themselves), strings cached or not.
SCALARS = [
    (3, 1065353216),
    (5, 1.0),
    (4, 4607182418800017408),
    (6, 1.0),
    (6, 0.0),
    (6, -0.0),
    (6, math.nan),
    (5, -0.0),
    (1, 0),
    (2, 0),
    (3, 0),
    (3, 7),
    (8, "a"),
    (8, "é"),
    (8, "x" * 70),
    (8, "\U0001f600"),
]


def scalar_bytes(tag: int, value) -> bytes:
    return struct.pack(FORMATS[tag], value) if tag in FORMATS else name(value)


def entry(fields) -> bytes:
    return b"".join(bytes([tag]) + name(key) + scalar_bytes(tag, value) for key, (tag, value) in fields) + b"\x00"


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    entries=st.lists(
        st.lists(
            st.tuples(st.sampled_from(["a", "b", "OutputSignal"]), st.sampled_from(SCALARS)),
            max_size=3,
            unique_by=lambda field: field[0],
        ),
        min_size=1,
        max_size=10,
    ),
    chunk=st.sampled_from([3, 17, 4096]),
)
def test_shared_values_keep_their_tag_type_and_bits(entries, chunk):
    raw = (
        b"\x0a"
        + name("")
        + b"\x09"
        + name("BlockEntities")
        + struct.pack(">bi", 10, len(entries) * 2)
        + b"".join(entry(fields) for fields in entries * 2)
        + b"\x00"
    )
    root, _ = read_nbt(gzip.compress(raw, mtime=0), ReadLimits(inflate_step=chunk))  # refills anywhere
    for fields, read in zip(entries * 2, root["BlockEntities"]):
        assert list(read) == [key for key, _ in fields]
        for key, (tag, value) in fields:
            assert type(read[key]) is CLASSES[tag]
            if tag in FORMATS:
                assert struct.pack(FORMATS[tag], read[key]) == struct.pack(FORMATS[tag], value)
            else:
                assert read[key] == value


def test_byte_identical_containers_kept_as_bytes_are_one_encoded_object():
    items = (10, [[("Slot", 1, 0), ("id", 8, "minecraft:book")]])
    other = (10, [[("Slot", 1, 1), ("id", 8, "minecraft:book")]])
    lists = [items, items, other, items]
    raw = (
        b"\x0a"
        + name("")
        + b"\x09"
        + name("BlockEntities")
        + struct.pack(">bi", 10, len(lists))
        + b"".join(compound_body([("Items", 9, value)]) for value in lists)
        + b"\x00"
    )
    root, stats = read_nbt(raw, keep=lambda path: RAW if path[-1] == "Items" else True)
    kept = [entry["Items"] for entry in root["BlockEntities"]]
    assert all(type(value) is Encoded for value in kept)
    assert [value.payload for value in kept] == [payload(9, value) for value in lists]
    assert kept[0] is kept[1] is kept[3] and kept[2] is not kept[0]
    assert stats == read_nbt(raw)[1]  # the memo adds the facts of the walk it spares
