"""Resources: the live context, the schemas and the extension report (MCP-58..62, checklist 51-52)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from mcpkit import MODERN_META


def test_project_context_resource_equals_the_tool_result(mcp_process, server_env):
    mcp = mcp_process(env=server_env)
    mcp.initialize()
    tool = mcp.call("project_context")["result"]["structuredContent"]
    read = mcp.request("resources/read", {"uri": "mcb://project/context"})["result"]["contents"][0]
    assert read["uri"] == "mcb://project/context" and read["mimeType"] == "application/json"
    assert json.loads(read["text"]) == tool


def test_listing_and_static_schemas(mcp_process, tmp_path):
    mcp = mcp_process()
    mcp.initialize()
    listed = mcp.request("resources/list")["result"]["resources"]
    assert [item["uri"] for item in listed] == [
        "mcb://project/context",
        "mcb://schema/recipe",
        "mcb://schema/batch",
        "mcb://extensions",
    ]
    assert mcp.request("resources/list", {"cursor": "x"})["error"]["code"] == -32602
    assert mcp.request("resources/templates/list")["result"] == {"resourceTemplates": []}
    recipe = mcp.request("resources/read", {"uri": "mcb://schema/recipe"})["result"]["contents"][0]
    printed = subprocess.run(
        [sys.executable, "-m", "mcb", "recipe", "schema"], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert recipe["mimeType"] == "application/schema+json" and recipe["text"].rstrip("\n") == printed.stdout.rstrip(
        "\n"
    )
    batch = mcp.request("resources/read", {"uri": "mcb://schema/batch"})["result"]["contents"][0]
    assert json.loads(batch["text"])["$id"].endswith("batch.schema.json")


def test_unknown_uri_differs_by_era(mcp_process):
    legacy = mcp_process()
    legacy.initialize()
    miss = legacy.request("resources/read", {"uri": "mcb://nope"})["error"]
    assert miss["code"] == -32002 and miss["data"] == {"uri": "mcb://nope"}
    modern = mcp_process()
    miss = modern.request("resources/read", {"uri": "mcb://nope", "_meta": MODERN_META})["error"]
    assert miss["code"] == -32602 and miss["data"] == {"uri": "mcb://nope"}
    read = modern.request("resources/read", {"uri": "mcb://extensions", "_meta": MODERN_META})["result"]
    assert (read["ttlMs"], read["cacheScope"], read["resultType"]) == (3_600_000, "private", "complete")


def test_a_live_read_without_a_server_is_an_internal_error_with_transport_facts(mcp_process):
    from rpc_testkit import free_port

    mcp = mcp_process(env={"MCB_SERVER": f"http://127.0.0.1:{free_port()}", "MCB_AGENT_TOKEN": "t" * 32})
    mcp.initialize()
    error = mcp.request("resources/read", {"uri": "mcb://project/context"})["error"]
    assert error["code"] == -32603
    assert error["data"]["transport"]["request_started"] is False and error["data"]["plugin"] == "gone"


def test_offline_hides_the_live_resource_and_refuses_it_like_its_tool(mcp_process, server_env):
    mcp = mcp_process("--offline", env=server_env)  # a server is reachable: offline must still not read it
    mcp.initialize()
    listed = [item["uri"] for item in mcp.request("resources/list")["result"]["resources"]]
    assert listed == ["mcb://schema/recipe", "mcb://schema/batch", "mcb://extensions"]
    tool = mcp.call("project_context")["error"]
    read = mcp.request("resources/read", {"uri": "mcb://project/context"})["error"]
    assert tool["code"] == read["code"] == -32602
    assert read["data"] == {
        "uri": "mcb://project/context",
        "profile": "offline",
        "restart_with": tool["data"]["restart_with"],
    }
    assert (
        mcp.request("resources/read", {"uri": "mcb://extensions"})["result"]["contents"][0]["uri"] == "mcb://extensions"
    )


@pytest.mark.parametrize("params", [{}, {"uri": 5}, {"uri": None}, {"uri": ["mcb://extensions"]}])
def test_resources_read_without_a_string_uri_is_invalid_params_in_both_eras(mcp_process, params):
    legacy = mcp_process()
    legacy.initialize()
    modern = mcp_process()
    for mcp, extra in ((legacy, {}), (modern, {"_meta": MODERN_META})):
        error = mcp.request("resources/read", {**params, **extra})["error"]
        assert error["code"] == -32602, error
        assert "uri" in error["message"] and "unknown resource" not in error["message"]
