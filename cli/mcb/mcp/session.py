"""One MCP session on stdio: eras and initialize (MCP-9..18), methods, tools/call and its pipeline (MCP-19..51).

The reader thread decodes lines and calls :meth:`Session.handle`; tool calls run on worker threads (mutating tools
one at a time in arrival order, read-only tools beside them, at most 4 at once), so pings, lists and reads are
answered while long calls run. Every outgoing line goes through :meth:`Session.send` under one lock.
"""

from __future__ import annotations

import difflib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from mcb.mcp import framing, manifest
from mcb.mcp.actions import Action, Refusal
from mcb.mcp.calls import Calls, SessionSteps
from mcb.mcp.framing import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    RESOURCE_NOT_FOUND,
    UNSUPPORTED_VERSION,
    ProtocolError,
    error_response,
)

if TYPE_CHECKING:
    from mcb.mcp.extensions import Catalog

log = logging.getLogger("mcb.mcp")

MODERN_VERSIONS = ("2026-07-28",)
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST_LEGACY = "2025-11-25"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
CAPABILITIES = {"tools": {"listChanged": False}, "resources": {"subscribe": False, "listChanged": False}}
HOUR_MS = 3_600_000
NOT_EXPOSED_PREFIXES = ("chat_", "recovery_")
NOT_EXPOSED = frozenset({"region_changes"})
# Methods that need a reply; sent as notifications they are not run (MCP-6).
REQUEST_METHODS = frozenset(
    {
        "initialize",
        "ping",
        "server/discover",
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/read",
        "resources/templates/list",
    }
)


@dataclass
class Options:
    read_only: bool = False
    offline: bool = False
    root: Path | None = None  # None: any path is allowed
    max_result_bytes: int = 64 * 1024
    version: str = ""


@dataclass
class _Served:
    """The catalog as this session serves it (profile applied, tool_batch bound to the session)."""

    catalog: Catalog
    visible: list[Action]
    visible_names: dict[str, Action]
    all_names: dict[str, Action]
    tools_list: list[dict]


