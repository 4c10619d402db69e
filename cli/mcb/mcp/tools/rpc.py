"""The 19 RPC tools of `mcb mcp`, named exactly after the plugin's methods, in its bridge's order.

Each tool is a thin adapter over the same :class:`mcb.client.McbClient` method the CLI calls: its arguments
(rpc_arguments.py) hold the bridge's rules, ``run`` sends them and presents the plugin's ``result`` untouched apart
from image extraction, ``follow_up`` and pagination fields (rpc_results.py). Every failure becomes a refusal
through :func:`mcb.mcp.refusals.refusal_for`, which reads the one refusal table both faces share.

Admin methods (``chat_*``, ``recovery_*``) and ``region_changes`` are not tools.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from mcb.errors import McbError
from mcb.mcp.actions import Action, Cancelled, Context, Hints, Outcome, Refusal
from mcb.mcp.refusals import default_refusal, refusal_for
from mcb.mcp.tools import described
from mcb.mcp.tools.rpc_arguments import (
    AssetListArgs,
    BuildApplyArgs,
    BuildPrepareArgs,
    CameraCaptureArgs,
    CameraListArgs,
    MaterialDescribeArgs,
    MaterialSearchArgs,
    OperationArgs,
    PartDefineArgs,
    PartGetArgs,
    ProjectContextArgs,
    RegionInspectArgs,
    SchematicExportArgs,
    SchematicImportPrepareArgs,
    TerrainBrushPrepareArgs,
    TerrainPrepareArgs,
    TerrainPreviewArgs,
    _Args,
)
from mcb.mcp.tools.rpc_results import (
    apply_follow_up,
    box_limit,
    box_too_big,
    image_outcome,
    json_size,
    narrowed,
    narrower_box,
    poll_failed,
    poll_follow_up,
    result_cap,
    wire_pos,
    with_follow_up,
)

log = logging.getLogger("mcb.mcp")


def _call(ctx: Context, method: str, args: _Args, send: Callable[[Any], Any]) -> Any:
    """Run ``send(client)``; every client error becomes the one refusal for it."""
    client = None
    try:
        client = ctx.client()
        try:
            return send(client)
        finally:
            repeats = getattr(getattr(client, "transport", None), "last_repeats", 0)
            if repeats and hasattr(ctx, "note_repeats"):
                ctx.note_repeats(repeats)
    except McbError as error:
        _stop_if_cancelled(ctx, method, error)
        raise refusal_for(error, method, args.arguments(), server=getattr(client, "server", None)) from None


def _stop_if_cancelled(ctx: Context, method: str, error: McbError) -> None:
    """MCP-47/48: a cancelled call ends here with no refusal, so nothing more goes out (not even the /health
    probe); an exchange cut short after its request left has an unknown outcome, said on stderr only."""
    try:
        ctx.check_cancelled()
    except Cancelled:
        if getattr(error, "request_started", False):
            log.warning(
                "%s cancelled after its request went out: stopped waiting (reason: stopped); the outcome is unknown",
                method,
            )
        raise


def _hints(read_only: bool, destructive: bool, idempotent: bool) -> Hints:
    return Hints(read_only=read_only, destructive=destructive, idempotent=idempotent, open_world=True)


READ = _hints(True, False, True)
PREPARE = _hints(False, False, False)  # only adds a plan (or a part, or an asset): never destructive


def run_project_context(args: ProjectContextArgs, ctx: Context) -> Outcome:
    return Outcome(_call(ctx, "project_context", args, lambda c: c.project_context().wire()))


def run_material_search(args: MaterialSearchArgs, ctx: Context) -> Outcome:
    page = _call(
        ctx,
        "material_search",
        args,
        lambda c: c.material_search(args.query, kind=args.kind, limit=args.limit, cursor=args.cursor or None).wire(),
    )
    results = page.get("results") or []
    next_cursor = page.pop("next_cursor", None)
    page.update({"returned": len(results), "has_more": bool(next_cursor), "total_results": page.get("total", 0)})
    if next_cursor:
        page["next_cursor"] = next_cursor
        page["hint"] = (
            "More results: call material_search again with the same query and kind and "
            "cursor=next_cursor until has_more is false."
        )
    return Outcome(page)


def run_material_describe(args: MaterialDescribeArgs, ctx: Context) -> Outcome:
    return Outcome(_call(ctx, "material_describe", args, lambda c: c.material_describe(args.id).wire()))


def run_region_inspect(args: RegionInspectArgs, ctx: Context) -> Outcome:
    try:
        data = _call(
            ctx,
            "region_inspect",
            args,
            lambda c: c.region_inspect(args.min.wire(), args.max.wire(), blocks=args.detail == "blocks").wire(),
        )
    except Refusal as refusal:
        if box_too_big(refusal):
            raise narrowed(refusal, narrower_box(args, box_limit(refusal))) from None
        if refusal.code == "budget_exceeded" and args.detail == "blocks":  # block-entity snapshots over 8 MiB
            raise narrowed(refusal, {"detail": "summary"}) from None
        raise
    lo, hi = args.min, args.max
    volume = (hi.x - lo.x + 1) * (hi.y - lo.y + 1) * (hi.z - lo.z + 1)
    blocks = data.get("blocks") or []
    data.update(
        {
            "returned": len(blocks) if args.detail == "blocks" else sum((data.get("palette") or {}).values()),
            "has_more": False,
            "total_blocks": volume,
        }
    )
    cap = result_cap(ctx)
    size = json_size(data) if cap else 0
    if cap and size > cap:
        narrower = {"detail": "summary"} if args.detail == "blocks" else narrower_box(args)
        raise default_refusal(
            "context_limit",
            f"region_inspect answer is {size:,} bytes, over the {cap:,}-byte result cap",
            retry_with=narrower,
            extra={"result_bytes": size, "cap_bytes": cap, "hint": "ask for the summary, or a smaller box"},
        )
    return Outcome(data)


def run_build_prepare(args: BuildPrepareArgs, ctx: Context) -> Outcome:
    raw = args.arguments()
    expected = None
    if args.expected_blocks is not None:
        expected = [b.model_dump(mode="json", exclude_none=True) for b in args.expected_blocks]
    plan = _call(
        ctx,
        "build_prepare",
        args,
        lambda c: c.build_prepare(
            raw["recipe"],
            dependencies=[p.wire() for p in args.dependencies or ()],
            part_id=args.part_id,
            expected_blocks=expected,
        ).wire(),
    )
    return Outcome(with_follow_up(plan, apply_follow_up(plan)))


def run_build_apply(args: BuildApplyArgs, ctx: Context) -> Outcome:
    started = _call(
        ctx, "build_apply", args, lambda c: c.build_apply(args.plan_id, args.plan_hash, args.idempotency_key)
    )
    status = started
    if args.wait and not started.terminal:
        status = _wait(args, ctx, started)
    data = status.wire()
    return Outcome(with_follow_up(data, poll_follow_up(data)))


def _wait(args: BuildApplyArgs, ctx: Context, started):
    """Poll with the CLI's own loop; progress per poll that advanced, a cancel stops the waiting only (MCP-48)."""
    from mcb.client.operations import follow_operation
    from mcb.waiting import WaitPolicy

    last = {"status": started, "done": None}

    def on_progress(status) -> None:
        last["status"] = status
        if last["done"] is None or status.processed > last["done"]:
            last["done"] = status.processed
            ctx.progress(
                status.processed,
                status.total_changes or None,
                f"{status.status}: {status.processed:,}/{status.total_changes:,} processed",
            )
        try:
            ctx.check_cancelled()
        except Exception:
            log.debug(
                "build_apply: stopped waiting for operation %s (it keeps running; operation_cancel ends it)",
                status.operation_id,
            )
            raise

    def send(client):
        try:
            # A cancelled call must stop soon: look at least every 0.2 s (the plugin's pace paces the rest).
            policy = WaitPolicy(timeout=args.wait_seconds, progress_every=0.2)
            return follow_operation(client, started.operation_id, policy, on_status=on_progress, first=started)
        except McbError as error:
            if error.code == "wait_timeout":  # not a failure: the operation runs on; say how to follow it
                return last["status"]
            raise

    try:
        return _call(ctx, "operation_status", OperationArgs(operation_id=started.operation_id), send)
    except Refusal as refusal:  # the apply itself succeeded: say so, and how to pick the operation up
        raise poll_failed(started.operation_id, refusal) from None


