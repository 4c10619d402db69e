"""``McbClient``: one typed function per RPC method (protocol §3), plus the raw ``call``.

Scope is added the way the plugin's own MCP bridge does it (§1.6, §8.1): ``player_id``/``project_id`` go inside
``params`` and override same-named arguments, for every method except ``chat_poll``/``chat_reply``. The agent
token is used for everything it may call; the admin token only for ``chat_*`` and ``recovery_*`` (or when it is the
only token available).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from mcb.client import models as m
from mcb.client.transport import CAMERA_TIMEOUT, RpcTransport
from mcb.errors import AuthError, ServerError

PositionLike = m.Position | dict | Sequence[int]
UNSCOPED_METHODS = frozenset({"chat_poll", "chat_reply"})


def _typed(model: type[m.WireModel], method: str, result: Any) -> Any:
    """Validate a result into its model; a shape we cannot read is the server's fault, not a traceback."""
    from pydantic import ValidationError

    try:
        return model.model_validate(result)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(result)"
        raise ServerError(
            f"{method}: unexpected result from the server: {where}: {first['msg']}",
            code="invalid_response",
            hint="is the server a compatible plugin build?",
        ) from None


def requires_admin(method: str) -> bool:
    return method.startswith("chat_") or method in {"recovery_review", "recovery_abandon"}


def position(value: PositionLike) -> dict[str, int]:
    """``{x,y,z}`` from a Position, a dict or an ``(x, y, z)`` sequence."""
    if isinstance(value, m.Position):
        return {"x": value.x, "y": value.y, "z": value.z}
    if isinstance(value, dict):
        return {"x": value["x"], "y": value["y"], "z": value["z"]}
    x, y, z = value
    return {"x": int(x), "y": int(y), "z": int(z)}


