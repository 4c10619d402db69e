"""What `mcb batch` tells a person and a script about each step: progress lines named by their step, one line per
thing that happened, and a report whose every field is the step's own."""

from __future__ import annotations

import json
import os
import re
import sys

import pytest
from ptykit import stderr_on_a_terminal
from rpc_testkit import box_recipe


def write_batch(tmp_path, steps, name="t.batch.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"version": 1, "steps": steps}))
    return path


def test_plain_progress_lines_name_their_step(mcb, tmp_path, monkeypatch):
    """Every progress line said `batch: plan 1/1, …`, so the totals seemed to jump between steps."""
    from mcb import terminal

    monkeypatch.setattr(terminal, "PLAIN_PROGRESS_INTERVAL", 0.0)
    steps = [{"name": "walls", "kind": "recipe", "recipe": box_recipe(0, 100, 0, size=4, hollow=True)},
             {"name": "floor", "kind": "recipe", "recipe": box_recipe(6, 100, 6, size=3)}]  # fmt: skip
    result = mcb("batch", write_batch(tmp_path, steps))
    assert result.exit_code == 0, result.stderr
    progress = [line for line in result.stderr.splitlines() if re.search(r": plan \d+/\d+, ", line)]
    assert {line.split(": plan")[0] for line in progress} == {"[1/2] walls", "[2/2] floor"}, result.stderr
    assert any(line.startswith("[1/2] walls: plan 1/1, ") and "of 56 positions written" in line for line in progress)
    assert any(line.startswith("[2/2] floor: plan 1/1, ") and "of 27 positions written" in line for line in progress)
    assert not any(line.startswith("batch:") for line in result.stderr.splitlines())


def test_restart_applies_no_plan_that_changes_nothing(mcb, tmp_path):
    """`--restart` after a run: every step prepares again and finds its blocks in place. Each plan of 0 blocks to
    change was applied as an empty operation, and `nothing to change` printed twice; now none is, and once."""
    steps = [{"name": "walls", "kind": "recipe", "recipe": box_recipe(0, 100, 0, size=4, hollow=True)},
             {"name": "floor", "kind": "recipe", "recipe": box_recipe(6, 100, 6, size=3)}]  # fmt: skip
    batch = write_batch(tmp_path, steps)
    assert mcb("batch", batch).exit_code == 0
    restarted = mcb("batch", batch, "--restart")
    assert restarted.exit_code == 0, restarted.stderr
    assert restarted.stderr.count("nothing to change") == 2  # once per step
    assert "applying" not in restarted.stderr and "operation " not in restarted.stderr
    assert mcb("context", "--json").json()["operations_total"] == 2


def test_the_bar_on_a_terminal_names_the_step(tmp_path):
    from mcb.server.testing import run_server

    batch = write_batch(tmp_path, [{"name": "cube", "kind": "recipe", "recipe": box_recipe(-8, 70, -8, size=16)}])
    with run_server(tmp_path / "server", tick_ms=15) as server:
        env = {**os.environ, "MCB_SERVER": server.url, "MCB_AGENT_TOKEN": server.agent_token,
               "MCB_PLAYER_ID": "console", "TERM": "xterm", "COLUMNS": "120"}  # fmt: skip
        env.pop("NO_COLOR", None)
        code, seen = stderr_on_a_terminal([sys.executable, "-m", "mcb", "batch", str(batch)], env)
    assert code == 0, seen
    assert "\x1b[" in seen and "[1/1] cube plan 1/1" in seen, seen


COTTAGE = "v2_schematic4j_green-cottage.schem"  # 17 x 12 x 12, anchor offset 10,-9,-5; a campfire (--drop-extras)


def cottage_step(corpus, name="cottage"):
    return {"name": name, "kind": "schematic", "file": str(corpus / COTTAGE), "target": [0, 70, 0],
            "drop_extras": True}  # fmt: skip


@pytest.fixture
def small_plans(cli, tmp_path, monkeypatch):
    """``mcb`` against a server whose plans hold at most 512 positions: the cottage takes several."""
    from mcb.server.testing import run_server

    with run_server(tmp_path / "small-plans", tick_ms=1, max_plan_blocks=512) as server:
        for name, value in (("MCB_SERVER", server.url), ("MCB_AGENT_TOKEN", server.agent_token),
                            ("MCB_TOKEN", server.admin_token), ("MCB_PLAYER_ID", "console")):  # fmt: skip
            monkeypatch.setenv(name, value)

        def invoke(*args):
            result = cli(*[str(a) for a in args])
            result.json = lambda: json.loads(result.stdout)
            return result

        yield invoke


def test_a_schematic_steps_report_is_the_steps_not_its_last_plans(small_plans, tmp_path, corpus):
    """`written` was the sum of the plans but `total_changes`, `changed_blocks`, `plan_id` and `operation_id` the
    last plan's, and `build_id` always null: now the step's own counts, and its last plan nested as such."""
    to_change = small_plans("build", corpus / COTTAGE, "--target", "0,70,0", "--drop-extras", "--dry-run", "--json")
    expected = to_change.json()["positions_to_change"]
    batch = write_batch(tmp_path, [cottage_step(corpus)])
    result = small_plans("batch", batch, "--json")
    assert result.exit_code == 0, result.stderr
    (step,) = result.json()["steps"]
    assert step["result"] == "applied" and step["plans"] == len(step["operations"]) > 1
    assert step["written"] == step["positions"] == expected
    last = step["last_plan"]
    assert last["operation_id"] == step["operations"][-1] and last["status"] == "applied"
    assert last["written"] == last["total_changes"] < expected
    assert not {"plan_id", "operation_id", "changed_blocks", "total_changes", "build_id"} & set(step)
    table = small_plans("batch", batch)  # already done: the same totals in the table
    (row,) = [line for line in table.stdout.splitlines() if line.startswith("cottage ")]
    assert f"{step['plans']} operations" in row and f"{expected:,} positions written" in row


def test_an_undo_step_names_the_positions_it_kept(mcb, tmp_path, corpus):
    """A player edits a block the build wrote; the undo step restores the rest and keeps that one — and says so, in
    its text as `mcb build FILE --undo` does and in --json, not only in the state file."""
    batch = write_batch(tmp_path, [cottage_step(corpus)])
    assert mcb("batch", batch).exit_code == 0
    blocks = mcb("inspect", "--min", "10,61,-5", "--max", "26,62,6", "--blocks", "--json").json()["blocks"]
    edited = next(b for b in blocks if b["state"] == "minecraft:birch_planks")
    at = "{x},{y},{z}".format(**edited["pos"])
    player = {"blocks": [{"pos": edited["pos"], "state": "minecraft:gold_block"}]}
    assert mcb("rpc", "test_set_blocks", json.dumps(player), "--admin", "--no-scope").exit_code == 0
    batch = write_batch(tmp_path, [cottage_step(corpus), {"name": "undo-cottage", "kind": "undo", "step": "cottage"}])
    result = mcb("batch", batch)
    assert result.exit_code == 0, result.stderr
    (row,) = [line for line in result.stdout.splitlines() if line.startswith("undo-cottage ")]
    assert row.split()[2] == "applied" and row.endswith("positions written, 1 kept"), result.stdout
    lines = [" ".join(line.replace("│", " ").split()) for line in result.stdout.splitlines()]
    assert "undo step: undo-cottage" in lines and "kept: 1 position someone else changed since the build" in lines
    kept = f"{at} minecraft:gold_block minecraft:birch_planks "  # then what was there before the build
    assert any(line.startswith(kept) for line in lines), result.stdout
    again = mcb("batch", batch, "--json").json()["steps"][1]  # already done: the record still says it
    assert again["result"] == "already_done" and again["restored_operations"] == 1
    (kept,) = again["kept"]
    assert (kept["pos"], kept["now"], kept["wrote"]) == (
        edited["pos"],
        "minecraft:gold_block",
        "minecraft:birch_planks",
    )
    assert again["data_not_restorable"] == [] and again["not_recorded"] == []
    assert again["written"] == again["restored"] > 0


@pytest.mark.slow  # three server starts and a paced write
def test_an_abandoned_operation_the_undo_goes_on_from_reads_abandoned_not_failed(cli, tmp_path, corpus):
    """The server dies while an undo step's plan applies; on restart the same command abandons that operation with
    the administrator token and restores the rest from mcb's record. Its end said `failed (256 of 1,050 …)` just
    before the step succeeded: it reads as what it was."""
    import subprocess
    import time
    from urllib.parse import urlsplit

    from mcb.client import McbClient
    from mcb.server.testing import spawn_server

    def environment(server) -> dict:
        return {**os.environ, "MCB_SERVER": server.url, "MCB_AGENT_TOKEN": server.agent_token,
                "MCB_TOKEN": server.admin_token, "MCB_PLAYER_ID": "console", "NO_COLOR": "1"}  # fmt: skip

    data = tmp_path / "restarted-server"
    batch = write_batch(tmp_path, [cottage_step(corpus)])
    server = spawn_server(data, tick_ms=1)
    port = urlsplit(server.url).port
    try:
        built = subprocess.run([sys.executable, "-m", "mcb", "batch", str(batch)], env=environment(server),
                               capture_output=True, text=True, timeout=60)  # fmt: skip
        assert built.returncode == 0, built.stderr
        server.stop()
        server = spawn_server(data, tick_ms=100, port=port)  # slow: the undo's operation is caught mid-write
        batch = write_batch(tmp_path, [cottage_step(corpus), {"name": "no-cottage", "kind": "undo", "step": "cottage"}])
        undoing = subprocess.Popen([sys.executable, "-m", "mcb", "batch", str(batch)], env=environment(server),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        state_file = tmp_path / "t.batch.state.json"
        operation, deadline = None, time.monotonic() + 60
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
            while time.monotonic() < deadline:
                if operation is None:
                    steps = json.loads(state_file.read_text())["steps"]
                    operation = ((steps.get("no-cottage") or {}).get("plans") or [{}])[0].get("operation_id")
                if operation and client.operation_status(operation).written > 0:
                    break
                time.sleep(0.05)
        assert operation, "the undo step never started its operation"
        server.kill()
        assert undoing.wait(timeout=120) != 0
        server = spawn_server(data, tick_ms=1, port=port)
        after = subprocess.run([sys.executable, "-m", "mcb", "batch", str(batch), "--json"], env=environment(server),
                               capture_output=True, text=True, timeout=120)  # fmt: skip
        assert after.returncode == 0, after.stderr
        lines = after.stderr.splitlines()
        ended = [line for line in lines if line.startswith("[2/2] no-cottage: abandoned by an administrator")]
        assert len(ended) == 1 and ended[0].endswith("; the world keeps them)"), after.stderr
        assert not any(line.startswith("[2/2] no-cottage: failed") for line in lines), after.stderr
        assert any("restoring what mcb recorded instead" in line for line in lines), after.stderr
        assert [step["result"] for step in json.loads(after.stdout)["steps"]] == ["already_done", "applied"]
    finally:
        server.kill()
