"""Fixtures for the server tests: a real server on a loopback port and a small httpx RPC client."""

from __future__ import annotations

import pytest
from server_rpc import Rpc

from mcb.server.testing import run_server


@pytest.fixture
def server(tmp_path):
    with run_server(tmp_path / "srv", tick_ms=1) as handle:
        yield handle


@pytest.fixture
def rpc(server):
    client = Rpc(server)
    yield client
    client.close()
