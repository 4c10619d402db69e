"""Java's ``Math.hypot`` (fdlibm ``e_hypot.c``), vectorised, bit for bit.

numpy's ``hypot`` and Python's ``math.hypot`` are more accurate than fdlibm and therefore *different* in the last
bit for roughly one non-integer argument pair in ten; a last-bit difference can flip the ``floor`` of a terrain
height. This follows fdlibm's steps exactly (high-word splitting and its two sqrt formulas) for the range terrain
uses; ``benchmarks/bench_terrain.py`` and ``tests/terrain/test_fdlibm.py`` check it against a JVM when one exists.
"""

from __future__ import annotations

import numpy as np

_HIGH_MASK = np.uint64(0x7FFFFFFF)
_SHIFT = np.uint64(32)


def _high_word(v: np.ndarray) -> np.ndarray:
    return ((v.view(np.uint64) >> _SHIFT) & _HIGH_MASK).astype(np.int64)


def _from_high_word(high: np.ndarray) -> np.ndarray:
    """A double whose high 32 bits are ``high`` and low 32 bits zero."""
    return (high.astype(np.uint64) << _SHIFT).view(np.float64)


def java_hypot(x, y) -> np.ndarray:
    """``Math.hypot`` for finite arguments below 2**500 in magnitude (terrain distances always are)."""
    x = np.abs(np.asarray(x, dtype=np.float64))
    y = np.abs(np.asarray(y, dtype=np.float64))
    x, y = np.broadcast_arrays(x, y)
    hx, hy = _high_word(x), _high_word(y)
    swap = hy > hx  # fdlibm orders by high word only
    a = np.where(swap, y, x)
    b = np.where(swap, x, y)
    ha = np.where(swap, hy, hx)
    hb = np.where(swap, hx, hy)
    if np.any(ha > 0x5F300000) or np.any((hb < 0x20B00000) & (b != 0)):
        raise ValueError("java_hypot: argument outside the terrain range (|v| > 2**500 or tiny non-zero)")
    w = a - b
    with np.errstate(invalid="ignore"):
        # branch 1: w > b
        t1 = _from_high_word(ha)
        t2 = a - t1
        first = np.sqrt(t1 * t1 - (b * (-b) - t2 * (a + t1)))
        # branch 2: a and b close
        a2 = a + a
        y1 = _from_high_word(hb)
        y2 = b - y1
        t1b = _from_high_word(ha + 0x00100000)
        t2b = a2 - t1b
        second = np.sqrt(t1b * y1 - (w * (-w) - (t1b * y2 + t2b * b)))
    result = np.where(w > b, first, second)
    result = np.where((ha - hb) > 0x3C00000, a + b, result)  # x/y > 2**60
    return np.where(b == 0, a, result)


def integer_hypot(dx, dz) -> np.ndarray:
    """``Math.hypot`` for integer-valued arguments below 2**26 in magnitude, the fast way.

    There every product in fdlibm's formula is exact and the sum below 2**53, so fdlibm returns the correctly
    rounded root of the exact sum, which is what ``sqrt(dx*dx + dz*dz)`` computes here (hill, basin and plateau
    distances: integer columns minus integer centres, at most 60,000,000 apart).
    """
    dx = np.asarray(dx, dtype=np.float64)
    dz = np.asarray(dz, dtype=np.float64)
    return np.sqrt(dx * dx + dz * dz)
