"""Vectorised unsigned-LEB128 varints (Sponge ``BlockData``/``Data``): no per-block Python loop.

Rules follow the server's ``readVarInt`` (protocol §6.4 rule 12): at most 5 bytes, the 5th byte's top 4 bits zero,
value non-negative as an int32, canonical (a multi-byte varint may not end in 0x00), not truncated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mcb.schematics.varint_py import VarintProblem, count_problem as _count_problem


@dataclass
class _Scan:
    last_bytes: np.ndarray      # uint8: the final byte of every complete varint, in order
    multi: np.ndarray           # indices of the multi-byte varints
    multi_values: np.ndarray    # their decoded values (int64)
    limit: int                  # number of varints that decoded cleanly
    problem: VarintProblem | None
    final_pos: np.ndarray | None = None  # stream offset of each multi-byte varint's final byte


def _raw(data) -> np.ndarray:
    return np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data.view(np.uint8)


_CHUNK = 1 << 20


def _continuations(raw: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
    """Positions of bytes >= 0x80, in 1 MiB chunks (small temporaries stay in cache); optionally also adds a
    byte-value histogram of ``raw`` into ``counts`` in the same pass."""
    parts = []
    for start in range(0, raw.size, _CHUNK):
        chunk = raw[start:start + _CHUNK]
        found = np.flatnonzero(chunk >= 0x80)
        if found.size:
            parts.append(found + start)
        if counts is not None:
            counts += np.bincount(chunk, minlength=256)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _scan(data: bytes | np.ndarray, keep_last: bool = True, cpos: np.ndarray | None = None) -> _Scan:
    """Find the multi-byte varints and every rule they break. ``keep_last=False`` skips gathering the final byte
    of every varint (a full-size copy) for callers that only need the multi-byte part."""
    raw = _raw(data)
    cpos = _continuations(raw) if cpos is None else cpos
    if cpos.size == 0:  # every entry is one byte (palettes up to 128 entries): zero-copy
        empty = np.zeros(0, dtype=np.int64)
        return _Scan(raw, empty, empty, raw.size, None)
    terminators = raw.size - cpos.size
    problem: VarintProblem | None = None
    limit = terminators
    if raw[-1] >= 0x80:
        # the stream ends inside a varint: that entry is truncated; drop its continuation bytes
        problem = VarintProblem("truncated", terminators, f"BlockData entry {terminators} is a truncated varint")
        behind = (raw.size - 1 - cpos[::-1]) - np.arange(cpos.size)
        trailing = int(np.argmax(behind != 0)) if (behind != 0).any() else cpos.size
        cpos = cpos[:cpos.size - trailing]
    last = raw[raw < 0x80] if keep_last else None
    multi = np.zeros(0, dtype=np.int64)
    full = np.zeros(0, dtype=np.int64)
    final_pos = np.zeros(0, dtype=np.int64)
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
        final_pos = cpos[first + run_len - 1] + 1
        final = raw[final_pos].astype(np.int64)
        full = np.add.reduceat(contrib, first) + (final << (7 * run_len))
        rules = [
            ("too_long", run_len > 4, "is longer than 5 bytes"),
            ("too_long", (run_len == 4) & (final > 0x0F), "has bits set in the top 4 bits of its 5th byte"),
            ("negative", full > 0x7FFFFFFF, "decodes to a negative int"),
            ("non_canonical", final == 0, "is non-canonical (ends in a 0x00 continuation byte)"),
        ]
        for kind, mask, text in rules:
            hits = np.flatnonzero(mask)
            if hits.size and int(multi[hits[0]]) < limit:
                limit = int(multi[hits[0]])
                problem = VarintProblem(kind, limit, f"BlockData entry {limit} {text}")
    return _Scan(last, multi, full, limit, problem, final_pos)


def decode_varints(data: bytes | np.ndarray, count: int, dtype=np.int32) -> tuple[np.ndarray, VarintProblem | None]:
    """Decode ``data`` into an integer array (``dtype``, default int32).

    Returns ``(values, problem)``. ``problem`` is the first rule broken (by stream position), or a count mismatch
    against ``count`` (the expected number of entries); ``values`` holds the entries that decoded cleanly before
    the problem (for a count mismatch: all decoded entries).
    """
    scan = _scan(data)
    values = scan.last_bytes.astype(dtype)
    ok = scan.multi < scan.limit
    values[scan.multi[ok]] = scan.multi_values[ok].astype(dtype)
    if scan.problem is not None:
        return values[:scan.limit], scan.problem
    return values, _count_problem(values.size, count)


def histogram_varints(data: bytes | np.ndarray, count: int,
                      bound: int = 65536) -> tuple[np.ndarray, np.ndarray, VarintProblem | None]:
    """How often each index below ``bound`` occurs, without materialising a full index array (the validation
    fast path). Returns ``(counts, beyond, problem)``: ``counts`` has ``bound`` entries, ``beyond`` holds the
    distinct values >= ``bound`` (sorted). On a problem the figures cover the entries before it.
    """
    counts = np.zeros(max(bound, 256), dtype=np.int64)
    byte_counts = np.zeros(256, dtype=np.int64)
    scan = _scan(data, keep_last=False, cpos=_continuations(_raw(data), byte_counts))
    beyond = np.zeros(0, dtype=np.int64)
    if scan.problem is not None:  # rare: count only the entries before the problem, the simple way
        scan = _scan(data)
        last = scan.last_bytes[:scan.limit]
        counts[:256] += np.bincount(last, minlength=256)
        ok = scan.multi < scan.limit
        counts[:256] -= np.bincount(last[scan.multi[ok]], minlength=256)
        values = scan.multi_values[ok]
    else:
        counts[:128] += byte_counts[:128]  # bytes >= 0x80 are continuation bytes
        if scan.multi.size:  # final bytes of multi-byte varints were counted as one-byte entries
            finals = (scan.multi_values >> (7 * _lengths(scan.multi_values))) & 0x7F
            counts[:128] -= np.bincount(finals, minlength=128)[:128]
        values = scan.multi_values
    if values.size:
        inside = values < counts.size
        counts += np.bincount(values[inside], minlength=counts.size)[:counts.size]
        beyond = np.unique(values[~inside])
    if bound < counts.size:
        extra = np.flatnonzero(counts[bound:]) + bound
        beyond = np.union1d(extra, beyond)
        counts = counts[:bound]
    problem = scan.problem or _count_problem(scan.limit, count)
    return counts, beyond, problem


def used_varints(data: bytes | np.ndarray, count: int,
                 bound: int = 65536) -> tuple[np.ndarray, np.ndarray, VarintProblem | None]:
    """Which indices occur, for validation: like :func:`histogram_varints` but ``counts`` only tells present (1)
    from absent (0). Cheaper: a byte-value histogram of 16.7 M cells costs ~100 ms in numpy, while the set of
    byte values is found by ``bytes.translate`` deleting the values already seen (a pass or two, ~10 ms).
    """
    counts, beyond, problem, entries = stream_presence(data, bound)
    return counts, beyond, problem or _count_problem(entries, count)


def stream_presence(data: bytes | np.ndarray,
                    bound: int = 65536) -> tuple[np.ndarray, np.ndarray, VarintProblem | None, int]:
    """:func:`used_varints` before the count is known: ``(counts, beyond, problem, entries)``, where ``problem``
    is the stream's first broken rule (never a count mismatch) and ``entries`` the number of entries before it."""
    raw = _raw(data)
    cpos = _continuations(raw)  # in 1 MiB chunks: no 16 MiB temporary to fault in
    scan = _scan(raw, keep_last=False, cpos=cpos)
    if scan.problem is not None:  # rare: the exact counting path knows where to stop
        counts, beyond, problem = histogram_varints(data, scan.limit, bound)
        return (counts > 0).astype(np.int64), beyond, problem, scan.limit
    if cpos.size:  # hide the multi-byte varints' bytes, leaving the one-byte entries
        singles = raw.copy()
        singles[cpos] = 0x80
        singles[scan.final_pos] = 0x80
        stream = singles.tobytes()
    else:
        stream = raw.tobytes() if isinstance(data, np.ndarray) else bytes(data)
    counts, beyond = _presence(_byte_values(stream), scan.multi_values, bound)
    return counts, beyond, None, scan.limit


