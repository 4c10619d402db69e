"""The extension contract of ``mcb serve``: how method modules plug into the local reference server.

A method module (``mcb.server.methods_peripheral``, ``mcb.server.terrain_rpc``, ...) is imported by
``mcb.server.dispatch.load_method_modules`` at start (an import error stops the start), which calls its
``register_methods()``::

    from mcb.server.api import RpcError, RequestContext, register_method, required_string

    def asset_list(ctx: RequestContext, params: dict) -> dict:
        state = ctx.state
        ...
        return {"assets": [...]}

    def register_methods() -> None:
        register_method("asset_list", asset_list)

Handlers
--------
``handler(ctx: RequestContext, params: dict) -> dict`` returns the ``result`` object (the HTTP layer wraps it in
``{"ok":true,"result":...}``) or raises ``RpcError(code, message)`` with the exact protocol code and message (HTTP 403
for ``permission_denied``, 400 otherwise; messages are cut at 600 characters). Any other exception becomes
``invalid_request`` with ``str(exc)`` (like the plugin's fallback), so raise ``RpcError`` for anything a client
should see. ``params`` still contains ``player_id``/``project_id``; ignore unknown keys.

``register_method(name, handler, *, admin_only=False, scoped=True, main_thread=True, admin_message=None,
journal_latch=False)``
- ``scoped``: the §1.6 scope check runs first, on the main thread (unknown project → ``permission_denied`` ...).
  chat_poll/chat_reply are registered with ``scoped=False``.
- ``admin_only``: non-admin → 403 ``permission_denied`` with ``admin_message``. Any ``chat_*`` name is refused for
  the agent token before dispatch ("Chat routing requires the administrator capability").
- ``main_thread``: the handler runs on the emulated Minecraft main thread, holding ``ctx.state.lock``: with
  ``--tick-ms N`` it waits for the next tick boundary (a hop; see :mod:`mcb.server.mainthread`), and waiting > 20 s
  gives ``timeout``. Keep it ``True`` for anything that reads or writes the world, plans, parts or operations. Pure
  lookups (material catalog) use ``False``; so does a handler that first does RPC-thread work (compiling, reading a
  file) and then hops itself with ``with ctx.state.main_thread():``.
- ``journal_latch``: the plugin's third hop for the calls that write the journal (build_prepare and the like); see
  :func:`mcb.server.dispatch.register_method`.

``register_context_field(key, provider)``: ``provider(state) -> value`` fills one ``project_context`` key (the
peripheral module supplies ``material_catalog`` this way; the core has a zero placeholder until it does).

``RequestContext``: ``state`` (ServerState), ``method``, ``is_admin``, ``player_id``, ``project_id``.

ServerState (``ctx.state``)
---------------------------
- ``config``: ``ServerConfig`` — ``project_id``, ``owner_uuid``, ``allow_local_automation``, ``max_plan_blocks``,
  ``slice_blocks``, ``data_version`` (default 4903), ``test_hooks``, ``world_min_y``/``world_max_y`` (inclusive),
  ``world_border``.
- ``data_dir``: ``pathlib.Path`` of the server's data directory (the schematic library is ``data_dir/"schematics"``).
- ``world``: ``World`` — ``world_id`` (UUID text), ``epoch`` (UUID text), ``region_min``/``region_max`` (inclusive
  ``(x, y, z)`` tuples of the project area), ``region_json()`` → ``{"worldId","min","max"}``,
  ``in_region(pos)``, ``read(pos) -> str`` (canonical state; raises ``out_of_bounds`` "Position exceeds world
  height"/"Position exceeds world border" or ``chunk_not_loaded`` "Visit/load the target chunks before editing"),
  ``peek(pos) -> str`` (no checks), ``is_loaded(pos)``, ``within_height(pos)``, ``natural(pos)`` (ground before any
  edit). Natural ground comes from ``mcb.server.world.natural_state(x, y, z) -> str`` (flat layers, grass at
  y=63) under the name ``"flat"``. A module offers another with
  ``mcb.server.world.register_ground(name, factory)`` (``factory(config) -> fn(x, y, z) -> state``; call it at
  import or in ``register_methods()``); a server uses it when started with ``mcb serve --ground NAME`` (saved in
  server.json; ``run_server(..., ground=NAME)``). ``fn`` must be deterministic and return canonical states.
  Handlers never write blocks directly: every world change goes through a plan and ``build_apply``.
- ``available()``: raises ``busy`` "A journal step is in progress; retry" or ``recovery_required`` "Journal
  unavailable". Call it first in every prepare-like method (the plugin does).
- ``canonicalize(text) -> str``: canonical full state via the block registry; raises ``unsupported_block``
  "Invalid registered block or block properties".
- ``create_plan(kind, changes, *, dependencies=(), part_id=None, expected_blocks=None, undo_of=None,
  check_available=True) -> dict``: the build_prepare pipeline from step 3 on (§3.6): ``available()``,
  canonicalize every desired state, part mask, project-region check ("Recipe exceeds project region"), the six
  neighbour reads, ``expected_blocks`` (§4.7, raw list from params), the write guard, before-value capture, then
  persists the plan and returns the exact summary ``{plan_id, plan_hash, changed_blocks, region, expires_at}``.
  ``changes`` is an iterable of ``((x, y, z), desired_state_text)``; later duplicates win. ``dependencies`` is an
  iterable of positions (dedupe and the 512 limit are the caller's job for build_prepare; pass what you have).
  ``kind`` is free text kept in the journal (``"build"``, ``"import"``, ``"terrain"``, ``"brush"``, ``"undo"``).
  Extra summary fields (terrain_id, tile_index, ...) are the caller's to add to the returned dict.
- ``operations``: ``state.engine.get(operation_id)`` → ``Operation`` or ``None``; ``state.engine.require(op_id)``
  raises ``invalid_request`` "Unknown operation"; ``op.status`` (lowercase), ``op.owned_positions()`` (positions
  of confirmed receipts, in write order), ``state.engine.view(op)`` → the §3.8 status shape.
- ``snapshots``: ``state.snapshots.snapshot_id(state_text)`` → 64-hex id or ``None`` (blocks with a block entity
  only), ``captured(state_text)`` → the §4.5 captured string (default entity data).
- ``parts``: ``state.parts`` (``PartStore``) — ``define(name, operation_id, positions) -> Part``, ``get(part_id)``,
  ``all()`` (definition order), ``protect(part_id)``; ``Part`` has ``id``, ``name``, ``operation_id``,
  ``positions`` (frozenset of tuples), ``protected``, ``summary()`` → ``{part_id,name,protected,block_count}``.
  Persisted in the SQLite journal.
- ``chat_queue``: ``ChatQueue`` (in memory, ``mcb.server.chatqueue``) — ``messages`` (queue order), ``leased``
  (ids), ``client_id``, ``last_poll_ms``, ``lock``, ``enqueue(...)``, ``drop_unleased()``. Filled by the hooks
  ``test_chat_enqueue`` (``/ai <text>``) and ``test_pause_writes`` (``/ai stop``: drops unleased messages, queues a
  ``cancel``); chat_poll/chat_reply (peripheral) consume it. Setting ``last_poll_ms`` arms the §1.7 chat-silence
  auto-cancel in the tick loop (only when local automation is off).
- ``pause_writes()`` (``/ai stop``), ``engine.cancel_all()``, ``writes_paused``.
- ``owner_online`` / ``writes_paused`` flags (test hooks flip them); ``lock`` (the main-thread RLock: holding it
  stalls the main thread, which tests use to pile requests up); ``main_thread()`` (one hop, a context manager).

Helpers re-exported here: ``required_string``, ``optional_string``, ``integer_param``, ``pos_param``,
``loose_pos``, ``loose_int``, ``blockpos_text``, ``pos_json``, ``region_json``, ``now_ms``, ``invalid``.

Test hooks (only with ``mcb serve --test-hooks``, admin token only, unscoped): see ``mcb.server.hooks``.
"""

from __future__ import annotations

from mcb.server.dispatch import RequestContext, register_context_field, register_method, registered_methods
from mcb.server.errors import RpcError, invalid
from mcb.server.params import (
    blockpos_text,
    integer_param,
    loose_int,
    loose_pos,
    now_ms,
    optional_string,
    pos_json,
    pos_param,
    region_json,
    required_string,
)

__all__ = [
    "RequestContext",
    "RpcError",
    "blockpos_text",
    "integer_param",
    "invalid",
    "loose_int",
    "loose_pos",
    "now_ms",
    "optional_string",
    "pos_json",
    "pos_param",
    "region_json",
    "register_context_field",
    "register_method",
    "registered_methods",
    "required_string",
]
