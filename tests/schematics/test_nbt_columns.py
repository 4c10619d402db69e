"""A list read as columns (a structure's ``blocks``) gives what the ordinary walk gives: the same entries, tag for
tag, the same stats, the same refusals, whatever its entries hold and however the input is cut or damaged."""

from __future__ import annotations

import gzip

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schem_nbt_bytes import document

from mcb.schematics.nbt import NbtError, ReadLimits, read_nbt
from mcb.schematics.nbt_columns import ColumnList

INT, SHORT, BYTE, LIST, COMPOUND, STRING, DOUBLE, INTS = 3, 2, 1, 9, 10, 8, 6, 11


def typed(value):
    """A tag as (its type, its value), all the way down: equal only for the very same tags."""
    if isinstance(value, dict):
        return ("Compound", [(k, typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return (type(value).__name__, getattr(value, "subtype", None), [typed(v) for v in value])
    if isinstance(value, tuple):
        return (type(value).__name__, list(value))
    return (type(value).__name__, value)


coordinate = st.integers(-(2**31), 2**31 - 1)
plain = st.builds(
    lambda s, x, y, z: [("state", INT, s), ("pos", LIST, (INT, [x, y, z]))], coordinate, *[coordinate] * 3
)
odd = st.one_of(
    st.builds(lambda s: [("state", SHORT, s), ("pos", LIST, (INT, [0, 1, 2]))], st.integers(-5, 5)),
    st.builds(lambda s: [("pos", LIST, (INT, [1, 2, 3])), ("state", INT, s)], st.integers(0, 5)),  # other order
    st.builds(lambda s: [("state", INT, s), ("pos", LIST, (INT, [1, 2]))], st.integers(0, 5)),  # 2 coordinates
    st.builds(lambda s: [("state", INT, s), ("pos", INTS, [1, 2, 3]), ("flag", BYTE, 1)], st.integers(0, 5)),
    st.builds(
        lambda t: [("state", INT, 0), ("pos", LIST, (INT, [0, 0, 0])), ("nbt", COMPOUND, [("id", STRING, t)])],
        st.sampled_from(["minecraft:chest", "", "x"]),
    ),
    st.builds(lambda d: [("state", INT, 1), ("pos", LIST, (DOUBLE, [d, 0.5, 1.0]))], st.floats(-1e9, 1e9)),
    st.just([("state", INT, 1), ("state", INT, 2), ("pos", LIST, (INT, [0, 0, 0]))]),  # a name twice
    st.just([("state", INT, 1), ("pos", LIST, (INT, [0, 0, 0])), ("none", LIST, (INT, [])), ("b", 7, b"")]),
    st.just([]),
)
entries = st.lists(st.one_of(plain, plain, plain, odd), max_size=40)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    blocks=entries,
    cut=st.integers(0, 2000),
    flip=st.integers(0, 2000),
    compress=st.booleans(),
    chunk=st.sampled_from([3, 64, 4096]),
    max_tags=st.sampled_from([40, 150, 100_000]),
)
def test_columns_read_what_the_ordinary_walk_reads(blocks, cut, flip, compress, chunk, max_tags):
    raw = document(
        [("size", LIST, (INT, [1, 1, 1])), ("blocks", LIST, (COMPOUND, blocks)), ("after", INT, 7)],
        root_name="",
        compress=False,
    )
    damaged = bytearray(raw[: len(raw) - cut % max(len(raw), 1)] if cut % 3 == 0 else raw)
    if flip % 2 and damaged:
        damaged[flip % len(damaged)] ^= 0x5A
    data = gzip.compress(bytes(damaged), mtime=0) if compress else bytes(damaged)
    limits = ReadLimits(max_tags=max_tags, inflate_step=chunk)

    def outcome(columns):
        try:
            root, stats = read_nbt(data, limits, columns=columns)
        except NbtError as error:
            return error.rule, error.message
        blocks = root.get("blocks")
        if isinstance(blocks, ColumnList):
            assert len(blocks) == sum(run.count for run in blocks.runs) + len(blocks.others)
            root["blocks"] = list(blocks)
        return typed(root), stats

    ordinary = outcome(())
    columns = outcome(("blocks",))
    if isinstance(ordinary[0], str):  # refused: the same rule and words
        assert columns == ordinary
        return
    assert columns[1] == ordinary[1]  # the stats
    assert columns[0][1] == ordinary[0][1] or [
        (name, value[2] if name == "blocks" else value) for name, value in columns[0][1]
    ] == [(name, value[2] if name == "blocks" else value) for name, value in ordinary[0][1]]


def test_a_long_plain_list_is_a_few_columns():
    blocks = [[("state", INT, i % 7), ("pos", LIST, (INT, [i, 0, i // 3]))] for i in range(5000)]
    blocks[2500] = [*blocks[2500], ("nbt", COMPOUND, [("id", STRING, "minecraft:chest")])]
    data = document([("blocks", LIST, (COMPOUND, blocks))], root_name="")
    root, stats = read_nbt(data, ReadLimits(inflate_step=1024), columns=("blocks",))
    columns = root["blocks"]
    assert [(run.start, run.count) for run in columns.runs] == [(0, 2500), (2501, 2499)]
    assert [index for index, _ in columns.others] == [2500]
    assert columns.runs[1].columns["pos"][0].tolist() == [2501, 0, 833]
    assert stats.tag_count == 1 + 1 + 5000 * 6 + 2  # the root, the list, 6 a plain entry, the chest's nbt and id
