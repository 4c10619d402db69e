"""NO_COLOR, --no-color and TERM=dumb turn progress bars and spinners off on a terminal too (README, "Output
conventions"); without them a terminal shows the bar."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from rpc_testkit import FaultProxy, box_recipe

ROOT = Path(__file__).resolve().parents[2]


def stderr_on_a_terminal(args, env) -> tuple[int, str]:
    """Run ``args`` with stderr on a pseudo-terminal; (exit code, what the terminal received)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    proc.stdout.read()
    proc.wait(timeout=60)
    os.close(master)
    return proc.returncode, b"".join(chunks).decode("utf-8", "replace")


def _env(**changes):
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    for key in ("NO_COLOR", "FORCE_COLOR"):
        env.pop(key, None)
    env.update(changes)
    return env


VALIDATE = [sys.executable, "-m", "mcb", "schem", "validate", str(ROOT / "schematics")]


def test_a_terminal_shows_the_validate_progress_bar():
    code, seen = stderr_on_a_terminal(VALIDATE, _env())
    assert code == 1  # two of the samples are Sponge v3
    assert "checking" in seen and "\x1b[" in seen


@pytest.mark.parametrize("how", ["NO_COLOR=1", "--no-color", "TERM=dumb"])
def test_no_color_turns_the_progress_bar_off(how):
    if how.startswith("--"):
        args, env = [*VALIDATE, how], _env()
    else:
        key, value = how.split("=")
        args, env = VALIDATE, _env(**{key: value})
    code, seen = stderr_on_a_terminal(args, env)
    assert code == 1
    assert "checking" not in seen
    assert "\x1b" not in seen
    assert "error: 2 of 5 schematics have errors" in seen


def test_no_color_turns_the_spinner_off(tmp_path):
    from mcb.server.testing import run_server

    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0)))

    def decide(request):
        slow = request["json"] and request["json"]["method"] == "build_prepare"
        return ("sleep_then_forward", 1.5) if slow else "forward"

    with run_server(tmp_path / "server", tick_ms=2) as server, FaultProxy(server.url, decide) as proxy:
        env = _env(MCB_SERVER=proxy.url, MCB_AGENT_TOKEN=server.agent_token, NO_COLOR="1")
        code, seen = stderr_on_a_terminal([sys.executable, "-m", "mcb", "prepare", str(recipe)], env)
        assert proxy.methods().count("build_prepare") == 1
    assert code == 0
    assert "waiting for the server" not in seen and "\x1b" not in seen
