"""Logging and secrets (MCP-69, MCP-70, checklist 59): the agent token never reaches stdout or stderr, even at
debug level and through failing calls, and the admin token is never used. The level (--log-level or
MCB_LOG_LEVEL) is taken in any case; an unknown one is a usage error naming the levels."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from rpc_testkit import FaultProxy


def test_the_agent_token_never_appears_and_the_admin_token_is_never_sent(mcp_process, live_server, server_env):
    with FaultProxy(live_server.url) as proxy:
        env = {**server_env, "MCB_SERVER": proxy.url, "MCB_TOKEN": live_server.admin_token}
        mcp = mcp_process("--log-level", "debug", env=env)
        mcp.initialize()
        assert mcp.call("project_context")["result"]["isError"] is False
        assert mcp.call("operation_status", {"operation_id": "nope"})["result"]["isError"] is True
        mcp.call("region_inspect", {"min": {"x": 0, "y": 0, "z": 0}, "max": {"x": 999, "y": 200, "z": 999}})
        mcp.call("build_apply", {"plan_id": "p", "plan_hash": "h", "idempotency_key": "k"})
        mcp.request("resources/read", {"uri": "mcb://project/context"})
        assert mcp.close() == 0
    sent = [request["headers"].get("Authorization", "") for request in proxy.requests]
    assert sent and all(value == f"Bearer {live_server.agent_token}" for value in sent if value)
    everything = b"".join(mcp.raw).decode() + mcp.stderr()
    assert live_server.agent_token not in everything and live_server.admin_token not in everything


@pytest.mark.parametrize("how", [["--log-level", "loud"], ["env"]])
def test_an_unknown_log_level_is_a_usage_error_naming_the_levels(tmp_path, how):
    env = {**os.environ, "MCB_LOG_LEVEL": "loud"} if how == ["env"] else dict(os.environ)
    args = [] if how == ["env"] else how
    done = subprocess.run(
        [sys.executable, "-m", "mcb", "mcp", *args], input=b"", capture_output=True, timeout=60, cwd=tmp_path, env=env
    )
    assert done.returncode == 2 and done.stdout == b""
    err = done.stderr.decode()
    assert "'loud'" in err and "debug, info, warning, error" in err and "Traceback" not in err


def test_log_levels_are_accepted_in_any_case(mcp_process):
    mcp = mcp_process("--log-level", "DEBUG")
    assert mcp.request("ping")["result"] == {}  # the server runs: the level was accepted
