"""tools/list built from the catalog: names, order, titles, schemas and the §2.2 hint table (checklist 17-22)."""

from __future__ import annotations

import json
import subprocess
import sys

from mcpkit import refusal_of

# §2.2 of mcp-conventions: readOnly / destructive / idempotent / openWorld for every built-in tool, in order.
HINTS_TABLE = """
project_context          T F T T
material_search          T F T T
material_describe        T F T T
region_inspect           T F T T
build_prepare            F F F T
build_apply              F T T T
operation_status         T F T T
operation_cancel         F T T T
operation_undo_prepare   F F F T
part_get                 T F T T
part_define              F F F T
camera_list              T F T T
camera_capture           T F F T
asset_list               T F T T
schematic_export         F F F T
schematic_import_prepare F F F T
terrain_preview          T F T T
terrain_prepare          F F F T
terrain_brush_prepare    F F F T
schem_validate           T F T F
schem_info               T F T F
schem_rotate             F T T F
schem_mirror             F T T F
schem_convert            F T T F
schem_extras             F T T F
schem_render             T F T F
schem_materials          T F T T
recipe_lint              T F T F
recipe_compile           F T T F
block_check              T F T F
block_describe           T F T F
terrain_preview_offline  T F T F
schem_build              F T T T
region_export            F T T T
tool_batch               F T F T
"""
PINNED = {
    name: tuple(flag == "T" for flag in flags)
    for name, *flags in (line.split() for line in HINTS_TABLE.strip().splitlines())
}
# The bridge's order (protocol §8.1), which puts part_get before part_define.
RPC_ORDER = [
    "project_context",
    "material_search",
    "material_describe",
    "region_inspect",
    "build_prepare",
    "build_apply",
    "operation_status",
    "operation_cancel",
    "operation_undo_prepare",
    "part_get",
    "part_define",
    "camera_list",
    "camera_capture",
    "asset_list",
    "schematic_export",
    "schematic_import_prepare",
    "terrain_preview",
    "terrain_prepare",
    "terrain_brush_prepare",
]
OFFLINE = [
    "schem_validate",
    "schem_info",
    "schem_rotate",
    "schem_mirror",
    "schem_convert",
    "schem_extras",
    "schem_render",
    "schem_materials",
    "recipe_lint",
    "recipe_compile",
    "block_check",
    "block_describe",
    "terrain_preview_offline",
]
TOOLS_LIST_BUDGET = (
    72 * 1024
)  # the whole tools/list line: 53 KB on 2026-12-01, 67 KB with schem_materials and schem_extras


def listed(mcp) -> list[dict]:
    mcp.initialize()
    return mcp.request("tools/list")["result"]["tools"]


def test_names_come_in_the_fixed_order_and_the_list_is_stable(mcp_process):
    mcp = mcp_process("--no-extensions")
    tools = listed(mcp)
    names = [tool["name"] for tool in tools]
    assert names[:19] == RPC_ORDER
    assert sorted(names[19:32]) == sorted(OFFLINE) and names[32:34] == ["schem_build", "region_export"]
    assert names[34] == "tool_batch" and len(names) == 35
    first = mcp.raw[-1]
    mcp.request("tools/list", id=mcp._next_id)  # same id as the first list, so the bytes can match exactly
    assert mcp.raw[-1] == first
    assert len(first) < TOOLS_LIST_BUDGET


def test_every_tool_has_title_description_four_hints_and_a_closed_schema(mcp_process):
    for tool in listed(mcp_process("--no-extensions")):
        assert tool["title"] and tool["annotations"]["title"] == tool["title"], tool["name"]
        assert tool["description"].strip()
        hints = [
            tool["annotations"][key] for key in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
        ]
        assert all(isinstance(hint, bool) for hint in hints)
        schema = tool["inputSchema"]
        assert schema["type"] == "object" and schema["additionalProperties"] is False, tool["name"]
        assert "$ref" not in json.dumps(schema).replace('"$ref": "#/', "")  # local refs only


def test_hints_match_the_pinned_table(mcp_process):
    tools = listed(mcp_process("--no-extensions"))
    actual = {
        tool["name"]: tuple(
            tool["annotations"][key] for key in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
        )
        for tool in tools
    }
    assert actual == PINNED


def test_admin_methods_are_absent_and_refused_by_name(mcp_process):
    mcp = mcp_process()
    names = [tool["name"] for tool in listed(mcp)]
    assert not [name for name in names if name.startswith(("chat_", "recovery_"))] and "region_changes" not in names
    refused = mcp.call("chat_poll")
    assert refused["error"]["code"] == -32602 and "no_remedy" in refused["error"]["data"]
    assert mcp.request("tools/list", {"cursor": "x"})["error"]["code"] == -32602