class McbClient:
    """A connection to one server with one scope. Use as a context manager or call ``close()``."""

    def __init__(
        self,
        server: str,
        *,
        agent_token: str | None = None,
        admin_token: str | None = None,
        player_id: str | None = None,
        project_id: str | None = None,
        timeout: float | None = None,
        log: Callable[[str], None] | None = None,
        **transport_options: Any,
    ):
        self.server = server.rstrip("/")
        self.player_id = player_id
        self.project_id = project_id
        self._agent_token = agent_token
        self._admin_token = admin_token
        self.transport = RpcTransport(
            server, timeout=timeout, log=log, secrets=[t for t in (agent_token, admin_token) if t], **transport_options
        )

    @classmethod
    def from_settings(cls, settings, *, log: Callable[[str], None] | None = None, **options: Any) -> McbClient:
        """Build from :class:`mcb.config.Settings` (duck-typed so the client stays independent of config)."""
        return cls(
            settings.server,
            agent_token=settings.agent_token_value(),
            admin_token=settings.admin_token_value(),
            player_id=settings.player_id,
            project_id=settings.project_id,
            timeout=settings.timeout,
            log=log,
            **options,
        )

    def __enter__(self) -> McbClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.transport.close()

    # -- raw -----------------------------------------------------------------------------
    def health(self) -> m.Health:
        return _typed(m.Health, "health", self.transport.health())

    def call(
        self,
        method: str,
        params: dict | None = None,
        *,
        admin: bool | None = None,
        scoped: bool | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Send ``method`` with ``params`` (scope added) and return the raw ``result``."""
        body = dict(params or {})
        if scoped if scoped is not None else method not in UNSCOPED_METHODS:
            if self.player_id is not None:
                body["player_id"] = self.player_id
            if self.project_id is not None:
                body["project_id"] = self.project_id
        return self.transport.call(method, body, self._token(method, admin), timeout=timeout)

    @property
    def has_admin(self) -> bool:
        """Whether the administrator capability is available (recovery, chat)."""
        return bool(self._admin_token)

    def _token(self, method: str, admin: bool | None) -> str:
        want_admin = requires_admin(method) if admin is None else admin
        if want_admin:
            if self._admin_token:
                return self._admin_token
            raise AuthError(
                f"{method} needs the admin token",
                code="no_token",
                hint="set MCB_TOKEN, or `mcb config set token_file PATH` (`mcb config show`)",
            )
        token = self._agent_token or self._admin_token
        if not token:
            raise AuthError(
                "no token configured",
                code="no_token",
                hint="set MCB_AGENT_TOKEN (or MCB_TOKEN), or start `mcb serve` locally; see `mcb config show`",
            )
        return token

    # -- typed helpers, one per method ----------------------------------------------------------
    def project_context(self) -> m.ProjectContext:
        return _typed(m.ProjectContext, "project_context", self.call("project_context"))

    def material_search(
        self, query: str = "", *, kind: str = "block", limit: int | None = None, cursor: str | None = None
    ) -> m.MaterialSearch:
        params: dict[str, Any] = {"query": query, "kind": kind}
        if limit is not None:
            params["limit"] = limit
        if cursor:
            params["cursor"] = cursor
        return _typed(m.MaterialSearch, "material_search", self.call("material_search", params))

    def material_search_pages(
        self, query: str = "", *, kind: str = "block", limit: int | None = None
    ) -> Iterator[m.MaterialSearch]:
        """Every page of a search, following ``next_cursor``."""
        cursor = None
        while True:
            page = self.material_search(query, kind=kind, limit=limit, cursor=cursor)
            yield page
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def material_describe(self, material_id: str) -> m.MaterialDescription:
        return _typed(m.MaterialDescription, "material_describe", self.call("material_describe", {"id": material_id}))

    def region_inspect(self, min: PositionLike, max: PositionLike, *, blocks: bool = False) -> m.RegionInspection:
        params = {"min": position(min), "max": position(max), "detail": "blocks" if blocks else "summary"}
        return _typed(m.RegionInspection, "region_inspect", self.call("region_inspect", params))

    def region_changes(self) -> m.RegionChanges:
        return _typed(m.RegionChanges, "region_changes", self.call("region_changes"))

    def build_prepare(
        self,
        recipe: dict | str,
        *,
        dependencies: Sequence[PositionLike] = (),
        part_id: str | None = None,
        expected_blocks: list[dict] | str | None = None,
    ) -> m.PlanSummary:
        """``recipe`` and ``expected_blocks`` may be :class:`~mcb.client.transport.RawJson` text (sent as is)."""
        params: dict[str, Any] = {"recipe": recipe}
        if dependencies:
            params["dependencies"] = [position(p) for p in dependencies]
        if part_id:
            params["part_id"] = part_id
        if expected_blocks is not None:
            params["expected_blocks"] = expected_blocks
        return _typed(m.PlanSummary, "build_prepare", self.call("build_prepare", params))

    def build_apply(
        self, plan_id: str, plan_hash: str, idempotency_key: str, *, timeout: float | None = None
    ) -> m.OperationStatus:
        """Start (or, with a key already used for this plan, look up) the operation for a plan. ``timeout`` bounds
        the call with its retries: a world busy with another operation is asked again until then (one policy)."""
        params = {"plan_id": plan_id, "plan_hash": plan_hash, "idempotency_key": idempotency_key}
        return _typed(m.OperationStatus, "build_apply", self.call("build_apply", params, timeout=timeout))

    def operation_status(self, operation_id: str) -> m.OperationStatus:
        return _typed(
            m.OperationStatus, "operation_status", self.call("operation_status", {"operation_id": operation_id})
        )

    def operation_cancel(self, operation_id: str) -> m.OperationStatus:
        return _typed(
            m.OperationStatus, "operation_cancel", self.call("operation_cancel", {"operation_id": operation_id})
        )

    def operation_undo_prepare(self, operation_id: str) -> m.PlanSummary:
        params = {"operation_id": operation_id}
        return _typed(m.PlanSummary, "operation_undo_prepare", self.call("operation_undo_prepare", params))

    def part_define(self, name: str, operation_id: str) -> m.PartDefined:
        return _typed(
            m.PartDefined, "part_define", self.call("part_define", {"name": name, "operation_id": operation_id})
        )

    def part_get(self, part_id: str) -> m.Part:
        return _typed(m.Part, "part_get", self.call("part_get", {"part_id": part_id}))

    def camera_list(self) -> m.CameraList:
        return _typed(m.CameraList, "camera_list", self.call("camera_list"))

    def camera_capture(
        self,
        *,
        camera_id: str | None = None,
        pose: dict | None = None,
        after_operation_id: str | None = None,
        capture_id: str | None = None,
    ) -> m.CaptureResult:
        params: dict[str, Any] = {}
        if capture_id:
            params["capture_id"] = capture_id
        if pose is not None:
            params["pose"] = pose
        if camera_id:
            params["camera_id"] = camera_id
        if after_operation_id:
            params["after_operation_id"] = after_operation_id
        return _typed(m.CaptureResult, "camera_capture", self.call("camera_capture", params, timeout=CAMERA_TIMEOUT))

    def asset_list(self, query: str | None = None) -> m.AssetList:
        return _typed(m.AssetList, "asset_list", self.call("asset_list", {"query": query} if query else {}))

    def schematic_export(
        self, name: str, min: PositionLike, max: PositionLike, origin: PositionLike | None = None
    ) -> m.Asset:
        params: dict[str, Any] = {"name": name, "min": position(min), "max": position(max)}
        if origin is not None:
            params["origin"] = position(origin)
        return _typed(m.Asset, "schematic_export", self.call("schematic_export", params))

    def schematic_import_prepare(self, asset_id: str, target: PositionLike, rotation: int = 0) -> m.PlanSummary:
        params = {"asset_id": asset_id, "target": position(target), "rotation": rotation}
        return _typed(m.PlanSummary, "schematic_import_prepare", self.call("schematic_import_prepare", params))

    def terrain_preview(self, recipe: dict, *, resolution: int | None = None) -> m.TerrainPreview:
        params: dict[str, Any] = {"recipe": recipe}
        if resolution is not None:
            params["resolution"] = resolution
        return _typed(m.TerrainPreview, "terrain_preview", self.call("terrain_preview", params))

    def terrain_prepare(self, terrain_id: str, tile_index: int) -> m.TerrainPlan:
        params = {"terrain_id": terrain_id, "tile_index": tile_index}
        return _typed(m.TerrainPlan, "terrain_prepare", self.call("terrain_prepare", params))

    def terrain_brush_prepare(self, brush: dict) -> m.TerrainPlan:
        return _typed(m.TerrainPlan, "terrain_brush_prepare", self.call("terrain_brush_prepare", {"brush": brush}))

    def recovery_review(self, operation_id: str) -> m.RecoveryReview:
        return _typed(m.RecoveryReview, "recovery_review", self.call("recovery_review", {"operation_id": operation_id}))

    def recovery_abandon(self, operation_id: str, expected_digest: str) -> m.OperationStatus:
        params = {"operation_id": operation_id, "expected_digest": expected_digest}
        return _typed(m.OperationStatus, "recovery_abandon", self.call("recovery_abandon", params))

    def chat_poll(self, client_id: str) -> m.ChatPoll:
        return _typed(m.ChatPoll, "chat_poll", self.call("chat_poll", {"client_id": client_id}))

    def chat_reply(
        self, message_id: str, player_id: str, *, text: str | None = None, done: bool = False, error: str | None = None
    ) -> m.ChatReply:
        params: dict[str, Any] = {"id": message_id, "playerId": player_id, "done": done}
        if text is not None:
            params["text"] = text
        if error is not None:
            params["error"] = error
        return _typed(m.ChatReply, "chat_reply", self.call("chat_reply", params))
