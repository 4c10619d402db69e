"""Peripheral RPC methods of ``mcb serve``: materials, parts, cameras, chat, and the schematic library.

Protocol §3.2–3.3 (materials), §3.10 (parts), §3.11 (cameras), §3.12 + §6 (schematics, in :mod:`mcb.server.assets`),
§3.14 (chat). Registered by :func:`register_methods`, which the server calls at start.

Test hooks added here (only with ``mcb serve --test-hooks``; admin token; no scope), standing in for in-game actions:

- ``test_camera_config {camera_player_uuid, online?}`` — set or clear ``camera-player-uuid`` for this run. Result
  ``{configured}``. A configured camera account is online in spectator mode unless ``online`` is false; its
  captures are drawn by :mod:`mcb.server.camera` from the local world.
- ``test_camera_save {name, x, y, z, yaw, pitch}`` — ``/ai camera save <name>`` (inside the area, at most 64).
  Result: the camera ``{camera_id, x, y, z, yaw, pitch}``.
- ``test_chat_delivered {}`` — what players saw in chat: ``{lines:[{playerId, text}]}`` (``[Builder] `` replies and
  the bridge-restart notice).
- ``test_spawn_entity {type, pos:{x,y,z}}`` — an entity in the world, so ``schematic_export`` can meet
  ``unsupported_entity`` (players are ignored, as in the plugin). Result: the entity.
"""

from __future__ import annotations

import math

from mcb.server.api import (
    RpcError,
    integer_param,
    invalid,
    now_ms,
    optional_string,
    register_context_field,
    register_method,
    required_string,
)
from mcb.server.catalog import CatalogError, utf16_length

MAX_PARTS = 64
MAX_PART_NAME = 64
CHAT_BATCH = 8
CHAT_REPLY_CHARS = 1600
POSE_KEYS = frozenset({"x", "y", "z", "yaw", "pitch", "fov", "width", "height"})
POSE_INT_RANGES = {"fov": (30, 110), "width": (320, 1920), "height": (180, 1080)}


# -- materials (§3.2, §3.3) --------------------------------------------------------------------------------------
def catalog_for(state):
    from mcb.server.catalog_data import build_catalog

    return build_catalog(state.registry.release)


def material_search(ctx, params):
    # Arguments are read in the plugin's order; type errors (invalid_request) come before catalog validation.
    query = _lenient_text(params, "query", "")
    kind = _lenient_text(params, "kind", "block")
    limit = integer_param(params, "limit", 16)
    cursor = _lenient_text(params, "cursor", "")
    try:
        return catalog_for(ctx.state).search(query, kind, limit, cursor or None)
    except CatalogError as error:
        raise RpcError(error.code, error.message) from None


def material_describe(ctx, params):
    material_id = required_string(params, "id")
    try:
        return catalog_for(ctx.state).describe(material_id)
    except CatalogError as error:
        raise RpcError(error.code, error.message) from None


def _lenient_text(params: dict, key: str, default: str) -> str:
    """Optional string that Gson would coerce from a scalar; null or absent means ``default``."""
    value = params.get(key)
    if value is None:
        return default
    if isinstance(value, (dict, list)):
        raise invalid(f"Expected a string: {key}")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return repr(value)
    return str(value)


# -- parts (§3.10) -----------------------------------------------------------------------------------------------
def part_define(ctx, params):
    state = ctx.state
    name = required_string(params, "name")
    operation_id = required_string(params, "operation_id")
    state.available()
    op = state.engine.require(operation_id)
    if op.status != "applied":
        raise RpcError("busy", "Part requires an applied operation")
    mask = frozenset(op.owned_positions())
    if not mask:
        raise invalid("Operation has no owned blocks")
    parts = state.parts.all()
    if len(parts) >= MAX_PARTS:
        raise RpcError("budget_exceeded", "At most 64 parts are supported")
    for part in parts:
        if not part.positions.isdisjoint(mask):
            raise RpcError("conflict", f"Part overlaps {part.name}")
    if utf16_length(name) > MAX_PART_NAME:
        raise invalid("Part name too long")
    try:
        part = state.parts.define(name, operation_id, mask)
    except RpcError:
        raise
    except Exception as error:  # the plugin reports a metadata.json IO failure as invalid_request
        raise invalid(f"Cannot save parts: {error}") from None
    return {"part_id": part.id, "name": part.name, "block_count": len(part.positions)}