def run_operation_status(args: OperationArgs, ctx: Context) -> Outcome:
    data = _call(ctx, "operation_status", args, lambda c: c.operation_status(args.operation_id).wire())
    return Outcome(with_follow_up(data, poll_follow_up(data)))


def run_operation_cancel(args: OperationArgs, ctx: Context) -> Outcome:
    data = _call(ctx, "operation_cancel", args, lambda c: c.operation_cancel(args.operation_id).wire())
    return Outcome(with_follow_up(data, poll_follow_up(data)))


def run_operation_undo_prepare(args: OperationArgs, ctx: Context) -> Outcome:
    plan = _call(ctx, "operation_undo_prepare", args, lambda c: c.operation_undo_prepare(args.operation_id).wire())
    return Outcome(with_follow_up(plan, apply_follow_up(plan, "review the undo plan, then apply it")))


def run_part_define(args: PartDefineArgs, ctx: Context) -> Outcome:
    return Outcome(_call(ctx, "part_define", args, lambda c: c.part_define(args.name, args.operation_id).wire()))


def run_part_get(args: PartGetArgs, ctx: Context) -> Outcome:
    return Outcome(_call(ctx, "part_get", args, lambda c: c.part_get(args.part_id).wire()))


def run_camera_list(args: CameraListArgs, ctx: Context) -> Outcome:
    return Outcome(_call(ctx, "camera_list", args, lambda c: c.camera_list().wire()))


