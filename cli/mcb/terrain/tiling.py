"""Tiling of a terrain envelope into plan-sized cubes and the target blocks of one tile (§1.2, §1.5, §1.8)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mcb.terrain.heightfield import surface_heights
from mcb.terrain.limits import DEFAULT_TILE_BUDGET  # noqa: F401 (imported from here by callers)
from mcb.terrain.recipe import Box, TerrainRecipe, TerrainRecipeError

AIR = "minecraft:air"


def tile_edge(budget: int) -> int:
    """Largest edge e <= 16 with e³ <= budget."""
    if budget < 1 or budget > 4096:
        raise TerrainRecipeError("Tile budget must be 1..4096")
    edge = 1
    while (edge + 1) ** 3 <= budget and edge < 16:
        edge += 1
    return edge


def _ceil_div(n: int, d: int) -> int:
    return -(-n // d)


@dataclass(frozen=True)
class TileGrid:
    edge: int
    nx: int
    nz: int
    ny: int

    @property
    def count(self) -> int:
        return self.nx * self.nz * self.ny


def tile_grid(recipe: TerrainRecipe, budget: int = DEFAULT_TILE_BUDGET) -> TileGrid:
    e = tile_edge(budget)
    grid = TileGrid(e, _ceil_div(recipe.width, e), _ceil_div(recipe.length, e), _ceil_div(recipe.height, e))
    if grid.count > 2**31 - 1:  # the server's int multiplication is overflow-checked
        raise TerrainRecipeError("integer overflow")
    return grid


def tile_count(recipe: TerrainRecipe, budget: int = DEFAULT_TILE_BUDGET) -> int:
    return tile_grid(recipe, budget).count


def tile_bounds(recipe: TerrainRecipe, index: int, budget: int = DEFAULT_TILE_BUDGET) -> Box:
    """Bounds of tile ``index`` (x fastest, then z, then y, from the envelope minimum)."""
    grid = tile_grid(recipe, budget)
    if index < 0 or index >= grid.count:
        raise TerrainRecipeError("Tile index outside terrain")
    e = grid.edge
    lo = recipe.bounds.min
    hi = recipe.bounds.max
    tmin = (
        lo[0] + (index % grid.nx) * e,
        lo[1] + (index // (grid.nx * grid.nz)) * e,
        lo[2] + (index // grid.nx % grid.nz) * e,
    )
    tmax = tuple(min(tmin[i] + e - 1, hi[i]) for i in range(3))
    return Box(tmin, tmax)


def column_materials(recipe: TerrainRecipe, surface: int, ys: range) -> list[tuple[int, str]]:
    """(y, state) of the mode's targets in one column, y ascending (preserve boxes not applied)."""
    out = []
    depth = recipe.soil_depth
    for y in ys:
        if recipe.mode == "fill" and y > surface or recipe.mode == "cut" and y <= surface:
            continue
        if y > surface:
            state = AIR
        elif y == surface:
            state = recipe.surface
        elif y >= surface - depth:
            state = recipe.soil
        else:
            state = recipe.rock
        out.append((y, state))
    return out


def tile_targets(recipe: TerrainRecipe, bounds: Box) -> dict[tuple[int, int, int], str]:
    """Target states of one tile in the server's order: z, then x, then y ascending; preserved cells omitted."""
    xs = np.arange(bounds.min[0], bounds.max[0] + 1, dtype=np.int64)
    zs = np.arange(bounds.min[2], bounds.max[2] + 1, dtype=np.int64)
    heights = surface_heights(recipe, xs[None, :], zs[:, None])
    ys = range(bounds.min[1], bounds.max[1] + 1)
    targets: dict[tuple[int, int, int], str] = {}
    for zi, z in enumerate(zs.tolist()):
        for xi, x in enumerate(xs.tolist()):
            for y, state in column_materials(recipe, int(heights[zi, xi]), ys):
                if recipe.preserve and recipe.preserved(x, y, z):
                    continue
                targets[(x, y, z)] = state
    return targets


def natural_state(recipe: TerrainRecipe, surface: int, y: int) -> str:
    """Layered state at height ``y`` of a column with ``surface`` (sculpt semantics, no preserve)."""
    if y > surface:
        return AIR
    if y == surface:
        return recipe.surface
    if y >= surface - recipe.soil_depth:
        return recipe.soil
    return recipe.rock
