"""Varint streams in plain Python, for short ones: reading a small schematic's BlockData this way is quicker than
importing numpy (~70 ms of CPU), and long streams of 1- and 2-byte varints (every real file) with bytes methods.
Same rules, same problems as :mod:`mcb.schematics.varint`."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from operator import itemgetter

from mcb.wording import plural

SMALL_STREAM = 1 << 16  # bytes: up to here the plain loop beats importing numpy


@dataclass
class VarintProblem:
    """Why a varint stream is not acceptable; ``index`` is the 0-based varint (cell) number."""

    kind: str  # truncated | too_long | negative | non_canonical | too_few | too_many
    index: int
    message: str


def count_problem(found: int, expected: int) -> VarintProblem | None:
    if found > expected:
        return VarintProblem("too_many", expected, f"BlockData has {plural(found, 'entry', 'entries')}, "
                             f"{found - expected} more than the {plural(expected, 'cell')}")
    if found < expected:
        entries = plural(found, "entry", "entries")
        return VarintProblem("too_few", found, f"BlockData has {entries} for {plural(expected, 'cell')}")
    return None


def used_values_small(data: bytes, count: int) -> tuple[frozenset[int], VarintProblem | None]:
    """The distinct values of the entries before the first problem, and that problem (or a count mismatch)."""
    values: set[int] = set()
    add = values.add
    size = len(data)
    i = index = 0
    while i < size:
        byte = data[i]
        i += 1
        if byte < 0x80:
            add(byte)
            index += 1
            continue
        value, shift, run = byte & 0x7F, 7, 1  # run: continuation bytes so far
        while i < size and data[i] >= 0x80:
            if run < 5:  # a longer run is refused anyway; do not grow a huge int on hostile input
                value |= (data[i] & 0x7F) << shift
                shift += 7
            run += 1
            i += 1
        if i >= size:
            return frozenset(values), VarintProblem("truncated", index, f"BlockData entry {index} is a truncated "
                                                    "varint")
        final = data[i]
        i += 1
        value |= final << shift
        if run > 4:
            kind, text = "too_long", "is longer than 5 bytes"
        elif run == 4 and final > 0x0F:
            kind, text = "too_long", "has bits set in the top 4 bits of its 5th byte"
        elif value > 0x7FFFFFFF:
            kind, text = "negative", "decodes to a negative int"
        elif final == 0:
            kind, text = "non_canonical", "is non-canonical (ends in a 0x00 continuation byte)"
        else:
            add(value)
            index += 1
            continue
        return frozenset(values), VarintProblem(kind, index, f"BlockData entry {index} {text}")
    return frozenset(values), count_problem(index, count)



_STEP = 1 << 20
_LOW = bytes(range(0x80))
_MARK = _LOW + b"\x80" * 0x80  # translate table: every continuation byte becomes 0x80
_HIGH = bytes(range(0x80, 0x100))
_FIRST = itemgetter(0)


def used_values(data: bytes, count: int) -> tuple[frozenset[int], VarintProblem | None] | None:
    """:func:`used_values_small` for a stream of any length, without numpy: a long stream of canonical 1- and
    2-byte varints (palettes up to 16384 entries: real files) is read with bytes methods a 1 MiB piece at a time.
    None for a long stream holding anything else (longer, truncated or non-canonical varints)."""
    if len(data) <= SMALL_STREAM:
        return used_values_small(data, count)
    singles: set[int] = set()
    codes: set[int] = set()  # the 2-byte varints, as native unsigned shorts
    entries = start = 0
    while start < len(data):
        end = min(start + _STEP, len(data))
        while end < len(data) and data[end - 1] >= 0x80:  # keep a varint whole
            end += 1
        piece = data[start:end]
        high = piece.translate(None, _LOW)  # the continuation bytes, in order
        after = piece.translate(_MARK).split(b"\x80")  # every part but the first follows a continuation byte
        try:
            finals = bytes(map(_FIRST, after[1:]))
        except IndexError:  # two continuation bytes in a row: a longer varint
            return None
        if b"\x00" in finals:  # non-canonical
            return None
        pairs = bytearray(2 * len(high))
        pairs[0::2], pairs[1::2] = high, finals
        codes.update(memoryview(pairs).cast("H"))
        if len(singles) < 0x80:  # once every one-byte value was seen, no piece can add one (two passes saved)
            # a final byte's value is also a one-byte entry if the piece holds it more often than the finals do
            finals_only = set(finals).difference(singles)
            singles.update(v for v in finals_only if piece.count(v) > finals.count(v))
            fresh = piece.translate(None, bytes(sorted(singles | finals_only)) + _HIGH)
            while fresh:  # values neither seen nor final: one-byte entries
                singles.update(fresh[:4096])
                fresh = fresh.translate(None, bytes(sorted(singles)))
        entries += len(piece) - len(high)
        start = end
    wide = (u.to_bytes(2, sys.byteorder) for u in codes)
    return frozenset(singles) | {(c & 0x7F) | (f << 7) for c, f in wide}, count_problem(entries, count)
