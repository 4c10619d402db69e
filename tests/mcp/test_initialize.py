"""Eras, initialize, server/discover and capabilities (MCP-9..18, checklist 11-16)."""

from __future__ import annotations

from mcpkit import LEGACY_INIT, MODERN_META

CAPABILITIES = {"tools": {"listChanged": False}, "resources": {"subscribe": False, "listChanged": False}}
ALL_VERSIONS = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]


def test_legacy_initialize_echoes_a_served_version_with_exact_capabilities(mcp_process):
    mcp = mcp_process()
    result = mcp.initialize("2025-06-18")["result"]
    assert result["protocolVersion"] == "2025-06-18"
    assert result["capabilities"] == CAPABILITIES
    assert result["serverInfo"]["name"] == "mcb" and result["serverInfo"]["version"]
    assert "project_context" in result["instructions"] and "resultType" not in result
    mcp.request("tools/list")
    mcp.call("block_describe", {"block_id": "stone"})
    assert mcp.close() == 0
    assert all(b"notifications/message" not in line for line in mcp.raw)


def test_unknown_version_gets_the_latest_legacy_one_and_a_missing_version_is_refused(mcp_process):
    mcp = mcp_process()
    missing = mcp.request("initialize", {"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
    assert missing["error"]["code"] == -32602
    assert missing["error"]["data"]["requested"] is None and "2025-11-25" in missing["error"]["data"]["supported"]
    assert (
        mcp.request("initialize", {**LEGACY_INIT, "protocolVersion": "1999-01-01"})["result"]["protocolVersion"]
        == "2025-11-25"
    )
    again = mcp.request("initialize", LEGACY_INIT)
    assert again["error"]["code"] == -32600 and again["error"]["data"] == {"initialized": True}
    assert mcp.request("tools/list")["result"]["tools"]


def test_modern_tools_list_without_initialize_is_stamped_and_cacheable(mcp_process):
    mcp = mcp_process()
    result = mcp.request("tools/list", {"_meta": MODERN_META})["result"]
    assert result["tools"] and result["resultType"] == "complete"
    assert result["ttlMs"] == 3_600_000 and result["cacheScope"] == "private"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mcb"
    assert mcp.request("ping", {"_meta": MODERN_META})["result"] == {"resultType": "complete"}
    call = mcp.request(
        "tools/call", {"name": "block_describe", "arguments": {"block_id": "stone"}, "_meta": MODERN_META}
    )["result"]
    assert call["resultType"] == "complete" and call["isError"] is False


def test_modern_envelope_must_be_complete_and_of_a_served_version(mcp_process):
    mcp = mcp_process()
    half = mcp.request("tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})
    assert half["error"]["code"] == -32602
    assert half["error"]["data"]["missing"] == ["io.modelcontextprotocol/clientCapabilities"]
    future = mcp.request(
        "tools/list", {"_meta": {**MODERN_META, "io.modelcontextprotocol/protocolVersion": "2030-01-01"}}
    )
    assert future["error"]["code"] == -32022
    assert "2026-07-28" in future["error"]["data"]["supported"] and future["error"]["data"]["requested"] == "2030-01-01"


def test_discover_first_lists_every_version_and_the_same_instructions(mcp_process):
    mcp = mcp_process()
    discovered = mcp.request("server/discover")["result"]
    assert discovered["supportedVersions"] == ALL_VERSIONS
    assert discovered["capabilities"] == CAPABILITIES and discovered["resultType"] == "complete"
    assert (discovered["ttlMs"], discovered["cacheScope"]) == (3_600_000, "public")
    assert mcp.initialize()["result"]["instructions"] == discovered["instructions"]


def test_eras_do_not_mix_and_nothing_runs_before_one_is_chosen(mcp_process):
    early = mcp_process()
    refused = early.request("tools/call", {"name": "block_describe", "arguments": {"block_id": "stone"}})
    assert refused["error"]["code"] == -32602
    assert set(refused["error"]["data"]["missing"]) == set(MODERN_META)
    legacy = mcp_process()
    legacy.initialize()
    mixed = legacy.request("tools/list", {"_meta": MODERN_META})
    assert mixed["error"]["code"] == -32600 and mixed["error"]["data"]["era"] == "legacy"
    modern = mcp_process()
    modern.request("tools/list", {"_meta": MODERN_META})
    late = modern.request("initialize", LEGACY_INIT)
    assert late["error"]["code"] == -32600 and late["error"]["data"]["era"] == "modern"


def test_unserved_methods_and_ignored_notifications(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    assert mcp.request("resources/subscribe", {"uri": "mcb://extensions"})["error"]["code"] == -32601
    assert mcp.request("prompts/list")["error"]["code"] == -32601
    assert mcp.request("logging/setLevel", {"level": "debug"})["error"]["code"] == -32601
    mcp.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 424242}})
    assert mcp.silent(0.3)


def test_requests_after_initialize_accept_the_meta_clients_send(mcp_process):
    """D5: after a legacy initialize, ping and the other requests are answered whatever _meta the client stamps:
    its own negotiated version, per-request keys such as a log level or progress token, or (ping and
    server/discover, which fix no era) the full 2026-07-28 envelope."""
    mcp = mcp_process()
    mcp.initialize("2025-11-25")
    own = {"io.modelcontextprotocol/protocolVersion": "2025-11-25", "io.modelcontextprotocol/logLevel": "info"}
    assert mcp.request("ping", {"_meta": own})["result"] == {}
    assert mcp.request("ping", {"_meta": MODERN_META})["result"] == {"resultType": "complete"}
    assert mcp.request("server/discover", {"_meta": MODERN_META})["result"]["supportedVersions"] == ALL_VERSIONS
    assert mcp.request("tools/list", {"_meta": own})["result"]["tools"]
    call = mcp.request(
        "tools/call",
        {
            "name": "block_describe",
            "arguments": {"block_id": "stone"},
            "_meta": {**own, "progressToken": 7, "io.example/trace": "x"},
        },
    )["result"]
    assert call["isError"] is False and "resultType" not in call
    assert mcp.request("tools/list", {"_meta": MODERN_META})["error"]["data"]["era"] == "legacy"  # MCP-9 holds


def test_the_sdk_client_pings_with_meta_after_initialize(tmp_path):
    """The official SDK's ClientSession: initialize, then send_ping with a _meta of its own."""
    from mcpkit import run_sdk

    async def body(session):
        return await session.send_ping(meta={"io.modelcontextprotocol/logLevel": "debug"})

    assert run_sdk(body, "--offline", cwd=tmp_path) is not None
