"""QA pass on `mcb mcp`'s protocol surface: malformed params, --log-level, line separators inside strings."""

from __future__ import annotations

import pytest
from mcpkit import MODERN_META


@pytest.mark.parametrize("params", [{}, {"uri": 5}, {"uri": None}, {"uri": ["mcb://extensions"]}])
def test_resources_read_without_a_string_uri_is_invalid_params_in_both_eras(mcp_process, params):
    legacy = mcp_process()
    legacy.initialize()
    modern = mcp_process()
    for mcp, extra in ((legacy, {}), (modern, {"_meta": MODERN_META})):
        error = mcp.request("resources/read", {**params, **extra})["error"]
        assert error["code"] == -32602, error
        assert "uri" in error["message"] and "unknown resource" not in error["message"]


def test_tools_call_with_null_arguments_is_invalid_params_and_runs_nothing(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    error = mcp.request("tools/call", {"name": "block_describe", "arguments": None})["error"]
    assert error["code"] == -32602 and "arguments must be an object" in error["message"]
    left_out = mcp.request("tools/call", {"name": "block_check", "arguments": {"states": ["minecraft:stone"]}})
    assert left_out["result"]["isError"] is False  # the session goes on
