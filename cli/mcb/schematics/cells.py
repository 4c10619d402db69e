"""Whole-array passes over palette-index cells (16.7 M of them in a 256^3 schematic), kept cheap.

``np.unique``/``np.bincount`` on such an array sort it or widen it to int64 (hundreds of ms); palettes are small,
so one chunked pass that looks each cell up in a ``seen`` table of palette size does the same job in tens of ms.
"""

from __future__ import annotations

import numpy as np

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
        chunk = flat[start:start + _STEP]
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
        chunk = flat[start:start + _STEP]
        hits = wanted[chunk]
        if hits.any():
            values = np.unique(chunk[hits])
            new = values[~found[values]]
            found[new] = True
            remaining -= new.size
    return np.flatnonzero(found)
