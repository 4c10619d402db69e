"""Result shapes: structuredContent plus its text copy, the text cap, internal failures (MCP-37..44)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def test_success_carries_structured_content_and_its_exact_compact_text(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    result = mcp.call("block_describe", {"block_id": "minecraft:oak_stairs"})["result"]
    assert result["isError"] is False
    assert result["content"][0] == {"type": "text", "text": json.dumps(result["structuredContent"],
                                                                       separators=(",", ":"), ensure_ascii=False)}


def test_over_the_cap_is_a_context_limit_refusal_with_a_narrowing(mcp_process, tmp_path):
    shutil.copy(CORPUS / "v2_prismarine_smallhouse1.schem", tmp_path / "house.schem")
    mcp = mcp_process("--max-result-kb", "2", cwd=tmp_path)
    mcp.initialize()
    result = mcp.call("schem_info", {"path": "house.schem", "limit": 4096})["result"]
    assert result["isError"] is True
    error = result["structuredContent"]["error"]
    assert error["code"] == "context_limit" and error["bytes"] > error["limit_bytes"] == 2048
    assert "retry_with" not in error and "limit" in error["no_remedy"]  # no guess that might not fit
    assert result["content"][0]["text"] == json.dumps(result["structuredContent"], separators=(",", ":"),
                                                      ensure_ascii=False)
    roomy = mcp_process("--max-result-kb", "64", cwd=tmp_path)
    roomy.initialize()
    assert roomy.call("schem_info", {"path": "house.schem", "limit": 4096})["result"]["isError"] is False
