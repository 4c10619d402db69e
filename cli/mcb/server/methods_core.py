"""Core RPC methods: context, inspect, prepare/apply, operations, undo and recovery (protocol §3.1-3.9, §3.15)."""

from __future__ import annotations

from collections import Counter

from mcb.server import recovery
from mcb.server.dispatch import context_field_providers, register_method
from mcb.server.errors import RpcError, invalid
from mcb.server.params import (
    check_bounds,
    loose_pos,
    now_ms,
    pos_order,
    pos_param,
    region_json,
    required_string,
)

MAX_INSPECT_BLOCKS = 4096
MAX_DEPENDENCIES = 512
CAPABILITIES = [
    "material_search",
    "material_describe",
    "region_inspect",
    "build_prepare",
    "build_apply",
    "operation_status",
    "operation_cancel",
    "operation_undo_prepare",
    "part_define",
    "part_get",
    "camera_list",
    "camera_capture",
    "asset_list",
    "schematic_export",
    "schematic_import_prepare",
    "terrain_preview",
    "terrain_prepare",
    "terrain_brush_prepare",
]
LIMITATIONS = [
    "One configured owner and project",
    "Loaded chunks only",
    "No automatic recipe merge",
    "Complete delta journal is not implemented",
    "Camera readiness is heuristic",
    "Schematic v2: entity and block-entity payloads rejected",
    "Later world simulation is not a journaled direct edit",
]
TERRAIN_SUMMARY = {
    "version": 1,
    "features": ["hill", "ridge", "plateau", "channel", "basin", "terrace"],
    "modes": ["sculpt", "fill", "cut"],
    "max_cached_recipes": 32,
    "fluid_placement": False,
    "brush_actions": ["raise", "lower", "flatten", "smooth"],
    "brush_max_scan_blocks": 4096,
}
CATALOG_PLACEHOLDER = {
    "version": "0" * 24,
    "materials": 0,
    "blocks": 0,
    "items": 0,
    "search_default_limit": 16,
    "search_max_limit": 32,
}
BLOCK_DATA = {
    "all_registered_block_states": True,
    "fluid_placement": True,
    "block_entity_snapshots": True,
    "raw_nbt_editing": False,
    "item_inventory_editing": False,
}


def project_context(ctx, params):
    state = ctx.state
    parts = state.parts.all()
    operations = state.engine.recent()
    result = {
        "schema_version": 1,
        "project_id": state.config.project_id,
        "world_id": state.world.world_id,
        "world_epoch": state.world.epoch,
        "region": state.world.region_json(),
        "max_plan_blocks": state.config.max_plan_blocks,
        "checked_expected_blocks": True,
        "parts": [p.summary() for p in parts[:64]],
        "parts_total": len(parts),
        "operations": [_operation_entry(state, op) for op in operations[:20]],
        "operations_total": len(operations),
        "truncated": len(parts) > 64 or len(operations) > 20,
        "terrain": dict(TERRAIN_SUMMARY),
        "material_catalog": dict(CATALOG_PLACEHOLDER),
        "recipe": {"version": 1, "operations": ["box", "line", "cylinder", "repeat"]},
        "capabilities": list(CAPABILITIES),
        "block_data": dict(BLOCK_DATA),
        "limitations": list(LIMITATIONS),
    }
    for key, provider in context_field_providers().items():
        result[key] = provider(state)
    return result


def _operation_entry(state, op) -> dict:
    return {
        "operation_id": op.id,
        "plan_id": op.plan_id,
        "status": op.status,
        "written": len(op.receipts),
        "total_changes": len(state.plans[op.plan_id].changes),
    }


def region_inspect(ctx, params):
    state = ctx.state
    low, high = pos_param(params, "min"), pos_param(params, "max")
    check_bounds(low, high)
    world = state.world
    if not (world.in_region(low) and world.in_region(high)):
        raise RpcError("out_of_bounds", "Read exceeds project area")
    volume = (high[0] - low[0] + 1) * (high[1] - low[1] + 1) * (high[2] - low[2] + 1)
    if volume > MAX_INSPECT_BLOCKS:
        raise RpcError("budget_exceeded", "Read at most 4096 blocks per request")
    detail = params.get("detail") == "blocks"
    snapshot_id = state.snapshots.snapshot_id
    palette: Counter = Counter()
    blocks = []
    for y in range(low[1], high[1] + 1):
        for z in range(low[2], high[2] + 1):
            for x in range(low[0], high[0] + 1):
                block = world.read((x, y, z))
                palette[block] += 1
                if detail:
                    entry = {"state": block}
                    snapshot = snapshot_id(block)
                    if snapshot is not None:
                        entry["snapshot_id"] = snapshot
                    entry["pos"] = {"x": x, "y": y, "z": z}
                    blocks.append(entry)
    return {
        "region": region_json(world.world_id, low, high),
        "palette": dict(sorted(palette.items())),
        "blocks": blocks,
        "sampled_at": now_ms(),
        "world_epoch": world.epoch,
        "truncated": False,
    }


