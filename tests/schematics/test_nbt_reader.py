"""The one NBT reader: tiny inflate chunks (refills everywhere), skipped containers vs kept ones, limits, and
nbtlib as an independent oracle on every corpus file it can read."""

from __future__ import annotations

import gzip

import nbtlib
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schem_nbt_bytes import document

from mcb.schematics import nbt
from mcb.schematics.document import load_document
from mcb.schematics.nbt import NbtError, ReadLimits, read_nbt

FILES = [
    "v2_nucleation_cutecounter.schem",
    "v3_prismarine_spongeV3.schem",
    "v2_nucleation_new_chest_test.schem",
    "v2_schematic4j_issue-1.schem",
    "v3_nucleation_REGISTER001.schem",
    "v2_nucleation_Evaluator_entities.schem",
]


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


def test_every_corpus_file_nbtlib_can_read_reads_the_same_with_ours(corpus):
    compared = 0
    for path in sorted(corpus.iterdir()):
        if path.suffix not in (".schem", ".litematic", ".nbt") or path.stat().st_size > 200_000:
            continue  # the two big files: nbtlib takes seconds on one, and the other is a 1 GB bomb
        try:
            theirs = nbtlib.load(path)
        except Exception:  # noqa: BLE001 - what nbtlib cannot read is not an oracle
            continue
        ours, _ = read_nbt(path.read_bytes())
        assert plain(ours) == plain(theirs), path.name
        compared += 1
    assert compared >= 25


@pytest.mark.parametrize("name", FILES)
def test_tiny_inflate_chunks_give_the_same_tree_and_stats(corpus, name):
    data = (corpus / name).read_bytes()
    normal, normal_stats = read_nbt(data)
    chunked, chunked_stats = read_nbt(data, ReadLimits(inflate_step=7))
    assert plain(chunked) == plain(normal)
    assert chunked_stats == normal_stats


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("chunk", [5, 64, 4 * 1024 * 1024])
def test_skim_mode_keeps_positions_and_ids_and_the_same_stats(corpus, name, chunk):
    full = load_document(corpus / name, ReadLimits(inflate_step=chunk))
    fast = load_document(corpus / name, ReadLimits(inflate_step=chunk), fast=True)
    assert fast.stats.tag_count == full.stats.tag_count
    assert fast.stats.max_depth == full.stats.max_depth
    assert fast.stats.max_list_length == full.stats.max_list_length
    assert fast.stats.inflated_size == full.stats.inflated_size
    for key in ("BlockEntities", "Entities"):
        box = full.body.get("Blocks", full.body) if key == "BlockEntities" and full.version == 3 else full.body
        fast_box = fast.body.get("Blocks", fast.body) if key == "BlockEntities" and fast.version == 3 else fast.body
        for a, b in zip(box.get(key, []), fast_box.get(key, [])):
            assert plain(a["Pos"]) == plain(b["Pos"]) and a["Id"] == b["Id"]
            # scalars stay; the containers were walked and left out
            assert b == {k: v for k, v in a.items() if k == "Pos" or not isinstance(v, (dict, list))}


@pytest.mark.parametrize(
    "inner, rule",
    [
        (b"\x09\x00\x01L\x63\x00\x00\x00\x01", "nbt.tag.unknown"),  # a list of element type 99
        (b"\x09\x00\x01L\x00\x00\x00\x00\x02", "nbt.list.end"),  # a non-empty list of End
        (b"\x08\x00\x01s\x00\x02\xff\xfe", "nbt.string.encoding"),  # not modified UTF-8
        (b"\x07\x00\x01a\x7f\x00\x00\x00", "nbt.length.overflow"),  # longer than what remains
    ],
)
def test_damage_inside_a_skipped_container_gets_the_rule_a_kept_one_gets(inner, rule):
    raw = b"\x0a\x00\x00\x09\x00\x0dBlockEntities\x0a\x00\x00\x00\x01\x0a\x00\x04Data" + inner + b"\x00\x00\x00"
    outcomes = []
    for keep in (None, lambda path: path[-1] != "Data"):
        with pytest.raises(NbtError) as error:
            read_nbt(raw, keep=keep)
        outcomes.append((error.value.rule, error.value.message))
    assert outcomes[0] == outcomes[1] and outcomes[0][0] == rule


def test_a_duplicate_name_inside_a_skipped_container_is_recorded():
    entry = [
        ("Pos", 11, [0, 0, 0]),
        ("Id", 8, "minecraft:chest"),
        ("Id", 8, "minecraft:chest"),
        ("Items", 9, (10, [[("Slot", 1, 0), ("Slot", 1, 1)]])),
    ]
    data = document([("BlockEntities", 9, (10, [entry]))])
    kept, skipped = load_document(data), load_document(data, fast=True)
    assert (
        skipped.stats.duplicate_names
        == kept.stats.duplicate_names
        == ["/BlockEntities/0/Id", "/BlockEntities/0/Items/0/Slot"]
    )