def _presence(singles: set[int], values: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``used_varints``' (counts, beyond) from the one-byte entries' values and the multi-byte entries' values."""
    counts = np.zeros(max(bound, 256), dtype=np.int64)
    counts[sorted(singles)] = 1
    beyond = np.zeros(0, dtype=np.int64)
    if values.size:
        inside = values < counts.size
        counts[np.bincount(values[inside], minlength=counts.size) > 0] = 1
        beyond = np.unique(values[~inside])
    if bound < counts.size:
        beyond = np.union1d(np.flatnonzero(counts[bound:]) + bound, beyond)
        counts = counts[:bound]
    return counts, beyond


_HIGH = frozenset(range(0x80, 0x100))


def _byte_values(stream: bytes) -> set[int]:
    """The distinct byte values below 0x80 in ``stream``: each pass deletes the values seen so far."""
    seen = set(stream[:65536])
    rest = stream
    while rest := rest.translate(None, bytes(sorted(seen | _HIGH))):
        seen.update(rest[:65536])
    return seen - _HIGH


def _lengths(values: np.ndarray) -> np.ndarray:
    """Continuation bytes of each value's canonical varint (values >= 128)."""
    extra = np.ones(values.size, dtype=np.int64)
    for bits in (14, 21, 28):
        extra += values >= (1 << bits)
    return extra


def encode_varints(values: np.ndarray) -> bytes:
    """Canonical unsigned LEB128 of non-negative int32 values, in array order.

    Builds an (n, k) byte table (k = bytes of the largest value) and keeps, row by row, the bytes each value
    needs: no per-value loop and no prefix sums.
    """
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
