"""Inflating ahead of the reader on a worker thread gives exactly what inflating in the reader's thread gives:
the same bytes, the same end of stream, the same error at the same place, and no thread left behind."""

from __future__ import annotations

import gzip
import random
import threading
import time

from hypothesis import given, settings, strategies as st

from mcb.schematics.inflate import AheadInflater, GzipCorrupt, GzipTruncated, InlineInflater
from mcb.schematics.nbt import NbtError, ReadLimits, read_nbt
from schem_nbt_bytes import document, v2_entries


def _drain(inflater, step: int, cap: int) -> tuple[bytes, str, int]:
    """Everything the inflater gives, read the way the NBT reader reads: (bytes, how it ended, trailing bytes)."""
    parts, total = [], 0
    try:
        while True:
            chunk = inflater.read(step)
            if not chunk:
                ending = "eof" if inflater.eof else "input ended"
                break
            parts.append(chunk)
            total += len(chunk)
            if total > cap:
                ending = "over the cap"
                break
    except GzipCorrupt as error:
        ending = f"corrupt: {error}"
    except GzipTruncated:
        ending = "truncated"
    finally:
        inflater.close()
    return b"".join(parts), ending, inflater.trailing() if ending == "eof" else -1


@st.composite
def gzip_streams(draw):
    words = draw(st.lists(st.binary(min_size=1, max_size=40), min_size=1, max_size=8))
    body = b"".join(draw(st.lists(st.sampled_from(words), max_size=400)))
    stream = gzip.compress(body, compresslevel=draw(st.integers(1, 9)), mtime=0)
    damage = draw(st.sampled_from(["none", "truncate", "flip", "trailing"]))
    if damage == "truncate":
        stream = stream[:draw(st.integers(0, len(stream) - 1))]
    elif damage == "flip":
        at = draw(st.integers(10, len(stream) - 1))
        stream = stream[:at] + bytes([stream[at] ^ draw(st.integers(1, 255))]) + stream[at + 1:]
    elif damage == "trailing":
        stream += draw(st.binary(min_size=1, max_size=30))
    return stream


@settings(max_examples=300, deadline=None)
@given(stream=gzip_streams(), step=st.integers(1, 4096), cap=st.integers(0, 20000))
def test_inflating_ahead_matches_inflating_inline(stream, step, cap):
    inline = _drain(InlineInflater(stream, cap), step, cap)
    ahead = _drain(AheadInflater(stream, cap, step=step, depth=2), step, cap)
    assert ahead == inline


def test_closing_stops_a_worker_that_waits_for_room():
    stream = gzip.compress(bytes(8 << 20), mtime=0)
    before = threading.active_count()
    inflater = AheadInflater(stream, 1 << 30, step=1 << 16, depth=2)
    assert len(inflater.read(1 << 16)) == 1 << 16
    time.sleep(0.05)  # the worker fills the queue and blocks
    inflater.close()
    assert threading.active_count() == before


def test_a_refused_big_file_leaves_no_worker_running():
    # Big enough to be inflated ahead; the reader refuses a declared length far beyond its inflated-size cap.
    entries = v2_entries(data=bytes(300_000), size=(100, 30, 100))
    raw = gzip.decompress(document(entries))
    at = raw.index(b"BlockData") + len(b"BlockData")
    bomb = gzip.compress(raw[:at] + (0x7FFFFFFF).to_bytes(4, "big") + raw[at + 4:], mtime=0)
    noise = gzip.compress(random.Random(3).randbytes(200_000), mtime=0)  # incompressible: 200 KB of gzip
    assert len(bomb + noise) >= 128 * 1024  # (the reader's threshold for inflating ahead)
    before = threading.active_count()
    started = time.perf_counter()
    try:
        read_nbt(bomb + noise, ReadLimits(max_inflated=64 << 20), inflate_ahead=True)
        raise AssertionError("the declared length should have been refused")
    except NbtError as error:
        assert error.rule == "nbt.limit.inflated"
        assert error.pointer == "/BlockData"
    assert time.perf_counter() - started < 1.0
    assert threading.active_count() == before
