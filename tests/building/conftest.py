"""Fixtures for the build engine: a real `mcb serve` with a project area big enough for the corpus's large files."""

from __future__ import annotations

import pytest
from buildkit import AREA


@pytest.fixture
def wide_server(tmp_path):
    from mcb.server.testing import spawn_server

    # A process of its own: the server's ticks do not wait for the client's interpreter lock (or the reverse).
    server = spawn_server(tmp_path / "wide", tick_ms=0, ground="flat", region=AREA)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def wide_client(wide_server):
    from mcb.client import McbClient

    client = McbClient(
        wide_server.url, agent_token=wide_server.agent_token, admin_token=wide_server.admin_token, player_id="console"
    )
    yield client
    client.close()


@pytest.fixture
def wide_mcb(cli, wide_server, monkeypatch):
    """``wide_mcb("build", FILE, ...)`` → result against the wide server; ``.json()`` parses stdout."""
    import json

    monkeypatch.setenv("MCB_SERVER", wide_server.url)
    monkeypatch.setenv("MCB_AGENT_TOKEN", wide_server.agent_token)
    monkeypatch.setenv("MCB_TOKEN", wide_server.admin_token)
    monkeypatch.setenv("MCB_PLAYER_ID", "console")

    def invoke(*args, input=None):
        result = cli(*[str(a) for a in args], input=input)
        result.json = lambda: json.loads(result.stdout)
        return result

    return invoke