def part_get(ctx, params):
    state = ctx.state
    part = state.parts.get(required_string(params, "part_id"))
    if part is None:
        raise RpcError("not_found", "Part not found")
    xs, ys, zs = zip(*part.positions)
    bounds = {
        "worldId": state.world.world_id,
        "min": {"x": min(xs), "y": min(ys), "z": min(zs)},
        "max": {"x": max(xs), "y": max(ys), "z": max(zs)},
    }
    return {
        "part_id": part.id,
        "name": part.name,
        "block_count": len(part.positions),
        "protected": part.protected,
        "operation_id": part.operation_id,
        "bounds": bounds,
    }


# -- cameras (§3.11) ---------------------------------------------------------------------------------------------
def _cameras(state) -> dict:
    """Saved cameras by id (in game: ``/ai camera save``; here the ``test_camera_save`` hook)."""
    cameras = getattr(state, "peripheral_cameras", None)
    if cameras is None:
        cameras = state.peripheral_cameras = {}
    return cameras


def _camera_configured(state) -> bool:
    return bool(str(getattr(state.config, "camera_player_uuid", "") or "").strip())


def camera_list(ctx, params):
    state = ctx.state
    return {"cameras": [dict(camera) for camera in _cameras(state).values()], "configured": _camera_configured(state)}


def _camera_worker(state):
    worker = getattr(state, "camera_worker", None)
    if worker is None:
        from mcb.server.camera import CameraWorker

        worker = state.camera_worker = CameraWorker(state.world)
    return worker


def camera_capture(ctx, params):
    state = ctx.state
    if params.get("capture_id") is not None and params.get("pose") is None:
        result = _camera_worker(state).poll(required_string(params, "capture_id"))
        if result is None:
            raise RpcError("permission_denied", "Unknown capture")
        return result
    if not _camera_configured(state):
        # Protocol §12.14: with no camera account every capture reports this, before looking at the pose.
        raise RpcError("camera_unavailable", "Configure a spectator camera account")
    if params.get("pose") is not None:
        pose = _validate_pose(state, params["pose"])
    else:
        camera = _cameras(state).get(required_string(params, "camera_id"))
        if camera is None:
            raise RpcError("not_found", "Camera not found")
        pose = dict(camera)
    after = optional_string(params, "after_operation_id")
    if after is not None:
        if state.engine.require(after).status != "applied":
            raise RpcError("capture_not_ready", "Operation not yet applied")
    if not getattr(state, "camera_online", True):
        raise RpcError("camera_unavailable", "Camera account is offline or not in spectator mode")
    worker = _camera_worker(state)
    if worker.busy():
        raise RpcError("busy", "A capture is already in progress; poll it before moving the camera")
    return worker.start(pose, "minecraft:overworld", after)


def _validate_pose(state, pose) -> dict:
    if not isinstance(pose, dict):
        raise invalid("Camera pose must be an object")
    pose = {key: value for key, value in pose.items() if key != "camera_id"}
    for key in pose:
        if key not in POSE_KEYS:
            raise invalid(f"Unknown camera field: {key}")
    numbers = {}
    for key in ("x", "y", "z", "yaw", "pitch"):
        value = pose.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise invalid(f"Finite camera number required: {key}")
        numbers[key] = float(value)
    if not -360 <= numbers["yaw"] <= 360:
        raise invalid("Camera yaw must be between -360 and 360")
    if not -90 <= numbers["pitch"] <= 90:
        raise invalid("Camera pitch must be between -90 and 90")
    sizes = {}
    for key, (low, high) in POSE_INT_RANGES.items():
        if pose.get(key) is not None:
            sizes[key] = integer_param(pose, key)  # loose: "70" and 70.0 are 70
            if not low <= sizes[key] <= high:
                raise invalid(f"Camera {key} must be between {low} and {high}")
    block = tuple(math.floor(numbers[axis]) for axis in "xyz")
    if not state.world.in_region(block):
        raise RpcError("out_of_bounds", "Camera exceeds project area")
    numbers.update(sizes)
    return numbers


def hook_camera_save(ctx, params):
    """Test hook standing in for ``/ai camera save <name>``: a camera at a pose inside the region."""
    state = ctx.state
    name = required_string(params, "name")
    if utf16_length(name) > 64:
        raise invalid("Camera name too long")
    pose = _validate_pose(state, {k: params.get(k) for k in ("x", "y", "z", "yaw", "pitch")})
    cameras = _cameras(state)
    if name not in cameras and len(cameras) >= 64:
        raise RpcError("budget_exceeded", "At most 64 cameras are supported")
    cameras[name] = {"camera_id": name, **pose}
    return dict(cameras[name])


