"""Ctrl-C while waiting: exit 130, the operation id and the resume command, and the operation is not cancelled.

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
