"""Failures toward the Minecraft server as refusals: the plugin-code remedy table and the transport mapping.

One place for both (mcp-conventions §2.4, §1.7):

- :data:`PLUGIN_REMEDIES` is the default remedy of every plugin error code (MCP-33). A call site that knows better
  (the argument named in a message, a narrowing ``retry_with``) adds to it; it never writes a second table.
- :func:`refusal_for` turns any :class:`mcb.errors.McbError` the RPC client raises into one
  :class:`~mcb.catalog.base.Refusal`. Plugin envelopes keep their code (refined from the message prefix the plugin
  folds into ``invalid_request``), with ``plugin_code`` and ``http_status``; transport failures become ``timeout``
  / ``unavailable`` with ``transport: {request_started, outcome_unknown, timed_out, reason, waited_ms}`` and a
  ``plugin`` liveness probe.

Repeats are the client's job, not this module's: the transport sends a read once more after a lost answer, and
``build_apply`` only ever again with the same idempotency key. Nothing here sends a request except the 2 s
``GET /health`` probe after a transport failure (MCP-53).

Core code: no typer, rich, click or mcp imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mcb.catalog.base import Refusal

# The machine remedy fields of a refusal's data (MCP-32), in the order a repeated refusal names one to follow.
REMEDY_FIELDS = ("retry_with", "field", "next_call", "restart_with", "retry_after_ms", "no_remedy")
# Methods that change nothing in the world (the transport repeats these once after a lost answer).
READ_ONLY = frozenset({
    "project_context", "material_search", "material_describe", "region_inspect", "operation_status", "part_get",
    "camera_list", "camera_capture", "asset_list", "terrain_preview",
})
# Mutators that land in the same state when sent again with the same arguments (the key makes a replay).
IDEMPOTENT_WRITES = frozenset({"build_apply", "operation_cancel"})
# The bridge's answer limits (MCP-57, protocol §8): larger answers are refused response_too_large unread.
BRIDGE_RESPONSE_BYTES = 2 * 1024 * 1024
BRIDGE_CAMERA_RESPONSE_BYTES = 12 * 1024 * 1024


def bridge_response_limit(method: str) -> int:
    return BRIDGE_CAMERA_RESPONSE_BYTES if method == "camera_capture" else BRIDGE_RESPONSE_BYTES


# Where a mutation that may or may not have happened shows up.
_LOOK_FOR = {"schematic_export": ("asset_list", "look for the new asset in the library"),
             "part_define": ("project_context", "look for the part under `parts` before defining it again")}
_DEFAULT_LOOK_FOR = ("project_context", "look for the plan or operation under `operations` before preparing again")


@dataclass(frozen=True)
class Remedy:
    """The default remedy of one refusal code: a sentence for people and the machine fields for agents."""

    text: str
    fields: dict[str, Any] = field(default_factory=dict)


def _next(tool: str, reason: str, arguments: dict | None = None) -> dict:
    call: dict[str, Any] = {"tool": tool, "reason": reason}
    if arguments:
        call["arguments"] = arguments
    return {"next_call": call}


def _none(reason: str) -> dict:
    return {"no_remedy": reason}


OWNER_RESTART = ("make sure the project owner is online with minecraftbuilder.use, and that MCB_PLAYER_ID is the "
                 "owner's UUID (or `console` with local automation); then restart mcb mcp")

# The §2.4 table. Codes whose remedy depends on the call (not_found, permission_denied, invalid_request, ...) have
# their general entry here and are refined in `_plugin_refusal`.
PLUGIN_REMEDIES: dict[str, Remedy] = {
    "busy": Remedy("the server is busy with a short journal step; send the same call again shortly",
                   {"retry_after_ms": 100}),
    "timeout": Remedy("the server's main thread took too long; reads can be sent again, writes only after checking "
                      "project_context", {}),
    "unavailable": Remedy("the Minecraft server did not answer; see `transport` and `plugin`", {}),
    "stale_snapshot": Remedy("the world changed since the plan was made; read it again and prepare again",
                             _next("region_inspect", "the world changed since the plan; read it, then prepare again")),
    "version_mismatch": Remedy("the project or world changed; read the project again, then prepare again",
                               _next("project_context", "the project or world changed; prepare again afterwards")),
    "out_of_bounds": Remedy("keep coordinates inside the project area (project_context shows its `region`)",
                            _next("project_context", "read the project `region` and stay inside it")),
    "not_found": Remedy("the id is not known to the server",
                        _next("project_context", "list the parts and operations that exist")),
    "capture_not_ready": Remedy("the operation is not applied yet; poll it until it is, then capture again",
                                _next("operation_status", "wait until the operation is applied")),
    "invalid_cursor": Remedy("the cursor is not valid for this search; start from the first page",
                             {"retry_with": {"cursor": ""}}),
    "stale_cursor": Remedy("the material catalog changed; restart the search from the first page",
                           {"retry_with": {"cursor": ""}}),
    "invalid_material": Remedy("use an exact material id such as minecraft:oak_planks",
                               _next("material_search", "find the exact material id")),
    "unsupported_block": Remedy("use a registered block state (block_check validates one offline)",
                                _next("block_check", "check the block state and its properties")),
    "budget_exceeded": Remedy("the request is larger than the server allows; split it into smaller calls",
                              _none("the request exceeds a fixed server budget; split it into smaller calls")),
    "context_limit": Remedy("the answer is larger than the result cap; ask for less",
                            _none("the answer is larger than the result cap")),
    "conflict": Remedy("the part overlaps an existing part; read the parts first",
                       _next("project_context", "see the existing parts")),
    "permission_denied": Remedy(OWNER_RESTART, {"restart_with": OWNER_RESTART}),
    "recovery_required": Remedy("an interrupted operation needs an administrator's recovery review in game or with "
                                "`mcb recovery review`; writes stay refused until then",
                                _none("admin recovery is not exposed over MCP")),
    "cancelled": Remedy("writes are paused in game (/ai stop); the owner must run /ai resume",
                        _none("writes are paused in game by /ai stop; only the owner can resume them")),
    "chunk_not_loaded": Remedy("the target chunks are not loaded; a player must visit them",
                               _none("chunks are loaded only by players in game")),
    "protected_terrain": Remedy("the tile holds a building or non-terrain block; pick another tile or area",
                                _none("terrain tiles never overwrite buildings")),
    "unsupported_entity": Remedy("the box holds entities; export a box without them",
                                 _none("schematic export keeps blocks only")),
    "unsupported_block_entity": Remedy("the box holds block entities; export a box without them",
                                       _none("schematic export cannot keep block-entity data")),
    "camera_unavailable": Remedy("no spectator camera is available; treat the build as visually unverified",
                                 _none("the camera account is not configured or not online: visually unverified")),
    "invalid_material_query": Remedy("shorten the query, use kind block|item|all and limit 1..32",
                                     _none("the search arguments are out of range")),
    "invalid_request": Remedy("the server refused the arguments; read its message", {}),
    "unsupported_method": Remedy("the server does not know this method",
                                 _none("this plugin build does not implement the method")),
    "material_properties_unavailable": Remedy("the server cannot describe this material's properties",
                                              _none("the plugin could not introspect the material")),
    "method_not_allowed": Remedy("the server URL does not point at the plugin's RPC endpoint",
                                 {"restart_with": "point MCB_SERVER at the plugin (http://127.0.0.1:8765)"}),
    "invalid_response": Remedy("the server's answer was not the plugin protocol",
                               {"restart_with": "point MCB_SERVER at the minecraft-builder plugin or `mcb serve`"}),
    "request_too_large": Remedy("the request is over 1 MiB; split the work into smaller calls",
                                _none("the plugin accepts requests of at most 1 MiB")),
    "response_too_large": Remedy("the server's answer was not read; ask for less",
                                 _none("the answer exceeds the bridge's response limit (2 MiB, 12 MiB for "
                                       "camera_capture)")),
    "invalid_image": Remedy("the server sent an image that cannot be decoded",
                            _none("the plugin's image data is broken")),
    "no_token": Remedy("set MCB_AGENT_TOKEN (or a 0600 token file) and restart mcb mcp",
                       {"restart_with": "set MCB_AGENT_TOKEN"}),
    "config": Remedy("the mcb configuration is broken; `mcb config show` names the problem",
                     {"restart_with": "fix the configuration shown by `mcb config show`"}),
    "capture_failed": Remedy("the camera could not take the picture; treat the build as visually unverified",
                             _none("the camera worker failed: visually unverified")),
}

# Codes a camera worker reports inside a successful capture (`status: "error"`); each becomes a refusal.
CAMERA_WORKER_CODES = (
    "capture_timeout", "disconnected", "spectator_required", "view_obstructed", "camera_moved", "spectating_entity",
    "view_changed", "framebuffer_size", "encoding_unavailable", "readback_failed", "encoding_failed",
    "image_too_large", "client_stopping",
)

# invalid_request messages that name the argument at fault (checked in order, prefix match).
_MESSAGE_FIELDS = (
    ("Unknown plan", "plan_id"),
    ("Unknown operation", "operation_id"),
    ("Invalid idempotencyKey", "idempotency_key"),
    ("Idempotency key belongs to another plan", "idempotency_key"),
    ("Part name too long", "name"),
    ("Asset name must contain", "name"),
    ("Invalid asset ID", "asset_id"),
    ("Asset not found", "asset_id"),
    ("Rotation must be", "rotation"),
    ("Unknown camera field", "pose"),
    ("Camera ", "pose"),
    ("Finite camera number", "pose"),
    ("Unknown capture", "capture_id"),
)
_FOLDED_PREFIXES = (("busy:", "busy"), ("recovery_required:", "recovery_required"),
                    ("snapshot_budget_exceeded:", "budget_exceeded"))
_TRAILING_KEY = re.compile(r":\s*([a-z_]+)\s*$")


_MACHINE_REMEDIES = frozenset({"next_call", "restart_with", "retry_after_ms", "no_remedy"})


def refusal_codes() -> dict[str, dict[str, str]]:
    """``{"remedied": {code: remedy}, "without_remedy": {code: reason}}`` for ``--dump-manifest`` (MCP-33)."""
    remedied: dict[str, str] = {}
    without: dict[str, str] = {}
    camera = {code: PLUGIN_REMEDIES["capture_failed"] for code in CAMERA_WORKER_CODES}
    for code, remedy in {**PLUGIN_REMEDIES, **camera}.items():
        if "no_remedy" in remedy.fields:
            without[code] = remedy.fields["no_remedy"]
        else:
            remedied[code] = remedy.text
    return {"remedied": remedied, "without_remedy": without}


def plugin_message(error) -> str:
    """The plugin's own message: the client prefixes ``"<method>: <code>: "``."""
    message = str(getattr(error, "message", "") or error)
    code = str(getattr(error, "code", "") or "")
    method = str((getattr(error, "details", None) or {}).get("method") or "")
    prefix = f"{method}: {code}: "
    return message[len(prefix):] if method and message.startswith(prefix) else message


