"""Fixtures for robustness tests: hostile files, and `mcb` run in-process as a user would (no traceback allowed)."""

from __future__ import annotations

import pytest
from robustness_helpers import DEEP


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
