"""docs/mcp.md lists every tool from the catalog, and every example there passes its tool's own schema check."""

from __future__ import annotations

import pytest

from mcb.catalog.registry import load_catalog
from mcb.mcp.arguments import parse_arguments
from mcb.mcp.docs import DOC, EXAMPLES, render


def test_the_tool_reference_is_generated_from_the_catalog():
    actions = load_catalog(no_extensions=True).actions
    current = DOC.read_text(encoding="utf-8")
    assert current == render(current, actions), "docs/mcp.md is out of date: run python -m mcb.mcp.docs"
    for action in actions:
        assert f"| `{action.name}` |" in current


@pytest.mark.parametrize("action", load_catalog(no_extensions=True).actions, ids=lambda action: action.name)
def test_every_tool_has_an_example_that_its_schema_accepts(action):
    assert action.name in EXAMPLES
    parse_arguments(action, EXAMPLES[action.name], root=None)
