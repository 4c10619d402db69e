"""Whole-array passes over palette-index cells (16.7 M of them in a 256^3 schematic), kept cheap.

``np.unique``/``np.bincount`` on such an array sort it or widen it to int64 (hundreds of ms); palettes are small,
so one chunked pass that looks each cell up in a ``seen`` table of palette size does the same job in tens of ms.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mcb.schematics.varint import VarintProblem, count_problem

_STEP = 1 << 16  # cells per chunk: the chunk and its mask stay in cache


def first_seen_order(flat: np.ndarray, size: int) -> np.ndarray:
    """The distinct values of ``flat`` (each in ``0..size-1``) in order of first appearance (int64).

    Raises ``ValueError`` for a negative value and ``IndexError`` for one >= ``size``.
    """
    if flat.size and int(flat.min()) < 0:
        raise ValueError("palette indices must not be negative")
    seen = np.zeros(size, dtype=bool)
    found: list[np.ndarray] = []
    remaining = size
    for start in range(0, flat.size, _STEP):
        chunk = flat[start : start + _STEP]
        new = seen[chunk]
        if new.all():
            continue
        values = chunk[~new]
        distinct, first = np.unique(values, return_index=True)
        distinct = distinct[np.argsort(first, kind="stable")]
        seen[distinct] = True
        found.append(distinct.astype(np.int64, copy=False))
        remaining -= distinct.size
        if not remaining:  # every palette entry seen: the rest cannot add anything
            break
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def used_indices(flat: np.ndarray, size: int) -> np.ndarray:
    """Sorted distinct values of ``flat`` (each in ``0..size-1``): ``np.unique`` without sorting the cells."""
    return np.sort(first_seen_order(flat, size))


def present_values(flat: np.ndarray, candidates, size: int) -> np.ndarray:
    """The ``candidates`` (values in ``0..size-1``) that occur in ``flat``, sorted; stops as soon as all were seen.

    Raises like :func:`first_seen_order` for values outside ``0..size-1``.
    """
    if flat.size and int(flat.min()) < 0:
        raise ValueError("palette indices must not be negative")
    wanted = np.zeros(size, dtype=bool)
    wanted[np.asarray(candidates, dtype=np.int64)] = True
    found = np.zeros(size, dtype=bool)
    remaining = int(wanted.sum())
    for start in range(0, flat.size, _STEP):
        if not remaining:
            break
        chunk = flat[start : start + _STEP]
        hits = wanted[chunk]
        if hits.any():
            values = np.unique(chunk[hits])
            new = values[~found[values]]
            found[new] = True
            remaining -= new.size
    return np.flatnonzero(found)


def pieces(cells: np.ndarray):
    """Consecutive pieces of ``cells`` in C order (the Sponge cell order), about ``_STEP`` cells each, as views
    (1-D, or 2-D/3-D for a rotated or mirrored view: read a few rows or layers at a time, never copied whole)."""
    if cells.ndim != 3 or cells.flags.c_contiguous:
        flat = cells.reshape(-1)
        for start in range(0, flat.size, _STEP):
            yield flat[start : start + _STEP]
        return
    height, length, width = cells.shape
    if length * width >= _STEP:
        rows = max(1, _STEP // max(width, 1))
        for y in range(height):
            for z in range(0, length, rows):
                yield cells[y, z : z + rows]
    else:
        layers = max(1, _STEP // max(length * width, 1))
        for y in range(0, height, layers):
            yield cells[y : y + layers]


def first_seen_in(cells: np.ndarray, size: int) -> np.ndarray:
    """:func:`first_seen_order` of ``cells`` in C order (any layout, see :func:`pieces`); same result and errors.

    Whether a piece holds anything new does not depend on order, so that is asked of the piece's cells in memory
    order (a rotated view is a transposed one: 45 -> 25 ms for 256^3); only the few pieces with news are read in C
    order to learn which came first."""
    seen = np.zeros(size, dtype=bool)
    found: list[np.ndarray] = []
    remaining = size
    for piece in pieces(cells):
        if not piece.size:
            continue
        same = _memory_order(piece)
        if int(same.min()) < 0:
            raise ValueError("palette indices must not be negative")
        if not remaining:  # every palette entry seen: the rest only needs the range check
            if int(same.max()) >= size:
                raise IndexError(f"palette index {int(same.max())} is out of range")
            continue
        if seen.take(same).all():  # IndexError for an index beyond the palette
            continue
        new = seen.take(piece)
        distinct, first = np.unique(piece[~new], return_index=True)
        distinct = distinct[np.argsort(first, kind="stable")]
        seen[distinct] = True
        found.append(distinct.astype(np.int64, copy=False))
        remaining -= distinct.size
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def _memory_order(piece: np.ndarray) -> np.ndarray:
    """The same cells as ``piece``, axes flipped and reordered to walk memory forwards (a view, no copy)."""
    if piece.flags.c_contiguous:
        return piece
    piece = piece[tuple(slice(None, None, -1) if stride < 0 else slice(None) for stride in piece.strides)]
    return piece.transpose(sorted(range(piece.ndim), key=lambda axis: -piece.strides[axis]))


def encode_cells(cells: np.ndarray, palette: list[str]) -> tuple[list[str], bytes]:
    """(palette in first-seen order with duplicate strings merged, the cells as Sponge varints).

    The same result as renumbering the whole array and encoding it, done a piece at a time: each piece is looked up
    in one small table (merge + renumber at once) and encoded while it is in cache, and a rotated view of the cells
    is never copied whole (a 256^3 build: 16.7 M cells and no 67 MB temporaries).
    """
    if not cells.size:
        return [], b""
    by_string: dict[str, int] = {}
    merge = np.array([by_string.setdefault(s, len(by_string)) for s in palette], dtype=np.int64)
    strings = list(by_string)
    order = first_seen_in(cells, len(palette))  # raises for indices outside the palette
    merged_order = first_seen_order(merge[order], len(strings))  # merged values, still in first-seen order
    renumber = np.zeros(len(strings), dtype=np.int64)
    renumber[merged_order] = np.arange(merged_order.size)
    table = renumber[merge].astype(np.uint16 if len(strings) <= 0x10000 else np.int32)
    encoded = [encode_varints(table.take(piece).ravel()) for piece in pieces(cells)]
    return [strings[i] for i in merged_order], b"".join(encoded)


def decode_cells(data, count: int, compact: bool = False):
    """Decode Sponge varint cells: ``(values, problem, largest value or None)``. ``compact``: uint16 values when every
    value fits (half the memory for a rewrite that only moves and writes the cells)."""
    values, problem = decode_varints(data, count)
    top = int(values.max()) if values.size else None
    if compact and problem is None and top is not None and top <= 0xFFFF:
        values = values.astype(np.uint16)
    return values, problem, top


# --- varint streams (the rules and their problems: mcb.schematics.varint) -----------------------------------


@dataclass
class _Scan:
    last_bytes: np.ndarray  # uint8: the final byte of every complete varint, in order
    multi: np.ndarray  # indices of the multi-byte varints
    multi_values: np.ndarray  # their decoded values (int64)
    limit: int  # number of varints that decoded cleanly
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
        chunk = raw[start : start + _CHUNK]
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
        cpos = cpos[: cpos.size - trailing]
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
        return values[: scan.limit], scan.problem
    return values, count_problem(values.size, count)


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
