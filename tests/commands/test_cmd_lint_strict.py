"""The closing error line of a lint run says why it failed: under --strict, warnings alone can fail it."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("command", [("terrain", "lint"), ("recipe", "lint")])
def test_strict_failure_on_warnings_only_does_not_claim_errors(cli, command):
    # A build recipe given to terrain lint, and a terrain recipe given to recipe lint, are warnings only.
    target = ROOT / "recipes" / ("tower.json" if command[0] == "terrain" else "terrain/small-hill.json")
    relaxed = cli(*command, str(target))
    assert relaxed.exit_code == 0, relaxed.stderr
    strict = cli(*command, str(target), "--strict")
    assert strict.exit_code == 1
    error_line = next(line for line in strict.stderr.splitlines() if line.startswith("error:"))
    assert "warnings" in error_line, error_line
