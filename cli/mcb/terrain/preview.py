"""Heightmap preview: sampling, statistics, cell colours and PNG (terrain-materials.md §2).

Produces the same result fields and pixel colours as the server's ``terrain_preview``; the local server and the
offline ``mcb terrain preview`` both call :func:`render_preview`.
"""

from __future__ import annotations

import base64
import io

import numpy as np

from mcb.terrain.heightfield import surface_heights
from mcb.terrain.limits import RESOLUTION_MAX, RESOLUTION_MIN
from mcb.terrain.recipe import TerrainRecipe, TerrainRecipeError
from mcb.terrain.tiling import DEFAULT_TILE_BUDGET, tile_grid

PRESERVED_RGB = (0xD6, 0x96, 0xCD)
RAMP = ((48, 155), (80, 115), (65, 107))  # per channel: colour = (offset + span·t)·shade, t = relative height
ORIENTATION = "north (-Z) up; east (+X) right"
LEGEND = "Dark green = low; pale stone = high; pink = preserved at sampled surface"
NOTE = (
    "Target surface only; no live world reads. Bounds clip writes, not height calculations. Cache holds 32 "
    "recipes until restart; save the recipe to regenerate the same ID."
)


def sample_coordinates(minimum: int, extent: int, count: int) -> np.ndarray:
    """``m + floor(i·(n−1) / max(1, count−1))`` for i in 0..count-1 (integer arithmetic)."""
    i = np.arange(count, dtype=np.int64)
    return minimum + (i * (extent - 1)) // max(1, count - 1)


def sample_heights(recipe: TerrainRecipe, resolution: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(xs, zs, heights[z, x]) of the preview grid."""
    if resolution < RESOLUTION_MIN or resolution > RESOLUTION_MAX:
        raise TerrainRecipeError(f"Resolution must be {RESOLUTION_MIN}..{RESOLUTION_MAX}")
    w = min(resolution, recipe.width)
    h = min(resolution, recipe.length)
    xs = sample_coordinates(recipe.bounds.min[0], recipe.width, w)
    zs = sample_coordinates(recipe.bounds.min[2], recipe.length, h)
    return xs, zs, surface_heights(recipe, xs[None, :], zs[:, None])


def cell_colours(recipe: TerrainRecipe, xs: np.ndarray, zs: np.ndarray, heights: np.ndarray) -> np.ndarray:
    """RGB uint8 array ``[z, x, 3]``: shaded elevation ramp, pink where the sampled surface cell is preserved."""
    low, high = int(heights.min()), int(heights.max())
    t = (heights - low).astype(np.float64) / max(1, high - low)
    left = np.concatenate([heights[:, :1], heights[:, :-1]], axis=1)
    right = np.concatenate([heights[:, 1:], heights[:, -1:]], axis=1)
    up = np.concatenate([heights[:1, :], heights[:-1, :]], axis=0)
    down = np.concatenate([heights[1:, :], heights[-1:, :]], axis=0)
    slope = ((left - right) + (up - down)).astype(np.float64)
    shade = np.maximum(0.55, np.minimum(1.25, 0.9 + slope * 0.035))
    rgb = np.empty(heights.shape + (3,), dtype=np.uint8)
    for channel, (offset, span) in enumerate(RAMP):
        value = np.trunc((offset + span * t) * shade)
        rgb[..., channel] = np.minimum(255, value).astype(np.int64)
    if recipe.preserve:
        lo_y, hi_y = recipe.bounds.min[1], recipe.bounds.max[1]
        ys = np.clip(heights, lo_y, hi_y)
        mask = np.zeros(heights.shape, dtype=bool)
        x_grid = np.broadcast_to(xs[None, :], heights.shape)
        z_grid = np.broadcast_to(zs[:, None], heights.shape)
        for box in recipe.preserve:
            mask |= (
                (x_grid >= box.min[0])
                & (x_grid <= box.max[0])
                & (ys >= box.min[1])
                & (ys <= box.max[1])
                & (z_grid >= box.min[2])
                & (z_grid <= box.max[2])
            )
        rgb[mask] = PRESERVED_RGB
    return rgb


def encode_png(cells: np.ndarray, pixel: int = 2) -> bytes:
    """PNG of the cell colours, each cell painted as a ``pixel``×``pixel`` block."""
    from PIL import Image

    big = np.repeat(np.repeat(cells, pixel, axis=0), pixel, axis=1)
    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(big)).save(out, format="PNG")
    return out.getvalue()


def render_preview(
    recipe: TerrainRecipe, resolution: int = 128, budget: int = DEFAULT_TILE_BUDGET, *, with_image: bool = True
) -> dict:
    """The ``terrain_preview`` result (``imageBase64`` included when ``with_image``)."""
    xs, zs, heights = sample_heights(recipe, resolution)
    result = preview_fields(recipe, heights, budget)
    if with_image:
        png = encode_png(cell_colours(recipe, xs, zs, heights))
        result["imageBase64"] = base64.b64encode(png).decode("ascii")
    return result


def preview_fields(recipe: TerrainRecipe, heights: np.ndarray, budget: int = DEFAULT_TILE_BUDGET) -> dict:
    """The ``terrain_preview`` result fields (no image) for the sampled grid ``heights``."""
    grid = tile_grid(recipe, budget)
    lo_y, hi_y = recipe.bounds.min[1], recipe.bounds.max[1]
    result = {
        "status": "completed",
        "kind": "terrain_heightmap_preview",
        "terrain_id": recipe.terrain_id,
        "bounds": recipe.bounds.region("terrain"),
        "mode": recipe.mode,
        "tile_edge": grid.edge,
        "tile_count": grid.count,
        "tile_order": "x_then_z_then_y",
        "tile_budget": budget,
        "sampled_height_min": int(heights.min()),
        "sampled_height_max": int(heights.max()),
        "clipped_samples": int(((heights < lo_y) | (heights > hi_y)).sum()),
        "sample_grid": {"width": int(heights.shape[1]), "height": int(heights.shape[0])},
        "orientation": ORIENTATION,
        "legend": LEGEND,
        "world_verified": False,
        "note": NOTE,
        "mimeType": "image/png",
    }
    return result
