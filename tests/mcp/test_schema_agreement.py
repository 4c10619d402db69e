"""MCP-22/29: the published inputSchema is JSON Schema (no pydantic `ge`/`le`), and for every tool a Draft 2020-12
validator over it accepts and refuses exactly what the tool's own argument check accepts and refuses, on boundary
values generated from the schema's own bounds, put in every place of the tool's documented example."""

from __future__ import annotations

import copy
import json
import re

import pytest
from jsonschema import Draft202012Validator

from mcb.mcp import manifest
from mcb.mcp.actions import Refusal
from mcb.mcp.arguments import parse_arguments
from mcb.mcp.docs import EXAMPLES
from mcb.mcp.extensions import load_catalog

ACTIONS = load_catalog(no_extensions=True).actions
PUBLISHED = {tool["name"]: tool["inputSchema"] for tool in manifest.tools(ACTIONS)}
NOT_JSON_SCHEMA = re.compile(r'"(ge|le|gt|lt|multiple_of|min_length|max_length)":')


def _bounds(schema) -> set:
    found = set()
    if isinstance(schema, dict):
        for key, value in schema.items():
            numeric = isinstance(value, (int, float))
            if key in {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} and numeric:
                found |= {value - 1, value, value + 1, value - 0.5, value + 0.5}
            elif key in {"minLength", "maxLength"} and isinstance(value, int) and value < 2000:
                found |= {"a" * max(0, value - 1), "a" * value, "a" * (value + 1)}
            else:
                found |= _bounds(value)
    elif isinstance(schema, list):
        for item in schema:
            found |= _bounds(item)
    return found


# Places where the tool and its schema are known to differ, each with why; everything else must agree.
NOT_IN_SCHEMA = {
    # One of camera_id, pose or capture_id: a top-level anyOf, which several MCP clients refuse in inputSchema.
    ("camera_capture", ("camera_id",)),
    # The MCP bridge's coordinate limits on a recipe's shape corners (recipes/bridge_rules.py); the shapes' model
    # is the recipe module's, shared with the CLI, whose limits are int32. Left open: publish them per place.
    # terrain/model.py (not the catalog's) has `version: Literal[1]`, which lets `true` through. Left open.
    ("terrain_preview", ("recipe", "version")),
    *(("build_prepare", ("recipe", "operations", 0, corner, axis)) for corner in ("min", "max") for axis in "xyz"),
}

GENERIC = [0, -1, 1, 1.5, "x", "", True, None, [], {}]


def _leaves(value, path=()):
    """Every place in an example where a value sits (dict keys and list items), outermost first."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, path + (index,))


def _replaced(example, path, candidate):
    changed = copy.deepcopy(example)
    target = changed
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = candidate
    return changed


REMEDY_FIELDS = {"retry_with", "field", "next_call", "restart_with", "retry_after_ms", "no_remedy"}


def _tool_accepts(action, arguments) -> bool:
    try:
        parse_arguments(action, arguments, root=None)
    except Refusal as refusal:
        error = refusal.to_dict()["error"]["data"]
        assert error["remedy"] and REMEDY_FIELDS & set(error), error  # MCP-32: every refusal carries a remedy
        return False
    return True


@pytest.mark.parametrize("action", ACTIONS, ids=lambda a: a.name)
def test_empty_arguments_are_accepted_or_refused_with_a_remedy(action):
    accepted = _tool_accepts(action, {})  # asserts a remedy when refused: camera_capture {} carried none
    assert accepted == Draft202012Validator(PUBLISHED[action.name]).is_valid({}) or action.name == "camera_capture"


@pytest.mark.parametrize("action", ACTIONS, ids=lambda a: a.name)
def test_the_published_schema_is_json_schema(action):
    schema = PUBLISHED[action.name]
    Draft202012Validator.check_schema(schema)
    assert not NOT_JSON_SCHEMA.findall(json.dumps(schema)), NOT_JSON_SCHEMA.findall(json.dumps(schema))


@pytest.mark.parametrize("action", ACTIONS, ids=lambda a: a.name)
def test_the_schema_and_the_tool_agree_on_boundary_values(action):
    schema = PUBLISHED[action.name]
    validator = Draft202012Validator(schema)
    example = EXAMPLES[action.name]
    assert validator.is_valid(example) and _tool_accepts(action, example)
    candidates = sorted(_bounds(schema), key=repr) + GENERIC
    places = [p for p in _leaves(example) if p]
    places += [(name,) for name in schema.get("properties", {}) if name not in example]
    disagreements = []
    for path in places:
        for candidate in candidates:
            arguments = _replaced(example, path, candidate)
            schema_says, tool_says = validator.is_valid(arguments), _tool_accepts(action, arguments)
            if schema_says != tool_says and (action.name, path) in NOT_IN_SCHEMA:
                continue
            if schema_says != tool_says:
                disagreements.append((path, candidate, validator.is_valid(arguments)))
    assert not disagreements, disagreements[:10]
