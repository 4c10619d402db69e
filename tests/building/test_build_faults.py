"""A build when the world changes under it, answers get lost or the world is busy: it re-reads and re-plans a bounded
number of times, never makes a second operation for a plan, and never writes a position twice."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from buildkit import AREA, CORPUS_DIR, file_cells, world_at

from mcb.batch.model import parse_batch
from mcb.batch.runner import BatchRunner
from mcb.batch.state import BatchState
from mcb.client import McbClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "client"))
from rpc_testkit import FaultProxy  # noqa: E402

C4 = CORPUS_DIR / "v2_nucleation_c4_ai_last_played.schem"
TEXAS = CORPUS_DIR / "v3_nucleation_uss-texas.schem"


class EditingClient(McbClient):
    """A real client that lets a "player" change a block of a plan right after it is prepared (``edits`` says after
    which prepares)."""

    def __init__(self, *args, edits=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.edits, self.prepares, self.edited = set(edits), 0, []

    def build_prepare(self, recipe, **kwargs):
        summary = super().build_prepare(recipe, **kwargs)
        self.prepares += 1
        if self.prepares in self.edits or "always" in self.edits:
            pos = json.loads(kwargs["expected_blocks"])[-1]["pos"]
            state = ("minecraft:gold_block", "minecraft:diamond_block")[self.prepares % 2]  # a change every time
            self.call("test_set_blocks", {"blocks": [{"pos": pos, "state": state}]}, admin=True, scoped=False)
            self.edited.append(pos)
        return summary


def run_build(client, tmp_path, file, target, **fields):
    state_path = tmp_path / "b.state.json"
    step = {"name": "build", "kind": "schematic", "file": str(file), "target": list(target), **fields}
    batch = parse_batch({"version": 1, "steps": [step]}, tmp_path / "b.json")
    state = BatchState.load(state_path, server=client.server, project_id=client.project_id)
    events = []
    runner = BatchRunner(client, batch, state, retry_failed=True, on_event=lambda e, n, d: events.append((e, d)),
                         on_view=lambda name, view: events.append(("view", view)))  # fmt: skip
    return runner.run().steps[0], state.step("build"), events


def client_for(server, cls=McbClient, url=None, **kwargs):
    return cls(
        url or server.url, agent_token=server.agent_token, admin_token=server.admin_token, player_id="console", **kwargs
    )


def written(record) -> int:
    return sum((e.get("status") or {}).get("written", 0) for e in record["plans"])


@pytest.mark.slow
def test_a_block_changed_under_a_plan_is_read_again_and_planned_afresh(wide_server, tmp_path):
    client = client_for(wide_server, EditingClient, edits={2})
    report, record, events = run_build(client, tmp_path, TEXAS, (-87, 64, -15))
    assert report.result == "applied", report.error
    assert any(e == "replan" for e, _ in events)
    assert [e["result"] for e in record["plans"] if e.get("result")].count("conflict") + sum(
        e["phase"] == "dropped" for e in record["plans"]
    ) >= 1
    want = file_cells(TEXAS, (-87, 64, -15))
    assert world_at(client, want) == want  # the player's block was read, and replaced by the file's
    assert written(record) == 54273  # each position once: the conflicting plan wrote nothing before it stopped
    views = [d for e, d in events if e == "view"]
    totals = [view.total for view in views]
    assert views and totals == sorted(totals, reverse=True), totals  # the plan planned again is not counted twice
    assert views[-1].done == views[-1].total == 54273


def test_a_tile_that_keeps_changing_stops_the_build_and_says_where(wide_server, tmp_path):
    client = client_for(wide_server, EditingClient, edits={"always"})
    report, record, events = run_build(client, tmp_path, C4, (0, 100, 0), drop_extras=True)
    assert report.result == "error"
    assert report.error.code == "build_conflict" and report.error.exit_code == 7
    assert "keeps changing under the build near" in report.error.message and "3 fresh reads" in report.error.message
    assert sum(e == "replan" for e, _ in events) == 3


def test_a_lost_apply_answer_never_makes_a_second_operation(wide_server, tmp_path):
    lost = {"count": 0}

    def decide(request):
        if request.get("method") == "build_apply" and lost["count"] < 3:
            lost["count"] += 1
            return "drop_after_forward"  # the server starts the operation; the answer never arrives
        return "forward"

    with FaultProxy(wide_server.url, decide) as proxy:
        client = client_for(wide_server, url=proxy.url)
        report, record, _ = run_build(client, tmp_path, TEXAS, (-87, 64, -15))
    assert report.result == "applied", report.error
    plans = [e for e in record["plans"] if e.get("operation_id")]
    context = client_for(wide_server).project_context()
    assert context.operations_total == len(plans) == 14
    assert written(record) == 54273


def test_a_busy_world_is_waited_for(wide_server, tmp_path):
    other = client_for(wide_server)
    recipe = {
        "version": 1,
        "operations": [
            {
                "type": "box",
                "min": {"x": -150, "y": 70, "z": -150},
                "max": {"x": -135, "y": 85, "z": -135},
                "block": "minecraft:stone",
            }
        ],
    }
    plan = other.build_prepare(recipe)
    report, record, _ = None, None, None
    busy = other.build_apply(plan.plan_id, plan.plan_hash, "busy-test")
    assert busy.status in ("queued", "applying", "applied")
    report, record, _ = run_build(client_for(wide_server), tmp_path, C4, (0, 100, 0), drop_extras=True)
    assert report.result == "applied", report.error


@pytest.mark.parametrize("flag", ["--skip-air", "--keep-existing"])
def test_skip_air_and_keep_existing_leave_the_world_alone(wide_mcb, wide_client, flag):
    want = file_cells(C4, (0, 100, 0))
    air = [p for p, s in sorted(want.items()) if s == "minecraft:air"][:5]
    solid = [p for p, s in sorted(want.items()) if s != "minecraft:air"][:5]
    wide_client.call(
        "test_set_blocks",
        {"blocks": [{"pos": dict(zip("xyz", p)), "state": "minecraft:dirt"} for p in air + solid]},
        admin=True,
        scoped=False,
    )
    assert wide_mcb("build", C4, "--target", "0,100,0", "--drop-extras", flag).exit_code == 0
    world = world_at(wide_client, want)
    assert all(world[p] == "minecraft:dirt" for p in air)
    assert all(world[p] == ("minecraft:dirt" if flag == "--keep-existing" else want[p]) for p in solid)


def test_the_first_time_left_counts_unread_tiles_as_empty_land_and_the_total_as_the_most(tmp_path, monkeypatch):
    """Before the world under a tile is read, the total counts every position it owns (an upper bound, so totals
    only shrink) but the time left counts its blocks, as the confirm prompt does: the first ETA of the c4 file
    (68,952 cells, 3,778 blocks) was 18 times the prompt's."""
    from mcb.batch.file_build import open_file_build
    from mcb.building.estimate import file_estimate
    from mcb.building.placement import PlacementOptions
    from mcb.server.testing import spawn_server

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    server = spawn_server(tmp_path / "paced", tick_ms=20, ground="flat", region=AREA, max_plan_blocks=512)
    try:
        client = client_for(server)
        build = open_file_build(client, str(C4), PlacementOptions(target=(0, 100, 0), drop_extras=True))
        views = []
        data, error = build.run(on_view=views.append)
    finally:
        server.stop()
    assert error is None and data["written"] == 3778
    first = next(view for view in views if view.estimated)
    prompt = file_estimate(build.placement, 512)["seconds_at_20_tps"]
    assert first.total > 3778 and first.eta <= 1.5 * prompt, (first, prompt)
