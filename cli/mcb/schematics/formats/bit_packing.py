"""Palette indices packed into 64-bit words, as Litematica stores ``BlockStates`` (spec formats-and-building.md §A.1):
entry ``i`` takes ``bits`` bits from bit ``i * bits`` of the words read as one little-endian number, so an entry
**may span two words**.

    bits = bits_for(len(palette))
    words = pack_indices(indices, bits)            # int64, as NBT stores them (signed)
    indices = unpack_indices(words, bits, count)   # int32

Vectorised without a per-entry index: the layout repeats every ``lcm(bits, 64)`` bits, a *period* of
``64 / gcd(bits, 64)`` entries in ``bits / gcd(bits, 64)`` words (32 entries in 5 words at 10 bits), so the words are
read as a table of periods and each entry of a period is one column: its word, shift and the spill into the next
word are the same in every row. That is a few whole-column numpy operations per column, over rows taken a block
at a time (bounded temporaries that stay in cache), instead of index arrays as long as the cells.
"""

from __future__ import annotations

from math import gcd

import numpy as np

_BLOCK = 1 << 17  # entries per block of rows: 512 KB of int32 out, 160 KB of words in at 10 bits (in cache: 2x faster)


def bits_for(palette_size: int) -> int:
    """Bits per entry: at least 2, else enough for the largest index."""
    return max(2, (max(palette_size, 1) - 1).bit_length())


def _period(bits: int) -> tuple[int, int]:
    """(entries, words) of one period of the layout."""
    common = gcd(bits, 64)
    return 64 // common, bits // common


def _columns(bits: int, entries: int) -> list[tuple[int, np.uint64, np.uint64 | None]]:
    """For each entry of a period: (its word in the period, the shift of its low part, the shift that brings its
    high part from the next word, or None when it does not spill)."""
    columns = []
    for k in range(entries):
        word, shift = divmod(k * bits, 64)
        spill = np.uint64(64 - shift) if shift + bits > 64 else None
        columns.append((word, np.uint64(shift), spill))
    return columns


def unpack_indices(words: np.ndarray, bits: int, count: int) -> np.ndarray:
    """``count`` entries of ``bits`` bits each (int32) from packed 64-bit words (uint64, or int64 in either byte
    order; entries may span two words). ``words`` must hold at least ``ceil(count * bits / 64)`` words."""
    if words.dtype != np.uint64:  # signed (as NBT stores them) or big-endian: native unsigned words
        words = words.astype(np.int64, copy=False).view(np.uint64)
    entries, span = _period(bits)
    periods = -(-count // entries)
    out = np.empty(periods * entries, dtype=np.int32)
    full = min(periods, words.size // span)
    table = words[: full * span].reshape(full, span)
    if full < periods:  # the last period is cut short: its words padded with zeros (a copy of a few words)
        tail = np.zeros((1, span), dtype=np.uint64)
        rest = words[full * span : (full + 1) * span]
        tail[0, : rest.size] = rest
        table = np.concatenate([table, tail]) if full else tail
    cells = out.reshape(periods, entries)
    mask = np.uint64((1 << bits) - 1)
    columns = _columns(bits, entries)
    step = max(1, _BLOCK // entries)
    low = np.empty(min(step, periods), dtype=np.uint64)
    high = np.empty_like(low)
    for start in range(0, periods, step):
        rows = table[start : start + step]
        n = rows.shape[0]
        lo, hi = low[:n], high[:n]
        for k, (word, shift, spill) in enumerate(columns):
            np.right_shift(rows[:, word], shift, out=lo)
            if spill is not None:
                np.left_shift(rows[:, word + 1], spill, out=hi)
                np.bitwise_or(lo, hi, out=lo)
            np.bitwise_and(lo, mask, out=lo)
            cells[start : start + n, k] = lo
    return out[:count]


def pack_indices(values: np.ndarray, bits: int) -> np.ndarray:
    """The inverse of :func:`unpack_indices`: ``ceil(len(values) * bits / 64)`` words, int64 (as NBT stores them,
    signed). ``values`` (any integer dtype) must lie in ``0 .. 2**bits - 1``."""
    values = values.ravel()
    count = values.size
    total = -(-count * bits // 64)
    entries, span = _period(bits)
    periods = -(-count // entries)
    full = count // entries
    words = np.zeros(periods * span, dtype=np.uint64)
    table = words.reshape(periods, span)
    columns = _columns(bits, entries)
    step = max(1, _BLOCK // entries)
    part = np.empty(min(step, max(periods, 1)), dtype=np.uint64)
    value = np.empty_like(part)
    blocks = [(start, values[start * entries : min(start + step, full) * entries]) for start in range(0, full, step)]
    if full < periods:  # the last period is cut short: its entries padded with zeros
        tail = np.zeros(entries, dtype=values.dtype)
        tail[: count - full * entries] = values[full * entries :]
        blocks.append((full, tail))
    for start, chunk in blocks:
        cells = chunk.reshape(-1, entries)
        n = cells.shape[0]
        rows, part_n, value_n = table[start : start + n], part[:n], value[:n]
        for k, (word, shift, spill) in enumerate(columns):
            value_n[...] = cells[:, k]
            np.left_shift(value_n, shift, out=part_n)
            np.bitwise_or(rows[:, word], part_n, out=rows[:, word])
            if spill is not None:
                np.right_shift(value_n, spill, out=part_n)
                np.bitwise_or(rows[:, word + 1], part_n, out=rows[:, word + 1])
    return words[:total].view(np.int64)
