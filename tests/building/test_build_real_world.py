"""A build in the real world (issue "a build survives the real world"), against `mcb serve` processes: a player
edits a block the build wrote, the server is killed mid-build and started again — and the same command still
finishes, `--undo` still brings back every position it can, and names the ones it cannot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from buildkit import AREA, CORPUS_DIR, file_cells, world_at

from mcb.client import McbClient

C4 = CORPUS_DIR / "v2_nucleation_c4_ai_last_played.schem"  # 3,778 blocks: 8 plans of 512
GOLD = "minecraft:gold_block"


def spawn(data: Path, **options):
    from mcb.server.testing import spawn_server

    return spawn_server(data, ground="flat", region=AREA, max_plan_blocks=512, **options)


def client_of(server, admin: bool = True) -> McbClient:
    return McbClient(server.url, agent_token=server.agent_token, admin_token=server.admin_token if admin else None,
                     player_id="console")  # fmt: skip


def mcb(server, *args, admin: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "MCB_SERVER": server.url, "MCB_AGENT_TOKEN": server.agent_token, "MCB_PLAYER_ID": "console"}
    env.pop("MCB_TOKEN", None)
    if admin:
        env["MCB_TOKEN"] = server.admin_token
    return subprocess.run([sys.executable, "-m", "mcb", *map(str, args)], env=env, capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip


def build_args(target) -> list:
    return ["build", C4, "--target", ",".join(map(str, target)), "--drop-extras", "--yes"]


@pytest.fixture
def quick(tmp_path):
    server = spawn(tmp_path / "quick", tick_ms=0)
    try:
        yield server
    finally:
        server.stop()


def first_plan_block(want: dict) -> tuple:
    """A position the first plan writes: the lowest non-air block of the file (plans go bottom-up)."""
    return min((p for p, s in want.items() if s != "minecraft:air"), key=lambda p: (p[1], p[2], p[0]))


@pytest.mark.parametrize("face", ["text", "json"])
def test_undo_after_a_players_edit_restores_every_other_position_and_names_the_kept_one(quick, face):
    target = (0, 100, 0) if face == "json" else (0, 100, 60)
    client = client_of(quick)
    want = file_cells(C4, target)
    before = world_at(client, want)
    built = mcb(quick, *build_args(target), "--json")
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["build_operations"] == 8
    edited = first_plan_block(want)
    client.call(
        "test_set_blocks", {"blocks": [{"pos": dict(zip("xyz", edited)), "state": GOLD}]}, admin=True, scoped=False
    )  # fmt: skip  (a player places a block where the build wrote one)
    undo = mcb(quick, *build_args(target), "--undo", *(["--json"] if face == "json" else []))
    assert undo.returncode == 0, undo.stderr
    assert "the plugin cannot undo operation" in undo.stderr and "restoring what mcb recorded" in undo.stderr
    world = world_at(client, want)
    assert world == {**before, edited: GOLD}  # every other position is back, the player's block stays
    x, y, z = edited
    if face == "json":
        data = json.loads(undo.stdout)
        assert data["undone_operations"] == 7 and data["restored_operations"] == 1
        assert data["kept"] == [{"pos": {"x": x, "y": y, "z": z}, "now": GOLD, "wrote": want[edited],
                                 "before": before[edited], "operation_id": data["kept"][0]["operation_id"]}]  # fmt: skip
        assert data["restored"] == sum(1 for p in want if want[p] != before[p]) - 1
        assert data["data_not_restorable"] == [] and data["not_recorded"] == []
    else:
        assert "7 operations by the plugin, 1 operation restored by mcb" in undo.stdout
        back = sum(1 for p in want if want[p] != before[p]) - 1  # every position but the kept one, by either means
        assert f"{back:,} positions as before the build (by the plugin's undo and mcb)" in undo.stdout
        assert "kept:" in undo.stdout and "1 position someone else changed since the build" in undo.stdout
        assert f"{x},{y},{z}" in undo.stdout and GOLD in undo.stdout
        assert "before the build" in undo.stdout and before[edited] in undo.stdout, undo.stdout


def test_a_block_entity_the_build_replaced_gets_its_state_back_and_is_named(quick):
    """A chest stood where the build writes: the plugin's undo would give its data back, a restore (here forced by
    a player's edit in the same operation) gives back the chest without its content, and says so."""
    target = (0, 100, 0)
    client = client_of(quick)
    want = file_cells(C4, target)
    chest_at = first_plan_block(want)
    chest = "minecraft:chest[facing=north,type=single,waterlogged=false]"
    client.call("test_set_blocks", {"blocks": [{"pos": dict(zip("xyz", chest_at)), "state": chest}]}, admin=True,
                scoped=False)  # fmt: skip
    before = world_at(client, want)
    assert mcb(quick, *build_args(target)).returncode == 0
    edited = next(p for p in sorted(want) if p != chest_at and p[1] == chest_at[1] and want[p] != before[p])
    client.call("test_set_blocks", {"blocks": [{"pos": dict(zip("xyz", edited)), "state": GOLD}]}, admin=True,
                scoped=False)  # fmt: skip
    undo = mcb(quick, *build_args(target), "--undo", "--json")
    assert undo.returncode == 0, undo.stderr
    data = json.loads(undo.stdout)
    x, y, z = chest_at
    assert [d["pos"] for d in data["data_not_restorable"]] == [{"x": x, "y": y, "z": z}]
    assert world_at(client, want)[chest_at] == chest


