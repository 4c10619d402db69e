"""Sponge varints (unsigned LEB128, ``BlockData``/``Data``): their rules, problems, and validation's reading.

Rules follow the server's ``readVarInt`` (protocol §6.4 rule 12): at most 5 bytes, the 5th byte's top 4 bits zero,
value non-negative as an int32, canonical (a multi-byte varint may not end in 0x00), not truncated.

Whole streams are decoded and encoded vectorised with numpy in :mod:`mcb.schematics.cells` (no per-block Python
loop). The one exception is validation of a short stream (:data:`SMALL_STREAM`), read here by a plain loop: checking
a small schematic should not import numpy, which costs more than the loop (about 70 ms of CPU, the start-up
benchmark's `schem validate SMALL`).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcb.wording import plural

SMALL_STREAM = 1 << 16  # bytes: up to here validation reads the stream in plain Python


@dataclass
class VarintProblem:
    """Why a varint stream is not acceptable; ``index`` is the 0-based varint (cell) number."""

    kind: str  # truncated | too_long | negative | non_canonical | too_few | too_many
    index: int
    message: str


def count_problem(found: int, expected: int) -> VarintProblem | None:
    if found > expected:
        return VarintProblem(
            "too_many",
            expected,
            f"BlockData has {plural(found, 'entry', 'entries')}, "
            f"{found - expected} more than the {plural(expected, 'cell')}",
        )
    if found < expected:
        entries = plural(found, "entry", "entries")
        return VarintProblem("too_few", found, f"BlockData has {entries} for {plural(expected, 'cell')}")
    return None


def _used_values_small(data: bytes, count: int) -> tuple[frozenset[int], VarintProblem | None]:
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
            return frozenset(values), VarintProblem(
                "truncated", index, f"BlockData entry {index} is a truncated varint"
            )
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


def used_values(data: bytes, count: int) -> tuple[frozenset[int], VarintProblem | None]:
    """The distinct values of the entries before the first problem, and that problem (or a count mismatch): what
    validation asks of a stream."""
    if len(data) <= SMALL_STREAM:
        return _used_values_small(data, count)
    import numpy as np

    from mcb.schematics.cells import decode_varints

    values, problem = decode_varints(data, count)
    return frozenset(np.flatnonzero(np.bincount(values)).tolist()) if values.size else frozenset(), problem