def hook_camera_config(ctx, params):
    """Test hook: set (or clear) ``camera-player-uuid`` for this run."""
    value = params.get("camera_player_uuid") or ""
    if not isinstance(value, str):
        raise invalid("camera_player_uuid must be a string")
    online = params.get("online", True)
    if not isinstance(online, bool):
        raise invalid("online must be a boolean")
    ctx.state.config.camera_player_uuid = value
    ctx.state.camera_online = online
    return {"configured": _camera_configured(ctx.state)}


# -- chat (§3.14) ------------------------------------------------------------------------------------------------
def chat_poll(ctx, params):
    state = ctx.state
    client_id = required_string(params, "client_id")
    queue = state.chat_queue
    with queue.lock:
        leased_open = [m for m in queue.messages if m["id"] in queue.leased]
        takeover = queue.client_id is not None and queue.client_id != client_id and bool(leased_open)
        if takeover:  # a different bridge took over while work was in flight: drop that work
            queue.messages = [m for m in queue.messages if m["id"] not in queue.leased]
            queue.leased.clear()
            _delivered(state).extend(
                {"playerId": m["playerId"], "text": "Bridge restarted; send your request again"} for m in leased_open
            )
        queue.client_id = client_id
        queue.last_poll_ms = now_ms()
        batch = [m for m in queue.messages if m["id"] not in queue.leased][:CHAT_BATCH]
        queue.leased.update(m["id"] for m in batch)
    if takeover:  # ... and pause writes, cancel operations (the server lock after the queue's, never inside it)
        with state.lock:
            state.writes_paused = True
            state.engine.cancel_all()
    return {"messages": [dict(m) for m in batch]}


def chat_reply(ctx, params):
    state = ctx.state
    message_id = required_string(params, "id")
    player_id = required_string(params, "playerId")
    queue = state.chat_queue
    with queue.lock:
        message = next((m for m in queue.messages if m["id"] == message_id and m["id"] in queue.leased), None)
        if message is None or message["playerId"] != player_id:
            raise RpcError("permission_denied", "Unknown or mismatched chat request")
        text = _lenient_text(params, "text", "")
        delivered = bool(state.owner_online)  # the only player this emulator knows is the owner
        if delivered and text.strip():
            _delivered(state).append({"playerId": player_id, "text": "[Builder] " + text[:CHAT_REPLY_CHARS]})
        if params.get("done") is True or params.get("done") == "true":
            queue.messages = [m for m in queue.messages if m["id"] != message_id]
            queue.leased.discard(message_id)
        return {"delivered": delivered}


def _delivered(state) -> list:
    lines = getattr(state, "peripheral_chat_delivered", None)
    if lines is None:
        lines = state.peripheral_chat_delivered = []
    return lines


def hook_chat_delivered(ctx, params):
    """Test hook: what players saw in chat (replies and bridge notices), oldest first."""
    return {"lines": list(_delivered(ctx.state))}


# -- registration ------------------------------------------------------------------------------------------------
def register_methods() -> None:
    from mcb.server import assets

    register_method("material_search", material_search, main_thread=False)
    register_method("material_describe", material_describe, main_thread=False)
    for name, handler in [
        ("part_define", part_define),
        ("part_get", part_get),
        ("camera_list", camera_list),
        ("camera_capture", camera_capture),
    ]:
        register_method(name, handler)
    # File work runs off the emulated main thread, as in the plugin; these hop to it for the world parts.
    register_method("asset_list", assets.asset_list, main_thread=False)
    register_method("schematic_export", assets.schematic_export, main_thread=False)
    register_method("schematic_import_prepare", assets.schematic_import_prepare, main_thread=False, journal_latch=True)
    # the chat queue is the bridge's, not the world's: no hop (its own lock; a takeover takes the server lock)
    register_method("chat_poll", chat_poll, admin_only=True, scoped=False, main_thread=False)
    register_method("chat_reply", chat_reply, admin_only=True, scoped=False, main_thread=False)
    hook_message = "Test hooks require the administrator capability"
    for name, handler in [
        ("test_camera_save", hook_camera_save),
        ("test_camera_config", hook_camera_config),
        ("test_chat_delivered", hook_chat_delivered),
        ("test_spawn_entity", assets.hook_spawn_entity),
    ]:
        register_method(name, handler, admin_only=True, scoped=False, admin_message=hook_message)
    register_context_field("material_catalog", lambda state: catalog_for(state).summary())
