"""The example recipes in recipes/ lint clean and compile within the default budgets (the README demo uses them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcb.blocks.registry import load_registry
from mcb.recipes.fmt import format_recipe
from mcb.recipes.lint import RecipeLinter
from mcb.recipes.source import compile_file

RECIPES = Path(__file__).resolve().parents[2] / "recipes"
EXAMPLES = sorted(p for p in RECIPES.glob("*.json") if not p.name.endswith(".schema.json"))


def test_there_are_at_least_five_examples():
    assert {p.stem for p in EXAMPLES} >= {"tower", "courtyard", "bridge", "colonnade", "silo"}


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_lints_clean_compiles_in_budget_and_is_formatted(path):
    registry = load_registry("26.2")
    report = RecipeLinter(registry=registry).lint_file(path)
    assert report.diagnostics == []
    compiled = compile_file(path, registry)
    assert 0 < len(compiled) <= 4096
    assert compiled.scan_used <= 65536
    text = path.read_text(encoding="utf-8")
    assert format_recipe(text) == text, f"run: mcb recipe fmt -i {path}"
