"""`mcb recipe fmt`: same JSON value, idempotent, number spellings kept, recipe layout."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcb.recipes.fmt import format_recipe

from .test_lint_robustness import anything
from .test_schema_compiler_agreement import recipes


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(anything, recipes()), st.sampled_from([None, 2]), st.booleans())
def test_formatting_keeps_the_value_and_is_idempotent(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    formatted = format_recipe(text)
    assert json.loads(formatted) == json.loads(text)
    assert format_recipe(formatted) == formatted
    assert formatted.endswith("\n") and not formatted.endswith("\n\n")


def test_number_spellings_survive():
    text = '{"version": 1.0, "operations": [{"type": "box", "min": {"x": 5e0, "y": -0, "z": 1E+2}}]}'
    formatted = format_recipe(text)
    for spelling in ("1.0", "5e0", "-0", "1E+2"):
        assert spelling in formatted


def test_recipe_layout():
    text = json.dumps(
        {
            "operations": [
                {
                    "block": "minecraft:stone",
                    "max": {"z": 1, "y": 1, "x": 1},
                    "min": {"x": 0, "y": 0, "z": 0},
                    "type": "box",
                },
                {
                    "operations": [
                        {
                            "to": {"x": 0, "y": 9, "z": 0},
                            "from": {"x": 0, "y": 0, "z": 0},
                            "type": "line",
                            "block": "minecraft:dirt",
                        }
                    ],
                    "offset": {"x": 4, "y": 0, "z": 0},
                    "count": 3,
                    "type": "repeat",
                },
                {
                    "type": "cylinder",
                    "hollow": True,
                    "block": "minecraft:oak_stairs[facing=east,half=bottom,shape=straight]",
                    "height": 12,
                    "radius": 6,
                    "center": {"x": 100, "y": 64, "z": -200},
                },
            ],
            "version": 1,
        }
    )
    assert (
        format_recipe(text)
        == """{
  "version": 1,
  "operations": [
    {"type": "box", "min": {"x": 0, "y": 0, "z": 0}, "max": {"x": 1, "y": 1, "z": 1}, "block": "minecraft:stone"},
    {
      "type": "repeat",
      "count": 3,
      "offset": {"x": 4, "y": 0, "z": 0},
      "operations": [
        {"type": "line", "from": {"x": 0, "y": 0, "z": 0}, "to": {"x": 0, "y": 9, "z": 0}, "block": "minecraft:dirt"}
      ]
    },
    {
      "type": "cylinder",
      "center": {"x": 100, "y": 64, "z": -200},
      "radius": 6,
      "height": 12,
      "block": "minecraft:oak_stairs[facing=east,half=bottom,shape=straight]",
      "hollow": true
    }
  ]
}
"""
    )