class Session:
    """``catalog`` is a Catalog or a function building one; a function is called on the first request that needs
    the tools (initialize, ping and server/discover do not, so the handshake never waits for 30 models)."""

    def __init__(
        self, catalog: Catalog | Callable[[], Catalog], options: Options, out: BinaryIO, make_client: Callable[[], Any]
    ) -> None:
        self._catalog_source = catalog
        self._served_catalog: _Served | None = None
        self._catalog_lock = threading.Lock()
        self.options = options
        self._out = out
        self.make_client = make_client
        self._write_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self.era: str | None = None
        self.initialized = False
        self.calls = Calls(self)

    @property
    def served(self) -> _Served:
        with self._catalog_lock:
            if self._served_catalog is None:
                source = self._catalog_source
                catalog = source() if callable(source) else source
                visible = [self._served(action) for action in catalog.actions if self._profile_allows(action)]
                self._served_catalog = _Served(
                    catalog,
                    visible,
                    {action.name: action for action in visible},
                    catalog.by_name(),
                    manifest.tools(visible),
                )
            return self._served_catalog

    @property
    def catalog(self) -> Catalog:
        return self.served.catalog

    @property
    def tools_list(self) -> list[dict]:
        return self.served.tools_list

    # -- output ----------------------------------------------------------------------------------------------
    def send(self, message: dict) -> None:
        line = framing.encode(message)
        with self._write_lock:
            try:
                self._out.write(line)
                self._out.flush()
            except (BrokenPipeError, ValueError, OSError):
                log.debug("stdout is closed; a message was dropped")

    def reply(self, request_id: Any, result: dict) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "result": result})

    def _error(self, request_id: Any, code: int, message: str, data: Any = None) -> None:
        self.send(error_response(request_id, code, message, data))

    def close(self) -> None:
        """Start no new work; wait for running calls so their replies are written (MCP-50)."""
        self.calls.close()

    # -- dispatch --------------------------------------------------------------------------------------------
    def handle(self, message: dict) -> None:
        method = message["method"]
        params = message.get("params")
        if "id" not in message:
            self._notification(method, params)
            return
        request_id = message["id"]
        try:
            handler = self._handlers().get(method)
            if handler is None:
                raise ProtocolError(METHOD_NOT_FOUND, f"method {method!r} is not served")
            if isinstance(params, list):
                raise ProtocolError(INVALID_PARAMS, "params must be an object")
            params = params or {}
            modern = self._check_era(method, params)
            result = handler(request_id, params, modern)
        except ProtocolError as error:
            self._error(request_id, error.code, error.message, error.data)
            return
        except Exception as error:  # a bug in mcb: the session goes on
            log.exception("handling %s failed", method)
            self._error(request_id, INTERNAL_ERROR, f"internal error ({type(error).__name__})")
            return
        if result is not None:
            self.reply(request_id, result)

    def _handlers(self) -> dict[str, Callable[[Any, dict, bool], dict | None]]:
        return {
            "initialize": self._initialize,
            "ping": self._ping,
            "server/discover": self._discover,
            "tools/list": self._tools_list_method,
            "tools/call": self._tools_call,
            "resources/list": self._resources_list,
            "resources/templates/list": self._templates_list,
            "resources/read": self._resources_read,
        }

    def _notification(self, method: str, params: Any) -> None:
        if method == "notifications/cancelled" and isinstance(params, dict):
            self.calls.cancel(params.get("requestId"))
        elif method in REQUEST_METHODS:
            log.warning("%s was sent as a notification (no id): not run", method)

    def _check_era(self, method: str, params: dict) -> bool:
        """True when the request is served in the modern era; fixes the era on its first message (MCP-9)."""
        meta = params.get("_meta")
        enveloped = isinstance(meta, dict) and VERSION_KEY in meta
        if enveloped and self.era == "legacy" and meta[VERSION_KEY] in LEGACY_VERSIONS:
            enveloped = False  # the handshake's own revision named per request: any other _meta is the client's
        if method == "initialize":
            if self.era == "modern":
                raise ProtocolError(
                    INVALID_REQUEST,
                    "this session serves protocol 2026-07-28, which has no initialize handshake",
                    {"era": "modern"},
                )
            return False
        if method in ("ping", "server/discover") and not enveloped:
            return self.era == "modern"
        if enveloped:
            if self.era == "legacy" and method not in ("ping", "server/discover"):  # these two fix no era
                raise ProtocolError(
                    INVALID_REQUEST,
                    "this session was opened with initialize (legacy era); "
                    "requests carrying the 2026-07-28 envelope are refused",
                    {"era": "legacy"},
                )
            missing = [key for key in (VERSION_KEY, CAPABILITIES_KEY) if key not in meta]
            if missing:
                raise ProtocolError(INVALID_PARAMS, "_meta lacks " + ", ".join(missing), {"missing": missing})
            version = meta[VERSION_KEY]
            if version not in MODERN_VERSIONS:
                raise ProtocolError(
                    UNSUPPORTED_VERSION,
                    f"protocol version {version!r} is not served",
                    {"supported": list(MODERN_VERSIONS), "requested": version},
                )
            if method not in ("ping", "server/discover"):
                with self._state_lock:
                    self.era = "modern"
            return True
        if self.era is None:
            raise ProtocolError(
                INVALID_PARAMS,
                "send initialize first, or carry the 2026-07-28 envelope in _meta",
                {"missing": [VERSION_KEY, CAPABILITIES_KEY], "supported": [*MODERN_VERSIONS, *LEGACY_VERSIONS]},
            )
        if self.era == "modern":
            raise ProtocolError(
                INVALID_PARAMS,
                f"a 2026-07-28 request must carry _meta {VERSION_KEY} and {CAPABILITIES_KEY}",
                {"missing": [VERSION_KEY, CAPABILITIES_KEY]},
            )
        return False

    def stamp(self, result: dict, modern: bool, cache: tuple[int, str] | None = None) -> dict:
        if modern:
            result["resultType"] = "complete"
            result.setdefault("_meta", {})[SERVER_INFO_KEY] = self.server_info()
            if cache is not None:
                result["ttlMs"], result["cacheScope"] = cache
        return result

    def server_info(self) -> dict:
        return {"name": "mcb", "version": self.options.version}

    # -- initialization ----------------------------------------------------------------------------------------
    def _initialize(self, request_id: Any, params: dict, modern: bool) -> dict:
        requested = params.get("protocolVersion")
        with self._state_lock:
            if self.initialized:
                raise ProtocolError(INVALID_REQUEST, "already initialized", {"initialized": True})
            if not isinstance(requested, str):
                raise ProtocolError(
                    INVALID_PARAMS,
                    "initialize needs protocolVersion as a string",
                    {"supported": list(LEGACY_VERSIONS), "requested": requested},
                )
            self.era, self.initialized = "legacy", True
        version = requested if requested in LEGACY_VERSIONS else LATEST_LEGACY
        return {
            "protocolVersion": version,
            "capabilities": CAPABILITIES,
            "serverInfo": self.server_info(),
            "instructions": manifest.INSTRUCTIONS,
        }

    def _ping(self, request_id: Any, params: dict, modern: bool) -> dict:
        return {"resultType": "complete"} if modern else {}

    def _discover(self, request_id: Any, params: dict, modern: bool) -> dict:
        return self.stamp(
            {
                "supportedVersions": [*MODERN_VERSIONS, *LEGACY_VERSIONS],
                "capabilities": CAPABILITIES,
                "serverInfo": self.server_info(),
                "instructions": manifest.INSTRUCTIONS,
            },
            True,
            (HOUR_MS, "public"),
        )

    # -- tools -------------------------------------------------------------------------------------------------
    def _served(self, action: Action) -> Action:
        """tool_batch is rebuilt over this session, so its steps meet this session's profile and root."""
        if action.name != "tool_batch":
            return action
        from mcb.mcp.tools.batch import make_batch_action

        return make_batch_action(SessionSteps(self))

    def _profile_allows(self, action: Action) -> bool:
        if self.options.read_only and not action.hints.read_only:
            return False
        return not (self.options.offline and action.group == "rpc")

    def _tools_list_method(self, request_id: Any, params: dict, modern: bool) -> dict:
        if "cursor" in params:
            raise ProtocolError(INVALID_PARAMS, "tools/list answers in one page; send no cursor")
        return self.stamp({"tools": self.tools_list}, modern, (HOUR_MS, "private"))

    def resolve_tool(self, name: Any) -> Action:
        """The visible action called ``name``, or the -32602 the call deserves (MCP-27, MCP-28, MCP-67)."""
        if not isinstance(name, str):
            raise ProtocolError(INVALID_PARAMS, "tools/call needs name as a string")
        served = self.served
        action = served.visible_names.get(name)
        if action is not None:
            return action
        if name in served.all_names:
            profile = (
                "read-only" if self.options.read_only and not served.all_names[name].hints.read_only else "offline"
            )
            raise ProtocolError(
                INVALID_PARAMS,
                f"tool {name!r} is hidden by the {profile} profile",
                {"name": name, "profile": profile, "restart_with": f"restart mcb mcp without --{profile}"},
            )
        if name.startswith(NOT_EXPOSED_PREFIXES) or name in NOT_EXPOSED:
            raise ProtocolError(
                INVALID_PARAMS,
                f"{name!r} is not exposed over MCP",
                {"name": name, "no_remedy": "admin and change-feed methods stay in the CLI and the game"},
            )
        extension = self.catalog.extension_for(name)
        if extension is not None:
            data: dict[str, Any] = {"name": name, "extension": extension.name, "extension_status": extension.status}
            if extension.error:
                data["error"] = extension.error
            else:
                data["restart_with"] = f"restart mcb mcp without --disable-extension {extension.name}"
            raise ProtocolError(
                INVALID_PARAMS,
                f"tool {name!r} belongs to extension {extension.name}, which is {extension.status}",
                data,
            )
        data = {"name": name}
        # A served tool first; else one this profile hides (its call then says how to get it). MCP-28: data names
        # the tool given, so the suggestion is the one name (checklist 27), not MCP-29's {given: suggestion}.
        match = difflib.get_close_matches(
            name, list(served.visible_names), n=1, cutoff=0.6
        ) or difflib.get_close_matches(name, list(served.all_names), n=1, cutoff=0.6)
        if match:
            data["did_you_mean"] = match[0]
        raise ProtocolError(
            INVALID_PARAMS, f"unknown tool {name!r}" + (f"; did you mean {match[0]!r}?" if match else ""), data
        )

    def _tools_call(self, request_id: Any, params: dict, modern: bool) -> None:
        action = self.resolve_tool(params.get("name"))
        arguments = params.get("arguments", {})
        if not isinstance(arguments, dict):  # present but not an object, null included (MCP-28)
            raise ProtocolError(INVALID_PARAMS, "tools/call arguments must be an object (or left out)")
        token = (params.get("_meta") or {}).get("progressToken") if isinstance(params.get("_meta"), dict) else None
        if token is not None and not framing.legal_id(token):
            log.warning("progressToken of type %s ignored", type(token).__name__)
            token = None
        self.calls.submit(action, arguments, request_id, token, modern)
        return None

    # -- resources ---------------------------------------------------------------------------------------------
    def _resources_list(self, request_id: Any, params: dict, modern: bool) -> dict:
        if "cursor" in params:
            raise ProtocolError(INVALID_PARAMS, "resources/list answers in one page; send no cursor")
        return self.stamp({"resources": manifest.resources(self.options.offline)}, modern, (HOUR_MS, "private"))

    def _templates_list(self, request_id: Any, params: dict, modern: bool) -> dict:
        return self.stamp({"resourceTemplates": []}, modern, (HOUR_MS, "public"))

    def _resources_read(self, request_id: Any, params: dict, modern: bool) -> None:
        uri = params.get("uri")
        if not isinstance(uri, str):  # a malformed request, not a missing resource
            raise ProtocolError(INVALID_PARAMS, "resources/read needs uri as a string", {"uri": uri})
        if uri not in manifest.RESOURCE_URIS:
            code = INVALID_PARAMS if modern else RESOURCE_NOT_FOUND
            raise ProtocolError(code, f"unknown resource {uri!r}", {"uri": uri})
        if self.options.offline and uri in manifest.LIVE_RESOURCE_URIS:  # as its tool is refused (MCP-27)
            raise ProtocolError(
                INVALID_PARAMS,
                f"resource {uri} is hidden by the offline profile",
                {"uri": uri, "profile": "offline", "restart_with": "restart mcb mcp without --offline"},
            )
        self.calls.background(self._read_resource, request_id, uri, modern)

    def _read_resource(self, request_id: Any, uri: str, modern: bool) -> None:
        try:
            text, mime, cache = manifest.read_resource(uri, self)
        except Refusal as refusal:
            body = refusal.to_dict()["error"]
            self._error(request_id, INTERNAL_ERROR, body["message"], {"code": body["code"], **body["data"]})
            return
        except Exception as error:
            log.exception("reading %s failed", uri)
            self._error(request_id, INTERNAL_ERROR, f"reading {uri} failed ({type(error).__name__})")
            return
        self.reply(request_id, self.stamp({"contents": [{"uri": uri, "mimeType": mime, "text": text}]}, modern, cache))
