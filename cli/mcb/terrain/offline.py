"""Offline entry points used by ``mcb terrain preview --offline`` and ``mcb terrain tiles``."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import numpy as np

from mcb.terrain.heightfield import surface_heights
from mcb.terrain.jsontext import canonical_text, loads_keeping_numbers, to_plain
from mcb.terrain.recipe import TerrainRecipe, TerrainRecipeError, validate_recipe
from mcb.terrain.tiling import DEFAULT_TILE_BUDGET, tile_bounds, tile_grid, tile_targets


def read_json_text(source: str | Path, what: str = "recipe") -> str:
    from mcb.fileio import read_input_text

    return read_input_text(source, what)


def load_recipe(source: str | Path) -> tuple[object, TerrainRecipe]:
    """(parsed JSON with literal numbers, validated recipe); errors carry the server's message."""
    from mcb.fileio import parse_json_input

    obj = parse_json_input(read_json_text(source), "recipe", str(source), loads=loads_keeping_numbers)
    try:
        return obj, validate_recipe(obj)
    except TerrainRecipeError as error:
        where = f" at {error.pointer}" if error.pointer else ""
        raise TerrainRecipeError(f"{error.message}{where}", error.pointer) from None


def wire_terrain_id(obj) -> str:
    """The ID a server computes for this recipe after a JSON round trip through Python (what mcb sends)."""
    plain = json.loads(json.dumps(to_plain(obj)))
    return hashlib.sha256(canonical_text(plain).encode("utf-8")).hexdigest()


def offline_preview(source: str | Path, resolution: int = 256, budget: int = DEFAULT_TILE_BUDGET) -> dict:
    """The ``terrain_preview`` result computed locally; ``png`` holds the image bytes, ``wire_terrain_id`` the ID
    the server would compute for the recipe as ``mcb`` sends it (differs only for unusual number literals)."""
    from mcb.terrain.preview import render_preview

    obj, recipe = load_recipe(source)
    result = render_preview(recipe, resolution, budget)
    result["png"] = base64.b64decode(result.pop("imageBase64"))
    result["wire_terrain_id"] = wire_terrain_id(obj)
    return result


def offline_picture(
    source: str | Path, resolution: int = 256, budget: int = DEFAULT_TILE_BUDGET, *, picture: bool = True
):
    """``(result, png, map_box)`` for ``mcb terrain preview --offline``: the same result fields as
    :func:`offline_preview` (``wire_terrain_id`` included), and the PNG of :mod:`mcb.terrain.picture` (the server's
    cells scaled up, with legend and scale bar) with where its map sits; ``(result, None, None)`` without
    ``picture`` (nothing will be written, so nothing is drawn)."""
    from mcb.terrain.picture import render_picture
    from mcb.terrain.preview import preview_fields, sample_heights

    obj, recipe = load_recipe(source)
    xs, zs, heights = sample_heights(recipe, resolution)
    result = preview_fields(recipe, heights, budget)
    result["wire_terrain_id"] = wire_terrain_id(obj)
    if not picture:
        return result, None, None
    name = "stdin" if str(source) == "-" else Path(source).name
    picture, box = render_picture(recipe, xs, zs, heights, title=f"{name} · terrain {recipe.terrain_id[:12]}")
    return result, picture, box


def tile_table(
    recipe: TerrainRecipe, budget: int = DEFAULT_TILE_BUDGET, *, start: int = 0, count: int | None = None
) -> list[dict]:
    """Index, bounds and target cell count of tiles ``start..start+count`` (all by default)."""
    grid = tile_grid(recipe, budget)
    stop = grid.count if count is None else min(grid.count, start + count)
    if start < 0 or (start >= grid.count and grid.count):
        raise TerrainRecipeError("Tile index outside terrain")
    b = recipe.bounds
    xs = np.arange(b.min[0], b.max[0] + 1, dtype=np.int64)
    zs = np.arange(b.min[2], b.max[2] + 1, dtype=np.int64)
    rows = []
    heights_cache: dict[tuple[int, int], np.ndarray] = {}
    for index in range(start, stop):
        box = tile_bounds(recipe, index, budget)
        key = (box.min[0], box.min[2])
        if key not in heights_cache:
            cx = xs[box.min[0] - b.min[0] : box.max[0] - b.min[0] + 1]
            cz = zs[box.min[2] - b.min[2] : box.max[2] - b.min[2] + 1]
            heights_cache[key] = surface_heights(recipe, cx[None, :], cz[:, None])
        rows.append(
            {"index": index, "bounds": box.region("terrain"), "targets": _target_count(recipe, box, heights_cache[key])}
        )
    return rows


def _target_count(recipe: TerrainRecipe, box, heights: np.ndarray) -> int:
    if any(_overlaps(box, p) for p in recipe.preserve):
        return len(tile_targets(recipe, box))  # exact enumeration where preserve boxes cut the tile
    y0, y1 = box.min[1], box.max[1]
    span = y1 - y0 + 1
    solid = np.clip(heights - y0 + 1, 0, span)  # cells with y <= h inside the tile, per column
    if recipe.mode == "fill":
        return int(solid.sum())
    if recipe.mode == "cut":
        return int((span - solid).sum())
    return int(span * heights.size)


def _overlaps(a, b) -> bool:
    return all(a.min[i] <= b.max[i] and b.min[i] <= a.max[i] for i in range(3))
