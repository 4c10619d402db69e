"""Ctrl-C and kill -9 in the middle of `mcb build FILE` (real processes): the same command completes the build,
no position is written twice and no operation is left that the state file does not know."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from buildkit import AREA, CORPUS_DIR, file_cells, world_at

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from interrupt_kit import INTERRUPTIBLE  # noqa: E402

C4 = CORPUS_DIR / "v2_nucleation_c4_ai_last_played.schem"
TARGET = (0, 100, 0)
BLOCKS = 3778


@pytest.fixture
def paced_server(tmp_path):
    """Plans of 512 positions at 10 ms a tick: the c4 file takes 8 plans and a few seconds."""
    from mcb.server.testing import spawn_server

    server = spawn_server(tmp_path / "paced", tick_ms=10, ground="flat", region=AREA, max_plan_blocks=512)
    try:
        yield server
    finally:
        server.stop()


def environment(server) -> dict:
    return {
        **os.environ,
        "MCB_SERVER": server.url,
        "MCB_AGENT_TOKEN": server.agent_token,
        "MCB_TOKEN": server.admin_token,
        "MCB_PLAYER_ID": "console",
    }


def build(server, *extra, target=TARGET) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcb",
            "build",
            str(C4),
            "--target",
            ",".join(map(str, target)),
            "--drop-extras",
            "--json",
            *extra,
        ],
        env=environment(server),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **INTERRUPTIBLE,
    )


def finish(server, target=TARGET) -> dict:
    process = build(server, target=target)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err.decode()
    return json.loads(out)


def check_complete(server, state_file: str, target=TARGET, earlier: int = 0) -> int:
    """The world equals the file; every position was written once; every operation is one this state (or, by
    ``earlier``, the states of builds before it) knows. Returns how many operations this state knows."""
    from mcb.client import McbClient

    client = McbClient(server.url, agent_token=server.agent_token, player_id="console")
    want = file_cells(C4, target)
    assert world_at(client, want) == want
    record = json.loads(Path(state_file).read_text())["steps"]["build"]
    entries = [e for e in record["plans"] if e.get("operation_id")]
    assert sum(e["status"]["written"] for e in entries) == BLOCKS  # no position written twice
    history = [e for e in record.get("undone_plans", []) if e.get("operation_id")]  # earlier builds and undos
    context = client.project_context()
    assert context.operations_total == earlier + len(entries) + len(history)  # no stray operation
    assert all(op.status not in ("queued", "applying") for op in context.operations)
    return len(entries) + len(history)


def wait_for_operation_start(process, server, timeout=30.0) -> None:
    from mcb.client import McbClient

    client = McbClient(server.url, agent_token=server.agent_token, player_id="console")
    deadline = time.monotonic() + timeout
    while not client.project_context().operations_total:
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.05)


def test_ctrl_c_stops_at_a_plan_boundary_and_the_same_command_resumes(paced_server):
    process = build(paced_server)
    wait_for_operation_start(process, paced_server)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err.decode()
    assert "stopping after the plan under way" in err.decode()
    stopped = json.loads(out)
    assert stopped["error"]["code"] == "build_stopped" and 0 < stopped["written"] < BLOCKS
    from mcb.client import McbClient

    context = McbClient(paced_server.url, agent_token=paced_server.agent_token, player_id="console").project_context()
    assert all(op.status == "applied" for op in context.operations)  # the plan under way was let finish
    done = finish(paced_server)
    assert done["result"] == "applied" and done["written"] == BLOCKS - stopped["written"]
    check_complete(paced_server, done["state_file"])


def test_ctrl_c_twice_cancels_the_running_operation_and_nothing_is_written_twice(paced_server):
    """The apply is held (test_hold_apply) and let through one step a fifth of a second: the cancel the second
    Ctrl-C sends lands mid-plan however loaded the machine (free-running, the plan sometimes ended first)."""
    from mcb.client import McbClient

    admin = McbClient(paced_server.url, agent_token=paced_server.agent_token,
                      admin_token=paced_server.admin_token, player_id="console")  # fmt: skip
    admin.call("test_hold_apply", {"held": True}, admin=True, scoped=False)
    process = build(paced_server)
    wait_for_operation_start(process, paced_server)
    process.send_signal(signal.SIGINT)
    time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    while process.poll() is None:  # a plan of 512 takes 17 steps: the cancel has seconds to land
        admin.call("test_hold_apply", {"held": True, "steps": 1}, admin=True, scoped=False)
        time.sleep(0.2)
    admin.call("test_hold_apply", {"held": False}, admin=True, scoped=False)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err.decode()
    assert "cancelling the running operation" in err.decode()
    assert "stopped cancelling operation" in err.decode() and "mid-plan after" in err.decode(), err.decode()
    done = finish(paced_server)
    assert done["result"] == "applied"
    check_complete(paced_server, done["state_file"])


@pytest.mark.parametrize("how", ["ctrl-c twice", "kill -9"])
def test_undo_straight_after_an_interrupted_build_settles_it_and_restores_everything(paced_server, how):
    """`--undo` while the build's last operation was left in flight (cancelled, or still running after the client
    died): the undo follows it to its end first, then undoes every position. It used to end in a traceback."""
    from mcb.client import McbClient

    client = McbClient(paced_server.url, agent_token=paced_server.agent_token, player_id="console")
    before = world_at(client, file_cells(C4, TARGET))
    process = build(paced_server)
    wait_for_operation_start(process, paced_server)
    if how == "kill -9":
        process.kill()
    else:
        process.send_signal(signal.SIGINT)
        time.sleep(0.05)
        process.send_signal(signal.SIGINT)
    process.communicate(timeout=60)
    undo = subprocess.run([sys.executable, "-m", "mcb", "build", str(C4), "--target", ",".join(map(str, TARGET)),
                           "--drop-extras", "--undo", "--yes", "--json"], env=environment(paced_server),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert undo.returncode == 0 and "Traceback" not in undo.stderr, undo.stderr
    assert json.loads(undo.stdout)["kept"] == []
    assert world_at(client, file_cells(C4, TARGET)) == before
    assert all(op.status not in ("queued", "applying") for op in client.project_context().operations)


@pytest.mark.slow
def test_kill_9_at_points_across_the_build_then_the_same_command_completes(paced_server):
    """Six builds of the same file at six places, each killed at a point spread over the build (start-up, reads,
    plans, between plans) and then run again to the end."""
    targets = [(x, 100, z) for x in (-150, -30, 90) for z in (-100, 100)]  # six disjoint copies in AREA
    kill_after = [0.3 + 2.2 * i / (len(targets) - 1) for i in range(len(targets))]  # 0.3 s .. 2.5 s
    known = 0
    for target, delay in zip(targets, kill_after):
        process = build(paced_server, target=target)
        time.sleep(delay)
        process.kill()
        process.wait(timeout=10)
        done = finish(paced_server, target=target)
        known += check_complete(paced_server, done["state_file"], target=target, earlier=known)
