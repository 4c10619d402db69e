"""Helpers of the tests that feed mcb hostile input, in every test folder (a top-level module, as conftest files
clash across folders): a nesting depth no recursive parser survives, and the one error line a user must see."""

from __future__ import annotations

DEEP = 100_000  # far beyond Python's recursion limit: a recursive parser must refuse it, not crash


def one_error_line(result) -> str:
    """The `error:` line a user sees on stderr (exactly one)."""
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result.stderr
    return lines[0]
