"""Result shapes: structuredContent plus its text copy, the text cap, internal failures (MCP-37..44)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from mcpkit import refusal_of

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
ROOT = Path(__file__).resolve().parents[2]


def test_success_carries_structured_content_and_its_exact_compact_text(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    result = mcp.call("block_describe", {"block_id": "minecraft:oak_stairs"})["result"]
    assert result["isError"] is False
    assert result["content"][0] == {
        "type": "text",
        "text": json.dumps(result["structuredContent"], separators=(",", ":"), ensure_ascii=False),
    }


def test_over_the_cap_is_a_context_limit_refusal_with_a_narrowing(mcp_process, tmp_path):
    shutil.copy(CORPUS / "v2_prismarine_smallhouse1.schem", tmp_path / "house.schem")
    mcp = mcp_process("--max-result-kb", "2", cwd=tmp_path)
    mcp.initialize()
    result = mcp.call("schem_info", {"path": "house.schem", "limit": 4096})["result"]
    assert result["isError"] is True
    error = refusal_of(result["structuredContent"]["error"])
    assert error["code"] == "context_limit" and error["result_bytes"] > error["cap_bytes"] == 2048
    assert 1 <= error["retry_with"]["limit"] < 4096 and "no_remedy" not in error  # one remedy, no contradiction
    narrowed = mcp.call("schem_info", {"path": "house.schem", **error["retry_with"]})["result"]
    assert narrowed["isError"] is False and narrowed["structuredContent"]["has_more"] is True  # it does fit
    shutil.copy(ROOT / "recipes" / "colonnade.json", tmp_path / "colonnade.json")
    tiny = mcp_process("--max-result-kb", "1", cwd=tmp_path)
    tiny.initialize()
    for name, arguments in (
        ("schem_info", {"path": "house.schem"}),
        ("recipe_compile", {"path": "colonnade.json", "limit": 4096}),
    ):
        over = refusal_of(tiny.call(name, arguments)["result"]["structuredContent"]["error"])
        assert over["code"] == "context_limit", over
        assert ("retry_with" in over) != ("no_remedy" in over), over  # exactly one, never both
        if "retry_with" in over:
            again = tiny.call(name, {**arguments, **over["retry_with"]})["result"]
            assert again["isError"] is False, again["structuredContent"]
    assert result["content"][0]["text"] == json.dumps(
        result["structuredContent"], separators=(",", ":"), ensure_ascii=False
    )
    roomy = mcp_process("--max-result-kb", "64", cwd=tmp_path)
    roomy.initialize()
    assert roomy.call("schem_info", {"path": "house.schem", "limit": 4096})["result"]["isError"] is False
