"""Fixtures for robustness tests: hostile files, and `mcb` run in-process as a user would (no traceback allowed)."""

from __future__ import annotations

import json

import pytest

DEEP = 100_000  # far beyond Python's recursion limit: a recursive parser must refuse it, not crash


@pytest.fixture
def run(cli):
    """``run("recipe", "fmt", path)`` -> result; fails the test on any unhandled exception (a user traceback)."""

    def invoke(*args, input=None, env=None):
        result = cli(*[str(a) for a in args], input=input, env=env)
        assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
        return result

    return invoke


@pytest.fixture
def hostile(tmp_path):
    """Write a hostile JSON text to a file and return its path: ``hostile("deep_array")``."""
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


def one_error_line(result) -> str:
    """The `error:` line a user sees on stderr (exactly one)."""
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result.stderr
    return lines[0]


def dump(obj) -> str:
    return json.dumps(obj)
