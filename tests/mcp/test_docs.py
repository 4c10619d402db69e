"""docs/mcp.md lists every tool from the catalog, and every example there passes its tool's own schema check."""

from __future__ import annotations

import pytest

from mcb.mcp.arguments import parse_arguments
from mcb.mcp.docs import DOC, EXAMPLES, render
from mcb.mcp.extensions import load_catalog


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


# The RPC examples, run in this order through one `mcb mcp` against a fresh `mcb serve`; placeholders are filled
# from the answers before them (an example that only passes the argument check would not catch a wrong one).
LIVE_ORDER = [
    "project_context",
    "material_search",
    "material_describe",
    "region_inspect",
    "build_prepare",
    "build_apply",
    "operation_status",
    "part_define",
    "part_get",
    "operation_undo_prepare",
    "operation_cancel",
    "camera_list",
    "asset_list",
    "schematic_export",
    "schematic_import_prepare",
    "terrain_preview",
    "terrain_prepare",
    "terrain_brush_prepare",
]


def _filled(value, known):
    if isinstance(value, str):
        return known.get(value, value)
    if isinstance(value, dict):
        return {key: _filled(item, known) for key, item in value.items()}
    if isinstance(value, list):
        return [_filled(item, known) for item in value]
    return value


def test_every_rpc_example_works_on_a_fresh_server(mcp_process, server_env):
    from mcb.mcp.docs import EXAMPLES
    from mcb.mcp.tools.rpc import RPC_ACTIONS

    assert set(LIVE_ORDER) == {a.name for a in RPC_ACTIONS} - {"camera_capture"}  # no camera on mcb serve
    mcp = mcp_process(env=server_env)
    mcp.initialize()
    known: dict[str, str] = {}
    failures = {}
    for name in LIVE_ORDER:
        result = mcp.call(name, _filled(EXAMPLES[name], known))["result"]
        data = result["structuredContent"]
        if result["isError"]:
            failures[name] = data["error"]["message"]
            continue
        for placeholder, key in (
            ("PLAN_ID", "plan_id"),
            ("PLAN_HASH", "plan_hash"),
            ("OPERATION_ID", "operation_id"),
            ("PART_ID", "part_id"),
            ("ASSET_ID", "assetId"),
        ):
            if isinstance(data.get(key), str) and placeholder not in known:
                known[placeholder] = data[key]
        if name == "terrain_preview" and isinstance(data.get("terrain_id"), str):
            known["9c" * 32] = data["terrain_id"]
    assert not failures, failures


# The example lines exactly as docs/mcp.md shows them, each run as a tools/call through `mcb mcp --offline` in a
# scratch copy of the repository (what a fresh clone holds), in document order as a reader would try them.
def _documented_calls() -> list[tuple[int, dict]]:
    import json
    import re

    calls = []
    for number, line in enumerate(DOC.read_text(encoding="utf-8").splitlines(), 1):
        found = re.search(r"Example: `(\{.*\})`", line)
        if found:
            calls.append((number, json.loads(found.group(1))))
    return calls


def test_every_offline_example_line_of_the_doc_works_from_a_fresh_copy(mcp_process, tmp_path):
    from checkout_kit import checkout_copy

    repo = checkout_copy(tmp_path / "repo", DOC.parents[1])  # a fresh clone's files, not a user's leftovers
    rpc = {action.name for action in load_catalog(no_extensions=True).actions if action.group == "rpc"}
    calls = [(number, call) for number, call in _documented_calls() if call["name"] not in rpc]
    offline = {a.name for a in load_catalog(no_extensions=True).actions} - rpc
    assert {call["name"] for _, call in calls} == offline  # one example line per offline tool, tool_batch too
    mcp = mcp_process("--offline", cwd=repo)
    mcp.initialize()
    failures = {}
    for number, call in calls:
        result = mcp.call(call["name"], call["arguments"], timeout=60)["result"]
        data = result["structuredContent"]
        if result["isError"] or data.get("status") not in (None, "completed"):
            failures[f"docs/mcp.md:{number} {call['name']}"] = data.get("error", data)
    assert not failures, failures
