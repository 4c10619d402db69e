"""Fixtures for command tests: every command runs in-process (CliRunner) against a live `mcb serve` over HTTP."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "client"))  # rpc_testkit


@pytest.fixture
def rpc_env(live_server, monkeypatch):
    """Point mcb at the live server through the environment, as a user would."""
    monkeypatch.setenv("MCB_SERVER", live_server.url)
    monkeypatch.setenv("MCB_AGENT_TOKEN", live_server.agent_token)
    monkeypatch.setenv("MCB_TOKEN", live_server.admin_token)
    monkeypatch.setenv("MCB_PLAYER_ID", "console")
    return live_server


@pytest.fixture
def mcb(cli, rpc_env):
    """``mcb("context", "--json")`` → result; ``.json()`` parses stdout."""

    def invoke(*args, input=None):
        result = cli(*[str(a) for a in args], input=input)
        result.json = lambda: json.loads(result.stdout)
        return result

    return invoke


@pytest.fixture
def slow_mcb(cli, tmp_path, monkeypatch):
    """Like ``mcb`` but against a server at the plugin's pace (a tick every 50 ms), so operations stay in flight for
    a while: a 1000-block apply writes its first slice after 10 ticks (0.5 s) and runs 22 more (1.1 s)."""
    from mcb.server.testing import run_server

    with run_server(tmp_path / "slow-server", tick_ms=50) as server:
        monkeypatch.setenv("MCB_SERVER", server.url)
        monkeypatch.setenv("MCB_AGENT_TOKEN", server.agent_token)
        monkeypatch.setenv("MCB_TOKEN", server.admin_token)
        monkeypatch.setenv("MCB_PLAYER_ID", "console")

        def invoke(*args, input=None):
            result = cli(*[str(a) for a in args], input=input)
            result.json = lambda: json.loads(result.stdout)
            return result

        invoke.server = server
        yield invoke
