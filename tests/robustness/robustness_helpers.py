"""Shared helpers of the robustness tests (a uniquely named module: `conftest` clashes across test folders)."""

from __future__ import annotations

DEEP = 100_000  # far beyond Python's recursion limit: a recursive parser must refuse it, not crash


def one_error_line(result) -> str:
    """The `error:` line a user sees on stderr (exactly one)."""
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result.stderr
    return lines[0]
