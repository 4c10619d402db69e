"""A new user's first commands against a live `mcb serve`: a plan file that is not there, a terrain id copied short,
cancelling an operation and reviewing an interrupted one. Each says what happened and what to do next."""

from __future__ import annotations

import json
import re
import time

from rpc_testkit import box_recipe, interrupted_operation


def write_recipe(tmp_path, recipe, name="recipe.json"):
    path = tmp_path / name
    path.write_text(json.dumps(recipe))
    return path


def test_apply_of_a_plan_file_that_is_not_there_says_so(mcb, tmp_path):
    result = mcb("apply", tmp_path / "nosuch.json")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"error: plan file {tmp_path / 'nosuch.json'} does not exist",
        "hint: save one with `mcb prepare RECIPE -o FILE`, or give PLAN_ID PLAN_HASH (both printed by `mcb prepare`)",
    ]


def test_apply_of_a_bare_plan_id_asks_for_its_hash(mcb):
    result = mcb("apply", "3f1c0a9e-5b7d-4c1a-9e2f-0d6b8a4c2e11")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        "error: no plan file named 3f1c0a9e-5b7d-4c1a-9e2f-0d6b8a4c2e11 here, and a plan id needs its PLAN_HASH"
    )
    assert "mcb apply PLAN_ID PLAN_HASH" in result.stderr


def test_a_short_terrain_id_is_told_what_a_terrain_id_is(mcb):
    for short in ("5f0c33cd", "5f0c33cd...aabf8", "A" * 64):
        result = mcb("terrain", "prepare", short, "0")
        assert result.exit_code == 2, result.stderr
        assert result.stderr.splitlines() == [
            f"error: {short!r} is not a terrain id: a terrain id is 64 hex digits (0-9, a-f), this has "
            f"{len(short)} characters",
            "hint: run `mcb terrain preview RECIPE` (it also tells the server the recipe) and copy the whole "
            "`terrain id` it prints",
        ]
        assert "expired or server restarted" not in result.stderr


def test_cancel_confirms_what_it_stopped_and_the_next_step_works(slow_mcb, tmp_path):
    plan = slow_mcb("prepare", write_recipe(tmp_path, box_recipe(0, 100, 0, size=10)), "--json").json()
    operation = slow_mcb("apply", plan["plan_id"], plan["plan_hash"], "--json").json()["operation_id"]
    deadline = time.monotonic() + 20
    while slow_mcb("status", operation, "--json").json()["written"] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    result = slow_mcb("cancel", operation)
    assert result.exit_code == 0, result.stderr
    assert "status:    cancelled" in result.stdout
    said, following = result.stderr.strip().splitlines()[-2:]
    written = re.fullmatch(
        rf"cancelled operation {operation}: ([\d,]+) of 1,000 positions written, ([\d,]+) not reached", said
    )
    assert written and int(written.group(1).replace(",", "")) > 0, said
    assert following == f"next: the written blocks stay; `mcb undo {operation} --apply` reverts them"
    again = slow_mcb("cancel", operation)
    assert again.exit_code == 0
    assert f"operation {operation} had already ended (cancelled); nothing to cancel" in again.stderr
    undone = slow_mcb("undo", operation, "--apply", "--json")  # the next step it named
    assert undone.exit_code == 0 and undone.json()["operation"]["status"] == "applied", undone.stderr


def test_cancel_of_a_finished_operation_says_it_had_ended(mcb, tmp_path):
    plan = mcb("prepare", write_recipe(tmp_path, box_recipe(0, 100, 0)), "--json").json()
    operation = mcb("apply", plan["plan_id"], plan["plan_hash"], "--wait", "--json").json()["operation_id"]
    result = mcb("cancel", operation, "--json")
    assert result.exit_code == 0 and result.json()["status"] == "applied"
    assert result.stderr.splitlines() == [
        f"operation {operation} had already ended (applied); nothing to cancel: 27 of 27 positions written",
        f"next: the written blocks stay; `mcb undo {operation} --apply` reverts them",
    ]


def test_recovery_review_names_the_next_step(cli, tmp_path, monkeypatch):
    with interrupted_operation(tmp_path / "server") as (server, operation):
        assert (
            f"warning: 1 interrupted operation must be reviewed before new builds run: "
            f"`mcb recovery review {operation}` (admin)"
        ) in server.stderr_path.read_text()  # what serve said
        for name, value in (
            ("MCB_SERVER", server.url),
            ("MCB_TOKEN", server.admin_token),
            ("MCB_AGENT_TOKEN", server.agent_token),
            ("MCB_PLAYER_ID", "console"),
        ):
            monkeypatch.setenv(name, value)
        review = cli("recovery", "review", operation)
        assert review.exit_code == 0, review.stderr
        digest = re.search(r"^digest: +([0-9a-f]{64})$", review.stdout, re.M).group(1)
        found, following = review.stderr.strip().splitlines()
        assert re.fullmatch(
            r"of \d+ positions it may have written: \d+ as the operation wrote them, \d+ as before "
            r"it, 0 changed by someone else",
            found,
        ), found
        assert following.startswith(f"next: `mcb recovery abandon {operation}` (admin) keeps the world as it is now")
        assert len(digest) == 64  # shown for `--digest`, which abandons only the state that review saw
        command = re.search(r"`mcb (recovery abandon [^`]+)`", following).group(1).split()
        abandoned = cli(*command, "--json")  # the next step, exactly as printed
        assert abandoned.exit_code == 0 and json.loads(abandoned.stdout)["status"] == "failed"
