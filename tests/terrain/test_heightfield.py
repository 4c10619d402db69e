"""§9 test vectors: lattice hash, feature heights, the example recipes' recorded numbers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from terrain_cases import EXAMPLES, WIDE_RECIPE, base_recipe, recipe_from

from mcb.terrain.heightfield import envelope_heights, lattice_hash, surface_height, surface_heights
from mcb.terrain.recipe import parse_recipe_text


@pytest.mark.parametrize(
    ("seed", "i", "j", "expected"),
    [
        (0, 0, 0, -1.0),
        (0, 1, 0, 0.7666216164272852),
        (0, 0, 1, -0.18343987720767285),
        (123, 0, 0, 0.6977430177039263),
        (-1, 5, -7, 0.25603554662093075),
        (28092005, -10, 3, 0.5662954820509982),
        (2147483647, -2147483648, 2147483647, -0.5537868826038512),
    ],
)
def test_lattice_hash_vectors(seed, i, j, expected):
    assert float(lattice_hash(seed, i, j)) == expected


def plateau(lo, hi, height, falloff):
    return {
        "type": "plateau",
        "min": {"x": lo[0], "z": lo[1]},
        "max": {"x": hi[0], "z": hi[1]},
        "height": height,
        "falloff": falloff,
    }


def circle(kind, r, h, f, cx=0, cz=0):
    return {"type": kind, "center": {"x": cx, "z": cz}, "radius": r, "height": h, "falloff": f}


def path(kind, points, width, h, f):
    return {"type": kind, "points": [{"x": x, "z": z} for x, z in points], "width": width, "height": h, "falloff": f}


@pytest.mark.parametrize(
    ("features", "base", "expected"),
    [
        ([plateau((-2, -2), (2, 2), 13, 4)], 5, {(0, 0): 13, (2, 2): 13, (4, 0): 9, (6, 0): 5}),
        ([circle("hill", 1, 10, 4), plateau((-2, -2), (2, 2), 8, 2)], 5, {(0, 0): 8}),
        ([circle("hill", 2, 8, 4)], 5, {(0, 0): 13, (4, 0): 9, (6, 0): 5}),
        ([path("ridge", [(-4, 0), (4, 0)], 2, 8, 4)], 5, {(0, 0): 13, (0, 4): 9, (0, 6): 5}),
        ([circle("basin", 2, -3, 4)], 5, {(0, 0): -3, (4, 0): 1, (6, 0): 5}),
        ([circle("basin", 2, 20, 4)], 5, {(0, 0): 5}),
        ([path("channel", [(0, 0), (0, 0), (8, 0)], 2, -3, 4)], 5, {(4, 0): -3, (4, 4): 1}),
        ([{"type": "terrace", "step": 4, "strength": 1}], -1, {(0, 0): -4}),
    ],
    ids=[
        "plateau",
        "hill-then-plateau",
        "hill",
        "ridge",
        "basin",
        "basin-never-raises",
        "channel-repeated-point",
        "terrace-negative",
    ],
)
def test_feature_vectors(features, base, expected):
    recipe = recipe_from(base_recipe(features=features, base_height=base))
    for (x, z), height in expected.items():
        assert surface_height(recipe, x, z) == height, (x, z)


SMALL_HILL = [
    [81, 81, 81, 81, 81, 81, 81, 81],
    [81, 81, 81, 82, 82, 81, 81, 81],
    [81, 81, 82, 83, 83, 83, 82, 81],
    [81, 82, 83, 84, 84, 84, 83, 82],
    [81, 82, 84, 84, 84, 84, 84, 82],
    [81, 82, 83, 84, 84, 84, 83, 82],
    [81, 81, 82, 83, 84, 83, 83, 82],
    [81, 81, 81, 82, 82, 82, 82, 82],
]


def load(path):
    return parse_recipe_text(path.read_text())


def test_small_hill_surfaces_and_201_solid_blocks():
    recipe = load(EXAMPLES / "small-hill.json")
    heights = envelope_heights(recipe)
    assert heights.tolist() == SMALL_HILL
    solid = np.clip(heights - 80 + 1, 0, 8).sum()
    assert solid == 201


def test_small_hill_id_and_canonical_text():
    recipe = load(EXAMPLES / "small-hill.json")
    assert recipe.canonical == (
        '{"base_height":82,"features":[{"center":{"x":4,"z":4},"falloff":3,"height":3,"radius":1,"type":"hill"}],'
        '"max":{"x":7,"y":87,"z":7},"min":{"x":0,"y":80,"z":0},"mode":"sculpt","noise":{"amplitude":1,"scale":12},'
        '"palette":{"rock":"minecraft:stone","soil":"minecraft:dirt","soil_depth":3,'
        '"surface":"minecraft:grass_block"},"preserve":[],"seed":2809,"version":1}'
    )
    assert recipe.terrain_id == "ccd237bc1f908fbeb8db193c166cd77bbeb7ae761aad4309efb37a86e41dd037"


def test_number_literal_changes_the_id():
    text = (EXAMPLES / "small-hill.json").read_text().replace('"scale": 12', '"scale": 12.0')
    recipe = parse_recipe_text(text)
    assert recipe.terrain_id.startswith("0a4914ea")
    assert recipe.scale == 12.0  # heights unchanged
    assert envelope_heights(recipe).tolist() == SMALL_HILL


@settings(max_examples=60, deadline=None)
@given(st.integers(-200, 200), st.integers(-200, 200), st.integers(1, 40), st.integers(1, 40))
def test_heights_depend_only_on_world_coordinates(x0, z0, w, l):
    """Cropping or moving the envelope never changes a column's height."""
    recipe = recipe_from(WIDE_RECIPE)
    xs = np.arange(x0, x0 + w)
    zs = np.arange(z0, z0 + l)
    block = surface_heights(recipe, xs[None, :], zs[:, None])
    assert block[l // 2, w // 2] == surface_height(recipe, int(xs[w // 2]), int(zs[l // 2]))
    assert block[0, 0] == surface_heights(recipe, xs[:1], zs[:1])[0]
