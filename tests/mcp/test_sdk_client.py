"""The official MCP SDK's own client (ClientSession over stdio) drives `mcb mcp`: the handshake, the catalog,
an offline tool, an image, progress, an unknown argument, a resource and an RPC tool against a live `mcb serve`."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

from mcpkit import refusal_of, run_sdk, structured

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def test_sdk_session_end_to_end(tmp_path, server_env):
    shutil.copy(CORPUS / "v2_nucleation_and.schem", tmp_path / "gate.schem")
    progress: list[float] = []

    async def body(session):
        tools = await session.list_tools()
        names = [tool.name for tool in tools.tools]
        described = await session.call_tool("block_describe", {"block_id": "minecraft:oak_stairs"})

        async def on_progress(done, total, message):
            progress.append(done)

        rendered = await session.call_tool(
            "schem_render", {"path": "gate.schem", "view": "iso"}, progress_callback=on_progress
        )
        refused = await session.call_tool("schem_info", {"path": "gate.schem", "pallete": True})
        rotated = await session.call_tool(
            "schem_rotate", {"path": "gate.schem", "degrees": 90, "output": "gate-90.schem"}
        )
        context = await session.call_tool("project_context", {})
        resource = await session.read_resource("mcb://project/context")
        return names, described, rendered, refused, rotated, context, resource

    names, described, rendered, refused, rotated, context, resource = run_sdk(body, env=server_env, cwd=tmp_path)
    assert names[0] == "project_context" and "tool_batch" in names and len(names) == 35
    assert described.is_error is False and structured(described)["id"] == "minecraft:oak_stairs"
    assert rendered.is_error is False
    image = rendered.content[1]
    assert image.type == "image" and image.mime_type == "image/png"
    assert base64.b64decode(image.data).startswith(b"\x89PNG")
    assert progress == sorted(set(progress)) and progress
    assert refused.is_error is True
    error = refusal_of(structured(refused)["error"])
    assert error["unknown"] == ["pallete"] and "path" in error["accepted"]
    assert rotated.is_error is False and (tmp_path / "gate-90.schem").is_file()
    assert context.is_error is False
    assert resource.contents[0].text and structured(context)["project_id"]


def test_sdk_client_in_the_modern_era(tmp_path):
    """The SDK's discover() opens a 2026-07-28 session (per-request _meta, no initialize) and it just works."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client
    from mcpkit import sdk_params

    async def main():
        async with stdio_client(sdk_params("--offline", cwd=tmp_path)) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                discovered = await session.discover()
                tools = await session.list_tools()
                described = await session.call_tool("block_describe", {"block_id": "minecraft:stone"})
                pong = await session.send_ping()
                return discovered, tools, described, pong

    discovered, tools, described, pong = anyio.run(main)
    assert "2026-07-28" in discovered.supported_versions
    assert tools.tools[0].name == "schem_validate" and tools.tools[-1].name == "tool_batch"
    assert described.is_error is False and structured(described)["id"] == "minecraft:stone"
    assert pong.result_type == "complete"


def test_an_agent_validates_rotates_compiles_and_builds_through_the_sdk(tmp_path, server_env):
    """Issue 14's "done means": through an MCP client, against mcb serve, end to end."""
    import json

    shutil.copy(CORPUS / "v2_nucleation_and.schem", tmp_path / "gate.schem")
    recipe = {
        "version": 1,
        "operations": [
            {
                "type": "box",
                "min": {"x": 2, "y": 64, "z": 2},
                "max": {"x": 4, "y": 66, "z": 4},
                "block": "minecraft:stone_bricks",
            }
        ],
    }
    (tmp_path / "tower.json").write_text(json.dumps(recipe))

    async def body(session):
        steps = {}
        steps["validate"] = await session.call_tool("schem_validate", {"paths": ["gate.schem"]})
        steps["rotate"] = await session.call_tool(
            "schem_rotate", {"path": "gate.schem", "degrees": 180, "output": "gate-180.schem"}
        )
        steps["compile"] = await session.call_tool("recipe_compile", {"path": "tower.json"})
        prepared = await session.call_tool("build_prepare", {"recipe": recipe})
        steps["prepare"] = prepared
        plan = structured(prepared)
        steps["apply"] = await session.call_tool(
            "build_apply",
            {
                "plan_id": plan["plan_id"],
                "plan_hash": plan["plan_hash"],
                "idempotency_key": "sdk-tower-1",
                "wait": True,
            },
        )
        operation = structured(steps["apply"])["operation_id"]
        steps["status"] = await session.call_tool("operation_status", {"operation_id": operation})
        steps["inspect"] = await session.call_tool(
            "region_inspect", {"min": {"x": 2, "y": 64, "z": 2}, "max": {"x": 4, "y": 66, "z": 4}}
        )
        return steps

    steps = run_sdk(body, env=server_env, cwd=tmp_path)
    for name, result in steps.items():
        assert result.is_error is False, (name, result.structured_content)
    assert (tmp_path / "gate-180.schem").is_file()
    assert structured(steps["prepare"])["follow_up"][0]["tool"] == "build_apply"
    assert structured(steps["status"])["status"] == "applied"
    assert "minecraft:stone_bricks" in json.dumps(structured(steps["inspect"]))
