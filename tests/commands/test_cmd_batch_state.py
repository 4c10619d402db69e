"""A batch state file that cannot be trusted (wrong types in a step record, hostile JSON, the record of another
server) is refused with a clear error and left as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hostile_kit import one_error_line
from rpc_testkit import FaultProxy, box_recipe

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def applied_batch(run, tmp_path, monkeypatch):
    """A one-step batch applied against a live server: (batch path, state path, state dict)."""
    from mcb.server.testing import run_server

    with run_server(tmp_path / "server", tick_ms=2) as server:
        monkeypatch.setenv("MCB_SERVER", server.url)
        monkeypatch.setenv("MCB_TOKEN", server.admin_token)
        monkeypatch.setenv("MCB_AGENT_TOKEN", server.agent_token)
        monkeypatch.setenv("MCB_PLAYER_ID", "console")
        shutil.copy(ROOT / "recipes" / "tower.json", tmp_path / "tower.json")
        batch = tmp_path / "castle.batch.json"
        batch.write_text(json.dumps({"version": 1, "steps": [{"kind": "recipe", "name": "a", "recipe": "tower.json"}]}))
        assert run("batch", batch).exit_code == 0
        state = tmp_path / "castle.batch.state.json"
        yield batch, state, json.loads(state.read_text())


def _entry(steps) -> dict:
    return steps["a"]["plans"][0]  # the step's one plan entry


DAMAGE = {
    "record_string": lambda steps: steps.__setitem__("a", "x"),
    "record_null": lambda steps: steps.__setitem__("a", None),
    "plans_string": lambda steps: steps["a"].update(plans="x"),
    "plan_string": lambda steps: _entry(steps).update(phase="prepared", plan="x", operation_id=None),
    "plan_without_hash": lambda steps: _entry(steps).update(phase="prepared", plan={"plan_id": 5}, operation_id=None),
    "status_string": lambda steps: _entry(steps).update(status="x"),
    "failed_status_wrong": lambda steps: _entry(steps).update(phase="failed", status={"status": 5}),
    "operation_id_list": lambda steps: _entry(steps).update(phase="started", operation_id=[1]),
    "phase_number": lambda steps: steps["a"].update(phase=5),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_damaged_state_record(run, applied_batch, damage):
    batch, state, data = applied_batch
    DAMAGE[damage](data["steps"])
    state.write_text(json.dumps(data))
    before = state.read_bytes()
    result = run("batch", batch)
    assert result.exit_code == 1
    line = one_error_line(result)
    assert str(state) in line and "'a'" in line
    assert "--restart" in result.stderr
    assert state.read_bytes() == before


@pytest.mark.parametrize("kind", ["deep_array", "huge_int"])
def test_batch_refuses_a_hostile_state_file_and_keeps_it(run, hostile, tmp_path, kind):
    batch = tmp_path / "castle.batch.json"
    batch.write_text('{"version": 1, "steps": [{"kind": "recipe", "name": "a", "recipe": "a.json"}]}')
    state = hostile(kind, "castle.batch.state.json")
    before = state.read_bytes()
    result = run("--server", "http://127.0.0.1:9", "batch", batch)
    assert result.exit_code in (1, 6)
    assert "Traceback" not in result.stderr
    assert state.read_bytes() == before


def test_batch_state_of_another_server_words_a_missing_project(mcb, live_server, tmp_path):
    batch = tmp_path / "one.batch.json"
    batch.write_text(
        json.dumps(
            {"version": 1, "steps": [{"name": "cap", "kind": "recipe", "recipe": box_recipe(0, 104, 0, size=1)}]}
        )
    )
    assert mcb("batch", batch).exit_code == 0
    with FaultProxy(live_server.url) as proxy:
        result = mcb("--server", proxy.url, "batch", batch)
    assert result.exit_code == 3, result.stderr
    assert "no project" in result.stderr
    assert "None" not in result.stderr