def _tree(size: int):
    """Small NBT compounds with repeats (so the reader's memo of skipped containers gets hits)."""
    scalar = st.one_of(
        st.tuples(st.just(1), st.integers(-128, 127)),
        st.tuples(st.just(3), st.integers(0, 9)),
        st.tuples(st.just(8), st.sampled_from(["a", "b", "é", "x" * 70])),
    )

    def compound(children):
        return st.lists(st.tuples(st.sampled_from(["a", "b", "Items", "Slot", "Data"]), children), max_size=4)

    values = st.recursive(
        scalar,
        lambda inner: st.one_of(
            compound(inner).map(lambda items: (10, [(k, v[0], v[1]) for k, v in items])),
            st.lists(compound(inner), max_size=3).map(
                lambda entries: (9, (10, [[(k, v[0], v[1]) for k, v in entry] for entry in entries]))
            ),
        ),
        max_leaves=size,
    )
    return values


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    entries=st.lists(st.tuples(st.sampled_from(["a", "b", "Items", "Data"]), _tree(12)), max_size=6),
    cut=st.integers(0, 400),
    flip=st.integers(0, 400),
    compress=st.booleans(),
    chunk=st.sampled_from([3, 64, 4096]),
)
def test_skipping_gives_the_same_outcome_and_stats_as_keeping(entries, cut, flip, compress, chunk):
    raw = document([(k, v[0], v[1]) for k, v in entries] * 2, compress=False)  # twice: repeats
    damaged = bytearray(raw[: len(raw) - cut % max(len(raw), 1)] if cut % 3 == 0 else raw)
    if flip % 2 and damaged:
        damaged[flip % len(damaged)] ^= 0x5A
    data = gzip.compress(bytes(damaged), mtime=0) if compress else bytes(damaged)

    def outcome(keep):
        try:
            _, stats = read_nbt(data, ReadLimits(max_tags=400, inflate_step=chunk), keep=keep)
        except NbtError as error:
            return error.rule, error.message
        return stats

    kept = outcome(None)
    assert outcome(lambda path: False) == kept
    assert outcome(lambda path: len(path) % 2 == 0) == kept


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


def test_a_skipped_byte_array_is_walked_and_left_out():
    data = document(
        [("BlockEntities", 9, (10, [[("Pos", 11, [0, 0, 0]), ("Data", 10, [("Blob", 7, bytes(48 << 20))])]]))]
    )
    root, stats = read_nbt(data, ReadLimits(inflate_step=1 << 20), keep=lambda path: path[-1] != "Data")
    assert stats.inflated_size > 48 << 20 and stats.tag_count == 6
    assert root["BlockEntities"][0] == {"Pos": (0, 0, 0)}


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    entries=st.lists(st.tuples(st.sampled_from(["a", "b", "Items", "Data"]), _tree(12)), max_size=6),
    compress=st.booleans(),
    chunk=st.sampled_from([3, 17, 4096]),
)
def test_a_container_kept_as_bytes_holds_exactly_its_payload(entries, compress, chunk):
    data = document([("Outer", 10, [(k, v[0], v[1]) for k, v in entries])] * 2, compress=compress)
    limits = ReadLimits(max_tags=400, inflate_step=chunk)
    eager, eager_stats = read_nbt(data, limits)
    raw, raw_stats = read_nbt(data, limits, keep=lambda path: nbt.RAW if len(path) == 2 else True)
    assert raw_stats == eager_stats
    for name, value in raw["Outer"].items():
        if isinstance(value, nbt.Encoded):  # its bytes parse back to the very subtree the eager read built
            again, _ = read_nbt(
                b"\x0a\x00\x00"
                + bytes([value.tag_id])
                + len(name.encode()).to_bytes(2, "big")
                + name.encode("utf-8")
                + value.payload
                + b"\x00"
            )
            assert plain(again[name]) == plain(eager["Outer"][name])
        else:
            assert plain(value) == plain(eager["Outer"][name])


def _barrels(items: list, copies: int) -> bytes:
    entry = [("Pos", 11, [0, 0, 0]), ("Id", 8, "minecraft:barrel"), ("Items", 9, (10, items))]
    return document([("BlockEntities", 9, (10, [entry] * copies))], compress=False)


ITEM = [("Slot", 1, 0), ("id", 8, "minecraft:redstone"), ("Count", 1, 64)]
TWICE = [("Slot", 1, 1), ("id", 8, "minecraft:stone"), ("Slot", 1, 2)]  # a duplicate name
WIDE = [("Slot", 1, 3), ("id", 8, "minecraft:\U0001f600_emoji"), ("Count", 1, 1)]  # 4-byte UTF-8: not MUTF-8


@pytest.mark.parametrize("items", [[ITEM, TWICE, WIDE, ITEM, ITEM], [ITEM, ITEM, [("Slot", 1, 5), *ITEM[1:]]]])
@pytest.mark.parametrize(
    "limits", [ReadLimits(), ReadLimits(max_tags=300), ReadLimits(max_tags=450), ReadLimits(max_depth=4)]
)
def test_repeated_item_compounds_read_as_a_walk_of_every_one_reads_them(monkeypatch, limits, items):
    # the reader remembers compounds of plain values inside lists, and lists of them, by their bytes (a big build's
    # barrels hold the same items thousands of times); a repeat must give what walking it gives: its own compounds,
    # the same counts, every duplicate name and non-MUTF-8 string recorded again, a limit passed at the same tag
    from mcb.schematics import nbt_memos

    data = _barrels(items, copies=20)

    def outcome():
        try:
            root, stats = read_nbt(data, limits)
        except NbtError as error:
            return error.rule, error.message, error.pointer
        return plain(root), stats

    remembered = outcome()
    monkeypatch.setattr(nbt_memos, "_LEAVES", 0)
    assert remembered == outcome()
    if limits == ReadLimits():
        root, stats = read_nbt(data)
        assert len(stats.duplicate_names) == stats.non_mutf8_strings == (20 if TWICE in items else 0)
        first, second = root["BlockEntities"][0]["Items"], root["BlockEntities"][1]["Items"]
        assert first == second and first is not second and first[0] is not second[0]
        first[0]["Count"] = nbt.Byte(1)  # each is its own compound
        assert second[0]["Count"] == 64