def run_camera_capture(args: CameraCaptureArgs, ctx: Context) -> Outcome:
    pose = args.pose.model_dump(exclude_none=True) if args.pose is not None else None
    data = _call(
        ctx,
        "camera_capture",
        args,
        lambda c: c.camera_capture(
            camera_id=args.camera_id, pose=pose, after_operation_id=args.after_operation_id, capture_id=args.capture_id
        ).wire(),
    )
    status = data.get("status")
    if status == "pending":
        if data.get("captureId"):
            data["follow_up"] = [
                {
                    "work": "poll",
                    "tool": "camera_capture",
                    "arguments": {"capture_id": data["captureId"]},
                    "reason": "the picture is being taken; poll until it is completed",
                }
            ]
        return Outcome(data)
    if status == "error":
        code = str(data.get("error") or "capture_failed")
        raise default_refusal(
            code,
            f"camera_capture: {data.get('message') or code}",
            extra={
                "capture_id": data.get("captureId"),
                "worker_error": code,
                "hint": "treat the build as visually unverified",
            },
        )
    return image_outcome("camera_capture", data, "camera capture")


def run_asset_list(args: AssetListArgs, ctx: Context) -> Outcome:
    data = _call(ctx, "asset_list", args, lambda c: c.asset_list(args.query or None).wire())
    assets = data.get("assets") or []
    data.update({"returned": len(assets), "has_more": False, "total_assets": len(assets)})
    return Outcome(data)


def run_schematic_export(args: SchematicExportArgs, ctx: Context) -> Outcome:
    try:
        return Outcome(
            _call(
                ctx,
                "schematic_export",
                args,
                lambda c: c.schematic_export(args.name, args.min.wire(), args.max.wire(), wire_pos(args.origin)).wire(),
            )
        )
    except Refusal as refusal:
        if box_too_big(refusal):
            raise narrowed(refusal, narrower_box(args, box_limit(refusal))) from None
        raise


def run_schematic_import_prepare(args: SchematicImportPrepareArgs, ctx: Context) -> Outcome:
    plan = _call(
        ctx,
        "schematic_import_prepare",
        args,
        lambda c: c.schematic_import_prepare(args.asset_id, args.target.wire(), args.rotation).wire(),
    )
    return Outcome(with_follow_up(plan, apply_follow_up(plan)))


def run_terrain_preview(args: TerrainPreviewArgs, ctx: Context) -> Outcome:
    raw = args.arguments()
    data = _call(
        ctx, "terrain_preview", args, lambda c: c.terrain_preview(raw["recipe"], resolution=args.resolution).wire()
    )
    return image_outcome("terrain_preview", data, "terrain height-map preview")


def run_terrain_prepare(args: TerrainPrepareArgs, ctx: Context) -> Outcome:
    plan = _call(ctx, "terrain_prepare", args, lambda c: c.terrain_prepare(args.terrain_id, args.tile_index).wire())
    return Outcome(with_follow_up(plan, apply_follow_up(plan, "review the tile plan, then apply it")))


def run_terrain_brush_prepare(args: TerrainBrushPrepareArgs, ctx: Context) -> Outcome:
    raw = args.arguments()
    data = _call(ctx, "terrain_brush_prepare", args, lambda c: c.terrain_brush_prepare(raw["brush"]).wire())
    follow = (
        apply_follow_up(data, "review the brush preview, then apply it") if data.get("plan_state") == "prepared" else []
    )
    return image_outcome("terrain_brush_prepare", with_follow_up(data, follow), "terrain brush preview")


# -- the catalog ---------------------------------------------------------------------------------------------------
def _action(name: str, title: str, details: str, model: type[_Args], hints: Hints, run) -> Action:
    return described(name, title, details, model, hints, run, "rpc")


