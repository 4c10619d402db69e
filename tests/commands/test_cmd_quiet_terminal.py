"""NO_COLOR, --no-color and TERM=dumb turn progress bars and spinners off on a terminal too (README, "Output
conventions"); without them a terminal shows the bar."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from ptykit import stderr_on_a_terminal

ROOT = Path(__file__).resolve().parents[2]


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
    assert "error: 4 of 7 schematics have errors" in seen
