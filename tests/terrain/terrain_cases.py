"""Helpers for terrain tests: the §9 base recipe and recipe loading."""

from __future__ import annotations

import copy
import json
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
EXAMPLES = ROOT / "recipes" / "terrain"

BASE_RECIPE = {
    "version": 1, "min": {"x": -17, "y": -4, "z": -17}, "max": {"x": 17, "y": 20, "z": 17},
    "base_height": 5, "seed": 123, "mode": "sculpt", "noise": {"amplitude": 0, "scale": 24},
    "palette": {"rock": "minecraft:stone", "soil": "minecraft:dirt", "surface": "minecraft:grass_block",
                "soil_depth": 2},
    "features": [], "preserve": [],
}


def base_recipe(**changes) -> dict:
    recipe = copy.deepcopy(BASE_RECIPE)
    recipe.update(changes)
    return recipe


def recipe_from(obj: dict):
    from mcb.terrain.recipe import parse_recipe_text

    return parse_recipe_text(json.dumps(obj))