RPC_ACTIONS: list[Action] = [
    _action(
        "project_context",
        "Project context",
        ("At most 64 parts and 20 operations (truncated says so). Call it first; region_inspect usually comes next."),
        ProjectContextArgs,
        READ,
        run_project_context,
    ),
    _action(
        "material_search",
        "Search materials",
        (
            "One page of at most 32 at a time (returned, has_more, total_results; follow next_cursor). "
            "material_describe gives a block's states."
        ),
        MaterialSearchArgs,
        READ,
        run_material_search,
    ),
    _action(
        "material_describe",
        "Describe material",
        ("Behaviour: gravity, fluid, waterloggable, ... Use the states in build_prepare recipes."),
        MaterialDescribeArgs,
        READ,
        run_material_describe,
    ),
    _action(
        "region_inspect",
        "Inspect region",
        (
            "detail summary gives the palette, blocks every state. Answers over the result cap are refused with a "
            "narrower retry_with. Prepare a build next."
        ),
        RegionInspectArgs,
        READ,
        run_region_inspect,
    ),
    _action(
        "build_prepare",
        "Prepare build",
        (
            "At most max_plan_blocks positions, inside the project area. Returns plan_id, plan_hash and "
            "changed_blocks; build_apply comes next."
        ),
        BuildPrepareArgs,
        PREPARE,
        run_build_prepare,
    ),
    _action(
        "build_apply",
        "Apply plan",
        (
            "So after a lost answer send exactly the same call again (plan_id, plan_hash, idempotency_key). With "
            "wait it reports progress until the operation ends (at most 25 s); otherwise poll operation_status."
        ),
        BuildApplyArgs,
        _hints(False, True, True),
        run_build_apply,
    ),
    _action(
        "operation_status",
        "Operation status",
        ("Poll until it is terminal; stop on conflicts."),
        OperationArgs,
        READ,
        run_operation_status,
    ),
    _action(
        "operation_cancel",
        "Cancel operation",
        (
            "operation_undo_prepare reverts the written blocks. Returns the current status; poll operation_status "
            "to see it end."
        ),
        OperationArgs,
        _hints(False, True, True),
        run_operation_cancel,
    ),
    _action(
        "operation_undo_prepare",
        "Prepare undo",
        ("build_apply applies it."),
        OperationArgs,
        PREPARE,
        run_operation_undo_prepare,
    ),
    _action(
        "part_get",
        "Get part",
        ("Its part_id comes from part_define or from project_context's parts."),
        PartGetArgs,
        READ,
        run_part_get,
    ),
    _action(
        "part_define",
        "Define part",
        (
            "At most 64 parts, no overlaps; a second call for the same blocks conflicts. Protection is switched on "
            "in game only."
        ),
        PartDefineArgs,
        PREPARE,
        run_part_define,
    ),
    _action(
        "camera_list",
        "List cameras",
        ("camera_capture takes a picture from one."),
        CameraListArgs,
        READ,
        run_camera_list,
    ),
    _action(
        "camera_capture",
        "Capture picture",
        (
            "Optionally once an operation is applied; or poll a pending capture with capture_id. A completed "
            "capture comes back as a PNG image; pending answers say how to poll. Each call moves the camera and "
            "holds it up to 45 s."
        ),
        CameraCaptureArgs,
        _hints(True, False, False),
        run_camera_capture,
    ),
    _action(
        "asset_list",
        "List schematics",
        ("At most 64 assets, optionally filtered by name. schematic_import_prepare places one."),
        AssetListArgs,
        READ,
        run_asset_list,
    ),
    _action(
        "schematic_export",
        "Export schematic",
        ("At most max_plan_blocks, no entities or block entities; every call adds a new asset."),
        SchematicExportArgs,
        PREPARE,
        run_schematic_export,
    ),
    _action(
        "schematic_import_prepare",
        "Prepare schematic import",
        (
            "target is the paste anchor, rotation the clockwise turn; air in the schematic clears blocks. "
            "build_apply applies it."
        ),
        SchematicImportPrepareArgs,
        PREPARE,
        run_schematic_import_prepare,
    ),
    _action(
        "terrain_preview",
        "Preview terrain",
        ("It only fills the server's recipe cache (32 recipes, lost on restart). terrain_prepare prepares one tile."),
        TerrainPreviewArgs,
        READ,
        run_terrain_preview,
    ),
    _action(
        "terrain_prepare",
        "Prepare terrain tile",
        ("One tile per call. An expired terrain_id is not_found: preview the recipe again. build_apply applies it."),
        TerrainPrepareArgs,
        PREPARE,
        run_terrain_prepare,
    ),
    _action(
        "terrain_brush_prepare",
        "Prepare terrain brush",
        (
            "The scan box holds at most 4096 cells; returns a preview image and, when something changes, a plan for"
            " build_apply."
        ),
        TerrainBrushPrepareArgs,
        PREPARE,
        run_terrain_brush_prepare,
    ),
]

__all__ = ["RPC_ACTIONS"]
