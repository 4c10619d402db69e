"""Helpers for terrain tests: the §9 base recipe and recipe loading."""

from __future__ import annotations

import copy
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "recipes" / "terrain"

BASE_RECIPE = {
    "version": 1,
    "min": {"x": -17, "y": -4, "z": -17},
    "max": {"x": 17, "y": 20, "z": 17},
    "base_height": 5,
    "seed": 123,
    "mode": "sculpt",
    "noise": {"amplitude": 0, "scale": 24},
    "palette": {
        "rock": "minecraft:stone",
        "soil": "minecraft:dirt",
        "surface": "minecraft:grass_block",
        "soil_depth": 2,
    },
    "features": [],
    "preserve": [],
}


# A large envelope of our own (768 x 192 x 768: 48 x 48 x 12 tiles of edge 16) for tiling and preview tests.
WIDE_RECIPE = {
    "version": 1,
    "min": {"x": -384, "y": -48, "z": -384},
    "max": {"x": 383, "y": 143, "z": 383},
    "base_height": 60,
    "seed": 77,
    "mode": "sculpt",
    "noise": {"amplitude": 24, "scale": 80},
    "palette": {
        "rock": "minecraft:stone",
        "soil": "minecraft:dirt",
        "surface": "minecraft:grass_block",
        "soil_depth": 3,
    },
    "features": [
        {"type": "hill", "center": {"x": 100, "z": -60}, "radius": 20, "height": 60, "falloff": 80},
        {"type": "basin", "center": {"x": -200, "z": 150}, "radius": 30, "height": 20, "falloff": 40},
    ],
    "preserve": [],
}


def base_recipe(**changes) -> dict:
    recipe = copy.deepcopy(BASE_RECIPE)
    recipe.update(changes)
    return recipe


def recipe_from(obj: dict):
    from mcb.terrain.recipe import parse_recipe_text

    return parse_recipe_text(json.dumps(obj))
