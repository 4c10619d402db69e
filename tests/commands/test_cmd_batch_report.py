"""What `mcb batch` tells a person and a script about each step: progress lines named by their step, one line per
thing that happened, and a report whose every field is the step's own."""

from __future__ import annotations

import json
import os
import re
import sys

from ptykit import stderr_on_a_terminal
from rpc_testkit import box_recipe


def write_batch(tmp_path, steps, name="t.batch.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"version": 1, "steps": steps}))
    return path


def test_plain_progress_lines_name_their_step(mcb, tmp_path, monkeypatch):
    """Every progress line said `batch: plan 1/1, …`, so the totals seemed to jump between steps."""
    from mcb import terminal

    monkeypatch.setattr(terminal, "PLAIN_PROGRESS_INTERVAL", 0.0)
    steps = [{"name": "walls", "kind": "recipe", "recipe": box_recipe(0, 100, 0, size=4, hollow=True)},
             {"name": "floor", "kind": "recipe", "recipe": box_recipe(6, 100, 6, size=3)}]  # fmt: skip
    result = mcb("batch", write_batch(tmp_path, steps))
    assert result.exit_code == 0, result.stderr
    progress = [line for line in result.stderr.splitlines() if re.search(r": plan \d+/\d+, ", line)]
    assert {line.split(": plan")[0] for line in progress} == {"[1/2] walls", "[2/2] floor"}, result.stderr
    assert any(line.startswith("[1/2] walls: plan 1/1, ") and "of 56 positions written" in line for line in progress)
    assert any(line.startswith("[2/2] floor: plan 1/1, ") and "of 27 positions written" in line for line in progress)
    assert not any(line.startswith("batch:") for line in result.stderr.splitlines())


def test_the_bar_on_a_terminal_names_the_step(tmp_path):
    from mcb.server.testing import run_server

    batch = write_batch(tmp_path, [{"name": "cube", "kind": "recipe", "recipe": box_recipe(-8, 70, -8, size=16)}])
    with run_server(tmp_path / "server", tick_ms=15) as server:
        env = {**os.environ, "MCB_SERVER": server.url, "MCB_AGENT_TOKEN": server.agent_token,
               "MCB_PLAYER_ID": "console", "TERM": "xterm", "COLUMNS": "120"}  # fmt: skip
        env.pop("NO_COLOR", None)
        code, seen = stderr_on_a_terminal([sys.executable, "-m", "mcb", "batch", str(batch)], env)
    assert code == 0, seen
    assert "\x1b[" in seen and "[1/1] cube plan 1/1" in seen, seen
