"""The same server refusals through `mcb mcp` (issue 21 C): the words and next step the CLI shows
(tests/commands/test_cmd_refusals.py) are the refusal's remedy here, with the step named as a tool and as a
machine field (next_call, field), and the position as x,y,z in the message and as data.position."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcpkit import refusal_of

SMALL_HILL = Path(__file__).resolve().parents[2] / "recipes" / "terrain" / "small-hill.json"


@pytest.fixture
def mcp(mcp_process, server_env):
    process = mcp_process(env=server_env)
    process.initialize()
    return process


def structured(response) -> dict:
    return response["result"]["structuredContent"]


def refused(mcp, name, arguments) -> dict:
    result = mcp.call(name, arguments)["result"]
    assert result["isError"] is True, result
    return refusal_of(result["structuredContent"]["error"])


def test_undoing_an_operation_twice(mcp):
    recipe = {
        "version": 1,
        "operations": [
            {
                "type": "box",
                "min": {"x": 0, "y": 64, "z": -5},
                "max": {"x": 1, "y": 65, "z": -4},
                "block": "minecraft:stone",
            }
        ],
    }
    plan = structured(mcp.call("build_prepare", {"recipe": recipe}))
    built = structured(
        mcp.call(
            "build_apply",
            {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"], "idempotency_key": "words-1", "wait": True},
        )
    )
    undo = structured(mcp.call("operation_undo_prepare", {"operation_id": built["operation_id"]}))
    mcp.call(
        "build_apply",
        {"plan_id": undo["plan_id"], "plan_hash": undo["plan_hash"], "idempotency_key": "words-undo-1", "wait": True},
    )
    error = refused(mcp, "operation_undo_prepare", {"operation_id": built["operation_id"]})
    assert error["code"] == "invalid_request" and error["plugin_code"] == "invalid_request"
    assert error["message"] == "Undo conflict: known later operation at 0,64,-5"
    assert error["position"] == {"x": 0, "y": 64, "z": -5}
    assert error["remedy"] == (
        "a later operation wrote at 0,64,-5, so this operation cannot be undone before it; "
        "undo the later operations first, newest first (project_context lists them); an "
        "operation that was already undone needs no second undo"
    )
    assert error["next_call"]["tool"] == "project_context"


@pytest.mark.parametrize(
    "name,arguments,words,field",
    [
        (
            "region_inspect",
            {"min": {"x": 5, "y": 70, "z": 5}, "max": {"x": 0, "y": 64, "z": 0}},
            "min is above max on at least one axis; give the lower corner as min",
            "min",
        ),
        (
            "schematic_import_prepare",
            {"asset_id": "no-such-asset", "target": {"x": 0, "y": 64, "z": 0}},
            "no schematic in the server's library has this asset id; asset_list lists the asset ids",
            "asset_id",
        ),
        (
            "build_prepare",
            {
                "recipe": {
                    "version": 1,
                    "operations": [
                        {
                            "type": "cylinder",
                            "center": {"x": 0, "y": 10, "z": 0},
                            "radius": 60,
                            "height": 100,
                            "block": "minecraft:stone",
                        }
                    ],
                }
            },
            "the recipe's shapes cost more cell visits than the server allows (16 × max_plan_blocks, at most 2,000,000); "
            "split it into smaller recipes; recipe_lint shows what each shape costs",
            "recipe",
        ),
    ],
)
def test_refusals_say_what_happened_and_what_next(mcp, name, arguments, words, field):
    error = refused(mcp, name, arguments)
    assert error["remedy"].startswith(words) and error["field"] == field


def test_budgets_say_the_limit_and_offer_a_box_that_fits(mcp):
    export = refused(
        mcp, "schematic_export", {"name": "big", "min": {"x": 0, "y": 0, "z": 0}, "max": {"x": 30, "y": 30, "z": 30}}
    )
    assert export["code"] == "budget_exceeded" and export["limit"] == 4096
    assert export["remedy"].startswith(
        "one export holds at most 4096 blocks (the server's max_plan_blocks); export a smaller box"
    )
    lo, hi = export["retry_with"]["min"], export["retry_with"]["max"]
    assert (hi["x"] - lo["x"] + 1) * (hi["y"] - lo["y"] + 1) * (hi["z"] - lo["z"] + 1) <= 4096


def test_a_terrain_tile_out_of_range(mcp):
    import json

    preview = structured(mcp.call("terrain_preview", {"recipe": json.loads(SMALL_HILL.read_text())}))
    error = refused(mcp, "terrain_prepare", {"terrain_id": preview["terrain_id"], "tile_index": 999})
    assert error["field"] == "tile_index" and error["remedy"] == (
        "this terrain has no tile with that index; tiles are numbered from 0 to tile_count - 1; terrain_preview "
        "reports tile_count"
    )
