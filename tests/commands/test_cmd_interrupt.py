"""Ctrl-C while waiting: exit 130, a hint to resume, and the operation keeps running on the server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from rpc_testkit import box_recipe


def test_ctrl_c_during_apply_wait_leaves_the_operation_running(tmp_path):
    from mcb.client import McbClient
    from mcb.server.testing import run_server

    with run_server(tmp_path / "server", tick_ms=100) as server:
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
            plan = client.build_prepare(box_recipe(0, 100, 0, size=10))
            env = {**os.environ, "MCB_SERVER": server.url, "MCB_AGENT_TOKEN": server.agent_token,
                   "MCB_PLAYER_ID": "console"}
            proc = subprocess.Popen([sys.executable, "-m", "mcb", "apply", plan.plan_id, plan.plan_hash, "--wait"],
                                    env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            deadline = time.monotonic() + 30
            while client.project_context().operations_total == 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=30)
            assert proc.returncode == 130, stderr
            operation = client.project_context().operations[0]
            assert f"mcb status {operation.operation_id} --wait" in stderr
            assert operation.status in {"queued", "applying"}  # still running: only the waiting stopped