def test_undo_after_an_edit_at_the_areas_edge_restores_inside_the_area(tmp_path):
    """The default area ends at x=64, inside a 16³ tile: the restore reads only the positions' box, not the whole
    tile past the area (the read was refused and the undo stopped)."""
    from mcb.server.testing import spawn_server

    server = spawn_server(tmp_path / "edge", tick_ms=0)
    cube = CORPUS_DIR / "v3_nucleation_test_cube.schem"  # 3³, paste offset -3,0,-1: x 62..64 at target x 65
    try:
        client = client_of(server)
        want = file_cells(cube, (65, 70, 0))
        assert max(x for x, _, _ in want) == 64 == client.project_context().region.max.x
        before = world_at(client, want)
        args = ["build", cube, "--target", "65,70,0", "--yes"]
        assert mcb(server, *args).returncode == 0
        edited = first_plan_block(want)
        client.call("test_set_blocks", {"blocks": [{"pos": dict(zip("xyz", edited)), "state": GOLD}]},
                    admin=True, scoped=False)  # fmt: skip
        undo = mcb(server, *args, "--undo", "--json")
        assert undo.returncode == 0, undo.stderr
        assert json.loads(undo.stdout)["kept"][0]["now"] == GOLD
        assert world_at(client, want) == {**before, edited: GOLD}
    finally:
        server.stop()


def test_undo_and_dry_run_together_are_refused_before_anything(quick):
    refused = mcb(quick, *build_args((0, 100, 0)), "--undo", "--dry-run")
    assert refused.returncode == 2 and "give one of them" in refused.stderr
    assert client_of(quick).project_context().operations_total == 0


