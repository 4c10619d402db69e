"""Writer layout, read/write round trips (hypothesis), varints, modified UTF-8, atomic writes."""

from __future__ import annotations

import gzip
import struct

import nbtlib
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schem_nbt_bytes import name, payload, reference_varints

from mcb.schematics.formats.sponge import read_schematic
from mcb.schematics.formats.sponge_writer import encode_schematic, write_schematic
from mcb.schematics.model import BlockEntity, Entity, Schematic
from mcb.schematics.nbt import Compound, Int, List, String, decode_mutf8, encode_mutf8, read_nbt
from mcb.schematics.varint import SMALL_STREAM, decode_varints, encode_varints, used_values

STATES = [
    "minecraft:stone",
    "minecraft:air",
    "minecraft:oak_planks",
    "minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]",
    "minecraft:oak_log[axis=x]",
    "minecraft:glass",
]


def test_server_subset_file_is_byte_for_byte_the_server_export_layout():
    schem = Schematic(
        2,
        1,
        2,
        ["minecraft:stone", "minecraft:air"],
        np.array([[[0, 1], [1, 0]]], dtype=np.int32),
        4903,
        offset=(-1, 1, 1),
    )
    raw = gzip.decompress(encode_schematic(schem, name="Tower", author="minecraft-builder-mcp", date_ms=1234))
    expected = (
        b"\x0a"
        + name("Schematic")
        + b"\x03"
        + name("Version")
        + payload(3, 2)
        + b"\x03"
        + name("DataVersion")
        + payload(3, 4903)
        + b"\x02"
        + name("Width")
        + payload(2, 2)
        + b"\x02"
        + name("Height")
        + payload(2, 1)
        + b"\x02"
        + name("Length")
        + payload(2, 2)
        + b"\x0b"
        + name("Offset")
        + payload(11, [-1, 1, 1])
        + b"\x03"
        + name("PaletteMax")
        + payload(3, 2)
        + b"\x0a"
        + name("Palette")
        + b"\x03"
        + name("minecraft:stone")
        + payload(3, 0)
        + b"\x03"
        + name("minecraft:air")
        + payload(3, 1)
        + b"\x00"
        + b"\x07"
        + name("BlockData")
        + payload(7, b"\x00\x01\x01\x00")
        + b"\x09"
        + name("BlockEntities")
        + b"\x0a"
        + struct.pack(">i", 0)
        + b"\x09"
        + name("Entities")
        + b"\x0a"
        + struct.pack(">i", 0)
        + b"\x0a"
        + name("Metadata")
        + b"\x08"
        + name("Name")
        + payload(8, "Tower")
        + b"\x08"
        + name("Author")
        + payload(8, "minecraft-builder-mcp")
        + b"\x04"
        + name("Date")
        + payload(4, 1234)
        + b"\x00"
        + b"\x00"
    )
    assert raw == expected


def test_palette_is_first_seen_in_y_z_x_order_and_merges_duplicates():
    blocks = np.array([[[2, 2], [0, 1]], [[3, 0], [2, 2]]], dtype=np.int32)  # [y][z][x]
    schem = Schematic(2, 2, 2, ["minecraft:air", "minecraft:glass", "minecraft:stone", "minecraft:stone"], blocks, 4903)
    back = read_schematic(encode_schematic(schem))
    assert back.palette == ["minecraft:stone", "minecraft:air", "minecraft:glass"]
    assert [back.state_at(x, y, z) for y in range(2) for z in range(2) for x in range(2)] == [
        schem.state_at(x, y, z) for y in range(2) for z in range(2) for x in range(2)
    ]


schematics = st.builds(
    lambda w, h, l, seed, n_states, offset, n_be, n_ent: _random_schematic(
        w, h, l, seed, n_states, offset, n_be, n_ent
    ),
    st.integers(1, 6),
    st.integers(1, 5),
    st.integers(1, 6),
    st.integers(0, 2**31),
    st.integers(1, len(STATES)),
    st.tuples(*(st.integers(-(2**31), 2**31 - 1) for _ in range(3))),
    st.integers(0, 3),
    st.integers(0, 2),
)


