"""Shared fixtures: isolated config/data directories, stable terminal width, paths to shared material."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path_factory, monkeypatch):
    """Point every user-level directory at a temp dir and strip MCB_* settings from the developer's shell."""
    home = tmp_path_factory.mktemp("home")
    for key in list(os.environ):
        if key.startswith("MCB_") or key in {"GITHUB_ACTIONS", "FORCE_COLOR"}:
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("TERM", "dumb")


@pytest.fixture
def live_server(tmp_path):
    """A local `mcb serve` over HTTP (RPC tests of every face run against it, never against mocks)."""
    from mcb.server.testing import run_server

    with run_server(tmp_path / "server", tick_ms=2) as server:
        yield server


@pytest.fixture
def shared() -> Path:
    return SHARED


@pytest.fixture
def corpus() -> Path:
    return CORPUS


@pytest.fixture
def runner():
    from typer.testing import CliRunner

    return CliRunner()


@pytest.fixture
def cli(runner):
    """Invoke mcb in-process: ``cli("block", "check", "stone")`` -> click Result (stdout/stderr separate)."""
    from mcb.app import app

    def invoke(*args: str, input: str | None = None, env: dict | None = None):
        return runner.invoke(app, list(args), input=input, env=env, catch_exceptions=False)

    return invoke

