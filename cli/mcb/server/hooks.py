"""Test hooks (``mcb serve --test-hooks`` only; admin token only; no scope): the in-game actions the plugin gets
from players and ``/ai`` commands, so clients can test conflicts, undo ownership, pauses and chat.

- ``test_set_blocks {blocks:[{pos, state}]}`` — a player places/breaks blocks: the world changes durably and every
  position we had written gets last writer ``external`` (in memory only, like the plugin), revoking undo ownership.
  Result ``{changed:int}``.
- ``test_set_owner_online {online:bool}`` — owner joins/leaves. Result ``{online}``.
- ``test_pause_writes {paused:bool}`` — ``/ai stop`` (pause, cancel every non-terminal operation, drop unleased chat,
  queue a cancel message) or ``/ai resume``. Result ``{paused}``.
- ``test_chat_enqueue {text, type?:"prompt"|"cancel", player_position?, look_target?}`` — ``/ai <text>``; also clears
  a pause, as a prompt does in game. Result: the queued message.
- ``test_protect_part {part_id}`` — ``/ai protect``. Result: the part summary.
- ``test_set_chunk_loaded {chunk:{x,z}, loaded:bool}`` — load/unload one chunk. Result ``{loaded}``.
- ``test_set_area {min, max}`` — ``/ai area`` (refused with ``busy`` while an operation runs). Result: the Region.
- ``test_new_world_epoch {}`` — a new ``world-epoch`` (as after a world reset); older plans then fail the guard
  with ``version_mismatch``. Result ``{world_epoch}``.
- ``test_hold_apply {held:bool, steps?:int}`` — not an in-game action: while held, the apply tick task does nothing
  (an operation stays where it is, as on a stalled server), except ``steps`` more steps (default 0), one per tick.
  Reads and other hops go on at the tick's pace. Lets a test act between two engine steps without racing the tick.
  Result ``{held, steps}``.
"""

from __future__ import annotations

from mcb.server.dispatch import register_method
from mcb.server.errors import RpcError, invalid
from mcb.server.params import check_bounds, loose_int, loose_pos, pos_param


def set_blocks(ctx, params):
    state = ctx.state
    entries = params.get("blocks")
    if not isinstance(entries, list) or not entries:
        raise invalid("blocks must be a non-empty array of {pos, state}")
    changes = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise invalid("blocks must be a non-empty array of {pos, state}")
        pos = loose_pos(entry.get("pos"))
        state.world.check_ready(pos)
        changes.append((pos, state.canonicalize(entry.get("state"))))
    state.wait_until_idle()
    for pos, block in changes:
        state.world.set(pos, block)
        if pos in state.engine.last_writers:
            state.engine.last_writers[pos] = ("external", state.engine.revision)
    state.journal.persist(blocks=changes)
    return {"changed": len(changes)}


def set_owner_online(ctx, params):
    ctx.state.owner_online = _flag(params, "online")
    return {"online": ctx.state.owner_online}


def pause_writes(ctx, params):
    state = ctx.state
    if _flag(params, "paused"):
        state.pause_writes()
    else:
        state.writes_paused = False
    return {"paused": state.writes_paused}


def chat_enqueue(ctx, params):
    state = ctx.state
    kind = params.get("type", "prompt")
    text = params.get("text", "")
    if not isinstance(text, str):
        raise invalid("text must be a string")
    try:
        message = state.chat_queue.enqueue(
            player_id=state.config.owner_uuid,
            project_id=state.config.project_id,
            world_id=state.world.world_id,
            text=text,
            kind=kind,
            player_position=params.get("player_position"),
            look_target=params.get("look_target"),
        )
    except ValueError as error:
        raise invalid(str(error)) from None
    if kind == "prompt":
        state.writes_paused = False
    return dict(message)


def protect_part(ctx, params):
    part = ctx.state.parts.protect(str(params.get("part_id")))
    if part is None:
        raise RpcError("not_found", "Part not found")
    return part.summary()


def set_chunk_loaded(ctx, params):
    chunk = params.get("chunk")
    if not isinstance(chunk, dict):
        raise invalid("chunk {x,z} required")
    loaded = _flag(params, "loaded")
    message = "Integer chunk coordinate required"
    ctx.state.world.set_chunk_loaded(loose_int(chunk.get("x"), message), loose_int(chunk.get("z"), message), loaded)
    return {"loaded": loaded}


def set_area(ctx, params):
    low, high = pos_param(params, "min"), pos_param(params, "max")
    check_bounds(low, high)
    ctx.state.set_area(low, high)
    return ctx.state.world.region_json()


def new_world_epoch(ctx, params):
    import uuid

    from mcb.server.config import save_config

    state = ctx.state
    state.config.world_epoch = str(uuid.uuid4())
    state.world.epoch = state.config.world_epoch
    save_config(state.data_dir, state.config)
    return {"world_epoch": state.world.epoch}


def hold_apply(ctx, params):
    state = ctx.state
    state.apply_held = _flag(params, "held")
    steps = loose_int(params.get("steps", 0), "steps must be an integer")
    if steps < 0:
        raise invalid("steps must be 0 or more")
    state.apply_steps = steps
    return {"held": state.apply_held, "steps": state.apply_steps}


def _flag(params, key) -> bool:
    value = params.get(key)
    if not isinstance(value, bool):
        raise invalid(f"{key} must be true or false")
    return value


def register_methods() -> None:
    for name, handler in [
        ("test_set_blocks", set_blocks),
        ("test_set_owner_online", set_owner_online),
        ("test_pause_writes", pause_writes),
        ("test_chat_enqueue", chat_enqueue),
        ("test_protect_part", protect_part),
        ("test_set_chunk_loaded", set_chunk_loaded),
        ("test_set_area", set_area),
        ("test_new_world_epoch", new_world_epoch),
        ("test_hold_apply", hold_apply),
    ]:
        register_method(
            name,
            handler,
            admin_only=True,
            scoped=False,
            admin_message="Test hooks require the administrator capability",
        )
