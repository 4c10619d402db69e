"""The RPC tools through `mcb mcp` itself, driven by the official SDK's ClientSession over stdio, against a live
`mcb serve` (and, for the lost answer, the fault proxy in front of it)."""

from __future__ import annotations

import base64
import io
import json
import os
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "client"))  # rpc_testkit
sys.path.insert(0, str(Path(__file__).resolve().parent))  # test_rpc_tools helpers

from mcpkit import refusal_of  # noqa: E402
from rpc_testkit import FaultProxy  # noqa: E402
from test_rpc_tools import BRIDGE_ORDER, CAMERA_PLAYER, SMALL_HILL, box  # noqa: E402


@pytest.fixture
def slow(tmp_path):
    """A server ticking every 20 ms: a 2048-block apply takes 64 ticks (~1.3 s: progress changes every 40 ms, faster
    than the 10 a second the face reports), and a 4096-block one 128 ticks, so a cancel sent after its first written
    slice has 94 ticks (1.9 s) to reach it through the SDK and `mcb mcp`."""
    from mcb.server.testing import run_server

    with run_server(tmp_path / "slow", tick_ms=20) as server:
        yield server


def mcp_env(server, url=None) -> dict[str, str]:
    """What an MCP client's config would give `mcb mcp`: the server, the agent token only, the player id."""
    env = {key: value for key, value in os.environ.items() if key.startswith("XDG_") or key == "NO_COLOR"}
    env.update({"MCB_SERVER": url or server.url, "MCB_AGENT_TOKEN": server.agent_token, "MCB_PLAYER_ID": "console"})
    return env


