"""What a person reads after an apply, an empty listing or a count: against a live `mcb serve`."""

from __future__ import annotations

import json

from rpc_testkit import box_recipe


def _write(tmp_path, recipe, name):
    path = tmp_path / name
    path.write_text(json.dumps(recipe))
    return path


def test_build_over_blocks_that_already_match_reads_as_success(mcb, tmp_path):
    first = mcb("build", _write(tmp_path, box_recipe(0, 100, 0, size=1), "one.json"))
    assert first.exit_code == 0, first.stderr
    result = mcb("build", _write(tmp_path, box_recipe(0, 100, 0), "cube.json"))
    assert result.exit_code == 0, result.stderr
    assert "26 of 27 positions written, 1 already matched" in result.stdout
    assert "26/27" not in result.stdout + result.stderr
    # the JSON keeps the server's fields
    status = mcb("status", mcb("context", "--json").json()["operations"][0]["operation_id"], "--json").json()
    assert (status["written"], status["processed"], status["total_changes"]) == (26, 27, 27)


def test_context_lists_operations_with_the_same_words(mcb, tmp_path):
    mcb("build", _write(tmp_path, box_recipe(0, 100, 0, size=1), "one.json"))
    mcb("build", _write(tmp_path, box_recipe(0, 100, 0), "cube.json"))
    out = mcb("context").stdout
    assert "26 of 27 positions written, 1 already matched" in out and "1 of 1 position written" in out


def test_an_empty_listing_prints_none(mcb):
    result = mcb("camera", "list")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["camera account configured: no", "none"]  # no header over nothing
    assert json.loads(mcb("camera", "list", "--json").stdout) is not None  # JSON keeps its shape


def test_counts_take_the_right_plural(mcb, tmp_path):
    mcb("build", _write(tmp_path, box_recipe(0, 100, 0, size=1), "one.json"))
    one = mcb("inspect", "--min", "0,100,0", "--max", "0,100,0")
    assert one.exit_code == 0 and "1 block, 1 state" in one.stdout
    two = mcb("inspect", "--min", "0,100,0", "--max", "1,100,0")
    assert "2 blocks, 2 states" in two.stdout


def test_batch_progress_and_table_use_the_same_words(mcb, tmp_path):
    batch = tmp_path / "two.batch.json"
    batch.write_text(
        json.dumps(
            {
                "version": 1,
                "steps": [
                    {"name": "one", "kind": "recipe", "recipe": box_recipe(0, 100, 0, size=1)},
                    {"name": "cube", "kind": "recipe", "recipe": box_recipe(0, 100, 0)},
                ],
            }
        )
    )
    result = mcb("batch", batch)
    assert result.exit_code == 0, result.stderr
    assert "[1/2] one: plan" in result.stderr and "(1 block to change)" in result.stderr
    assert "(26 blocks to change)" in result.stderr
    assert "[2/2] cube: applied (26 of 27 positions written, 1 already matched)" in result.stderr
    assert "26 of 27 positions written, 1 already matched" in result.stdout  # the summary table
    assert "26/27" not in result.stdout + result.stderr


def test_material_describe_prints_yes_no_not_python_booleans(mcb):
    result = mcb("material", "describe", "minecraft:oak_stairs")
    assert result.exit_code == 0, result.stderr
    fields = dict(line.split(":", 1) for line in result.stdout.splitlines() if line[:6] in ("block:", "item: "))
    assert {k.strip(): v.strip() for k, v in fields.items()} == {"block": "yes", "item": "yes"}


def test_one_block_plan_reads_in_the_singular(mcb, tmp_path):
    recipe = tmp_path / "one.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0, size=1)))
    result = mcb("build", recipe)
    assert result.exit_code == 0, result.stderr
    assert ": 1 block to change" in result.stderr
    assert "1 blocks" not in result.stdout + result.stderr