def test_unknown_tool_names_and_bad_arguments_are_protocol_errors(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    typo = mcp.call("build_aply")
    assert typo["error"]["code"] == -32602 and typo["error"]["data"]["did_you_mean"] == "build_apply"
    offline = mcp_process("--offline", "--no-extensions")
    offline.initialize()
    hidden = offline.call("build_aply")["error"]  # the near name is hidden offline: suggested all the same
    assert hidden["data"]["did_you_mean"] == "build_apply"
    assert offline.call("build_apply")["error"]["data"]["restart_with"] == "restart mcb mcp without --offline"
    bad = mcp.request("tools/call", {"name": "block_describe", "arguments": "x"})
    assert bad["error"]["code"] == -32602
    assert mcp.request("tools/call", {"name": 5})["error"]["code"] == -32602


def test_read_only_and_offline_profiles(mcp_process):
    read_only = mcp_process("--read-only", "--no-extensions")
    tools = listed(read_only)
    assert tools and all(tool["annotations"]["readOnlyHint"] for tool in tools)
    hidden = read_only.call("build_apply", {"plan_id": "p", "plan_hash": "h", "idempotency_key": "k"})
    assert hidden["error"]["code"] == -32602
    assert hidden["error"]["data"]["restart_with"] == "restart mcb mcp without --read-only"
    offline = mcp_process("--offline", "--no-extensions")
    names = [tool["name"] for tool in listed(offline)]
    assert not set(names) & set(RPC_ORDER) and set(OFFLINE) <= set(names)


def test_dump_manifest_equals_tools_list_and_names_every_refusal_code(mcp_process, tmp_path):
    dumped = subprocess.run(
        [sys.executable, "-m", "mcb", "mcp", "--dump-manifest", "--no-extensions"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert dumped.returncode == 0, dumped.stderr
    manifest = json.loads(dumped.stdout)
    assert manifest["tools"] == listed(mcp_process("--no-extensions"))
    codes = set(manifest["refusals"]["remedied"]) | set(manifest["refusals"]["without_remedy"])
    assert {"invalid_argument", "path_denied", "context_limit", "internal", "busy", "timeout", "unavailable"} <= codes
    assert all(reason for reason in manifest["refusals"]["without_remedy"].values())
    # one row per code: context_limit was listed both as remedied and as without remedy
    assert not set(manifest["refusals"]["remedied"]) & set(manifest["refusals"]["without_remedy"])
    assert "2 MiB" in manifest["refusals"]["without_remedy"]["response_too_large"]  # MCP-57's bridge limit


def test_every_argument_states_its_type_and_required_strings_are_never_empty():
    """D6 (MCP-22): MCP Inspector 0.15 sends `--tool-arg limit=5` as a number, and a position as an object, only
    when the property's own schema has a top-level `type` (an anyOf with null or a bare $ref reached the tool as the
    string "5"); a required string has minLength >= 1."""
    from mcb.mcp import manifest
    from mcb.mcp.extensions import load_catalog

    for tool in manifest.tools(load_catalog(no_extensions=True).actions):
        schema = tool["inputSchema"]
        for name, prop in schema.get("properties", {}).items():
            assert isinstance(prop.get("type"), str), (tool["name"], name, prop)
            assert prop.get("default", 0) is not None, (tool["name"], name)
            if name in schema.get("required", []) and prop["type"] == "string":
                assert prop.get("minLength", 0) >= 1, (tool["name"], name)
        # nested objects' properties too (a brush's amount, height, smooth_radius were anyOf integer/null)
        for model, definition in schema.get("$defs", {}).items():
            for name, prop in definition.get("properties", {}).items():
                assert isinstance(prop.get("type"), str), (tool["name"], model, name, prop)
                assert prop.get("default", 0) is not None, (tool["name"], model, name)


def test_a_brushs_optional_fields_are_left_out_not_null(mcp_process):
    """They are typed integer and published without a null branch: null is refused, as the server refuses it
    (before any request: no server is needed)."""
    mcp = mcp_process()
    mcp.initialize()
    brush = {
        "min": {"x": 0, "y": 60, "z": 0},
        "max": {"x": 8, "y": 70, "z": 8},
        "center": {"x": 4, "z": 4},
        "radius": 3,
        "action": "smooth",
        "amount": None,
    }
    refused = mcp.call("terrain_brush_prepare", {"brush": brush})["result"]
    error = refusal_of(refused["structuredContent"]["error"])
    assert refused["isError"] is True and error["code"] == "invalid_argument" and error["pointer"] == "/brush/amount"


def test_an_optional_argument_is_left_out_not_null(mcp_process):
    mcp = mcp_process("--offline")
    mcp.initialize()
    refused = mcp.call("block_describe", {"block_id": "stone", "mc_version": None})["result"]
    assert refused["isError"] is True and refusal_of(refused["structuredContent"]["error"])["field"] == "mc_version"
    assert mcp.call("block_describe", {"block_id": "stone"})["result"]["isError"] is False