def refusal_for(error: Exception, method: str, arguments: dict | None = None, *, server: str | None = None,
                waited_ms: int | None = None) -> Refusal:
    """The one refusal for an error met while calling ``method`` with ``arguments`` (already validated)."""
    from mcb.errors import AuthError, ConfigError, McbError, NetworkError

    arguments = dict(arguments or {})
    if isinstance(error, NetworkError) and getattr(error, "code", "network") != "wait_timeout":
        return transport_refusal(error, method, arguments, server=server, waited_ms=waited_ms)
    if not isinstance(error, McbError):
        raise error
    code = error.code or "invalid_request"
    details = error.details or {}
    if details.get("method"):  # the plugin's own error envelope (mcb.client.errors.error_from_envelope)
        return _plugin_refusal(details["method"], code, plugin_message(error), arguments)
    if isinstance(error, AuthError) and code == "no_token":
        return _refusal("no_token", "mcb mcp has no agent token for the Minecraft server", PLUGIN_REMEDIES["no_token"])
    if isinstance(error, ConfigError):  # the error's own hint (e.g. the near key) comes first
        remedy = PLUGIN_REMEDIES["config"]
        if error.hint:
            remedy = Remedy(f"{error.hint}; {remedy.text}", remedy.fields)
        return _refusal("config", error.message, remedy)
    remedy = PLUGIN_REMEDIES.get(code) or Remedy(error.hint or "see the message", _none(error.hint or error.message))
    return _refusal(code, error.message, remedy)


