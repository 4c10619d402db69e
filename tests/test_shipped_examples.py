"""The examples a newcomer copies say what the shipped files do: docs/batch.md shows examples/castle.batch.json as it
is, and the example batch's steps build on separate ground (a later step never overwrites an earlier one)."""

from __future__ import annotations

import json
import re
from itertools import combinations
from pathlib import Path

from mcb.recipes.compile import compile_recipe

ROOT = Path(__file__).resolve().parents[1]
CASTLE = ROOT / "examples" / "castle.batch.json"


def test_docs_batch_md_shows_the_shipped_example_as_it_is():
    text = (ROOT / "docs" / "batch.md").read_text(encoding="utf-8")
    shown = re.search(
        r"\[`examples/castle\.batch\.json`\]\(\.\./examples/castle\.batch\.json\).*?```json\n(.*?)```", text, re.S
    )
    assert shown, "docs/batch.md no longer shows examples/castle.batch.json"
    assert shown.group(1) == CASTLE.read_text(encoding="utf-8")


def test_the_example_batch_steps_build_on_separate_ground():
    batch = json.loads(CASTLE.read_text(encoding="utf-8"))
    built = {}
    for step in batch["steps"]:
        if step["kind"] != "recipe":
            continue
        recipe = step["recipe"]
        if isinstance(recipe, str):
            recipe = json.loads((CASTLE.parent / recipe).read_text(encoding="utf-8"))
        built[step["name"]] = set(map(tuple, compile_recipe(recipe).positions))
    assert len(built) >= 3
    for (first, a), (second, b) in combinations(built.items(), 2):
        assert not a & b, f"steps {first!r} and {second!r} both write {len(a & b)} positions, e.g. {min(a & b)}"
