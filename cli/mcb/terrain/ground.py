"""Natural ground from a terrain recipe's height field, for the local server's world (``World.set_ground``).

The height field is defined for every world column (not just the envelope), so the whole world gets rolling,
layered terrain: bedrock at the world floor, rock, ``soil_depth`` soil, the surface block, air above. Heights are
computed per 16×16 chunk with numpy and cached, so block-by-block reads stay cheap.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from mcb.terrain.heightfield import surface_heights
from mcb.terrain.recipe import TerrainRecipe

# Canonical full states (§1.5): the two terrain materials with properties, everything else bare.
CANONICAL = {
    "minecraft:grass_block": "minecraft:grass_block[snowy=false]",
    "minecraft:deepslate": "minecraft:deepslate[axis=y]",
}
AIR = "minecraft:air"
BEDROCK = "minecraft:bedrock"


def recipe_ground(
    recipe: TerrainRecipe, *, bedrock_y: int | None = -64, cached_chunks: int = 4096
) -> Callable[[int, int, int], str]:
    """``ground(x, y, z) -> canonical state`` of the recipe's sculpted terrain (preserve boxes and mode ignored)."""
    import numpy as np

    rock = CANONICAL.get(recipe.rock, recipe.rock)
    soil = CANONICAL.get(recipe.soil, recipe.soil)
    top = CANONICAL.get(recipe.surface, recipe.surface)
    depth = recipe.soil_depth
    chunks: OrderedDict[tuple[int, int], list[list[int]]] = OrderedDict()

    def surface(x: int, z: int) -> int:
        key = (x >> 4, z >> 4)
        heights = chunks.get(key)
        if heights is None:
            xs = np.arange(key[0] * 16, key[0] * 16 + 16, dtype=np.int64)
            zs = np.arange(key[1] * 16, key[1] * 16 + 16, dtype=np.int64)
            heights = surface_heights(recipe, xs[None, :], zs[:, None]).tolist()
            chunks[key] = heights
            if len(chunks) > cached_chunks:
                chunks.popitem(last=False)
        return heights[z & 15][x & 15]

    def ground(x: int, y: int, z: int) -> str:
        if bedrock_y is not None and y == bedrock_y:
            return BEDROCK
        h = surface(x, z)
        if y > h:
            return AIR
        if y == h:
            return top
        return soil if y >= h - depth else rock

    ground.surface = surface  # type: ignore[attr-defined]
    return ground


def default_ground() -> Callable[[int, int, int], str]:
    """The local server's default natural ground: gentle noise, a hill, a ridge, a dry basin, and a flat build
    site at y=63 around the origin (``data/default_ground.json``)."""
    from importlib.resources import files

    from mcb.terrain.recipe import parse_recipe_text

    text = files("mcb.terrain").joinpath("data/default_ground.json").read_text(encoding="utf-8")
    return recipe_ground(parse_recipe_text(text))