def _random_schematic(w, h, l, seed, n_states, offset, n_be, n_ent) -> Schematic:
    rng = np.random.default_rng(seed)
    blocks = rng.integers(0, n_states, size=(h, l, w)).astype(np.int32)
    bes = [
        BlockEntity(
            (int(rng.integers(w)), int(rng.integers(h)), int(rng.integers(l))),
            "minecraft:chest",
            Compound(Items=List([], 10), CustomName=String(f"box {i}")),
        )
        for i in range(n_be)
    ]
    ents = [
        Entity(
            (float(rng.random() * w), float(rng.random() * h), float(rng.random() * l)),
            "minecraft:pig",
            Compound(Health=Int(10)),
        )
        for _ in range(n_ent)
    ]
    return Schematic(w, h, l, STATES[:n_states], blocks, 4903, offset=offset, block_entities=bes, entities=ents)


def _cells(schem: Schematic) -> list[str]:
    return [
        schem.state_at(x, y, z) for y in range(schem.height) for z in range(schem.length) for x in range(schem.width)
    ]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schematics, st.sampled_from([2, 3]), st.booleans())
def test_write_then_read_round_trips(schem, version, compress):
    back = read_schematic(encode_schematic(schem, version, compress=compress))
    assert back.size == schem.size and back.offset == schem.offset and back.data_version == schem.data_version
    assert _cells(back) == _cells(schem)
    assert [(b.pos, b.id, dict(b.data)) for b in back.block_entities] == [
        (b.pos, b.id, dict(b.data)) for b in schem.block_entities
    ]
    assert [(e.pos, e.id, dict(e.data)) for e in back.entities] == [(e.pos, e.id, dict(e.data)) for e in schem.entities]
    assert back.source.version == version and back.source.compressed == compress


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**31 - 1), max_size=60))
def test_varints_match_a_reference_encoder_and_decode_back(values):
    encoded = encode_varints(np.array(values, dtype=np.int64))
    assert encoded == reference_varints(values)
    decoded, problem = decode_varints(encoded, len(values))
    assert problem is None and decoded.tolist() == values
    assert used_values(encoded, len(values)) == (frozenset(values), None)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=40), st.integers(0, 50))
def test_varint_decoder_reports_problems_instead_of_raising(data, count):
    values, problem = decode_varints(data, count)
    if problem is None:
        assert values.size == count and reference_varints(values.tolist()) == data


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30))
def test_modified_utf8_round_trips_nul_and_astral_characters(text):
    raw = encode_mutf8(text)
    assert b"\x00" not in raw
    assert all(b < 0xF0 for b in raw)  # no 4-byte sequences: astral characters are surrogate pairs
    assert decode_mutf8(raw) == (text, False)


def test_modified_utf8_known_bytes():
    assert encode_mutf8("a\x00b") == b"a\xc0\x80b"
    assert encode_mutf8("\U0001f600") == b"\xed\xa0\xbd\xed\xb8\x80"


def test_nbtlib_reads_what_we_write_and_we_read_what_nbtlib_writes(tmp_path):
    schem = _random_schematic(3, 2, 4, 7, 4, (1, 2, 3), 2, 1)
    path = write_schematic(schem, tmp_path / "a.schem")
    loaded = nbtlib.load(path)
    assert int(loaded["Width"]) == 3 and list(loaded["Offset"]) == [1, 2, 3]
    assert {str(k): int(v) for k, v in loaded["Palette"].items()} == {
        s: i for i, s in enumerate(read_schematic(path).palette)
    }
    loaded.save(tmp_path / "b.schem", gzipped=True)
    assert _cells(read_schematic(tmp_path / "b.schem")) == _cells(schem)


