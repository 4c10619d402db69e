"""Java's ``Math.hypot`` (fdlibm ``e_hypot.c``), vectorised, bit for bit.

numpy's ``hypot`` and Python's ``math.hypot`` round differently from fdlibm (which is accurate to < 1 ulp, not
correctly rounded): against a JVM they differ in the last bit for roughly one non-integer argument pair in ten, and
a last-bit difference can flip the ``floor`` of a terrain height. This follows fdlibm's steps exactly (high-word
splitting and its two sqrt formulas) for the range terrain uses; ``tests/terrain/test_fdlibm.py`` checks it
bit for bit against ``Math.hypot`` when a JDK is installed.
"""

from __future__ import annotations

import numpy as np

_SHIFT = np.uint64(32)
_LOW_MASK = np.uint64(0xFFFFFFFF)
_ONE_ULP_HIGH = np.uint64(0x00100000 << 32)  # +1 in the exponent field of the high word


def java_hypot(x, y) -> np.ndarray:
    """``Math.hypot`` for finite arguments below 2**500 in magnitude (terrain distances always are)."""
    x = np.abs(np.asarray(x, dtype=np.float64))
    y = np.abs(np.asarray(y, dtype=np.float64))
    x, y = np.broadcast_arrays(x, y)
    bx, by = x.view(np.uint64), y.view(np.uint64)  # |v|: the sign bit is already clear
    swap = (by >> _SHIFT) > (bx >> _SHIFT)  # fdlibm orders by high word only
    a = np.where(swap, y, x)
    b = np.where(swap, x, y)
    a_hi = a.view(np.uint64) & ~_LOW_MASK  # a with its low word cleared, as bits
    b_hi = b.view(np.uint64) & ~_LOW_MASK
    ha = (a_hi >> _SHIFT).astype(np.int64)
    hb = (b_hi >> _SHIFT).astype(np.int64)
    if np.any(ha > 0x5F300000) or np.any((hb < 0x20B00000) & (b != 0)):
        raise ValueError("java_hypot: argument outside the terrain range (|v| > 2**500 or tiny non-zero)")
    w = a - b
    far = w > b
    with np.errstate(invalid="ignore"):
        # a much larger than b
        t1 = a_hi.view(np.float64)
        t2 = a - t1
        first = np.sqrt(t1 * t1 - (b * (-b) - t2 * (a + t1)))
        # a and b close
        y1 = b_hi.view(np.float64)
        y2 = b - y1
        t1 = (a_hi + _ONE_ULP_HIGH).view(np.float64)  # high word of 2a
        t2 = (a + a) - t1
        second = np.sqrt(t1 * y1 - (w * (-w) - (t1 * y2 + t2 * b)))
    result = np.where(far, first, second)
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
