"""Fixtures for client tests: a real `mcb serve` (in-process thread, real HTTP) and clients bound to it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # rpc_testkit, shared with tests/commands


@pytest.fixture
def make_client(live_server):
    """``make_client(url=None, **options)`` → McbClient with the server's tokens and the console scope."""
    from mcb.client import McbClient

    clients = []

    def make(url: str | None = None, **options):
        options.setdefault("agent_token", live_server.agent_token)
        options.setdefault("admin_token", live_server.admin_token)
        options.setdefault("player_id", "console")
        client = McbClient(url or live_server.url, **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