def default_refusal(code: str, message: str, *, extra: dict | None = None, field: str | None = None,
                    retry_with: dict | None = None) -> Refusal:
    """A refusal with the table's default remedy for ``code``; ``field``/``retry_with`` when the site knows them."""
    remedy = PLUGIN_REMEDIES.get(code)
    if remedy is None and code in CAMERA_WORKER_CODES:
        remedy = PLUGIN_REMEDIES["capture_failed"]
    if remedy is None:
        remedy = Remedy("see the message", _none(message))
    return _refusal(code, message, remedy, extra=extra, field_name=field, retry_with=retry_with)


def _refusal(code: str, message: str, remedy: Remedy, *, extra: dict | None = None, field_name: str | None = None,
             did_you_mean: dict[str, str] | None = None, retry_with: dict | None = None) -> Refusal:
    fields = {**remedy.fields, **(extra or {})}
    retry_with = retry_with if retry_with is not None else fields.pop("retry_with", None)
    fields.pop("retry_with", None)
    if field_name is None:
        field_name = fields.pop("field", None)
    if field_name is not None or retry_with:
        fields.pop("no_remedy", None)  # naming the argument at fault, or a narrowing retry, is a remedy
    elif not _MACHINE_REMEDIES & set(fields):
        fields["no_remedy"] = remedy.text  # MCP-32: every refusal carries one; a code nobody foresaw says why not
    return Refusal(code, message, remedy=remedy.text, field=field_name, did_you_mean=did_you_mean,
                   retry_with=retry_with, data=fields)


