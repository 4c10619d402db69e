"""The plain (numpy-free) reader of long varint streams agrees with the byte-by-byte loop, damage included."""

from __future__ import annotations

from unittest import mock

from hypothesis import given, settings, strategies as st

from mcb.schematics import varint_py
from mcb.schematics.varint_py import SMALL_STREAM, used_values, used_values_small
from schem_nbt_bytes import reference_varints



@settings(max_examples=120, deadline=None, derandomize=True)
@given(values=st.lists(st.one_of(st.integers(0, 6), st.integers(0, 127), st.integers(128, 16383),
                                 st.integers(16384, 2**31 - 1)), min_size=1, max_size=40),
       damage=st.lists(st.tuples(st.integers(0, 2**20), st.integers(0, 255)), max_size=3),
       cut=st.integers(0, 3), extra=st.integers(-2, 2), step=st.sampled_from([4099, 1 << 20]))
def test_long_streams_read_with_bytes_methods_agree_with_the_loop(values, damage, cut, extra, step):
    unit = reference_varints(values)
    repeats = SMALL_STREAM // len(unit) + 2  # past the loop's size
    stream = bytearray(unit * repeats)
    for at, byte in damage:
        stream[at % len(stream)] = byte
    data = bytes(stream[:len(stream) - cut])
    count = len(values) * repeats + extra
    expected = used_values_small(data, count)
    with mock.patch.object(varint_py, "_STEP", step):  # pieces of the stream that end anywhere
        found = used_values(data, count)
    if not damage and not cut and max(values) < 16384:
        assert found is not None
    if found is None:  # only a stream the bytes methods do not read: longer, truncated or non-canonical varints
        assert expected[1] is not None and expected[1].kind not in ("too_few", "too_many") or max(expected[0]) > 16383
    else:
        assert found == expected


def test_a_long_clean_two_byte_stream_gives_every_value_and_the_count():
    values = list(range(617)) * 200
    data = reference_varints(values)
    assert len(data) > SMALL_STREAM
    assert used_values(data, len(values)) == (frozenset(range(617)), None)
    found, problem = used_values(data, len(values) + 1)
    assert found == frozenset(range(617)) and problem.kind == "too_few"


def test_pieces_read_after_every_one_byte_value_was_seen_still_give_the_two_byte_values_and_problems():
    values = list(range(128)) * 40 + [1000 + i % 50 for i in range(40000)] + [16000]
    data = reference_varints(values)
    with mock.patch.object(varint_py, "_STEP", 4099):  # the one-byte values are all seen in the first piece
        assert used_values(data, len(values)) == (frozenset(range(128)) | frozenset(range(1000, 1050)) | {16000},
                                                  None)
        assert used_values(data + b"\x80\x00", len(values) + 1) is None  # a non-canonical varint at the end
