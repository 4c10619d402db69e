"""Server refusals in words with a next step (issue 21 C), as a user of the CLI sees them against a live `mcb serve`:
the message says what happened (positions as x,y,z, never Java's BlockPos[...]), the hint what to do, the exit code
the kind; --json keeps the server's own text in details.server_message. The words come from mcb/refusals.py, the
table mcb mcp reads too (tests/mcp/test_refusal_words.py)."""

from __future__ import annotations

import json

import pytest
from rpc_testkit import box_recipe

ROOT_RECIPES = __import__("pathlib").Path(__file__).resolve().parents[2] / "recipes"


def lines(result) -> tuple[str, str]:
    """(the error line, the hint line) of a failed command."""
    error = next(line for line in result.stderr.splitlines() if line.startswith("error: "))
    hint = next(line for line in result.stderr.splitlines() if line.startswith("hint: "))
    return error, hint


def test_undoing_an_operation_twice_says_it_was_undone_at_x_y_z(mcb, tmp_path):
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(0, 64, -5, size=2)))
    built = mcb("build", recipe, "--json")
    operation = built.json()["operation"]["operation_id"]
    assert mcb("undo", operation, "--apply").exit_code == 0
    again = mcb("undo", operation, "--apply")
    assert again.exit_code == 7
    error, hint = lines(again)
    assert error == (
        "error: operation_undo_prepare: a later operation wrote at 0,64,-5, so this operation cannot "
        "be undone before it"
    )
    assert "newest first (`mcb context` lists them)" in hint and "already undone needs no second undo" in hint
    assert "BlockPos" not in again.stderr
    data = json.loads(mcb("undo", operation, "--json").stderr.strip().splitlines()[-1])["error"]
    assert data["details"]["server_message"] == "Undo conflict: known later operation at BlockPos[x=0, y=64, z=-5]"
    assert data["details"]["reason"] == "undo_conflict" and data["code"] == "invalid_request"


@pytest.mark.parametrize(
    "args,exit_code,error,hint",
    [
        (
            ("inspect", "--min", "5,70,5", "--max", "0,64,0"),
            5,
            "error: region_inspect: min is above max on at least one axis",
            "hint: give the lower corner as min and the upper one as max (swap the values that are the wrong way round)",
        ),
        (
            ("import-prepare", "no-such-asset", "--target", "0,64,0"),
            5,
            "error: schematic_import_prepare: no schematic in the server's library has this asset id",
            "hint: `mcb asset list` lists the asset ids the library holds",
        ),
        (
            ("export", "big", "--min", "0,0,0", "--max", "30,30,30"),
            5,
            "error: schematic_export: one export holds at most 4096 blocks (the server's max_plan_blocks)",
            "hint: export a smaller box, or the build in several boxes",
        ),
        (
            ("inspect", "--min", "0,64,0", "--max", "20,84,20"),
            5,
            "error: region_inspect: one read covers at most 4096 blocks",
            "hint: inspect a smaller box (16 x 16 x 16 is 4096 blocks), or several",
        ),
    ],
)
def test_refusals_of_a_box_say_what_to_change(mcb, args, exit_code, error, hint):
    result = mcb(*args)
    assert result.exit_code == exit_code
    assert lines(result) == (error, hint)


def test_a_recipe_over_the_scan_budget_names_the_budget_and_the_linter(mcb, tmp_path):
    big = tmp_path / "big.json"
    big.write_text(
        json.dumps(
            {
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
        )
    )
    result = mcb("prepare", big)
    assert result.exit_code == 5
    error, hint = lines(result)
    assert error == (
        "error: build_prepare: the recipe's shapes cost more cell visits than the server allows "
        "(16 × max_plan_blocks, at most 2,000,000)"
    )
    assert hint == "hint: split it into smaller recipes; `mcb recipe lint` shows what each shape costs"


def test_a_terrain_tile_out_of_range_says_how_tiles_are_numbered(mcb):
    preview = mcb("terrain", "preview", ROOT_RECIPES / "terrain" / "small-hill.json", "--json").json()
    result = mcb("terrain", "prepare", preview["terrain_id"], "999")
    assert result.exit_code == 5
    assert lines(result) == (
        "error: terrain_prepare: this terrain has no tile with that index",
        "hint: tiles are numbered from 0 to tile_count - 1; `mcb terrain preview` reports tile_count",
    )


def test_a_brush_scan_box_over_the_budget_is_refused_before_sending_with_a_next_step(mcb, tmp_path):
    brush = tmp_path / "brush.json"
    brush.write_text(
        json.dumps(
            {
                "min": {"x": -40, "y": 0, "z": -40},
                "max": {"x": 40, "y": 100, "z": 40},
                "center": {"x": 0, "z": 0},
                "radius": 3,
                "action": "raise",
                "amount": 3,
            }
        )
    )
    result = mcb("terrain", "brush", brush)
    assert result.exit_code == 1  # found before any request: the input file is at fault
    error, hint = lines(result)
    assert error == "error: Brush scan window must contain at most 4096 cells"
    assert hint.startswith("hint: make the scan box (min, max) smaller")