def _plugin_refusal(method: str, plugin_code: str, message: str, arguments: dict) -> Refusal:
    code = plugin_code
    if plugin_code == "invalid_request":
        code = next((refined for prefix, refined in _FOLDED_PREFIXES if message.startswith(prefix)), plugin_code)
    extra: dict[str, Any] = {"plugin_code": plugin_code,
                             "http_status": 403 if plugin_code == "permission_denied" else 400}
    remedy = PLUGIN_REMEDIES.get(code) or PLUGIN_REMEDIES["invalid_request"]
    field_name = None
    did_you_mean = None
    if code == "not_found":
        remedy = _not_found(method)
    elif code == "permission_denied" and message.startswith("Part is protected"):
        remedy = Remedy("the plan touches a protected part; leave that part out",
                        _none("parts are protected in game with /ai protect; no call can lift it"))
    elif code == "permission_denied" and message.startswith("Invalid capability token"):
        restart = "set MCB_AGENT_TOKEN to the plugin's agent-token (config.yml), then restart mcb mcp"
        remedy = Remedy("the server refused the agent token", {"restart_with": restart})
    elif code == "permission_denied" and message.startswith("Unknown project scope"):
        restart = "set MCB_PROJECT_ID to the plugin's project-id (or leave it unset), then restart mcb mcp"
        remedy = Remedy("the server does not know this project id", {"restart_with": restart})
    elif code == "permission_denied" and message.startswith("Unknown capture"):
        field_name = "capture_id"
        remedy = Remedy("the capture id is not one this server issued; start a new capture", {})
    elif code == "capture_not_ready" and arguments.get("after_operation_id"):
        remedy = Remedy(remedy.text, _next("operation_status", "wait until the operation is applied",
                                           {"operation_id": arguments["after_operation_id"]}))
    elif code == "busy" and plugin_code == "busy" and message.startswith("Part requires"):
        remedy = Remedy("the operation is not applied yet; poll it until it is, then define the part",
                        _next("operation_status", "wait until the operation is applied",
                              {"operation_id": arguments["operation_id"]} if arguments.get("operation_id") else None))
    elif code == "busy" and message.startswith("A capture is already in progress"):
        remedy = Remedy("a capture holds the camera for up to 45 s; poll it with its capture_id first",
                        {"retry_after_ms": 45_000})
    elif code in {"invalid_material", "unsupported_block"}:
        field_name = {"material_describe": "id"}.get(method, "recipe" if "recipe" in arguments else None)
        if method == "material_describe" and isinstance(arguments.get("id"), str):
            found = _block_suggestions(arguments["id"])
            did_you_mean = {arguments["id"]: found[0]} if found else None
    elif code == "timeout" and method not in READ_ONLY:
        extra["outcome_unknown"] = True
        remedy = _unknown_outcome_remedy(method, arguments)
    elif code == "timeout":
        extra["retry_after_ms"] = 1000
    elif code in {"invalid_request", "invalid_material_query", "budget_exceeded"}:
        field_name = _field_from_message(message, arguments)
        if field_name is None and code != "budget_exceeded":
            remedy = Remedy(remedy.text, _none(f"the server refused the call: {message}"))
    if plugin_code == "invalid_request" and message.startswith("Plan expired"):
        remedy = Remedy("plans live 10 minutes; prepare the plan again", _none("the plan expired; prepare it again"))
    return _refusal(code, message, remedy, extra=extra, field_name=field_name, did_you_mean=did_you_mean)


