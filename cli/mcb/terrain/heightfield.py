"""The exact surface-height field of a terrain recipe (terrain-materials.md §1.4), vectorised with numpy.

Every operation keeps the server's IEEE-754 evaluation order (separate ufunc calls never fuse) and distances use a
bit-exact port of Java's ``Math.hypot``, so heights match the Java plugin to the block. Coordinates are always
world coordinates.
"""

from __future__ import annotations

import numpy as np

from mcb.terrain.fdlibm import integer_hypot, java_hypot
from mcb.terrain.recipe import TerrainRecipe

_U64 = np.uint64
_GOLDEN = _U64(0x9E3779B97F4A7C15)
_PRIME2 = _U64(0xC2B2AE3D27D4EB4F)
_MIX1 = _U64(0xBF58476D1CE4E5B9)
_MIX2 = _U64(0x94D049BB133111EB)
_TWO_POW_MINUS_53 = 2.0**-53


def lattice_hash(seed: int, i, j) -> np.ndarray:
    """``H(seed, i, j)`` in [-1, 1): SplitMix64 finaliser over the seeded lattice point (64-bit wrap-around)."""
    i = np.asarray(i, dtype=np.int64).astype(_U64)
    j = np.asarray(j, dtype=np.int64).astype(_U64)
    with np.errstate(over="ignore"):
        v = _U64(seed & 0xFFFFFFFFFFFFFFFF) ^ (i * _GOLDEN) ^ (j * _PRIME2)
        v = (v ^ (v >> _U64(30))) * _MIX1
        v = (v ^ (v >> _U64(27))) * _MIX2
        v = v ^ (v >> _U64(31))
    return (v >> _U64(11)).astype(np.float64) * _TWO_POW_MINUS_53 * 2.0 - 1.0


def _smooth(t):
    return t * t * (3.0 - 2.0 * t)


def _lerp(a, b, t):
    return a + (b - a) * t


def value_noise(seed: int, u: np.ndarray, w: np.ndarray) -> np.ndarray:
    fu = np.floor(u)
    fw = np.floor(w)
    i = fu.astype(np.int64)
    j = fw.astype(np.int64)
    su = _smooth(u - fu)
    sw = _smooth(w - fw)
    south = _lerp(lattice_hash(seed, i, j), lattice_hash(seed, i + 1, j), su)
    north = _lerp(lattice_hash(seed, i, j + 1), lattice_hash(seed, i + 1, j + 1), su)
    return _lerp(south, north, sw)


def _weight(distance: np.ndarray, falloff: float) -> np.ndarray:
    return 1.0 - _smooth(np.minimum(1.0, distance / falloff))


def _path_distance(x: np.ndarray, z: np.ndarray, points, reach: float) -> np.ndarray:
    """Distance to the polyline, exact (Java's hypot) wherever it is below ``reach`` (width + falloff).

    Beyond ``reach`` the feature's weight is exactly 0 whatever the last bit, so there numpy's (≤ 1 ulp different)
    hypot is good enough and much cheaper than the fdlibm port.
    """
    best = np.full(np.broadcast(x, z).shape, np.inf)
    for (ax, az), (bx, bz) in zip(points, points[1:]):
        ax, az, bx, bz = float(ax), float(az), float(bx), float(bz)
        dx, dz = bx - ax, bz - az
        length = dx * dx + dz * dz
        if length == 0:
            t = np.zeros_like(best)
        else:
            t = np.maximum(0.0, np.minimum(1.0, ((x - ax) * dx + (z - az) * dz) / length))
        u = x - ax - t * dx
        v = z - az - t * dz
        # Clamped ends (t = 0 or 1) give integer offsets, where the cheap exact path equals Math.hypot.
        inner = (t > 0.0) & (t < 1.0)
        distance = integer_hypot(u, v)
        if inner.any():
            near = inner & (np.hypot(u, v) <= reach * (1 + 1e-9) + 1e-9)
            distance[inner] = np.hypot(u[inner], v[inner])
            if near.any():
                distance[near] = java_hypot(u[near], v[near])
        best = np.minimum(best, distance)
    return best


def surface_heights(recipe: TerrainRecipe, xs, zs) -> np.ndarray:
    """Unclamped integer surface heights for world columns; ``xs``/``zs`` broadcast together (int64 result)."""
    x = np.asarray(xs, dtype=np.float64)
    z = np.asarray(zs, dtype=np.float64)
    x, z = np.broadcast_arrays(x, z)
    scale = recipe.scale
    half, quarter = scale / 2, scale / 4
    n = (
        value_noise(recipe.seed, x / scale, z / scale)
        + 0.5 * value_noise(recipe.seed, x / half, z / half)
        + 0.25 * value_noise(recipe.seed, x / quarter, z / quarter)
    )
    h = float(recipe.base_height) + recipe.amplitude * n / 1.75
    for f in recipe.features:
        if f.type == "terrace":
            h = _lerp(h, np.floor(h / f.radius) * f.radius, f.height)
            continue
        if f.type == "plateau":
            dx = np.maximum(np.maximum(f.center[0] - x, 0.0), x - f.corner[0])
            dz = np.maximum(np.maximum(f.center[1] - z, 0.0), z - f.corner[1])
            d = integer_hypot(dx, dz)
        elif f.type in ("hill", "basin"):
            d = np.maximum(0.0, integer_hypot(x - f.center[0], z - f.center[1]) - f.radius)
        else:
            d = np.maximum(0.0, _path_distance(x, z, f.points, f.radius + f.falloff) - f.radius)
        w = _weight(d, f.falloff)
        if f.type in ("hill", "ridge"):
            h = h + f.height * w
        elif f.type in ("basin", "channel"):
            h = _lerp(h, np.minimum(h, f.height), w)
        else:
            h = _lerp(h, f.height, w)
    return np.floor(h).astype(np.int64)


def surface_height(recipe: TerrainRecipe, x: int, z: int) -> int:
    """Surface height of one column."""
    return int(surface_heights(recipe, np.array([x]), np.array([z]))[0])


def envelope_heights(recipe: TerrainRecipe) -> np.ndarray:
    """Every column of the envelope as a ``[z, x]`` array."""
    b = recipe.bounds
    xs = np.arange(b.min[0], b.max[0] + 1, dtype=np.int64)
    zs = np.arange(b.min[2], b.max[2] + 1, dtype=np.int64)
    return surface_heights(recipe, xs[None, :], zs[:, None])
