"""`mcb build RECIPE --rotation R --target x,y,z` against a live `mcb serve`: the world shows the turned recipe."""

from __future__ import annotations

import json


def test_build_recipe_turns_and_moves_to_the_target(mcb, tmp_path):
    recipe = tmp_path / "stairs.json"
    recipe.write_text(
        json.dumps(
            {
                "version": 1,
                "operations": [
                    {
                        "type": "box",
                        "min": {"x": 0, "y": 100, "z": 0},
                        "max": {"x": 1, "y": 100, "z": 0},
                        "block": "minecraft:oak_stairs[facing=north]",
                    }
                ],
            }
        )
    )
    result = mcb("build", recipe, "--rotation", "90", "--target", "10,101,10")
    assert result.exit_code == 0, result.stderr
    data = mcb("inspect", "--min", "9,100,9", "--max", "11,101,12", "--blocks", "--json").json()
    placed = {
        (b["pos"]["x"], b["pos"]["y"], b["pos"]["z"]): b["state"]
        for b in data["blocks"]
        if b["state"] != "minecraft:air"
    }
    assert set(placed) == {(10, 101, 10), (10, 101, 11)}  # an east-west pair turned to north-south
    assert all("facing=east" in state for state in placed.values())


def test_build_recipe_target_moves_the_dry_run_plan(mcb, tmp_path):
    recipe = tmp_path / "r.json"
    recipe.write_text(
        json.dumps(
            {
                "version": 1,
                "operations": [
                    {
                        "type": "box",
                        "min": {"x": 0, "y": 100, "z": 0},
                        "max": {"x": 0, "y": 100, "z": 0},
                        "block": "minecraft:stone",
                    }
                ],
            }
        )
    )
    assert mcb("build", recipe, "--target", "5,90,5").exit_code == 0
    data = mcb("inspect", "--min", "5,90,5", "--max", "5,90,5", "--blocks", "--json").json()
    assert data["blocks"][0]["state"] == "minecraft:stone"
    assert (
        mcb("inspect", "--min", "0,100,0", "--max", "0,100,0", "--blocks", "--json").json()["blocks"][0]["state"]
        == "minecraft:air"
    )


def test_build_recipe_refuses_a_rotation_that_is_not_a_quarter_turn(mcb, tmp_path):
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps({"version": 1, "operations": []}))
    result = mcb("build", recipe, "--rotation", "45")
    assert result.exit_code == 2 and "--rotation must be 0, 90, 180 or 270" in result.stderr