def _not_found(method: str) -> Remedy:
    if method == "terrain_prepare":
        return Remedy("the server no longer holds this terrain recipe; preview it again, then prepare the tile",
                      _next("terrain_preview", "call terrain_preview again with the saved recipe to cache it"))
    if method == "camera_capture":
        return Remedy("no saved camera has this id", _next("camera_list", "list the saved cameras"))
    return PLUGIN_REMEDIES["not_found"]


def _field_from_message(message: str, arguments: dict) -> str | None:
    for prefix, name in _MESSAGE_FIELDS:
        if message.startswith(prefix):
            return name
    match = _TRAILING_KEY.search(message)
    if match and match.group(1) in arguments:
        return match.group(1)
    return None


def _block_suggestions(material_id: str) -> list[str] | None:
    try:
        from mcb.blocks.registry import load_registry

        return load_registry().suggest(material_id) or None
    except Exception:  # suggestions are a courtesy; a registry problem must not hide the server's refusal
        return None


def _unknown_outcome_remedy(method: str, arguments: dict) -> Remedy:
    """MCP-54: a write that may have happened is never repeated, except the same call with the same key."""
    if method in IDEMPOTENT_WRITES:
        reason = "look for the operation under `operations` first"
        why = ("cancelling the same operation again ends it the same way" if method == "operation_cancel" else
               "the same idempotency_key makes it a replay, never a second operation")
        text = f"the outcome is unknown: send exactly the same call again ({why}), or look for it in project_context"
        return Remedy(text, {"retry_with": dict(arguments), **_next("project_context", reason)})
    tool, reason = _LOOK_FOR.get(method, _DEFAULT_LOOK_FOR)
    text = f"the outcome is unknown and this call is not idempotent: do not send it again blindly; {reason}"
    if method == "camera_capture":
        text = "the outcome is unknown; a started capture holds the camera for up to 45 s"
        return Remedy(text, {"retry_after_ms": 45_000})
    return Remedy(text, _next(tool, reason))


# -- transport failures (MCP-52..55) ---------------------------------------------------------------------------
_STARTED_FALSE = {"ConnectError", "ConnectTimeout", "PoolTimeout"}
_DEADLINE = {"ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout", "TimeoutException"}
_PEER_CLOSED = {"RemoteProtocolError", "ReadError", "WriteError", "CloseError"}
_TEXT_HINTS = (  # the client's wording (transport._describe) when no exception is chained
    ("connection refused", "ConnectError"), ("connection timed out", "ConnectTimeout"),
    ("no free connection", "PoolTimeout"), ("no answer before the timeout", "ReadTimeout"),
    ("timed out while sending", "WriteTimeout"), ("closed without a complete answer", "RemoteProtocolError"),
    ("dropped while reading", "ReadError"), ("dropped while sending", "WriteError"),
)


