"""Tiling (§1.8), layers/preserve (§1.5), modes (§1.2) and the preview (§2)."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from terrain_cases import EXAMPLES, WIDE_RECIPE, base_recipe, recipe_from

from mcb.terrain.heightfield import envelope_heights
from mcb.terrain.preview import render_preview, sample_coordinates
from mcb.terrain.recipe import TerrainRecipeError, parse_recipe_text
from mcb.terrain.tiling import tile_bounds, tile_count, tile_edge, tile_targets


@pytest.mark.parametrize(
    ("budget", "edge"), [(4096, 16), (4095, 15), (3375, 15), (1000, 10), (512, 8), (64, 4), (8, 2), (7, 1), (1, 1)]
)
def test_tile_edge(budget, edge):
    assert tile_edge(budget) == edge


@pytest.mark.parametrize("budget", [0, 4097])
def test_tile_budget_limits(budget):
    with pytest.raises(TerrainRecipeError, match="Tile budget must be 1..4096"):
        tile_edge(budget)


def test_wide_envelope_tile_count_and_order():
    recipe = recipe_from(WIDE_RECIPE)
    assert tile_count(recipe) == 48 * 48 * 12 == 27_648
    assert tile_bounds(recipe, 0).min == (-384, -48, -384)
    assert tile_bounds(recipe, 1).min == (-368, -48, -384)  # x fastest
    assert tile_bounds(recipe, 48).min == (-384, -48, -368)  # then z
    assert tile_bounds(recipe, 48 * 48).min == (-384, -32, -384)  # then y
    for bad in (-1, 27_648):
        with pytest.raises(TerrainRecipeError, match="Tile index outside terrain"):
            tile_bounds(recipe, bad)


def union(recipe, budget):
    cells = {}
    for index in range(tile_count(recipe, budget)):
        part = tile_targets(recipe, tile_bounds(recipe, index, budget))
        assert not cells.keys() & part.keys()  # no overlaps
        cells.update(part)
    return cells


def test_tiling_has_no_gaps_or_seams_across_budgets():
    features = [{"type": "hill", "center": {"x": 0, "z": 0}, "radius": 3, "height": 9, "falloff": 5}]
    recipe = recipe_from(base_recipe(features=features))
    a, b = union(recipe, 4096), union(recipe, 512)
    assert a == b and len(a) == recipe.bounds.volume
    for index in range(tile_count(recipe, 512)):
        box = tile_bounds(recipe, index, 512)
        assert box.volume <= 512


def test_preserve_vector_and_layers():
    box = {"min": {"x": -1, "y": 0, "z": -1}, "max": {"x": 1, "y": 9, "z": 1}}
    recipe = recipe_from(base_recipe(preserve=[box]))
    cells = union(recipe, 4096)
    assert len(cells) == recipe.bounds.volume - 90
    assert (0, 5, 0) not in cells
    # flat surface at 5, soil_depth 2: grass at 5, dirt 3..4, stone below, air above
    assert [cells[(5, y, 5)] for y in (2, 3, 4, 5, 6)] == [
        "minecraft:stone",
        "minecraft:dirt",
        "minecraft:dirt",
        "minecraft:grass_block",
        "minecraft:air",
    ]


def test_fill_and_cut_partition_sculpt():
    features = [
        {"type": "ridge", "points": [{"x": -9, "z": -3}, {"x": 9, "z": 4}], "width": 2, "height": 7, "falloff": 6}
    ]
    modes = {m: union(recipe_from(base_recipe(mode=m, features=features)), 512) for m in ("sculpt", "fill", "cut")}
    assert not modes["fill"].keys() & modes["cut"].keys()
    assert {**modes["fill"], **modes["cut"]} == modes["sculpt"]
    assert all(state == "minecraft:air" for state in modes["cut"].values())
    assert "minecraft:air" not in modes["fill"].values()


def test_small_hill_one_tile_with_201_solid_targets():
    recipe = parse_recipe_text((EXAMPLES / "small-hill.json").read_text())
    assert tile_count(recipe) == 1
    targets = tile_targets(recipe, tile_bounds(recipe, 0))
    assert sum(state != "minecraft:air" for state in targets.values()) == 201


def test_target_order_is_z_then_x_then_y():
    recipe = recipe_from(base_recipe(min={"x": 0, "y": 0, "z": 0}, max={"x": 1, "y": 1, "z": 1}))
    assert list(tile_targets(recipe, tile_bounds(recipe, 0))) == [
        (0, 0, 0),
        (0, 1, 0),
        (1, 0, 0),
        (1, 1, 0),
        (0, 0, 1),
        (0, 1, 1),
        (1, 0, 1),
        (1, 1, 1),
    ]


def test_sample_coordinates_hit_both_edges():
    assert sample_coordinates(-384, 768, 256)[[0, -1]].tolist() == [-384, 383]
    assert sample_coordinates(0, 8, 8).tolist() == list(range(8))
    assert sample_coordinates(10, 1, 1).tolist() == [10]


PREVIEW_TEST_RECIPE = (
    '{"version":1,"min":{"x":0,"y":0,"z":0},"max":{"x":7,"y":7,"z":7},"base_height":20,"seed":1,"mode":"sculpt",'
    '"noise":{"amplitude":0,"scale":8},"palette":{"rock":"minecraft:stone","soil":"minecraft:dirt",'
    '"surface":"minecraft:grass_block","soil_depth":2},"features":[],"preserve":[]}'
)


def image_of(result):
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(result["imageBase64"]))).convert("RGB"))


def test_preview_test_recipe():
    recipe = parse_recipe_text(PREVIEW_TEST_RECIPE)
    assert recipe.terrain_id == "4b46604987c622398a85907b545d61b9ac3c289b2c20158ef6bf079f7778f765"
    result = render_preview(recipe, 32)
    assert result["clipped_samples"] == 64 and result["tile_count"] == 1 and result["world_verified"] is False
    assert result["sample_grid"] == {"width": 8, "height": 8}
    pixels = image_of(result)
    assert pixels.shape == (16, 16, 3)
    assert {tuple(p) for p in pixels.reshape(-1, 3)} == {(43, 72, 58)}
    with pytest.raises(TerrainRecipeError, match="Resolution must be 32..256"):
        render_preview(recipe, 1024)


def test_preview_statistics_and_layout_of_a_wide_envelope():
    recipe = recipe_from(WIDE_RECIPE)
    result = render_preview(recipe, 256, with_image=False)
    # the sampled extremes are real column heights of the field, inside its full range
    full = envelope_heights(recipe)
    assert int(full.min()) <= result["sampled_height_min"] <= result["sampled_height_max"] <= int(full.max())
    assert result["clipped_samples"] == 0
    assert result["bounds"] == {
        "worldId": "terrain",
        "min": {"x": -384, "y": -48, "z": -384},
        "max": {"x": 383, "y": 143, "z": 383},
    }
    assert result["tile_edge"] == 16 and result["tile_count"] == 27_648 and result["tile_order"] == "x_then_z_then_y"


def test_preview_colours_by_hand():
    """Cell colour formula on a 2-level field: a plateau makes low/high samples and slope shading."""
    features = [{"type": "plateau", "min": {"x": 0, "z": -17}, "max": {"x": 17, "z": 17}, "height": 9, "falloff": 1}]
    recipe = recipe_from(base_recipe(features=features))
    result = render_preview(recipe, 32)
    pixels = image_of(result)[::2, ::2]  # one pixel per cell
    assert result["sample_grid"] == {"width": 32, "height": 32}
    low_flat, high_flat = pixels[10, 0], pixels[10, 31]
    # t = 0, shade 0.9 -> (43, 72, 58); t = 1, shade 0.9 -> (182, 175, 154)
    assert tuple(low_flat) == (43, 72, 58)
    assert tuple(high_flat) == (int(203 * 0.9), int(195 * 0.9), int(172 * 0.9))


def test_preserved_cells_are_pink_at_the_sampled_surface():
    box = {"min": {"x": -1, "y": 0, "z": -1}, "max": {"x": 1, "y": 9, "z": 1}}
    recipe = recipe_from(base_recipe(preserve=[box]))
    pixels = image_of(render_preview(recipe, 256))[::2, ::2]  # 35x35 grid = every column
    pink = {(x - 17, z - 17) for z in range(35) for x in range(35) if tuple(pixels[z, x]) == (0xD6, 0x96, 0xCD)}
    assert pink == {(x, z) for x in (-1, 0, 1) for z in (-1, 0, 1)}


def test_json_shape_is_stable():
    result = render_preview(parse_recipe_text(PREVIEW_TEST_RECIPE), 32)
    assert set(result) == {
        "status",
        "kind",
        "terrain_id",
        "bounds",
        "mode",
        "tile_edge",
        "tile_count",
        "tile_order",
        "tile_budget",
        "sampled_height_min",
        "sampled_height_max",
        "clipped_samples",
        "sample_grid",
        "orientation",
        "legend",
        "world_verified",
        "note",
        "mimeType",
        "imageBase64",
    }
    json.dumps(result)


@settings(max_examples=150, deadline=None)
@given(
    st.tuples(st.integers(-40, 40), st.integers(-40, 40), st.integers(-40, 40)),
    st.tuples(st.integers(1, 13), st.integers(1, 13), st.integers(1, 13)),
    st.integers(1, 4096),
)
def test_tiles_partition_any_envelope(low, size, budget):
    high = tuple(low[i] + size[i] - 1 for i in range(3))
    recipe = recipe_from(base_recipe(min=dict(zip("xyz", low)), max=dict(zip("xyz", high))))
    edge = tile_edge(budget)
    assert edge**3 <= budget and (edge == 16 or (edge + 1) ** 3 > budget)
    seen = set()
    for index in range(tile_count(recipe, budget)):
        box = tile_bounds(recipe, index, budget)
        assert box.volume <= budget
        cells = {
            (x, y, z)
            for x in range(box.min[0], box.max[0] + 1)
            for y in range(box.min[1], box.max[1] + 1)
            for z in range(box.min[2], box.max[2] + 1)
        }
        assert not cells & seen
        seen |= cells
    assert len(seen) == size[0] * size[1] * size[2]
