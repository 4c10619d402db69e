"""Published JSON Schemas: in sync with the models, valid draft 2020-12, and consistent with the server rules."""

from __future__ import annotations

import json

import jsonschema
import pytest
from terrain_cases import EXAMPLES, ROOT, base_recipe

from mcb.terrain.model import SCHEMAS, schema_text


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_published_schema_matches_models(name):
    published = (ROOT / "recipes" / name).read_text(encoding="utf-8")
    assert published == schema_text(name), f"recipes/{name} is stale: run scripts/gen_schemas.py"
    jsonschema.Draft202012Validator.check_schema(json.loads(published))


def validator(name):
    return jsonschema.Draft202012Validator(json.loads((ROOT / "recipes" / name).read_text()))


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.name)
def test_examples_validate(path):
    data = json.loads(path.read_text())
    name = "brush.schema.json" if "action" in data else "terrain.schema.json"
    assert list(validator(name).iter_errors(data)) == []


@pytest.mark.parametrize(
    "change",
    [
        {"extra": 1},
        {"mode": "carve"},
        {"seed": 2**31},
        {"features": [{"type": "crater"}]},
        {
            "palette": {
                "rock": "minecraft:gold_block",
                "soil": "minecraft:dirt",
                "surface": "minecraft:grass_block",
                "soil_depth": 1,
            }
        },
        {"features": [{"type": "ridge", "points": [{"x": 0, "z": 0}], "width": 1, "height": 1, "falloff": 1}]},
        {"noise": {"amplitude": 0, "scale": 0}},
    ],
)
def test_schema_rejects_what_the_server_rejects(change):
    from mcb.terrain.recipe import TerrainRecipeError, parse_recipe_text

    recipe = base_recipe(**change)
    assert list(validator("terrain.schema.json").iter_errors(recipe))
    with pytest.raises(TerrainRecipeError):
        parse_recipe_text(json.dumps(recipe))


@pytest.mark.parametrize(
    ("brush", "ok"),
    [
        ({"action": "raise", "amount": 2}, True),
        ({"action": "raise"}, False),
        ({"action": "flatten", "height": 70}, True),
        ({"action": "flatten", "height": 70, "amount": 1}, False),
        ({"action": "smooth", "smooth_radius": 2}, True),
        ({"action": "lower", "amount": 1, "smooth_radius": 2}, False),
    ],
)
def test_brush_schema_action_rules(brush, ok):
    data = {
        "min": {"x": -4, "y": 60, "z": -4},
        "max": {"x": 4, "y": 70, "z": 4},
        "center": {"x": 0, "z": 0},
        "radius": 2,
        **brush,
    }
    assert (not list(validator("brush.schema.json").iter_errors(data))) is ok
