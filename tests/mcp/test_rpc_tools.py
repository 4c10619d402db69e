"""The 19 RPC actions called directly (a small real Context, the client from settings) against a live `mcb serve`.

Every call goes over real HTTP to the local reference server; arguments pass through the face's own argument
check (mcb.mcp.arguments.parse_arguments), as a tools/call would.
"""

from __future__ import annotations

import copy
import json
import time
import uuid
from pathlib import Path

import pytest

from mcb.mcp.actions import Cancelled, Outcome, Refusal
from mcb.mcp.tools.rpc import RPC_ACTIONS

ROOT = Path(__file__).resolve().parents[2]
SMALL_HILL = json.loads((ROOT / "recipes/terrain/small-hill.json").read_text())
REMEDY_FIELDS = {"retry_with", "field", "next_call", "restart_with", "retry_after_ms", "no_remedy"}
BRIDGE_ORDER = [
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
# mcp-conventions §2.2: readOnly / destructive / idempotent / openWorld.
HINTS = {
    "project_context": "TFTT",
    "material_search": "TFTT",
    "material_describe": "TFTT",
    "region_inspect": "TFTT",
    "build_prepare": "FFFT",
    "build_apply": "FTTT",
    "operation_status": "TFTT",
    "operation_cancel": "FTTT",
    "operation_undo_prepare": "FFFT",
    "part_get": "TFTT",
    "part_define": "FFFT",
    "camera_list": "TFTT",
    "camera_capture": "TFFT",
    "asset_list": "TFTT",
    "schematic_export": "FFFT",
    "schematic_import_prepare": "FFFT",
    "terrain_preview": "TFTT",
    "terrain_prepare": "FFFT",
    "terrain_brush_prepare": "FFFT",
}
ACTIONS = {action.name: action for action in RPC_ACTIONS}
CAMERA_PLAYER = "0f6c3a6e-8a39-4a5b-9d4e-2f3f0d0c0a01"


class DirectContext:
    """The smallest real Context: one client from the CLI's settings, progress recorded, cancel on demand."""

    max_result_bytes = 65_536  # the face's default cap on one text item (MCP-39)

    def __init__(self, client, cancel_when=None):
        self._client = client
        self.progress_calls: list[tuple] = []
        self.cancel_when = cancel_when
        self.created_paths: list[Path] = []

    def client(self):
        return self._client

    def progress(self, done, total=None, message=None):
        self.progress_calls.append((done, total, message))

    def check_cancelled(self):
        if self.cancel_when is not None and self.cancel_when(self):
            raise Cancelled()

    def created(self, path):
        self.created_paths.append(Path(path))


def box(x, y, z, size=3, block="minecraft:stone_bricks"):
    return {
        "version": 1,
        "operations": [
            {
                "type": "box",
                "min": {"x": x, "y": y, "z": z},
                "max": {"x": x + size - 1, "y": y + size - 1, "z": z + size - 1},
                "block": block,
            }
        ],
    }


def settings_client(server, monkeypatch, url=None, **options):
    """The client exactly as the CLI builds it from settings (MCB_SERVER, agent token, player id)."""
    from mcb.client import McbClient
    from mcb.config import load_settings

    monkeypatch.setenv("MCB_SERVER", url or server.url)
    monkeypatch.setenv("MCB_AGENT_TOKEN", server.agent_token)
    monkeypatch.delenv("MCB_TOKEN", raising=False)
    monkeypatch.setenv("MCB_PLAYER_ID", "console")
    return McbClient.from_settings(load_settings(), **options)


@pytest.fixture
def ctx(live, monkeypatch):
    client = settings_client(live, monkeypatch)
    yield DirectContext(client)
    client.close()


def admin(server, method, params):
    """A test hook (admin token, no scope) standing in for something done in game."""
    from mcb.client import McbClient

    with McbClient(server.url, admin_token=server.admin_token) as client:
        return client.call(method, params, admin=True, scoped=False)


def run(name, arguments, ctx) -> Outcome:
    from mcb.mcp.arguments import parse_arguments

    action = ACTIONS[name]
    return action.run(parse_arguments(action, arguments, root=None), ctx)


def refuse(name, arguments, ctx) -> dict:
    with pytest.raises(Refusal) as caught:
        run(name, arguments, ctx)
    error = refusal_of(caught.value.to_dict()["error"])
    assert error["remedy"] and REMEDY_FIELDS & set(error), error  # every refusal carries a machine remedy
    return error


def operations(ctx) -> list[dict]:
    return run("project_context", {}, ctx).data["operations"]


# -- the catalog ---------------------------------------------------------------------------------------------------
def test_names_order_and_hints_follow_the_tool_table():
    assert [a.name for a in RPC_ACTIONS] == BRIDGE_ORDER
    for action in RPC_ACTIONS:
        h = action.hints
        assert (
            "".join("T" if v else "F" for v in (h.read_only, h.destructive, h.idempotent, h.open_world))
            == HINTS[action.name]
        ), action.name
        assert action.group == "rpc" and action.title and action.description


def test_every_field_is_described_and_scope_is_never_an_argument():
    for action in RPC_ACTIONS:
        schema = action.input_model.model_json_schema()
        assert schema["additionalProperties"] is False
        for name, prop in schema.get("properties", {}).items():
            assert name not in {"player_id", "project_id"}
            assert prop.get("description"), f"{action.name}.{name} has no description"
            if prop.get("type") == "string" and name in schema.get("required", []):
                assert prop.get("minLength", 0) >= 1 or "pattern" in prop, f"{action.name}.{name}"
                assert prop.get("maxLength", 0) in (64, 128, 200, 256) or "pattern" in prop, f"{action.name}.{name}"


# -- every tool against the live server ---------------------------------------------------------------------------
def test_the_whole_workflow_through_every_rpc_tool(live, ctx):
    context = run("project_context", {}, ctx).data
    assert context["region"]["min"] == {"x": -64, "y": 0, "z": -64} and context["operations"] == []

    described = run("material_describe", {"id": "minecraft:oak_stairs"}, ctx).data
    assert described["block"] is True and "facing" in described["properties"]
    search = run("material_search", {"query": "stone bricks", "limit": 3}, ctx).data
    assert search["returned"] == len(search["results"]) <= 3 and search["total_results"] == search["total"]

    before = run("region_inspect", {"min": {"x": 0, "y": 100, "z": 0}, "max": {"x": 2, "y": 102, "z": 2}}, ctx).data
    assert before["palette"] == {"minecraft:air": 27}
    assert (before["returned"], before["has_more"], before["total_blocks"]) == (27, False, 27)

    plan = run("build_prepare", {"recipe": box(0, 100, 0)}, ctx).data
    assert plan["changed_blocks"] == 27
    assert plan["follow_up"] == [
        {
            "work": "apply",
            "tool": "build_apply",
            "arguments": {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"]},
            "reason": plan["follow_up"][0]["reason"],
        }
    ]
    key = "agent-" + plan["plan_id"]
    started = run(
        "build_apply", {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"], "idempotency_key": key}, ctx
    ).data
    operation = started["operation_id"]
    if started["status"] not in {"applied"}:
        assert started["follow_up"][0] == {
            "work": "poll",
            "tool": "operation_status",
            "arguments": {"operation_id": operation},
            "reason": started["follow_up"][0]["reason"],
        }
    done = run(
        "build_apply",
        {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"], "idempotency_key": key, "wait": True},
        ctx,
    ).data
    assert done["operation_id"] == operation and done["status"] == "applied" and "follow_up" not in done
    status = run("operation_status", {"operation_id": operation}, ctx).data
    assert status["status"] == "applied" and status["written"] == 27
    assert run("operation_cancel", {"operation_id": operation}, ctx).data["status"] == "applied"  # terminal: no-op

    part = run("part_define", {"name": "tower base", "operation_id": operation}, ctx).data
    assert part["block_count"] == 27
    got = run("part_get", {"part_id": part["part_id"]}, ctx).data
    assert got["name"] == "tower base" and got["operation_id"] == operation

    asset = run(
        "schematic_export", {"name": "base", "min": {"x": 0, "y": 100, "z": 0}, "max": {"x": 2, "y": 102, "z": 2}}, ctx
    ).data
    assert asset["blockCount"] == 27 and asset["bytes"] > 0
    assets = run("asset_list", {"query": "base"}, ctx).data
    assert [a["assetId"] for a in assets["assets"]] == [asset["assetId"]]
    assert (assets["returned"], assets["has_more"], assets["total_assets"]) == (1, False, 1)
    imported = run(
        "schematic_import_prepare",
        {"asset_id": asset["assetId"], "target": {"x": 10, "y": 100, "z": 0}, "rotation": 90},
        ctx,
    ).data
    assert imported["changed_blocks"] == 27 and imported["follow_up"][0]["tool"] == "build_apply"

    undo = run("operation_undo_prepare", {"operation_id": operation}, ctx).data
    assert undo["changed_blocks"] == 27 and undo["follow_up"][0]["arguments"]["plan_id"] == undo["plan_id"]

    assert run("camera_list", {}, ctx).data == {"cameras": [], "configured": False}

    preview = run("terrain_preview", {"recipe": SMALL_HILL, "resolution": 64}, ctx)
    assert "imageBase64" not in preview.data and "mimeType" not in preview.data
    assert len(preview.images) == 1 and preview.images[0].png.startswith(b"\x89PNG")
    tile = run("terrain_prepare", {"terrain_id": preview.data["terrain_id"], "tile_index": 0}, ctx).data
    assert tile["terrain_id"] == preview.data["terrain_id"] and tile["follow_up"][0]["tool"] == "build_apply"

    brush = {
        "min": {"x": -4, "y": 58, "z": -4},
        "max": {"x": 4, "y": 70, "z": 4},
        "center": {"x": 0, "z": 0},
        "radius": 3,
        "action": "raise",
        "amount": 3,
    }
    brushed = run("terrain_brush_prepare", {"brush": brush}, ctx)
    assert brushed.data["plan_state"] == "prepared" and brushed.images[0].png.startswith(b"\x89PNG")
    assert brushed.data["follow_up"][0]["arguments"]["plan_id"] == brushed.data["plan_id"]
    assert [op["operation_id"] for op in operations(ctx)] == [operation]


def test_camera_capture_pending_then_a_png_image(live, ctx):
    import io

    from PIL import Image as PILImage

    admin(live, "test_camera_config", {"camera_player_uuid": CAMERA_PLAYER})
    pose = {"x": 0.5, "y": 70, "z": -20.5, "yaw": 0, "pitch": 20, "width": 320, "height": 180}
    first = run("camera_capture", {"pose": pose}, ctx)
    assert first.data["status"] == "pending" and not first.images
    poll = first.data["follow_up"][0]
    assert poll == {
        "work": "poll",
        "tool": "camera_capture",
        "arguments": {"capture_id": first.data["captureId"]},
        "reason": poll["reason"],
    }
    done = run("camera_capture", poll["arguments"], ctx)
    deadline = time.monotonic() + 60
    while done.data["status"] == "pending" and time.monotonic() < deadline:  # the stand-in renders meanwhile
        assert done.data["follow_up"][0]["arguments"] == poll["arguments"]
        time.sleep(0.2)
        done = run("camera_capture", poll["arguments"], ctx)
    assert done.data["status"] == "completed" and "imageBase64" not in done.data and "mimeType" not in done.data
    assert len(done.images) == 1
    with PILImage.open(io.BytesIO(done.images[0].png)) as image:
        assert image.format == "PNG" and image.size == (320, 180)


# -- results: pagination and the result cap ------------------------------------------------------------------------
def test_material_search_pages_follow_the_pagination_contract(ctx):
    seen, cursor, pages = [], None, 0
    while True:
        arguments = {"query": "oak stairs", "kind": "all", "limit": 1}
        if cursor:
            arguments["cursor"] = cursor
        page = run("material_search", arguments, ctx).data
        pages += 1
        seen += [r["id"] for r in page["results"]]
        assert page["returned"] == 1 and page["total_results"] == page["total"] >= 2
        if not page["has_more"]:
            assert "next_cursor" not in page and "hint" not in page
            break
        assert page["next_cursor"] and "cursor" in page["hint"]
        cursor = page["next_cursor"]
    assert pages == len(seen) == page["total"] and len(set(seen)) == len(seen)


def test_region_inspect_over_the_cap_is_a_context_limit_with_a_narrower_retry(ctx):
    box_args = {"min": {"x": 0, "y": 60, "z": 0}, "max": {"x": 15, "y": 75, "z": 15}}
    error = refuse("region_inspect", {**box_args, "detail": "blocks"}, ctx)
    assert error["code"] == "context_limit" and error["retry_with"] == {"detail": "summary"}
    assert error["result_bytes"] > error["cap_bytes"] == 65_536
    summary = run("region_inspect", {**box_args, **error["retry_with"]}, ctx).data
    assert summary["total_blocks"] == 4096 and sum(summary["palette"].values()) == 4096


# -- plugin errors become refusals with the §2.4 remedies ------------------------------------------------------------
def test_plugin_codes_carry_their_remedies(ctx):
    unknown = refuse("material_describe", {"id": "minecraft:oak_plank"}, ctx)
    assert unknown["code"] == "invalid_material" and unknown["field"] == "id"
    assert unknown["did_you_mean"] == {"minecraft:oak_plank": "minecraft:oak_planks"}
    assert unknown["next_call"]["tool"] == "material_search"
    assert (unknown["plugin_code"], unknown["http_status"]) == ("invalid_material", 400)

    outside = refuse("region_inspect", {"min": {"x": 0, "y": 0, "z": 0}, "max": {"x": 100, "y": 0, "z": 0}}, ctx)
    assert outside["code"] == "out_of_bounds" and outside["next_call"]["tool"] == "project_context"

    expired = refuse("terrain_prepare", {"terrain_id": "a" * 64, "tile_index": 0}, ctx)
    assert expired["code"] == "not_found" and expired["next_call"]["tool"] == "terrain_preview"

    cursor = refuse("material_search", {"query": "oak", "cursor": "nonsense"}, ctx)
    assert cursor["code"] == "invalid_cursor" and cursor["retry_with"] == {"cursor": ""}
    assert run("material_search", {"query": "oak", **cursor["retry_with"]}, ctx).data["returned"] > 0

    plan = run("build_prepare", {"recipe": box(0, 100, 0)}, ctx).data
    stale = refuse("build_apply", {"plan_id": plan["plan_id"], "plan_hash": "0" * 64, "idempotency_key": "k1"}, ctx)
    assert stale["code"] == "stale_snapshot" and stale["next_call"]["tool"] == "region_inspect"
    unknown_plan = refuse(
        "build_apply", {"plan_id": str(uuid.uuid4()), "plan_hash": "0" * 64, "idempotency_key": "k2"}, ctx
    )
    assert (unknown_plan["code"], unknown_plan["field"]) == ("invalid_request", "plan_id")

    camera = refuse("camera_capture", {"camera_id": "front"}, ctx)
    assert camera["code"] == "camera_unavailable" and "visually unverified" in camera["no_remedy"]


def test_a_key_reused_for_another_plan_names_the_key(ctx):
    first = run("build_prepare", {"recipe": box(0, 100, 0)}, ctx).data
    run(
        "build_apply",
        {"plan_id": first["plan_id"], "plan_hash": first["plan_hash"], "idempotency_key": "same", "wait": True},
        ctx,
    )
    second = run("build_prepare", {"recipe": box(5, 100, 0)}, ctx).data
    error = refuse(
        "build_apply", {"plan_id": second["plan_id"], "plan_hash": second["plan_hash"], "idempotency_key": "same"}, ctx
    )
    assert error["code"] == "invalid_request" and error["field"] == "idempotency_key"


def test_no_agent_token_is_refused_with_restart_with(live, monkeypatch):
    from mcb.client import McbClient

    with McbClient(live.url, player_id="console") as client:
        error = refuse("project_context", {}, DirectContext(client))
    assert error["code"] == "no_token" and error["restart_with"] == "set MCB_AGENT_TOKEN"


# -- long work: build_apply's wait ------------------------------------------------------------------------------
@pytest.fixture
def slow(tmp_path, monkeypatch):
    """A server ticking every 20 ms: big_plan's 2048 blocks take 64 ticks (preflight, staged and written slices of
    128, audit), ~1.3 s; its 4096 blocks take 128 ticks (~2.6 s), so a cancel after the first written slice has 94
    ticks (1.9 s) to land, and wait_seconds=1 ends with the operation still running."""
    from mcb.server.testing import run_server

    with run_server(tmp_path / "slow", tick_ms=20) as server:
        client = settings_client(server, monkeypatch)
        yield server, client
        client.close()


def big_plan(ctx, layers=8):
    """A 16 x ``layers`` x 16 box of stone: 256 blocks a layer."""
    recipe = {
        "version": 1,
        "operations": [
            {
                "type": "box",
                "min": {"x": 0, "y": 100, "z": 0},
                "max": {"x": 15, "y": 99 + layers, "z": 15},
                "block": "minecraft:stone",
            }
        ],
    }
    return run("build_prepare", {"recipe": recipe}, ctx).data


def test_build_apply_wait_reports_strictly_increasing_progress(slow):
    ctx = DirectContext(slow[1])
    plan = big_plan(ctx)
    done = run(
        "build_apply",
        {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"], "idempotency_key": "wait-1", "wait": True},
        ctx,
    ).data
    assert done["status"] == "applied" and done["written"] == 2048
    values = [call[0] for call in ctx.progress_calls]
    assert len(values) >= 3 and values == sorted(set(values)) and values[-1] == 2048
    assert all(call[1] == 2048 for call in ctx.progress_calls)


def test_a_cancelled_wait_stops_waiting_and_leaves_one_clean_operation(slow):
    client = slow[1]
    ctx = DirectContext(client, cancel_when=lambda c: len(c.progress_calls) >= 2)
    plan = big_plan(ctx, layers=16)
    arguments = {
        "plan_id": plan["plan_id"],
        "plan_hash": plan["plan_hash"],
        "idempotency_key": "cancel-1",
        "wait": True,
    }
    with pytest.raises(Cancelled):
        run("build_apply", arguments, ctx)
    assert ctx.progress_calls[-1][0] < 4096  # stopped in the middle
    # MCP-48: a cancel stops the waiting, not the operation; operation_cancel is what ends it.
    fresh = DirectContext(client)
    [operation] = operations(fresh)
    assert operation["status"] in {"queued", "applying"}
    cancelled = run("operation_cancel", {"operation_id": operation["operation_id"]}, fresh).data
    assert cancelled["operation_id"] == operation["operation_id"]
    final = run("build_apply", {**arguments, "wait": True}, fresh).data  # the same key: the same operation
    assert final["operation_id"] == operation["operation_id"] and final["status"] == "cancelled"
    assert 0 < final["written"] < 4096
    assert [op["operation_id"] for op in operations(fresh)] == [operation["operation_id"]]
    # and the engine takes new work at once: nothing is left locked
    again = run("build_prepare", {"recipe": box(30, 100, 30)}, fresh).data
    applied = run(
        "build_apply",
        {"plan_id": again["plan_id"], "plan_hash": again["plan_hash"], "idempotency_key": "after-cancel", "wait": True},
        fresh,
    ).data
    assert applied["status"] == "applied"


def test_a_wait_longer_than_wait_seconds_returns_the_status_and_a_poll(slow):
    ctx = DirectContext(slow[1])
    plan = big_plan(ctx, layers=16)
    result = run(
        "build_apply",
        {
            "plan_id": plan["plan_id"],
            "plan_hash": plan["plan_hash"],
            "idempotency_key": "short",
            "wait": True,
            "wait_seconds": 1,
        },
        ctx,
    ).data
    assert result["status"] in {"queued", "applying"}
    assert result["follow_up"][0]["tool"] == "operation_status"


def test_arguments_are_checked_before_any_request(live, monkeypatch):
    """Bad arguments never reach the server (the face's check uses these models)."""
    from mcb.mcp.arguments import parse_arguments

    with pytest.raises(Refusal) as caught:
        parse_arguments(
            ACTIONS["build_prepare"], {"recipe": copy.deepcopy(box(0, 100, 0)) | {"operations": []}}, root=None
        )
    assert caught.value.code == "invalid_argument" and "at least one operation" in caught.value.message
    deep = {
        "version": 1,
        "operations": [
            {
                "type": "repeat",
                "count": 2,
                "offset": {"x": 1, "y": 0, "z": 0},
                "operations": [
                    {
                        "type": "repeat",
                        "count": 2,
                        "offset": {"x": 0, "y": 1, "z": 0},
                        "operations": box(0, 100, 0)["operations"],
                    }
                ],
            }
        ],
    }
    with pytest.raises(Refusal):
        parse_arguments(ACTIONS["build_prepare"], {"recipe": deep}, root=None)
    for bad in ({"limit": "5"}, {"limit": True}, {"limit": 5.5}, {"limit": 33}, {"kind": "blocks"}):
        with pytest.raises(Refusal):
            parse_arguments(ACTIONS["material_search"], bad, root=None)
    assert parse_arguments(ACTIONS["material_search"], {"limit": 5.0}, root=None).limit == 5
    with pytest.raises(Refusal) as caught:
        parse_arguments(ACTIONS["build_apply"], {"plan_id": "p", "player_id": "x"}, root=None)
    error = refusal_of(caught.value.to_dict()["error"])
    assert error["unknown"] == ["player_id"] and set(error["missing"]) == {"plan_hash", "idempotency_key"}
    with pytest.raises(Refusal):
        parse_arguments(ACTIONS["camera_capture"], {}, root=None)


def test_a_box_over_the_read_budget_gets_a_narrowing_retry_that_converges(ctx):
    arguments = {"min": {"x": -20, "y": 60, "z": 0}, "max": {"x": 19, "y": 79, "z": 9}}  # 8000 blocks
    error = refuse("region_inspect", arguments, ctx)
    assert error["code"] == "budget_exceeded" and "no_remedy" not in error
    assert error["retry_with"] == {"min": arguments["min"], "max": {"x": -1, "y": 79, "z": 9}}
    data = run("region_inspect", {**arguments, **error["retry_with"]}, ctx).data
    assert data["total_blocks"] == 4000 and sum(data["palette"].values()) == 4000


def test_the_first_retry_of_a_box_far_over_the_read_budget_fits_it(ctx):
    arguments = {"min": {"x": -64, "y": 0, "z": -64}, "max": {"x": 64, "y": 128, "z": 64}}  # 129^3 blocks
    error = refuse("region_inspect", arguments, ctx)
    assert error["code"] == "budget_exceeded" and "4096" in error["message"]
    low, high = error["retry_with"]["min"], error["retry_with"]["max"]
    assert low == arguments["min"] and high == {"x": -49, "y": 15, "z": -49}  # 16^3 = 4096: the whole budget
    data = run("region_inspect", {**arguments, **error["retry_with"]}, ctx).data  # followed once, it succeeds
    assert data["total_blocks"] == 4096 == sum(data["palette"].values())
    flat = {"min": {"x": -64, "y": 60, "z": -64}, "max": {"x": 64, "y": 60, "z": 64}}  # one layer: 64 x 1 x 64
    retry = refuse("region_inspect", flat, ctx)["retry_with"]
    assert run("region_inspect", {**flat, **retry}, ctx).data["total_blocks"] == 4096


def test_an_export_over_the_plan_budget_gets_a_box_that_fits_the_stated_limit(ctx):
    arguments = {"name": "too-big", "min": {"x": -40, "y": 60, "z": -40}, "max": {"x": 40, "y": 80, "z": 40}}
    error = refuse("schematic_export", arguments, ctx)
    limit = int(error["message"].split("at most ")[1].split()[0])
    low, high = error["retry_with"]["min"], error["retry_with"]["max"]
    volume = (high["x"] - low["x"] + 1) * (high["y"] - low["y"] + 1) * (high["z"] - low["z"] + 1)
    assert volume <= limit and volume * 2 > limit
    exported = run("schematic_export", {**arguments, **error["retry_with"]}, ctx).data
    assert exported["width"] * exported["height"] * exported["length"] == volume


# -- properties of the small pure pieces ---------------------------------------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from mcpkit import refusal_of  # noqa: E402

coordinate = st.integers(min_value=-200, max_value=200)


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.tuples(coordinate, coordinate, coordinate), st.tuples(*[st.integers(0, 300)] * 3))
def test_narrowing_a_box_always_shrinks_it_inside_itself(corner, size):
    from mcb.mcp.tools.rpc_arguments import RegionInspectArgs
    from mcb.mcp.tools.rpc_results import narrower_box

    lo = dict(zip("xyz", corner))
    hi = {axis: lo[axis] + extent for axis, extent in zip("xyz", size)}
    steps, volume = 0, None
    while True:
        args = RegionInspectArgs.model_validate({"min": lo, "max": hi})
        volume = (hi["x"] - lo["x"] + 1) * (hi["y"] - lo["y"] + 1) * (hi["z"] - lo["z"] + 1)
        if volume <= 4096:
            break
        narrower = narrower_box(args)
        assert narrower["min"] == lo and all(lo[a] <= narrower["max"][a] <= hi[a] for a in "xyz")
        new_volume = 1
        for a in "xyz":
            new_volume *= narrower["max"][a] - lo[a] + 1
        assert new_volume < volume
        hi, steps = narrower["max"], steps + 1
    assert steps <= 3 * 9  # each axis halves at most log2(301) times


@settings(derandomize=True, max_examples=300, deadline=None)
@given(
    st.tuples(coordinate, coordinate, coordinate),
    st.tuples(*[st.integers(0, 300)] * 3),
    st.one_of(st.just(4096), st.integers(1, 5000)),
)
def test_a_box_fitted_to_a_limit_is_inside_itself_holds_at_most_the_limit_and_most_of_it(corner, size, limit):
    from mcb.mcp.tools.rpc_arguments import RegionInspectArgs
    from mcb.mcp.tools.rpc_results import narrower_box

    lo = dict(zip("xyz", corner))
    hi = {axis: lo[axis] + extent for axis, extent in zip("xyz", size)}
    fitted = narrower_box(RegionInspectArgs.model_validate({"min": lo, "max": hi}), limit)
    assert fitted["min"] == lo and all(lo[a] <= fitted["max"][a] <= hi[a] for a in "xyz")
    volume = original = 1
    for a in "xyz":
        volume *= fitted["max"][a] - lo[a] + 1
        original *= hi[a] - lo[a] + 1
    assert volume <= limit
    if original <= limit:
        assert fitted["max"] == hi  # a box that fits is left as it is
    assert volume * 2 > min(original, limit)
    if limit == 4096 and min(size) >= 15:
        assert volume == 4096


@settings(derandomize=True, max_examples=300, deadline=None)
@given(
    st.one_of(
        st.integers(-(2**40), 2**40),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
        st.text(max_size=5),
    )
)
def test_integers_are_never_coerced(value):
    """MCP-30, checked the way every call is (mcb.mcp.arguments: strict JSON, integral floats made integers)."""
    from mcb.mcp.actions import Refusal
    from mcb.mcp.arguments import parse_arguments
    from mcb.mcp.tools.rpc import RPC_ACTIONS

    action = next(action for action in RPC_ACTIONS if action.name == "material_search")
    integral = not isinstance(value, (bool, str)) and float(value).is_integer()
    try:
        parsed = parse_arguments(action, {"limit": value}, root=None).limit
    except Refusal as refusal:
        assert refusal.field == "limit" and not (integral and 1 <= value <= 32)
    else:
        assert integral and 1 <= value <= 32 and parsed == int(value) and type(parsed) is int


def test_scope_and_token_refusals_say_what_to_restart_with(live):
    from mcb.client import McbClient

    with McbClient(live.url, agent_token="x" * 64, player_id="console") as client:
        token = refuse("project_context", {}, DirectContext(client))
    assert token["code"] == "permission_denied" and "MCB_AGENT_TOKEN" in token["restart_with"]
    assert token["http_status"] == 403
    with McbClient(live.url, agent_token=live.agent_token, player_id=str(uuid.uuid4())) as client:
        owner = refuse("project_context", {}, DirectContext(client))
    assert owner["code"] == "permission_denied" and "MCB_PLAYER_ID" in owner["restart_with"]
    with McbClient(live.url, agent_token=live.agent_token, player_id="console", project_id="other") as client:
        project = refuse("project_context", {}, DirectContext(client))
    assert "MCB_PROJECT_ID" in project["restart_with"]