def _kill_mid_build(server, target) -> tuple[subprocess.Popen, str]:
    """Start the build, kill -9 the server once an operation after the first has written something; the build
    process then ends (exit 6). Returns the process and the operation that was under way."""
    env = {**os.environ, "MCB_SERVER": server.url, "MCB_AGENT_TOKEN": server.agent_token, "MCB_PLAYER_ID": "console",
           "MCB_TOKEN": server.admin_token}  # fmt: skip
    process = subprocess.Popen([sys.executable, "-m", "mcb", *map(str, build_args(target)), "--json"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    client = client_of(server)
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline and process.poll() is None, process.stderr.read() if process.poll() else ""
        running = [op for op in client.project_context().operations if op.status in ("queued", "applying")]
        if running and client.project_context().operations_total >= 2:
            status = client.operation_status(running[0].operation_id)
            if status.written > 0:
                break
        time.sleep(0.02)
    server.kill()
    process.communicate(timeout=60)
    assert process.returncode == 6
    return process, running[0].operation_id


@pytest.mark.slow
@pytest.mark.parametrize("admin", [True, False], ids=["with the admin token", "without"])
def test_a_server_restart_mid_build_then_the_same_command_completes_and_undo_restores_everything(tmp_path, admin):
    data = tmp_path / "restarted"
    server = spawn(data, tick_ms=10)
    port = urlsplit(server.url).port
    target = (0, 100, 0)
    try:
        before = world_at(client_of(server), file_cells(C4, target))
        _, interrupted = _kill_mid_build(server, target)
        server = spawn(data, tick_ms=0, port=port)
        assert client_of(server).operation_status(interrupted).status == "recovery_required"
        again = mcb(server, *build_args(target), "--json", admin=admin)
        if not admin:  # says what happened and the one command to run
            assert again.returncode == 7, again.stderr
            assert f"operation {interrupted} was interrupted by a server restart" in again.stderr
            assert f"`mcb recovery abandon {interrupted}`" in again.stderr
            settled = mcb(server, "recovery", "abandon", interrupted, "--yes")
            assert settled.returncode == 0, settled.stderr
            assert "as the operation wrote them" in settled.stderr  # what the review found, before abandoning
            again = mcb(server, *build_args(target), "--json", admin=False)
        assert again.returncode == 0, again.stderr
        done = json.loads(again.stdout)  # the abandoned operation is counted apart, not as this run's plan
        assert done["settled_operations"] == 1 and done["positions"] == done["written"]
        if admin:
            assert f"operation {interrupted} was interrupted by a server restart" in again.stderr
            assert "abandoning it with the administrator token" in again.stderr
        want = file_cells(C4, target)
        assert world_at(client_of(server), want) == want
        assert client_of(server).operation_status(interrupted).status == "failed"  # abandoned: no plugin undo
        undo = mcb(server, *build_args(target), "--undo", "--json", admin=admin)
        assert undo.returncode == 0, undo.stderr
        result = json.loads(undo.stdout)
        assert result["restored_operations"] >= 1 and result["kept"] == []
        assert world_at(client_of(server), want) == before  # every position, the abandoned operation's too
    finally:
        server.kill()


@pytest.mark.parametrize("admin", [True, False], ids=["with the admin token", "without"])
def test_undo_straight_after_a_restart_mid_build_settles_first_then_restores_everything(tmp_path, admin):
    """`--undo` before the build was run again: the operation in flight is settled first (abandoned with the token,
    else named with the one command to run), then every position comes back. It used to end in a traceback."""
    data = tmp_path / "restarted"
    server = spawn(data, tick_ms=10)
    port = urlsplit(server.url).port
    target = (0, 100, 0)
    try:
        before = world_at(client_of(server), file_cells(C4, target))
        _, interrupted = _kill_mid_build(server, target)
        server = spawn(data, tick_ms=0, port=port)
        undo = mcb(server, *build_args(target), "--undo", "--json", admin=admin)
        if not admin:
            assert undo.returncode == 7 and f"`mcb recovery abandon {interrupted}`" in undo.stderr, undo.stderr
            assert mcb(server, "recovery", "abandon", interrupted, "--yes").returncode == 0
            undo = mcb(server, *build_args(target), "--undo", "--json", admin=False)
        assert undo.returncode == 0, undo.stderr
        assert "Traceback" not in undo.stderr and json.loads(undo.stdout)["kept"] == []
        assert (
            f"the plugin cannot undo operation {interrupted} (a server restart interrupted it, or it was "
            in undo.stderr
        )
        assert world_at(client_of(server), file_cells(C4, target)) == before
    finally:
        server.kill()


def test_an_operation_that_had_finished_writing_before_the_restart_is_said_settled_not_abandoned(tmp_path):
    """The server dies after an operation wrote its last position and before it recorded the end: after the restart
    it needs recovery, yet nothing of it is lost. The run says so ("it is settled, nothing to abandon"); it used to
    say "abandoning it ... this run reads it afresh" and "operation ... abandoned"."""
    data = tmp_path / "restarted"
    server = spawn(data, tick_ms=10)
    port = urlsplit(server.url).port
    target = (0, 100, 0)
    try:
        client = client_of(server)
        client.call("test_hold_apply", {"held": True, "steps": 0}, admin=True, scoped=False)
        env = {**os.environ, "MCB_SERVER": server.url, "MCB_AGENT_TOKEN": server.agent_token,
               "MCB_TOKEN": server.admin_token, "MCB_PLAYER_ID": "console"}  # fmt: skip
        process = subprocess.Popen([sys.executable, "-m", "mcb", *map(str, build_args(target)), "--json"], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
        deadline = time.monotonic() + 60
        while not client.project_context().operations:
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.02)
        first = client.project_context().operations[0].operation_id
        status = client.operation_status(first)
        while status.processed < status.total_changes or status.status == "queued":  # one step at a time
            assert time.monotonic() < deadline and status.status in ("queued", "applying"), status
            client.call("test_hold_apply", {"held": True, "steps": 1}, admin=True, scoped=False)
            time.sleep(0.05)
            status = client.operation_status(first)
        assert status.status == "applying" and status.written == status.total_changes  # all written, end not recorded
        server.kill()
        process.communicate(timeout=60)
        server = spawn(data, tick_ms=0, port=port)
        assert client_of(server).operation_status(first).status == "recovery_required"
        again = mcb(server, *build_args(target))
        assert again.returncode == 0, again.stderr
        assert (
            f"operation {first} had finished writing when a server restart interrupted it (512 positions, all still "
            "as it wrote them): it is settled, nothing to abandon; the administrator token closes its record, the "
            "world stays as it is"
        ) in again.stderr
        assert f"operation {first} closed, its writes kept" in again.stderr
        assert "abandon" not in again.stderr.replace("nothing to abandon", "")
        want = file_cells(C4, target)
        assert world_at(client_of(server), want) == want
    finally:
        server.kill()


@pytest.mark.slow
def test_a_run_that_settles_an_earlier_operation_first_counts_it_in_one_frame(tmp_path):
    """The run after a restart first settles the operation the restart interrupted, then builds the rest: its
    progress is one frame (written and the plan never go back when the settled operation ends; the total only
    shrinks), and the plans it records for a later "resuming: N of M plans done" are the build's own, settled one
    included (it said "of 13" for a build of 14)."""
    from mcb.batch.file_build import open_file_build
    from mcb.building.placement import PlacementOptions

    data = tmp_path / "restarted"
    server = spawn(data, tick_ms=10)
    port = urlsplit(server.url).port
    target = (0, 100, 0)
    try:
        _kill_mid_build(server, target)
        server = spawn(data, tick_ms=10, port=port)
        build = open_file_build(client_of(server), str(C4), PlacementOptions(target=target, drop_extras=True))
        resuming = build.resuming()
        views = []
        result, error = build.run(on_view=views.append)
    finally:
        server.kill()
    assert error is None and result["settled_operations"] == 1, result
    assert resuming["in_flight"] == 1
    for earlier, later in zip(views, views[1:]):
        assert later.written >= earlier.written and later.plan >= earlier.plan and later.total <= earlier.total
    last = [view for view in views if not view.estimated][-1]
    assert resuming["plans_done"] + last.plans == result["build_operations"], (resuming, last.plans, result)
