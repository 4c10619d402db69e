"""Ctrl-C: exit 130 (the exit-code table), and under --json the message on stderr is JSON like every other error.
While waiting on an operation: the operation id and the resume command, and the operation is not cancelled; in a
batch: the plan under way ends, no later step starts, and the same command does the rest.

Deterministic: SIGINT is sent only once the waiting has observably begun, i.e. once the proxy in front of the
server has seen the process's first `operation_status` poll (the old test signalled as soon as the operation
existed, which could land while `build_apply`'s answer was still on its way: then only "interrupted" came out).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from interrupt_kit import INTERRUPTIBLE
from rpc_testkit import FaultProxy, box_recipe


def _wait_for(predicate, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


@pytest.mark.parametrize("json_flag", [False, True])
def test_ctrl_c_during_apply_wait_leaves_the_operation_running(tmp_path, json_flag):
    from mcb.client import McbClient
    from mcb.server.testing import run_server

    with run_server(tmp_path / "server", tick_ms=200) as server, FaultProxy(server.url) as proxy:
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
            plan = client.build_prepare(box_recipe(0, 100, 0, size=10))
            env = {
                **os.environ,
                "MCB_SERVER": proxy.url,
                "MCB_AGENT_TOKEN": server.agent_token,
                "MCB_PLAYER_ID": "console",
            }
            args = [sys.executable, "-m", "mcb", "apply", plan.plan_id, plan.plan_hash, "--wait"]
            proc = subprocess.Popen(
                args + (["--json"] if json_flag else []),
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                **INTERRUPTIBLE,
            )
            try:
                _wait_for(lambda: "operation_status" in proxy.methods(), "the first status poll")
                proc.send_signal(signal.SIGINT)
                stdout, stderr = proc.communicate(timeout=30)
            finally:
                proc.kill()
            assert proc.returncode == 130, stderr
            operation = client.project_context().operations[0]
            assert operation.status in {"queued", "applying"}  # still running: only the waiting stopped
    if json_flag:
        error = json.loads(stderr.strip().splitlines()[-1])["error"]
        assert error["code"] == "interrupted" and error["exit_code"] == 130
        assert error["details"]["operation_id"] == operation.operation_id
        assert f"mcb status {operation.operation_id} --wait" in error["hint"]
    else:
        assert operation.operation_id in stderr
        assert f"mcb status {operation.operation_id} --wait" in stderr
        assert f"mcb cancel {operation.operation_id}" in stderr


def wait_until_reading_stdin(process: subprocess.Popen) -> None:
    """Until the child sleeps in a read of its stdin pipe (Linux names where in /proc/PID/wchan, "0" while it runs);
    where that cannot be seen, 1.5 s more: start-up, then blocked on stdin that never ends."""
    where = Path(f"/proc/{process.pid}/wchan")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if where.read_text().endswith("pipe_read"):
                return
        except OSError:
            break
        time.sleep(0.01)
    time.sleep(1.5)


@pytest.mark.parametrize("json_flag", [False, True])
def test_ctrl_c_while_reading_stdin_exits_130(json_flag):
    args = [sys.executable, "-m", "mcb", *(["--json"] if json_flag else []), "block", "check", "-"]
    process = subprocess.Popen(
        args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **INTERRUPTIBLE
    )
    wait_until_reading_stdin(process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert out == "" and "Traceback" not in err
    if json_flag:
        assert json.loads(err.strip().splitlines()[-1])["error"]["exit_code"] == 130
    else:
        assert err.strip().splitlines()[-1] == "interrupted"


def test_ctrl_c_during_a_batch_step_stops_after_its_plan_and_the_same_command_goes_on(tmp_path):
    """Ctrl-C in a batch is the one Ctrl-C of every write: the plan under way ends (nothing is left half-known),
    no later step starts, the run says it stopped (exit 130, not "error:"), and the same command does the rest."""
    from mcb.server.testing import run_server

    batch = tmp_path / "big.batch.json"
    steps = [{"name": "cube", "kind": "recipe", "recipe": box_recipe(0, 100, 0, size=10)},
             {"name": "slab", "kind": "recipe", "recipe": box_recipe(20, 100, 0, size=3)}]  # fmt: skip
    batch.write_text(json.dumps({"version": 1, "steps": steps}))
    with run_server(tmp_path / "server", tick_ms=50) as server, FaultProxy(server.url) as proxy:
        env = {**os.environ, "MCB_SERVER": proxy.url, "MCB_AGENT_TOKEN": server.agent_token, "MCB_PLAYER_ID": "console"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "mcb", "batch", str(batch)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            **INTERRUPTIBLE,
        )
        try:
            _wait_for(lambda: "operation_status" in proxy.methods(), "the first status poll")
            proc.send_signal(signal.SIGINT)
            _, stderr = proc.communicate(timeout=60)
        finally:
            proc.kill()
        assert proc.returncode == 130, stderr
        assert "stopping after the plan under way" in stderr
        assert "stopped: 1 of 2 steps did not complete: stopped before step 'slab'" in stderr
        assert "error:" not in stderr
        assert "[1/2] cube: applied (1,000 of 1,000 positions written)" in stderr
        again = subprocess.run([sys.executable, "-m", "mcb", "batch", str(batch), "--json"], env=env,
                               capture_output=True, text=True, timeout=60)  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert [s["result"] for s in json.loads(again.stdout)["steps"]] == ["already_done", "applied"]


def test_a_batch_step_ctrl_c_stopped_between_its_plans_reads_stopped_not_error(tmp_path, corpus):
    """A schematic step of many plans stops at the plan boundary after Ctrl-C: its row says `stopped` (the docs'
    `error` is a request that failed), and the same command finishes it."""
    from mcb.server.testing import run_server

    batch = tmp_path / "cottage.batch.json"
    steps = [{"name": "cottage", "kind": "schematic", "file": str(corpus / "v2_schematic4j_green-cottage.schem"),
              "target": [0, 70, 0], "drop_extras": True}]  # fmt: skip
    batch.write_text(json.dumps({"version": 1, "steps": steps}))
    with run_server(tmp_path / "server", tick_ms=20, max_plan_blocks=512) as server, FaultProxy(server.url) as proxy:
        env = {**os.environ, "MCB_SERVER": proxy.url, "MCB_AGENT_TOKEN": server.agent_token, "MCB_PLAYER_ID": "console",
               "NO_COLOR": "1"}  # fmt: skip
        proc = subprocess.Popen([sys.executable, "-m", "mcb", "batch", str(batch)], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, **INTERRUPTIBLE)  # fmt: skip
        try:
            _wait_for(lambda: "operation_status" in proxy.methods(), "the first status poll")
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=60)
        finally:
            proc.kill()
        assert proc.returncode == 130, stderr
        (row,) = [line.split() for line in stdout.splitlines() if line.startswith("cottage ")]
        assert row[:3] == ["cottage", "schematic", "stopped"], stdout
        assert "stopped: 1 of 1 step did not complete: stopped at a plan boundary" in stderr
        again = subprocess.run([sys.executable, "-m", "mcb", "batch", str(batch), "--json"], env=env,
                               capture_output=True, text=True, timeout=60)  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert [s["result"] for s in json.loads(again.stdout)["steps"]] == ["applied"]
