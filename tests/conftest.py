"""Shared fixtures: isolated config/data directories, stable terminal width, paths to shared material."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"


def pytest_sessionstart(session):
    """Byte-compile mcb once, as ``pip install`` does for a user: the suite starts hundreds of ``python -m mcb``
    processes, and with PYTHONDONTWRITEBYTECODE set (as on our machines and CI) each of them would otherwise compile
    every module it imports from the editable source again (~20 % of their CPU). Up-to-date files are skipped.

    For the same reason this process keeps what it compiles: pytest writes its assertion-rewritten test modules only
    when bytecode may be written, and rewriting all of them again took ~6 s of every run's collection."""
    import compileall
    import sys

    sys.dont_write_bytecode = False
    compileall.compile_dir(ROOT / "cli" / "mcb", quiet=1)


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (``make test``): one worker more than the cores. Half the suite's time is spent waiting (on a
    server's ticks, on the ``mcb`` processes it starts), so a spare worker fills a core the others leave idle; on 2
    cores 3 workers took 3.7 min where 2 took 4.6. Every timing-sensitive test passes beside two busy loops."""
    return (os.cpu_count() or 1) + 1


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


@pytest.fixture
def run(cli):
    """``run("recipe", "fmt", path)`` -> result, like ``cli`` (arguments may be paths); fails the test on any
    unhandled exception, a traceback being what a user must never see."""

    def invoke(*args, input=None, env=None):
        result = cli(*[str(a) for a in args], input=input, env=env)
        assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
        return result

    return invoke


@pytest.fixture
def hostile(tmp_path):
    """Write a hostile JSON text to a file and return its path: ``hostile("deep_array")``."""
    from hostile_kit import DEEP

    texts = {
        "deep_array": "[" * DEEP + "]" * DEEP,
        "deep_object": '{"a":' * DEEP + "1" + "}" * DEEP,
        "deep_unclosed": "[" * DEEP,
        "huge_int": '{"version": ' + "9" * 5000 + "}",
        "lone_surrogate": '{"version": 1, "name": "\\ud800"}',
    }

    def make(kind: str, name: str | None = None):
        path = tmp_path / (name or f"{kind}.json")
        path.write_text(texts[kind], "utf-8")
        return path

    return make
