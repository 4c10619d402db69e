"""The streaming reader: tiny inflate chunks (refills everywhere), skim mode vs full parse, limits."""

from __future__ import annotations

import functools
import gzip
from unittest import mock

import nbtlib
import pytest
from hypothesis import given, settings, strategies as st

from mcb.schematics import nbt
from mcb.schematics.document import load_document
from mcb.schematics.nbt import NbtError, ReadLimits, read_nbt
from mcb.schematics.inflate import AheadInflater
from mcb.schematics.nbt_skim import Skipped
from schem_nbt_bytes import document

FILES = ["v2_nucleation_cutecounter.schem", "v3_prismarine_spongeV3.schem", "v2_nucleation_new_chest_test.schem",
         "v2_schematic4j_issue-1.schem", "v3_nucleation_REGISTER001.schem", "v2_nucleation_Evaluator_entities.schem"]


def plain(value):
    """nbtlib and our tags as plain Python, for comparison."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
        items = value.tolist() if hasattr(value, "tolist") else value
        return [plain(v) for v in items]
    if isinstance(value, bytes):
        return [b - 256 if b > 127 else b for b in value]
    if isinstance(value, float):
        return float(value)
    if isinstance(value, int):
        return int(value)
    return str(value)


@pytest.mark.parametrize("name", FILES)
def test_full_parse_agrees_with_nbtlib(corpus, name):
    ours, _ = read_nbt((corpus / name).read_bytes())
    theirs = nbtlib.load(corpus / name)
    assert plain(ours) == plain(theirs)


@pytest.mark.parametrize("name", FILES)
def test_tiny_inflate_chunks_give_the_same_tree_and_stats(corpus, name, monkeypatch):
    data = (corpus / name).read_bytes()
    normal, normal_stats = read_nbt(data)
    monkeypatch.setattr(nbt, "_CHUNK", 7)
    chunked, chunked_stats = read_nbt(data)
    assert plain(chunked) == plain(normal)
    assert chunked_stats == normal_stats


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("chunk", [5, 64, 4 * 1024 * 1024])
def test_skim_mode_keeps_positions_and_ids_and_the_same_stats(corpus, name, chunk, monkeypatch):
    monkeypatch.setattr(nbt, "_CHUNK", chunk)
    full = load_document(corpus / name)
    fast = load_document(corpus / name, fast=True)
    assert fast.stats.tag_count == full.stats.tag_count
    assert fast.stats.max_depth == full.stats.max_depth
    assert fast.stats.max_list_length == full.stats.max_list_length
    assert fast.stats.inflated_size == full.stats.inflated_size
    for key in ("BlockEntities", "Entities"):
        box = full.body.get("Blocks", full.body) if key == "BlockEntities" and full.version == 3 else full.body
        fast_box = fast.body.get("Blocks", fast.body) if key == "BlockEntities" and fast.version == 3 else fast.body
        for a, b in zip(box.get(key, []), fast_box.get(key, [])):
            assert plain(a["Pos"]) == plain(b["Pos"]) and a["Id"] == b["Id"]
            assert all(isinstance(v, Skipped) for k, v in b.items() if isinstance(a[k], (dict, list)) and k != "Pos")


def test_skim_detects_damage_inside_skipped_containers():
    raw = (b"\x0a\x00\x00\x09\x00\x0dBlockEntities\x0a\x00\x00\x00\x01"
           b"\x0a\x00\x04Data\x09\x00\x01L\x63\x00\x00\x00\x01\x00\x00")  # list of element type 99
    with pytest.raises(NbtError) as error:
        read_nbt(raw, skim=lambda path: path[-1] == "Data")
    assert error.value.rule == "nbt.list.header"


def test_depth_and_tag_limits():
    deep = b"\x0a\x00\x00" + b"\x0a\x00\x01a" * 300 + b"\x00" * 301
    with pytest.raises(NbtError) as error:
        read_nbt(deep)
    assert error.value.rule == "nbt.limit.depth"
    many = b"\x0a\x00\x00" + b"\x01\x00\x00\x01" * 50 + b"\x00"
    with pytest.raises(NbtError):
        read_nbt(many, ReadLimits(max_tags=10))


def test_inflated_cap_stops_a_stream_of_zeros_early():
    bomb = gzip.compress(b"\x0a\x00\x00\x07\x00\x01a" + (64 * 1024 * 1024).to_bytes(4, "big") + bytes(64 * 1024 * 1024))
    with pytest.raises(NbtError) as error:
        read_nbt(bomb, ReadLimits(max_inflated=1024 * 1024))
    assert error.value.rule == "nbt.limit.inflated"


def test_compressed_cap_and_truncated_gzip():
    data = gzip.compress(b"\x0a\x00\x00\x00")
    with pytest.raises(NbtError) as error:
        read_nbt(data, ReadLimits(max_compressed=4))
    assert error.value.rule == "nbt.limit.compressed"
    with pytest.raises(NbtError) as error:
        read_nbt(data[:-3])
    assert error.value.rule.startswith("gzip.") or error.value.rule == "nbt.truncated"


LAZY_FILES = ["v2_nucleation_Evaluator_entities.schem", "v3_prismarine_spongeV3.schem", "v2_schematic4j_issue-1.schem",
              "v3_nucleation_workshop_entity.schem", "v2_nucleation_new_chest_test.schem",
              "v3_schematic4j_sponge-v3_nonconforming.schem"]


@pytest.mark.parametrize("name", LAZY_FILES)
@pytest.mark.parametrize("version", [2, 3])
def test_lazy_model_writes_the_same_bytes_as_an_eager_one(corpus, name, version, monkeypatch):
    from mcb.schematics.sponge import encode_schematic, read_schematic

    monkeypatch.setattr(nbt, "_CHUNK", 64)  # refills while raw bytes are being kept
    lazy, eager = read_schematic(corpus / name), read_schematic(corpus / name, lazy=False)
    assert encode_schematic(lazy, version) == encode_schematic(eager, version)
    for a, b in zip(lazy.block_entities + lazy.entities, eager.block_entities + eager.entities):
        assert plain(dict(a.data)) == plain(dict(b.data))


def test_lazy_data_decodes_on_access(corpus):
    from mcb.schematics.nbt_lazy import LazyCompound
    from mcb.schematics.sponge import read_schematic

    schem = read_schematic(corpus / "v2_nucleation_new_chest_test.schem")
    chest = next(be for be in schem.block_entities if "Items" in be.data)
    assert isinstance(chest.data, LazyCompound)
    items = chest.data["Items"]
    assert isinstance(items, list) and all(isinstance(item, dict) for item in items)


class _Collect:
    """An ``array_sink`` that takes every byte array of at least ``least`` bytes and keeps its pieces."""

    def __init__(self, least: int):
        self.least = least
        self.taken: list[tuple[str, int]] = []

    def __call__(self, path, n):
        if n < self.least:
            return None
        self.taken.append(("/".join(path), n))
        pieces = []

        class Sink:
            def write(self, piece):
                pieces.append(bytes(piece))

            def finish(self):
                return nbt.ByteArray(b"".join(pieces))

        return Sink()


@settings(max_examples=200, deadline=None)
@given(arrays=st.lists(st.binary(max_size=2000), min_size=1, max_size=5), least=st.integers(0, 1500),
       chunk=st.integers(1, 600), ahead=st.booleans(), compress=st.booleans())
def test_pouring_byte_arrays_out_gives_their_bytes_and_keeps_the_reader_in_step(arrays, least, chunk, ahead,
                                                                              compress):
    entries = []
    for i, array in enumerate(arrays):
        entries += [(f"A{i}", 7, array), (f"after{i}", 8, "x" * (i * 37 % 50)), (f"n{i}", 3, i)]
    data = document(entries, compress=compress)
    size = len(gzip.decompress(data)) if compress else len(data)

    def outcome(limits, sink=None):
        try:
            return read_nbt(data, limits, array_sink=sink, inflate_ahead=ahead)
        except NbtError as error:
            return error.rule, error.pointer, error.message

    with mock.patch.object(nbt, "_CHUNK", chunk), mock.patch.object(nbt, "_AHEAD_MIN", 0 if ahead else 1 << 30), \
            mock.patch.object(nbt, "AheadInflater", functools.partial(AheadInflater, step=chunk, depth=2)):
        sink = _Collect(least)
        assert outcome(ReadLimits(), sink) == outcome(ReadLimits())
        assert sink.taken == [(f"A{i}", len(a)) for i, a in enumerate(arrays) if len(a) >= least]
        # the offsets after a poured array are exact: the inflated-size cap bites at the same byte
        for cap in (size, size - 1):
            if compress:
                assert outcome(ReadLimits(max_inflated=cap), _Collect(least)) == outcome(ReadLimits(max_inflated=cap))


@settings(max_examples=200, deadline=None)
@given(prefix=st.binary(max_size=300), array=st.binary(max_size=3000), suffix=st.binary(min_size=1, max_size=300),
       chunk=st.integers(1, 600), ahead=st.booleans(), compress=st.booleans())
def test_pour_leaves_the_reader_just_after_the_array(prefix, array, suffix, chunk, ahead, compress):
    raw = prefix + array + suffix
    data = gzip.compress(raw, mtime=0) if compress else raw
    with mock.patch.object(nbt, "_CHUNK", chunk), mock.patch.object(nbt, "_AHEAD_MIN", 0 if ahead else 1 << 30), \
            mock.patch.object(nbt, "AheadInflater", functools.partial(AheadInflater, step=chunk, depth=2)):
        reader = nbt._Reader(data, compress, ReadLimits(), nbt.ReadStats(), ahead=ahead)
        try:
            assert reader.take(len(prefix)) == prefix
            pieces = []
            reader.pour(len(array), lambda piece: pieces.append(bytes(piece)))
            assert b"".join(pieces) == array
            assert reader.base + reader.pos == len(prefix) + len(array)  # the offset the size cap is counted from
            assert reader.take(len(suffix)) == suffix
        finally:
            if reader.inflater is not None:
                reader.inflater.close()
