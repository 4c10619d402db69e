"""Fixtures for `mcb mcp` tests: raw stdio processes, the SDK client, a live `mcb serve` to talk to."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # mcpkit
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "client"))  # rpc_testkit

from mcpkit import McpProcess  # noqa: E402


@pytest.fixture
def mcp_process(tmp_path):
    """Start `mcb mcp ARGS` (cwd: tmp_path unless given); every process is stopped at teardown."""
    started: list[McpProcess] = []

    def start(*args: str, env: dict | None = None, cwd: Path | None = None) -> McpProcess:
        process = McpProcess(*args, env=env, cwd=cwd or tmp_path)
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()


@pytest.fixture
def live(live_server):
    """The same live `mcb serve`, under the short name the RPC tool tests use."""
    return live_server


@pytest.fixture
def server_env(live_server) -> dict[str, str]:
    """The environment that points `mcb mcp` at the live server with the agent token only."""
    return {"MCB_SERVER": live_server.url, "MCB_AGENT_TOKEN": live_server.agent_token, "MCB_PLAYER_ID": "console"}


@pytest.fixture(scope="session")
def example_site(tmp_path_factory) -> Path:
    """The example extension installed by pip into a site folder once per run (tests only read it: each puts it on
    the PYTHONPATH of the `mcb mcp` it starts)."""
    from extkit import install_example

    site = tmp_path_factory.mktemp("example-site")
    install_example(site)
    return site