def transport_facts(error: Exception, method: str, waited_ms: int | None = None) -> dict[str, Any]:
    """``{request_started, outcome_unknown, timed_out, reason, waited_ms}`` for a failed HTTP exchange.

    The client's network error carries these as attributes; when it does not (older client), they are derived
    from the chained httpx exception or, last, from the client's message.
    """
    kind = _underlying_kind(error)
    started = getattr(error, "request_started", None)
    if started is None:
        started = kind not in _STARTED_FALSE
    reason = getattr(error, "reason", None)
    if reason not in {"peer_closed", "deadline", "io_error", "stopped"}:
        reason = "deadline" if kind in _DEADLINE else "peer_closed" if kind in _PEER_CLOSED else "io_error"
    timed_out = getattr(error, "timed_out", None)
    if timed_out is None:
        timed_out = reason == "deadline"
    outcome_unknown = getattr(error, "outcome_unknown", None)
    if outcome_unknown is None:
        outcome_unknown = bool(started)
    waited = getattr(error, "waited_ms", None)
    if not isinstance(waited, int):
        waited = waited_ms if waited_ms is not None else 0
    facts = {"request_started": bool(started), "outcome_unknown": bool(outcome_unknown),
             "timed_out": bool(timed_out), "reason": reason, "waited_ms": waited}
    repeated = getattr(error, "repeated", None)
    if repeated is None:  # an older client repeats every started read once (MCP-55), never camera_capture
        repeated = started and method in READ_ONLY and method != "camera_capture"
    if repeated:
        facts["repeated"] = True
    return facts


def _underlying_kind(error: BaseException) -> str:
    seen = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        inner = getattr(current, "error", None)  # the client's lost-response wrapper keeps the httpx error here
        for candidate in (current, inner):
            if candidate is not None and type(candidate).__module__.startswith("httpx"):
                return type(candidate).__name__
        current = current.__cause__ or current.__context__
    text = str(getattr(error, "message", "") or error).lower()
    return next((kind for needle, kind in _TEXT_HINTS if needle in text), "")


def probe_plugin(server: str | None) -> dict[str, str]:
    """MCP-53: ``GET /health`` with a 2 s budget → ``{plugin: alive|gone|unknown, plugin_reason}``."""
    if not server:
        return {"plugin": "unknown", "plugin_reason": "no server URL"}
    from mcb.client import McbClient
    from mcb.errors import McbError, NetworkError

    try:
        with McbClient(server, timeout=2.0) as probe:
            health = probe.health()
    except NetworkError as error:
        if _underlying_kind(error) == "ConnectError":
            return {"plugin": "gone", "plugin_reason": "connection refused"}
        return {"plugin": "unknown", "plugin_reason": _plain_reason(error)}
    except McbError as error:
        return {"plugin": "unknown", "plugin_reason": error.code}
    if health.status == "ready":
        return {"plugin": "alive", "plugin_reason": "GET /health answered ready"}
    return {"plugin": "unknown", "plugin_reason": f"GET /health answered status {health.status!r}"}


def _plain_reason(error: Exception) -> str:
    kind = _underlying_kind(error)
    return {"ConnectTimeout": "connect timed out", "ReadTimeout": "no answer within 2 s"}.get(kind, kind or "io_error")


def transport_refusal(error: Exception, method: str, arguments: dict, *, server: str | None = None,
                      waited_ms: int | None = None) -> Refusal:
    facts = transport_facts(error, method, waited_ms)
    code = "timeout" if facts["reason"] == "deadline" else "unavailable"
    plugin = probe_plugin(server)
    extra: dict[str, Any] = {"transport": facts, **plugin}
    if facts["outcome_unknown"] and method not in READ_ONLY:
        extra["outcome_unknown"] = True
        remedy = _unknown_outcome_remedy(method, arguments)
    elif method == "camera_capture" and facts["outcome_unknown"]:
        remedy = _unknown_outcome_remedy(method, arguments)
    elif plugin["plugin"] == "gone":
        restart = "start the Minecraft server (or `mcb serve`) at MCB_SERVER, then call again"
        remedy = Remedy("nothing is listening at the server address; " + restart, {"restart_with": restart})
    else:
        remedy = Remedy("nothing changed on the server; send the same call again in a moment",
                        {"retry_after_ms": 1000})
    what = "no answer in time" if code == "timeout" else "no complete answer"
    if not facts["request_started"]:
        what = "could not reach the server"
    message = f"{method}: {what} ({facts['reason']}); {plugin['plugin']} plugin"
    return _refusal(code, message, remedy, extra=extra)