def region_changes(ctx, params):
    return {
        "status": "resync_required",
        "reason": "Prototype uses fresh bounded reads; complete event delta journal is not implemented",
    }


def build_prepare(ctx, params):
    from mcb.recipes.compile import RecipeRejected, compile_geometry

    state = ctx.state
    recipe = params.get("recipe")
    if not isinstance(recipe, dict):
        raise invalid("Expected an object")
    try:
        compiled = compile_geometry(recipe, max_blocks=state.config.max_plan_blocks)
    except RecipeRejected as error:
        raise RpcError(error.code, error.message) from None
    dependencies = _dependencies(params.get("dependencies"))
    part_id = params.get("part_id")
    if part_id is not None:
        part_id = required_string(params, "part_id")
    with state.main_thread():  # steps 1-2 ran on the request thread, like the plugin's RPC thread
        summary = state.create_plan(
            "build",
            zip(compiled.positions, compiled.states),
            dependencies=dependencies,
            part_id=part_id,
            expected_blocks=params.get("expected_blocks"),
        )
        state.latch_journal()
    return summary


def _dependencies(raw) -> list:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise invalid("Integer coordinate required: dependencies")
    unique = list(dict.fromkeys(loose_pos(item) for item in raw))
    if len(unique) > MAX_DEPENDENCIES:
        raise RpcError("budget_exceeded", "At most 512 explicit dependencies supported")
    return sorted(unique, key=pos_order)


def build_apply(ctx, params):
    state = ctx.state
    plan_id = required_string(params, "plan_id")
    plan_hash = required_string(params, "plan_hash")
    key = required_string(params, "idempotency_key")
    if any(ord(ch) < 0x20 for ch in key):
        raise invalid("Invalid idempotencyKey")
    state.available()
    plan = state.plans.get(plan_id)
    if plan is None:
        raise invalid("Unknown plan")
    if plan.sha256 != plan_hash:
        raise RpcError("stale_snapshot", "Plan hash does not match")
    state.guard(plan, mode="apply")
    op = state.engine.start(plan, f"{state.config.project_id}\0{key}")
    return state.engine.view(op)


def operation_status(ctx, params):
    engine = ctx.state.engine
    return engine.view(engine.require(required_string(params, "operation_id")))


def operation_cancel(ctx, params):
    engine = ctx.state.engine
    op = engine.require(required_string(params, "operation_id"))
    engine.cancel(op)
    return engine.view(op)


def operation_undo_prepare(ctx, params):
    state = ctx.state
    operation_id = required_string(params, "operation_id")
    state.available()
    return recovery.prepare_undo(state, state.engine.require(operation_id))


def recovery_review(ctx, params):
    state = ctx.state
    return recovery.review(state, state.engine.require(required_string(params, "operation_id")))


def recovery_abandon(ctx, params):
    state = ctx.state
    operation_id = required_string(params, "operation_id")
    state.available()
    return recovery.abandon(state, state.engine.require(operation_id), params.get("expected_digest"))


def register_methods() -> None:
    for name, handler in [
        ("project_context", project_context),
        ("region_inspect", region_inspect),
        ("operation_status", operation_status),
        ("operation_cancel", operation_cancel),
    ]:
        register_method(name, handler)
    register_method("region_changes", region_changes, main_thread=False)  # a fixed answer after the scope check
    register_method("build_apply", build_apply, journal_latch=True)
    register_method("operation_undo_prepare", operation_undo_prepare, journal_latch=True)
    # compiles on the RPC thread, then hops itself
    register_method("build_prepare", build_prepare, main_thread=False, journal_latch=True)
    register_method("recovery_review", recovery_review, admin_only=True)
    register_method("recovery_abandon", recovery_abandon, admin_only=True, journal_latch=True)


__all__ = ["register_methods"]
