"""Sponge varints (unsigned LEB128, ``BlockData``/``Data``): the one decoder and encoder, their rules and problems.

Rules follow the server's ``readVarInt`` (protocol §6.4 rule 12): at most 5 bytes, the 5th byte's top 4 bits zero,
value non-negative as an int32, canonical (a multi-byte varint may not end in 0x00), not truncated. Each rule is
worded once (:data:`_BROKEN`); a problem names the first entry that breaks one.

Whole streams are decoded and encoded vectorised with numpy (:func:`decode_varints`, :func:`encode_varints`; no
per-block Python loop). Validation of a short stream (:data:`SMALL_STREAM`) walks it with a plain loop instead:
checking a small schematic should not import numpy, which costs more than the loop (about 70 ms of CPU, the
start-up benchmark's `schem validate SMALL`). numpy is imported by the functions that use it, never here.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcb.wording import plural

SMALL_STREAM = 1 << 16  # bytes: up to here validation reads the stream in plain Python
_CHUNK = 1 << 20  # bytes scanned per numpy pass: small temporaries stay in cache

# kind -> what an entry that breaks the rule does
_BROKEN = {
    "truncated": "is a truncated varint",
    "too_long": "is longer than 5 bytes",
    "too_wide": "has bits set in the top 4 bits of its 5th byte",
    "negative": "decodes to a negative int",
    "non_canonical": "is non-canonical (ends in a 0x00 continuation byte)",
}


@dataclass
class VarintProblem:
    """Why a varint stream is not acceptable; ``index`` is the 0-based varint (cell) number."""

    kind: str  # truncated | too_long | negative | non_canonical | too_few | too_many
    index: int
    message: str


def broken(rule: str, index: int) -> VarintProblem:
    """The problem of entry ``index`` breaking ``rule`` (a key of :data:`_BROKEN`; a too-wide 5th byte is a
    ``too_long`` problem, as the server words it)."""
    kind = "too_long" if rule == "too_wide" else rule
    return VarintProblem(kind, index, f"BlockData entry {index} {_BROKEN[rule]}")


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


def _rule_broken(run: int, final: int, value: int) -> str | None:
    """The rule a complete multi-byte varint breaks (``run`` continuation bytes, then ``final``), or None."""
    if run > 4:
        return "too_long"
    if run == 4 and final > 0x0F:
        return "too_wide"
    if value > 0x7FFFFFFF:
        return "negative"
    if final == 0:
        return "non_canonical"
    return None


def _used_values_small(data: bytes, count: int) -> tuple[frozenset[int], VarintProblem | None]:
    """:func:`used_values` of a short stream, by a plain loop (no numpy)."""
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
            return frozenset(values), broken("truncated", index)
        final = data[i]
        i += 1
        value |= final << shift
        rule = _rule_broken(run, final, value)
        if rule is not None:
            return frozenset(values), broken(rule, index)
        add(value)
        index += 1
    return frozenset(values), count_problem(index, count)


def used_values(data: bytes, count: int) -> tuple[frozenset[int], VarintProblem | None]:
    """The distinct values of the entries before the first problem, and that problem (or a count mismatch): what
    validation asks of a stream."""
    if len(data) <= SMALL_STREAM:
        return _used_values_small(data, count)
    import numpy as np

    values, problem = decode_varints(data, count)
    return frozenset(np.flatnonzero(np.bincount(values)).tolist()) if values.size else frozenset(), problem


# --- whole streams, vectorised ----------------------------------------------------------------------------------


def _continuations(raw):
    """Positions of bytes >= 0x80, in chunks (small temporaries stay in cache)."""
    import numpy as np

    parts = []
    for start in range(0, raw.size, _CHUNK):
        found = np.flatnonzero(raw[start : start + _CHUNK] >= 0x80)
        if found.size:
            parts.append(found + start)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def decode_varints(data, count: int, dtype=None):
    """Decode ``data`` (bytes or a uint8 array) into an integer array (``dtype``, default int32).

    Returns ``(values, problem)``. ``problem`` is the first rule broken (by stream position), or a count mismatch
    against ``count`` (the expected number of entries); ``values`` holds the entries that decoded cleanly before
    the problem (for a count mismatch: all decoded entries).
    """
    import numpy as np

    dtype = dtype or np.int32
    raw = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data.view(np.uint8)
    cpos = _continuations(raw)
    if cpos.size == 0:  # every entry is one byte (palettes up to 128 entries)
        values = raw.astype(dtype)
        return values, count_problem(values.size, count)
    terminators = raw.size - cpos.size
    problem: VarintProblem | None = None
    limit = terminators  # entries that decoded cleanly
    if raw[-1] >= 0x80:
        # the stream ends inside a varint: that entry is truncated; drop its continuation bytes
        problem = broken("truncated", terminators)
        behind = (raw.size - 1 - cpos[::-1]) - np.arange(cpos.size)
        trailing = int(np.argmax(behind != 0)) if (behind != 0).any() else cpos.size
        cpos = cpos[: cpos.size - trailing]
    values = raw[raw < 0x80].astype(dtype)  # the final byte of every complete varint, in order
    if cpos.size:
        owner = cpos - np.arange(cpos.size)  # varint index = number of terminators before the byte
        run_start = np.empty(owner.size, dtype=bool)
        run_start[0] = True
        np.not_equal(owner[1:], owner[:-1], out=run_start[1:])
        first = np.flatnonzero(run_start)
        run_len = np.diff(np.append(first, owner.size))  # continuation bytes of each multi-byte varint
        shift_in_run = np.arange(owner.size) - np.repeat(first, run_len)
        contrib = (raw[cpos].astype(np.int64) & 0x7F) << (7 * shift_in_run)
        multi = owner[first]
        final = raw[cpos[first + run_len - 1] + 1].astype(np.int64)
        full = np.add.reduceat(contrib, first) + (final << (7 * run_len))
        for rule, mask in (
            ("too_long", run_len > 4),
            ("too_wide", (run_len == 4) & (final > 0x0F)),
            ("negative", full > 0x7FFFFFFF),
            ("non_canonical", final == 0),
        ):
            hits = np.flatnonzero(mask)
            if hits.size and int(multi[hits[0]]) < limit:
                limit = int(multi[hits[0]])
                problem = broken(rule, limit)
        ok = multi < limit
        values[multi[ok]] = full[ok].astype(dtype)
    if problem is not None:
        return values[:limit], problem
    return values, count_problem(values.size, count)


def encode_varints(values) -> bytes:
    """Canonical unsigned LEB128 of non-negative int32 values, in array order.

    Builds an (n, k) byte table (k = bytes of the largest value) and keeps, row by row, the bytes each value
    needs: no per-value loop and no prefix sums.
    """
    import numpy as np

    flat = np.ascontiguousarray(values).ravel()
    if flat.size == 0:
        return b""
    top = int(flat.max())
    if int(flat.min()) < 0 or top > 0x7FFFFFFF:
        raise ValueError("varints must be in 0..2^31-1")
    if top < 0x80:
        return flat.astype(np.uint8).tobytes()
    width = 1 + sum(top >= (1 << bits) for bits in (7, 14, 21, 28))
    if width == 2:  # palettes up to 16384 entries: one low byte each, a high byte inserted after the few big ones
        narrow = flat.astype(np.uint16, copy=False)
        big = np.flatnonzero(narrow >= 0x80)
        low = narrow.astype(np.uint8) & 0x7F
        low[big] |= 0x80
        return np.insert(low, big + 1, (narrow[big] >> 7).astype(np.uint8)).tobytes()
    wide = flat.astype(np.int64 if flat.dtype.itemsize > 4 else np.int32, copy=False)
    table = np.empty((flat.size, width), dtype=np.uint8)
    keep = np.empty((flat.size, width), dtype=bool)
    for j in range(width):
        more = wide >= (1 << (7 * (j + 1))) if j + 1 < width else np.zeros(flat.size, dtype=bool)
        table[:, j] = ((wide >> (7 * j)) & 0x7F) | (more.astype(np.uint8) << 7)
        keep[:, j] = wide >= (1 << (7 * j)) if j else True
    return table[keep].tobytes()