@asynccontextmanager
async def session_for(env, cwd):
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "mcb", "mcp"], env=env, cwd=str(cwd))
    with open(Path(cwd) / "mcp-stderr.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


def admin(server, method, params):
    from mcb.client import McbClient

    with McbClient(server.url, admin_token=server.admin_token) as client:
        return client.call(method, params, admin=True, scoped=False)


async def ok(session, name, arguments=None, **options):
    result = await session.call_tool(name, arguments or {}, **options)
    assert result.is_error is False, result.structured_content
    data = result.structured_content
    assert result.content[0].type == "text" and json.loads(result.content[0].text) == data  # MCP-37
    return data, result


async def refused(session, name, arguments):
    result = await session.call_tool(name, arguments)
    assert result.is_error is True
    return refusal_of(result.structured_content["error"])


def operations_of(server) -> list[dict]:
    from mcb.client import McbClient

    with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
        return [op.wire() for op in client.project_context().operations]


def test_every_rpc_tool_through_mcb_mcp(live, tmp_path):
    admin(live, "test_camera_config", {"camera_player_uuid": CAMERA_PLAYER})
    admin(live, "test_camera_save", {"name": "front", "x": 0.5, "y": 70, "z": -20.5, "yaw": 0, "pitch": 20})
    called: set[str] = set()

    async def main():
        async with session_for(mcp_env(live), tmp_path) as s:
            listed = [tool.name for tool in (await s.list_tools()).tools]
            assert listed[:19] == BRIDGE_ORDER
            assert not any(name.startswith(("chat_", "recovery_")) or name == "region_changes" for name in listed)

            async def call(name, arguments=None):
                called.add(name)
                return await ok(s, name, arguments)

            context, _ = await call("project_context")
            assert context["operations"] == []
            await call("material_search", {"query": "oak stairs", "limit": 2})
            await call("material_describe", {"id": "minecraft:stone_bricks"})
            await call("region_inspect", {"min": {"x": 0, "y": 100, "z": 0}, "max": {"x": 2, "y": 102, "z": 2}})
            big = {"min": {"x": 0, "y": 60, "z": 0}, "max": {"x": 15, "y": 75, "z": 15}}
            over = await refused(s, "region_inspect", {**big, "detail": "blocks"})  # ~250 KB of blocks
            assert over["code"] == "context_limit" and over["retry_with"] == {"detail": "summary"}
            summary, _ = await call("region_inspect", {**big, **over["retry_with"]})
            assert summary["total_blocks"] == 4096
            plan, _ = await call("build_prepare", {"recipe": box(0, 100, 0)})
            key = "stdio-" + plan["plan_id"]
            applied, _ = await call(
                "build_apply", {**plan["follow_up"][0]["arguments"], "idempotency_key": key, "wait": True}
            )
            assert applied["status"] == "applied"
            operation = applied["operation_id"]
            await call("operation_status", {"operation_id": operation})
            await call("operation_cancel", {"operation_id": operation})
            part, _ = await call("part_define", {"name": "base", "operation_id": operation})
            await call("part_get", {"part_id": part["part_id"]})
            cameras, _ = await call("camera_list")
            assert cameras["configured"] is True and [c["camera_id"] for c in cameras["cameras"]] == ["front"]

            shot, result = await call("camera_capture", {"camera_id": "front", "after_operation_id": operation})
            deadline = time.monotonic() + 60
            while shot["status"] == "pending" and time.monotonic() < deadline:
                await anyio.sleep(0.2)
                shot, result = await call("camera_capture", shot["follow_up"][0]["arguments"])
            assert shot["status"] == "completed" and "imageBase64" not in shot
            [text, image] = result.content
            assert image.type == "image" and image.mime_type == "image/png"
            from PIL import Image

            with Image.open(io.BytesIO(base64.b64decode(image.data))) as picture:
                assert picture.format == "PNG" and picture.size == (shot["width"], shot["height"])

            asset, _ = await call(
                "schematic_export",
                {"name": "base", "min": {"x": 0, "y": 100, "z": 0}, "max": {"x": 2, "y": 102, "z": 2}},
            )
            await call("asset_list")
            await call(
                "schematic_import_prepare", {"asset_id": asset["assetId"], "target": {"x": 20, "y": 100, "z": 0}}
            )
            await call("operation_undo_prepare", {"operation_id": operation})
            preview, result = await call("terrain_preview", {"recipe": SMALL_HILL, "resolution": 32})
            assert [c.type for c in result.content] == ["text", "image"] and "imageBase64" not in preview
            await call("terrain_prepare", {"terrain_id": preview["terrain_id"], "tile_index": 0})
            brush = {
                "min": {"x": -4, "y": 58, "z": -4},
                "max": {"x": 4, "y": 70, "z": 4},
                "center": {"x": 0, "z": 0},
                "radius": 3,
                "action": "raise",
                "amount": 3,
            }
            _, result = await call("terrain_brush_prepare", {"brush": brush})
            assert result.content[1].type == "image"

    anyio.run(main)
    assert called == set(BRIDGE_ORDER)


def test_an_unknown_argument_is_refused_by_name_before_any_request(live, tmp_path):
    proxy = FaultProxy(live.url)
    with proxy:

        async def main():
            async with session_for(mcp_env(live, proxy.url), tmp_path) as s:
                error = await refused(
                    s,
                    "region_inspect",
                    {"min": {"x": 0, "y": 0, "z": 0}, "max": {"x": 1, "y": 1, "z": 1}, "detial": "blocks"},
                )
                assert error["code"] == "invalid_argument" and error["unknown"] == ["detial"]
                assert error["did_you_mean"] == {"detial": "detail"} and error["accepted"] == ["min", "max", "detail"]
                assert "detial" in error["message"]
                scoped = await refused(
                    s, "build_apply", {"plan_id": "p", "plan_hash": "h", "idempotency_key": "k", "player_id": "someone"}
                )
                assert scoped["unknown"] == ["player_id"]

        anyio.run(main)
        assert proxy.requests == []  # nothing reached the server


def test_build_apply_progress_then_a_cancel_in_the_middle_leaves_a_clean_state(slow, tmp_path):
    recipe = {
        "version": 1,
        "operations": [
            {
                "type": "box",
                "min": {"x": 0, "y": 100, "z": 0},
                "max": {"x": 15, "y": 107, "z": 15},
                "block": "minecraft:stone",
            }
        ],
    }

    async def main():
        async with session_for(mcp_env(slow), tmp_path) as s:
            # 1. progress: strictly increasing, with the total, and all before the answer
            plan, _ = await ok(s, "build_prepare", {"recipe": recipe})
            seen: list[tuple] = []

            async def on_progress(progress, total, message):
                seen.append((progress, total, time.monotonic()))

            done, _ = await ok(
                s,
                "build_apply",
                {
                    "plan_id": plan["plan_id"],
                    "plan_hash": plan["plan_hash"],
                    "idempotency_key": "progress",
                    "wait": True,
                },
                progress_callback=on_progress,
            )
            assert done["status"] == "applied" and done["written"] == 2048
            values = [p for p, _, _ in seen]
            assert len(values) >= 2 and values == sorted(set(values)) and all(t == 2048 for _, t, _ in seen)
            elapsed = seen[-1][2] - seen[0][2]
            assert len(seen) <= 2 + 10 * elapsed  # at most 10 a second (slack for delivery jitter)

            # 2. cancel in the middle of the next build: no answer, the operation is ours to stop, nothing is stuck
            plan, _ = await ok(
                s,
                "build_prepare",
                {
                    "recipe": {
                        **recipe,
                        "operations": [
                            {
                                **recipe["operations"][0],
                                "block": "minecraft:oak_planks",
                                "max": {"x": 15, "y": 115, "z": 15},
                            }
                        ],
                    }
                },
            )
            arguments = {
                "plan_id": plan["plan_id"],
                "plan_hash": plan["plan_hash"],
                "idempotency_key": "cancel",
                "wait": True,
            }
            progressed = anyio.Event()

            async def note(progress, total, message):
                if progress > 0:
                    progressed.set()

            with anyio.CancelScope() as scope:
                async with anyio.create_task_group() as group:

                    async def apply():
                        await s.call_tool("build_apply", arguments, progress_callback=note)
                        pytest.fail("a cancelled call must not be answered")

                    group.start_soon(apply)
                    with anyio.fail_after(30):
                        await progressed.wait()
                    scope.cancel()  # the SDK sends notifications/cancelled for the abandoned request
            context, _ = await ok(s, "project_context")
            running = context["operations"][0]
            assert running["plan_id"] == plan["plan_id"] and running["status"] in {"queued", "applying"}
            await ok(s, "operation_cancel", {"operation_id": running["operation_id"]})
            final, _ = await ok(s, "build_apply", arguments)  # the same key: the same operation, now ended
            assert final["operation_id"] == running["operation_id"] and final["status"] == "cancelled"
            context, _ = await ok(s, "project_context")
            assert [op["plan_id"] for op in context["operations"]] == [plan["plan_id"], done["plan_id"]]
            # the session and the engine both take new work
            again, _ = await ok(s, "build_prepare", {"recipe": box(30, 100, 30)})
            after, _ = await ok(
                s,
                "build_apply",
                {
                    "plan_id": again["plan_id"],
                    "plan_hash": again["plan_hash"],
                    "idempotency_key": "after",
                    "wait": True,
                },
            )
            assert after["status"] == "applied"

    anyio.run(main)


def test_a_lost_build_apply_answer_through_mcb_mcp_gives_exactly_one_operation(live, tmp_path):
    lost = {"on": True}

    def decide(request):
        if lost["on"] and request["json"] and request["json"].get("method") == "build_apply":
            return "drop_after_forward"
        return "forward"

    with FaultProxy(live.url, decide) as proxy:

        async def main():
            async with session_for(mcp_env(live, proxy.url), tmp_path) as s:
                plan, _ = await ok(s, "build_prepare", {"recipe": box(0, 100, 0)})
                arguments = {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"], "idempotency_key": "once"}
                error = await refused(s, "build_apply", arguments)
                assert error["code"] == "unavailable" and error["transport"]["outcome_unknown"] is True
                assert error["transport"]["reason"] == "peer_closed" and error["retry_with"] == arguments
                lost["on"] = False
                again, _ = await ok(s, "build_apply", {**error["retry_with"], "wait": True})
                assert again["status"] == "applied"
                return again["operation_id"]

        operation = anyio.run(main)
    assert [op["operation_id"] for op in operations_of(live)] == [operation]


def test_a_misspelt_config_key_is_refused_with_the_near_key(live, tmp_path):
    """The CLI's hint (`player_idd -> player_id`) reaches the agent too, before any request."""
    (tmp_path / ".mcb.toml").write_text('player_idd = "console"\n')
    proxy = FaultProxy(live.url)
    with proxy:

        async def main():
            async with session_for(mcp_env(live, proxy.url), tmp_path) as s:
                error = await refused(s, "project_context", {})
                assert error["code"] == "config" and "player_idd" in error["message"]
                assert "player_idd -> player_id" in error["remedy"]

        anyio.run(main)
        assert proxy.requests == []