def test_write_is_atomic_and_leaves_no_temp_files(tmp_path):
    schem = _random_schematic(2, 2, 2, 1, 2, (0, 0, 0), 0, 0)
    target = tmp_path / "out.schem"
    target.write_bytes(b"old")
    write_schematic(schem, target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.schem"]
    assert read_schematic(target).size == (2, 2, 2)


def test_reader_stats_and_quirks():
    raw = b"\x0a" + name("") + b"\x08" + name("a") + payload(8, "x") + b"\x08" + name("a") + payload(8, "y") + b"\x00"
    root, stats = read_nbt(raw + b"\x00\x00")
    assert root == {"a": "y"} and stats.duplicate_names == ["/a"] and stats.trailing_nbt_bytes == 2
    assert not stats.compressed


def test_v3_biomes_and_v2_two_d_biomes():
    blocks = np.zeros((2, 2, 2), dtype=np.int32)
    biomes = np.array([[[0, 1], [1, 0]]] * 2, dtype=np.int32)
    schem = Schematic(
        2,
        2,
        2,
        ["minecraft:stone"],
        blocks,
        4903,
        biome_palette=["minecraft:plains", "minecraft:desert"],
        biomes=biomes,
    )
    v3 = read_schematic(encode_schematic(schem, 3))
    assert v3.biomes.shape == (2, 2, 2) and v3.biome_palette == ["minecraft:plains", "minecraft:desert"]
    v2 = read_schematic(encode_schematic(schem, 2))
    assert v2.biomes.shape == (1, 2, 2)
    assert [v2.biome_palette[i] for i in v2.biomes.ravel()] == [
        "minecraft:plains",
        "minecraft:desert",
        "minecraft:desert",
        "minecraft:plains",
    ]


def test_sizes_beyond_unsigned_short_are_refused_by_the_writer():
    from mcb.errors import InputError

    schem = Schematic(70000, 1, 1, ["minecraft:air"], np.zeros((1, 1, 70000), dtype=np.int32), 4903)
    with pytest.raises(InputError, match="1 to 65535 blocks along each side; this box is 70,000 x 1 x 1"):
        encode_schematic(schem)


def test_unsigned_short_sizes_round_trip():
    schem = Schematic(40000, 1, 1, ["minecraft:air"], np.zeros((1, 1, 40000), dtype=np.int32), 4903)
    assert read_schematic(encode_schematic(schem)).width == 40000


def test_bytes_after_the_gzip_stream_are_reported_by_the_spec_profile(tmp_path):
    from mcb.schematics.rules import validate_schematic

    schem = Schematic(1, 1, 1, ["minecraft:stone"], np.zeros((1, 1, 1), dtype=np.int32), 4903)
    path = tmp_path / "t.schem"
    path.write_bytes(encode_schematic(schem) + b"garbage")
    rules = [d.rule for d in validate_schematic(path, profile="spec").diagnostics]
    assert "sponge.gzip.trailing" in rules
    assert read_schematic(path).size == (1, 1, 1)


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=60),
        st.builds(
            lambda values, tail: reference_varints(values) + tail,
            st.lists(st.integers(0, 2**31 - 1), max_size=30),
            st.binary(max_size=4),
        ),
    ),
    st.integers(0, 40),
)
def test_small_stream_reader_agrees_with_the_numpy_reader(data, count):
    values, problem = used_values(data, count)  # short: the plain loop
    decoded, problem_ref = decode_varints(data, count)  # what a long stream is read with
    assert values == frozenset(decoded.tolist())
    assert problem == problem_ref


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 20_000), min_size=1, max_size=40), st.binary(max_size=3), st.integers(-2, 2))
def test_a_long_stream_is_read_by_numpy_with_the_same_answer(values, tail, extra):
    unit = reference_varints(values)
    repeats = SMALL_STREAM // len(unit) + 2
    data = unit * repeats + tail
    count = len(values) * repeats + extra
    decoded, problem = decode_varints(data, count)
    assert used_values(data, count) == (frozenset(decoded.tolist()), problem)


def test_a_hostile_run_of_continuation_bytes_is_refused_as_too_long():
    values, problem = used_values(b"\x05" + b"\xff" * 65_000 + b"\x01", 2)
    assert values == {5}
    assert (problem.kind, problem.index) == ("too_long", 1)
