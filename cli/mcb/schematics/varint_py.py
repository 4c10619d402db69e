"""Varint streams in plain Python, for short ones: reading a small schematic's BlockData this way is quicker than
importing numpy (~100 ms on a small machine). Same rules, same problems as :mod:`mcb.schematics.varint`."""

from __future__ import annotations

from dataclasses import dataclass

SMALL_STREAM = 1 << 16  # bytes: up to here the plain loop beats importing numpy


@dataclass
class VarintProblem:
    """Why a varint stream is not acceptable; ``index`` is the 0-based varint (cell) number."""

    kind: str  # truncated | too_long | negative | non_canonical | too_few | too_many
    index: int
    message: str


def count_problem(found: int, expected: int) -> VarintProblem | None:
    if found > expected:
        return VarintProblem("too_many", expected, f"BlockData has {found} entries, {found - expected} more than "
                             f"the {expected} cells")
    if found < expected:
        return VarintProblem("too_few", found, f"BlockData has {found} entries for {expected} cells")
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
