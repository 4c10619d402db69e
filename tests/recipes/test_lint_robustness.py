"""Lint never crashes: any JSON document, recipe-shaped or not, gives a report whose findings are all located."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcb.blocks.registry import load_registry
from mcb.recipes.lint import RecipeLinter

from .test_schema_compiler_agreement import recipes

anything = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "version",
                    "operations",
                    "type",
                    "min",
                    "max",
                    "block",
                    "count",
                    "offset",
                    "x",
                    "y",
                    "z",
                    "radius",
                    "height",
                    "hollow",
                    "from",
                    "to",
                    "center",
                    "$schema",
                    "other",
                ]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=25,
)


@pytest.fixture(scope="module")
def linters():
    registry = load_registry("26.2")
    return [
        RecipeLinter(registry=registry, mcp_bridge=True),
        RecipeLinter(registry=registry, compiler_first=False, max_blocks=64),
    ]


def check(linters, value, indent):
    text = json.dumps(value, indent=indent)
    for linter in linters:
        report = linter.lint_text(text, "r.json")
        for diagnostic in report.diagnostics:
            assert diagnostic.line and diagnostic.column and diagnostic.hint and diagnostic.rule.startswith("recipe.")


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(anything, st.sampled_from([None, 2]))
def test_any_json_document(linters, value, indent):
    check(linters, value, indent)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(recipes(), st.sampled_from([None, 1]))
def test_recipe_shaped_documents(linters, value, indent):
    check(linters, value, indent)
