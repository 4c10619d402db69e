"""The 19 RPC actions of `mcb mcp`, named exactly after the plugin's methods, in its bridge's order.

Each action is a thin adapter over the same :class:`mcb.client.McbClient` method the CLI calls: the input model
holds the bridge's argument rules (protocol §8.2, mcp-conventions §2.2), ``run`` sends them and presents the
plugin's ``result`` untouched apart from image extraction (MCP-38) and the additive ``follow_up`` (MCP-42) and
pagination (MCP-40) fields. Every failure becomes a :class:`~mcb.catalog.base.Refusal` through
:func:`mcb.catalog.remedies.refusal_for` (one remedy table, one transport mapping).

Scope (player and project ids) is never an argument: ``Context.client()`` injects it. Admin methods (``chat_*``,
``recovery_*``) and ``region_changes`` are not actions.

Core code: no typer, rich, click or mcp imports.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, StringConstraints, model_validator
from pydantic_core import PydanticCustomError

from mcb.catalog.base import MAX_IMAGE_BASE64, Action, Cancelled, Context, Hints, Image, Outcome, Refusal
from mcb.catalog.remedies import (  # the §2.4 table and the §1.7 mapping live there; re-exported per the contract
    PLUGIN_REMEDIES,
    REMEDY_FIELDS,
    default_refusal,
    refusal_codes,
    refusal_for,
    transport_refusal,
)
from mcb.errors import McbError
from mcb.recipes.bridge_rules import HORIZONTAL_LIMIT, MAX_COUNT, MAX_OPERATIONS, VERTICAL_LIMIT, bridge_findings
from mcb.recipes.model import Box, Cylinder, Line
from mcb.recipes.model import Position as RecipePosition
from mcb.summaries import SUMMARIES
from mcb.terrain.model import BrushModel, TerrainRecipeModel

log = logging.getLogger("mcb.mcp")

MAX_APPLY_WAIT = 25  # seconds build_apply may wait, inside the 30 s tool deadline (MCP-51)


# -- argument pieces (the bridge's zod rules, protocol §8.2) ------------------------------------------------------
def _json_integer(value: Any) -> Any:
    """A JSON integer: no strings, no booleans, no fractions; an integral float (5.0) is sent as 5 (MCP-30)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PydanticCustomError("int_type", "Input should be an integer")
    if isinstance(value, float):
        if not value.is_integer():
            raise PydanticCustomError("int_from_float", "Input should be an integer, got a number with a fraction")
        return int(value)
    return value


def _json_number(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PydanticCustomError("float_type", "Input should be a number")
    return value


JsonInt = Annotated[int, BeforeValidator(_json_integer)]
JsonNumber = Annotated[float, BeforeValidator(_json_number), Field(allow_inf_nan=False)]


def json_int(low: int, high: int) -> Any:
    """A JSON integer in low..high. The bounds sit on the int itself, inside the JSON-integer check, so they reach
    the published schema as minimum/maximum (bounds put on JsonInt from outside leak out as `ge`/`le`, MCP-22)."""
    return Annotated[int, Field(ge=low, le=high), BeforeValidator(_json_integer)]


def json_number(low: float, high: float) -> Any:
    """A finite JSON number in low..high (see json_int)."""
    return Annotated[float, Field(ge=low, le=high, allow_inf_nan=False), BeforeValidator(_json_number)]
Id = Annotated[str, StringConstraints(strict=True, min_length=1, max_length=200)]
MaterialId = Annotated[str, StringConstraints(strict=True, min_length=11, max_length=128,
                                              pattern=r"^minecraft:[a-z0-9_]+$")]
BlockState = Annotated[str, StringConstraints(strict=True, max_length=1024,
                                              pattern=r"^minecraft:[a-z0-9_]+(?:\[[a-z0-9_=,]+\])?$")]


class _Args(BaseModel):
    """Closed argument objects; the raw arguments are kept so recipes go out exactly as the caller wrote them."""

    model_config = ConfigDict(extra="forbid", regex_engine="python-re")
    _raw: dict = PrivateAttr(default_factory=dict)

    @model_validator(mode="wrap")
    @classmethod
    def _keep_raw(cls, data, handler):
        model = handler(data)
        if isinstance(data, (str, bytes, bytearray)):  # model_validate_json: keep the decoded arguments
            data = json.loads(data)
        if isinstance(data, dict):
            model._raw = data
        return model

    def arguments(self) -> dict:
        """The arguments as the caller sent them (for ``retry_with``: the identical call)."""
        return dict(self._raw) if self._raw else self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class Position(BaseModel):
    """Integer block coordinates."""

    model_config = ConfigDict(extra="forbid")
    x: Annotated[json_int(-HORIZONTAL_LIMIT, HORIZONTAL_LIMIT), Field(description="East (+) / west (-).")]
    y: Annotated[json_int(-VERTICAL_LIMIT, VERTICAL_LIMIT), Field(description="Height.")]
    z: Annotated[json_int(-HORIZONTAL_LIMIT, HORIZONTAL_LIMIT), Field(description="South (+) / north (-).")]

    def wire(self) -> dict[str, int]:
        return {"x": self.x, "y": self.y, "z": self.z}


def _pos(value: Position | None) -> dict[str, int] | None:
    return None if value is None else value.wire()


def _apply_follow_up(plan: dict, reason: str = "review the plan summary, then apply it") -> list[dict]:
    """``follow_up`` for a prepared plan (MCP-42); the caller picks one stable idempotency_key for it."""
    if not plan.get("plan_id") or not plan.get("plan_hash"):
        return []
    return [{"work": "apply", "tool": "build_apply",
             "arguments": {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"]},
             "reason": reason + " with build_apply and one stable idempotency_key (reuse it after a lost answer)"}]


def _poll_follow_up(status: dict) -> list[dict]:
    from mcb.client.models import TERMINAL_STATUSES

    if not status.get("operation_id") or status.get("status") in TERMINAL_STATUSES:
        return []
    return [{"work": "poll", "tool": "operation_status", "arguments": {"operation_id": status["operation_id"]},
             "reason": f"the operation is {status.get('status')}; poll until applied, conflict, failed, cancelled or "
                       "recovery_required"}]


def _with(data: dict, follow_up: list[dict]) -> dict:
    if follow_up:
        data["follow_up"] = follow_up
    return data


def _call(ctx: Context, method: str, args: _Args, send: Callable[[Any], Any]) -> Any:
    """Run ``send(client)``; every client error becomes the one refusal for it."""
    started = time.monotonic()
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
        waited = round((time.monotonic() - started) * 1000)
        raise refusal_for(error, method, args.arguments(), server=getattr(client, "server", None),
                          waited_ms=waited) from None


def _stop_if_cancelled(ctx: Context, method: str, error: McbError) -> None:
    """MCP-47/48: a cancelled call ends here with no refusal, so nothing more goes out (not even the /health
    probe); an exchange cut short after its request left has an unknown outcome, said on stderr only."""
    try:
        ctx.check_cancelled()
    except Cancelled:
        if getattr(error, "request_started", False):
            log.warning("%s cancelled after its request went out: stopped waiting (reason: stopped); the outcome "
                        "is unknown", method)
        raise


def _image_outcome(method: str, data: dict, caption: str) -> Outcome:
    """MCP-38: ``imageBase64``/``mimeType`` leave the JSON and become one PNG image; broken data is refused."""
    encoded = data.pop("imageBase64", None)
    mime = data.pop("mimeType", None)
    if encoded is None:
        return Outcome(data)

    def broken(why: str) -> Refusal:
        return default_refusal("invalid_image", f"{method}: {why}", extra={"status": data.get("status")})

    if data.get("status") != "completed":
        raise broken(f"an image came with status {data.get('status')!r}, not 'completed'")
    if mime != "image/png":
        raise broken(f"the image type is {mime!r}, not image/png")
    if not isinstance(encoded, str) or len(encoded) > MAX_IMAGE_BASE64:
        raise broken(f"the image data is missing or over {MAX_IMAGE_BASE64} base64 characters")
    try:
        png = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise broken("the image data is not valid base64") from None
    if not png.startswith(b"\x89PNG\r\n\x1a\n"):
        raise broken("the image data is not a PNG")
    return Outcome(data, [Image(png=png, caption=caption)])


def _result_cap(ctx: Context) -> int | None:
    """The face's cap on one text item, when its Context tells (``max_result_bytes``); else the face checks alone."""
    cap = getattr(ctx, "max_result_bytes", None)
    return cap if isinstance(cap, int) and cap > 0 else None


def _json_size(data: dict) -> int:
    return len(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def _hints(read_only: bool, destructive: bool, idempotent: bool) -> Hints:
    return Hints(read_only=read_only, destructive=destructive, idempotent=idempotent, open_world=True)


READ = _hints(True, False, True)
PREPARE = _hints(False, False, False)  # only adds a plan (or a part, or an asset): never destructive


# -- 1. project_context -----------------------------------------------------------------------------------------
class ProjectContextArgs(_Args):
    """No arguments: the scope comes from mcb's configuration."""


def run_project_context(args: ProjectContextArgs, ctx: Context) -> Outcome:
    return Outcome(_call(ctx, "project_context", args, lambda c: c.project_context().wire()))


# -- 2. material_search -----------------------------------------------------------------------------------------
class MaterialSearchArgs(_Args):
    query: Annotated[str, StringConstraints(strict=True, max_length=96), Field(
        description="Space-separated words that must all occur in the id, e.g. 'oak stairs'; empty lists all.")] = ""
    kind: Annotated[Literal["block", "item", "all"], Field(description="Which materials to search.")] = "block"
    limit: Annotated[json_int(1, 32) | None, Field(
        description="Results per page, 1..32 (server default 16).")] = None
    cursor: Annotated[str | None, StringConstraints(strict=True, max_length=100), Field(
        description="next_cursor of the previous page; empty or absent for the first page.")] = None


def run_material_search(args: MaterialSearchArgs, ctx: Context) -> Outcome:
    page = _call(ctx, "material_search", args, lambda c: c.material_search(
        args.query, kind=args.kind, limit=args.limit, cursor=args.cursor or None).wire())
    results = page.get("results") or []
    next_cursor = page.pop("next_cursor", None)
    page.update({"returned": len(results), "has_more": bool(next_cursor), "total_results": page.get("total", 0)})
    if next_cursor:
        page["next_cursor"] = next_cursor
        page["hint"] = ("More results: call material_search again with the same query and kind and "
                        "cursor=next_cursor until has_more is false.")
    return Outcome(page)


# -- 3. material_describe ---------------------------------------------------------------------------------------
class MaterialDescribeArgs(_Args):
    id: Annotated[MaterialId, Field(description="One exact material id with its namespace, e.g. minecraft:oak_stairs "
                                                "(no properties).")]


def run_material_describe(args: MaterialDescribeArgs, ctx: Context) -> Outcome:
    return Outcome(_call(ctx, "material_describe", args, lambda c: c.material_describe(args.id).wire()))


# -- 4. region_inspect ------------------------------------------------------------------------------------------
class RegionInspectArgs(_Args):
    min: Annotated[Position, Field(description="One corner of the box (inclusive).")]
    max: Annotated[Position, Field(description="The opposite corner (inclusive); min <= max on every axis.")]
    detail: Annotated[Literal["summary", "blocks"], Field(
        description="summary: the palette with counts; blocks: every position with its state.")] = "summary"


def _narrower_box(args, limit: int | None = None) -> dict:
    """A smaller box from the same min corner: with ``limit`` (the server's block limit) the largest near-cube of
    at most that many blocks inside the box, so following it once succeeds; without, the lower half of the longest
    axis (an answer too large to send, whose size only a smaller read can tell)."""
    lo, hi = args.min.wire(), args.max.wire()
    if limit is None:
        axis = max("xyz", key=lambda a: hi[a] - lo[a])
        hi[axis] = lo[axis] + (hi[axis] - lo[axis]) // 2
        return {"min": lo, "max": hi}
    budget = max(1, limit)
    axes = sorted("xyz", key=lambda a: hi[a] - lo[a])  # the thinnest first: what it cannot use goes to the others
    for left, axis in zip((3, 2, 1), axes):
        extent = min(hi[axis] - lo[axis] + 1, _integer_root(budget, left))
        hi[axis] = lo[axis] + extent - 1
        budget //= extent
    return {"min": lo, "max": hi}


def _integer_root(value: int, degree: int) -> int:
    """The largest r with r ** degree <= value (value >= 1)."""
    root = max(1, int(round(value ** (1 / degree))))
    while root ** degree > value:
        root -= 1
    while (root + 1) ** degree <= value:
        root += 1
    return root


READ_LIMIT_BLOCKS = 4096  # protocol §3.4: region_inspect's fixed limit, when the message does not say


def _box_limit(refusal: Refusal) -> int:
    """The block limit the server states in its refusal ("Read at most 4096 blocks per request", "Export at most
    N blocks", N = max_plan_blocks)."""
    import re

    found = re.search(r"at most (\d+) blocks", refusal.message)
    return int(found.group(1)) if found else READ_LIMIT_BLOCKS


def _narrowed(refusal: Refusal, retry_with: dict) -> Refusal:
    """The same refusal with a narrowing ``retry_with`` (§2.4 budget_exceeded: "a narrowing retry_with when known")."""
    data = {k: v for k, v in refusal.data.items() if k != "no_remedy"}
    return Refusal(refusal.code, refusal.message, remedy=refusal.remedy, field=refusal.field,
                   did_you_mean=refusal.did_you_mean, retry_with=retry_with, data=data)


def _box_too_big(refusal: Refusal) -> bool:
    return refusal.code == "budget_exceeded" and refusal.message.startswith(("Read at most", "Export at most"))


def run_region_inspect(args: RegionInspectArgs, ctx: Context) -> Outcome:
    try:
        data = _call(ctx, "region_inspect", args, lambda c: c.region_inspect(
            args.min.wire(), args.max.wire(), blocks=args.detail == "blocks").wire())
    except Refusal as refusal:
        if _box_too_big(refusal):
            raise _narrowed(refusal, _narrower_box(args, _box_limit(refusal))) from None
        if refusal.code == "budget_exceeded" and args.detail == "blocks":  # block-entity snapshots over 8 MiB
            raise _narrowed(refusal, {"detail": "summary"}) from None
        raise
    lo, hi = args.min, args.max
    volume = (hi.x - lo.x + 1) * (hi.y - lo.y + 1) * (hi.z - lo.z + 1)
    blocks = data.get("blocks") or []
    data.update({"returned": len(blocks) if args.detail == "blocks" else sum((data.get("palette") or {}).values()),
                 "has_more": False, "total_blocks": volume})
    cap = _result_cap(ctx)
    size = _json_size(data) if cap else 0
    if cap and size > cap:
        narrower = {"detail": "summary"} if args.detail == "blocks" else _narrower_box(args)
        raise default_refusal(
            "context_limit", f"region_inspect answer is {size} bytes, over the {cap}-byte result cap",
            retry_with=narrower, extra={"result_bytes": size, "cap_bytes": cap,
                                        "hint": "ask for the summary, or a smaller box"})
    return Outcome(data)


# -- 5. build_prepare -------------------------------------------------------------------------------------------
def _bridge_recipe(value: Any) -> Any:
    """The bridge's stricter limits on top of the server's recipe rules (`mcb recipe lint --mcp-bridge`)."""
    if isinstance(value, dict):
        for pointer, message, hint in bridge_findings(value):
            raise PydanticCustomError("mcp_bridge", "{pointer}: {message} ({hint})",
                                      {"pointer": pointer, "message": message, "hint": hint})
    return value


_Shape = Annotated[Union[Box, Line, Cylinder], Field(discriminator="type")]  # noqa: UP007


class BridgeRepeat(BaseModel):
    """Expand ``operations`` count times, iteration i displaced by i x offset (shapes only through MCP)."""

    model_config = ConfigDict(extra="forbid", regex_engine="python-re")
    type: Literal["repeat"]
    count: Annotated[int, Field(strict=True, ge=1, le=MAX_COUNT, description="How many copies (1..128 via MCP).")]
    offset: Annotated[RecipePosition, Field(description="Displacement added per copy; the first copy has none.")]
    operations: Annotated[list[_Shape], Field(min_length=1, max_length=MAX_OPERATIONS)]


_Operation = Annotated[Union[Box, Line, Cylinder, BridgeRepeat], Field(discriminator="type")]  # noqa: UP007


class BridgeRecipe(BaseModel):
    """A build_prepare recipe, version 1, within the MCP bridge's limits (protocol §8.2). Later operations win."""

    model_config = ConfigDict(extra="forbid", regex_engine="python-re")
    version: Annotated[Literal[1], BeforeValidator(_json_integer), Field(description="Always the integer 1.")]
    operations: Annotated[list[_Operation], Field(min_length=1, max_length=MAX_OPERATIONS)]


class ExpectedBlock(BaseModel):
    """A block the plan may only overwrite if it is still exactly this."""

    model_config = ConfigDict(extra="forbid", regex_engine="python-re")
    pos: Annotated[Position, Field(description="Where the block is.")]
    state: Annotated[BlockState, Field(description="Its full state, as region_inspect reports it.")]
    snapshot_id: Annotated[str | None, StringConstraints(strict=True, pattern=r"^[a-f0-9]{64}$"), Field(
        description="The block entity's snapshot_id from region_inspect (blocks detail), when it has one.")] = None


class BuildPrepareArgs(_Args):
    recipe: Annotated[BridgeRecipe, BeforeValidator(_bridge_recipe), Field(
        description="Recipe version 1 (box, line, cylinder, repeat); through MCP at most 256 operations per array, "
                    "repeat count <= 128 with shapes only inside, cylinder radius <= 128 and height <= 256.")]
    part_id: Annotated[Id | None, Field(description="Restrict the writes to this part's exact mask.")] = None
    dependencies: Annotated[list[Position] | None, Field(
        max_length=512, description="Extra positions that must not change before apply (read dependencies).")] = None
    expected_blocks: Annotated[list[ExpectedBlock] | None, Field(
        min_length=1, max_length=4096,
        description="Blocks the plan expects to find; a mismatch is stale_snapshot.")] = None


def run_build_prepare(args: BuildPrepareArgs, ctx: Context) -> Outcome:
    raw = args.arguments()
    expected = None
    if args.expected_blocks is not None:
        expected = [b.model_dump(mode="json", exclude_none=True) for b in args.expected_blocks]
    plan = _call(ctx, "build_prepare", args, lambda c: c.build_prepare(
        raw["recipe"], dependencies=[p.wire() for p in args.dependencies or ()], part_id=args.part_id,
        expected_blocks=expected).wire())
    return Outcome(_with(plan, _apply_follow_up(plan)))


# -- 6. build_apply ---------------------------------------------------------------------------------------------
class BuildApplyArgs(_Args):
    plan_id: Annotated[Id, Field(description="plan_id from the prepare step.")]
    plan_hash: Annotated[Id, Field(description="plan_hash from the same prepare step (binds the apply to that plan).")]
    idempotency_key: Annotated[Id, Field(
        description="A key you choose once per plan and keep: sending the same call again returns the same "
                    "operation instead of starting a second one.")]
    wait: Annotated[bool, Field(
        description="Wait until the operation ends (progress is reported), at most wait_seconds; otherwise return "
                    "at once and poll operation_status.")] = False
    wait_seconds: Annotated[json_int(1, MAX_APPLY_WAIT), Field(
        description="How long wait may take, in seconds.")] = MAX_APPLY_WAIT


def run_build_apply(args: BuildApplyArgs, ctx: Context) -> Outcome:
    started = _call(ctx, "build_apply", args,
                    lambda c: c.build_apply(args.plan_id, args.plan_hash, args.idempotency_key))
    status = started
    if args.wait and not started.terminal:
        status = _wait(args, ctx, started)
    data = status.wire()
    return Outcome(_with(data, _poll_follow_up(data)))


def _wait(args: BuildApplyArgs, ctx: Context, started):
    """Poll with the CLI's own loop; progress per poll that advanced, a cancel stops the waiting only (MCP-48)."""
    from mcb.client.workflow import wait_for_operation

    last = {"status": started, "done": None}

    def on_progress(status) -> None:
        last["status"] = status
        if last["done"] is None or status.processed > last["done"]:
            last["done"] = status.processed
            ctx.progress(status.processed, status.total_changes or None,
                         f"{status.status}: {status.processed}/{status.total_changes} processed")
        try:
            ctx.check_cancelled()
        except Exception:
            log.debug("build_apply: stopped waiting for operation %s (it keeps running; operation_cancel ends it)",
                     status.operation_id)
            raise

    def send(client):
        try:
            return wait_for_operation(client, started.operation_id, timeout=args.wait_seconds,
                                      on_progress=on_progress, first=started)
        except McbError as error:
            if error.code == "wait_timeout":  # not a failure: the operation runs on; say how to follow it
                return last["status"]
            raise

    try:
        return _call(ctx, "operation_status", OperationArgs(operation_id=started.operation_id), send)
    except Refusal as refusal:  # the apply itself succeeded: say so, and how to pick the operation up
        raise _poll_failed(started.operation_id, refusal) from None


def _poll_failed(operation_id: str, refusal: Refusal) -> Refusal:
    """A poll failed after build_apply started the operation: the one remedy is to poll it again. The poll's own
    remedies (retry_after_ms, retry_with, restart_with ... 'send the same call again') would invite a second apply."""
    poll = {"tool": "operation_status", "arguments": {"operation_id": operation_id},
            "reason": "the operation started and runs on the server; polling it failed"}
    facts = {key: value for key, value in refusal.data.items() if key not in REMEDY_FIELDS}
    data = {**facts, "operation_id": operation_id, "operation_started": True, "next_call": poll}
    remedy = (f"operation {operation_id} started and runs on the server; follow it with operation_status "
              "(next_call), and do not apply the plan again")
    return Refusal(refusal.code, f"build_apply started operation {operation_id}, then {refusal.message}",
                   remedy=remedy, data=data)


# -- 7-9. operation_status, operation_cancel, operation_undo_prepare -------------------------------------------
class OperationArgs(_Args):
    operation_id: Annotated[Id, Field(description="operation_id from build_apply or project_context.")]


def run_operation_status(args: OperationArgs, ctx: Context) -> Outcome:
    data = _call(ctx, "operation_status", args, lambda c: c.operation_status(args.operation_id).wire())
    return Outcome(_with(data, _poll_follow_up(data)))


def run_operation_cancel(args: OperationArgs, ctx: Context) -> Outcome:
    data = _call(ctx, "operation_cancel", args, lambda c: c.operation_cancel(args.operation_id).wire())
    return Outcome(_with(data, _poll_follow_up(data)))


def run_operation_undo_prepare(args: OperationArgs, ctx: Context) -> Outcome:
    plan = _call(ctx, "operation_undo_prepare", args, lambda c: c.operation_undo_prepare(args.operation_id).wire())
    return Outcome(_with(plan, _apply_follow_up(plan, "review the undo plan, then apply it")))


# -- 10-11. part_define, part_get -------------------------------------------------------------------------------
class PartDefineArgs(_Args):
    name: Annotated[str, StringConstraints(strict=True, min_length=1, max_length=64), Field(
        description="A name for the part (1..64 characters).")]
    operation_id: Annotated[Id, Field(description="An applied operation whose written blocks become the part.")]


class PartGetArgs(_Args):
    part_id: Annotated[Id, Field(description="part_id from part_define or project_context.")]


def run_part_define(args: PartDefineArgs, ctx: Context) -> Outcome:
    return Outcome(_call(ctx, "part_define", args, lambda c: c.part_define(args.name, args.operation_id).wire()))


def run_part_get(args: PartGetArgs, ctx: Context) -> Outcome:
    return Outcome(_call(ctx, "part_get", args, lambda c: c.part_get(args.part_id).wire()))


# -- 12-13. camera_list, camera_capture -------------------------------------------------------------------------
class CameraListArgs(_Args):
    """No arguments."""


def run_camera_list(args: CameraListArgs, ctx: Context) -> Outcome:
    return Outcome(_call(ctx, "camera_list", args, lambda c: c.camera_list().wire()))


class Pose(BaseModel):
    """Where the spectator camera looks from."""

    model_config = ConfigDict(extra="forbid")
    x: Annotated[JsonNumber, Field(description="Camera x (its block must lie inside the project area).")]
    y: Annotated[JsonNumber, Field(description="Camera y.")]
    z: Annotated[JsonNumber, Field(description="Camera z.")]
    yaw: Annotated[json_number(-360, 360), Field(description="Degrees; 0 looks south (+z), 90 west.")]
    pitch: Annotated[json_number(-90, 90), Field(description="Degrees; positive looks down.")]
    fov: Annotated[json_int(30, 110) | None, Field(description="Field of view in degrees.")] = None
    width: Annotated[json_int(320, 1920) | None, Field(description="Image width in pixels.")] = None
    height: Annotated[json_int(180, 1080) | None, Field(description="Image height in pixels.")] = None


class CameraCaptureArgs(_Args):
    camera_id: Annotated[Id | None, Field(description="A saved camera from camera_list.")] = None
    pose: Annotated[Pose | None, Field(description="An explicit pose (wins over camera_id).")] = None
    after_operation_id: Annotated[Id | None, Field(
        description="Only capture once this operation is applied (else capture_not_ready).")] = None
    capture_id: Annotated[Id | None, Field(
        description="Poll a pending capture (alone; from the previous camera_capture answer).")] = None

    @model_validator(mode="after")
    def _one_mode(self):
        if self.camera_id is None and self.pose is None and self.capture_id is None:
            raise PydanticCustomError("missing_mode", "give camera_id or pose to take a picture, or capture_id to "
                                                      "poll one", {"field": "camera_id"})
        return self


def run_camera_capture(args: CameraCaptureArgs, ctx: Context) -> Outcome:
    pose = args.pose.model_dump(exclude_none=True) if args.pose is not None else None
    data = _call(ctx, "camera_capture", args, lambda c: c.camera_capture(
        camera_id=args.camera_id, pose=pose, after_operation_id=args.after_operation_id,
        capture_id=args.capture_id).wire())
    status = data.get("status")
    if status == "pending":
        if data.get("captureId"):
            data["follow_up"] = [{"work": "poll", "tool": "camera_capture",
                                  "arguments": {"capture_id": data["captureId"]},
                                  "reason": "the picture is being taken; poll until it is completed"}]
        return Outcome(data)
    if status == "error":
        code = str(data.get("error") or "capture_failed")
        raise default_refusal(code, f"camera_capture: {data.get('message') or code}",
                              extra={"capture_id": data.get("captureId"), "worker_error": code,
                                     "hint": "treat the build as visually unverified"})
    return _image_outcome("camera_capture", data, "camera capture")


# -- 14-16. asset_list, schematic_export, schematic_import_prepare ---------------------------------------------
class AssetListArgs(_Args):
    query: Annotated[str | None, StringConstraints(strict=True, max_length=64), Field(
        description="Keep assets whose name contains this (case-insensitive).")] = None


def run_asset_list(args: AssetListArgs, ctx: Context) -> Outcome:
    data = _call(ctx, "asset_list", args, lambda c: c.asset_list(args.query or None).wire())
    assets = data.get("assets") or []
    data.update({"returned": len(assets), "has_more": False, "total_assets": len(assets)})
    return Outcome(data)


class SchematicExportArgs(_Args):
    name: Annotated[str, StringConstraints(strict=True, min_length=1, max_length=64,
                                           pattern=r"^[^\u0000-\u001f\u007f]+$"), Field(
        description="The asset's name (1..64 printable characters).")]
    min: Annotated[Position, Field(description="One corner of the box (inclusive).")]
    max: Annotated[Position, Field(description="The opposite corner (inclusive).")]
    origin: Annotated[Position | None, Field(
        description="The anchor the offset is measured from (default min).")] = None


def run_schematic_export(args: SchematicExportArgs, ctx: Context) -> Outcome:
    try:
        return Outcome(_call(ctx, "schematic_export", args, lambda c: c.schematic_export(
            args.name, args.min.wire(), args.max.wire(), _pos(args.origin)).wire()))
    except Refusal as refusal:
        if _box_too_big(refusal):
            raise _narrowed(refusal, _narrower_box(args, _box_limit(refusal))) from None
        raise


class SchematicImportPrepareArgs(_Args):
    asset_id: Annotated[str, StringConstraints(strict=True, min_length=1, max_length=64,
                                               pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"), Field(
        description="assetId from asset_list or schematic_export.")]
    target: Annotated[Position, Field(description="Where the schematic's anchor lands.")]
    rotation: Annotated[Literal[0, 90, 180, 270], Field(
        description="Clockwise turn seen from above, in degrees.")] = 0


def run_schematic_import_prepare(args: SchematicImportPrepareArgs, ctx: Context) -> Outcome:
    plan = _call(ctx, "schematic_import_prepare", args, lambda c: c.schematic_import_prepare(
        args.asset_id, args.target.wire(), args.rotation).wire())
    return Outcome(_with(plan, _apply_follow_up(plan)))


# -- 17-19. terrain_preview, terrain_prepare, terrain_brush_prepare ---------------------------------------------
class TerrainPreviewArgs(_Args):
    recipe: Annotated[TerrainRecipeModel, Field(description="A terrain recipe, version 1.")]
    resolution: Annotated[json_int(32, 256) | None, Field(
        description="Preview image side in pixels (server default 128).")] = None


def run_terrain_preview(args: TerrainPreviewArgs, ctx: Context) -> Outcome:
    raw = args.arguments()
    data = _call(ctx, "terrain_preview", args,
                 lambda c: c.terrain_preview(raw["recipe"], resolution=args.resolution).wire())
    return _image_outcome("terrain_preview", data, "terrain height-map preview")


class TerrainPrepareArgs(_Args):
    terrain_id: Annotated[str, StringConstraints(strict=True, min_length=64, max_length=64,
                                                 pattern=r"^[a-f0-9]{64}$"), Field(
        description="terrain_id from terrain_preview (the server caches 32 recipes until it restarts).")]
    tile_index: Annotated[json_int(0, 134_217_727), Field(
        description="Which tile, 0..tile_count-1 (x fastest, then z, then y).")]


def run_terrain_prepare(args: TerrainPrepareArgs, ctx: Context) -> Outcome:
    plan = _call(ctx, "terrain_prepare", args,
                 lambda c: c.terrain_prepare(args.terrain_id, args.tile_index).wire())
    return Outcome(_with(plan, _apply_follow_up(plan, "review the tile plan, then apply it")))


class TerrainBrushPrepareArgs(_Args):
    brush: Annotated[BrushModel, Field(description="A terrain brush (raise, lower, flatten or smooth).")]


def run_terrain_brush_prepare(args: TerrainBrushPrepareArgs, ctx: Context) -> Outcome:
    raw = args.arguments()
    data = _call(ctx, "terrain_brush_prepare", args, lambda c: c.terrain_brush_prepare(raw["brush"]).wire())
    follow = _apply_follow_up(data, "review the brush preview, then apply it") \
        if data.get("plan_state") == "prepared" else []
    return _image_outcome("terrain_brush_prepare", _with(data, follow), "terrain brush preview")


# -- the catalog ---------------------------------------------------------------------------------------------------
def _action(name: str, title: str, details: str, model: type[_Args], hints: Hints, run) -> Action:
    """As in mcb.catalog.offline: the tool's one summary (mcb.summaries), then what only MCP says."""
    return Action(name=name, title=title, description=f"{SUMMARIES[name]} {details}", input_model=model,
                  hints=hints, run=run, group="rpc")


RPC_ACTIONS: list[Action] = [
    _action("project_context", "Project context", (
        "At most 64 parts and 20 operations (truncated says so). Call it first; region_inspect usually comes "
        "next."), ProjectContextArgs, READ, run_project_context),
    _action("material_search", "Search materials", (
        "One page of at most 32 at a time (returned, has_more, total_results; follow next_cursor). "
        "material_describe gives a block's states."), MaterialSearchArgs, READ, run_material_search),
    _action("material_describe", "Describe material", (
        "Behaviour: gravity, fluid, waterloggable, ... Use the states in build_prepare recipes."),
        MaterialDescribeArgs, READ, run_material_describe),
    _action("region_inspect", "Inspect region", (
        "detail summary gives the palette, blocks every state. Answers over the result cap are refused with a "
        "narrower retry_with. Prepare a build next."), RegionInspectArgs, READ, run_region_inspect),
    _action("build_prepare", "Prepare build", (
        "At most max_plan_blocks positions, inside the project area. Returns plan_id, plan_hash and "
        "changed_blocks; build_apply comes next."), BuildPrepareArgs, PREPARE, run_build_prepare),
    _action("build_apply", "Apply plan", (
        "So after a lost answer send exactly the same call again (plan_id, plan_hash, idempotency_key). With "
        "wait it reports progress until the operation ends (at most 25 s); otherwise poll operation_status."),
        BuildApplyArgs, _hints(False, True, True), run_build_apply),
    _action("operation_status", "Operation status", (
        "Poll until it is terminal; stop on conflicts."), OperationArgs, READ, run_operation_status),
    _action("operation_cancel", "Cancel operation", (
        "operation_undo_prepare reverts the written blocks. Returns the current status; poll operation_status "
        "to see it end."), OperationArgs, _hints(False, True, True), run_operation_cancel),
    _action("operation_undo_prepare", "Prepare undo", (
        "build_apply applies it."), OperationArgs, PREPARE, run_operation_undo_prepare),
    _action("part_get", "Get part", (
        "Its part_id comes from part_define or from project_context's parts."), PartGetArgs, READ, run_part_get),
    _action("part_define", "Define part", (
        "At most 64 parts, no overlaps; a second call for the same blocks conflicts. Protection is switched on "
        "in game only."), PartDefineArgs, PREPARE, run_part_define),
    _action("camera_list", "List cameras", (
        "camera_capture takes a picture from one."), CameraListArgs, READ, run_camera_list),
    _action("camera_capture", "Capture picture", (
        "Optionally once an operation is applied; or poll a pending capture with capture_id. A completed "
        "capture comes back as a PNG image; pending answers say how to poll. Each call moves the camera and "
        "holds it up to 45 s."), CameraCaptureArgs, _hints(True, False, False), run_camera_capture),
    _action("asset_list", "List schematics", (
        "At most 64 assets, optionally filtered by name. schematic_import_prepare places one."),
        AssetListArgs, READ, run_asset_list),
    _action("schematic_export", "Export schematic", (
        "At most max_plan_blocks, no entities or block entities; every call adds a new asset."),
        SchematicExportArgs, PREPARE, run_schematic_export),
    _action("schematic_import_prepare", "Prepare schematic import", (
        "target is the paste anchor, rotation the clockwise turn; air in the schematic clears blocks. "
        "build_apply applies it."), SchematicImportPrepareArgs, PREPARE, run_schematic_import_prepare),
    _action("terrain_preview", "Preview terrain", (
        "It only fills the server's recipe cache (32 recipes, lost on restart). terrain_prepare prepares one "
        "tile."), TerrainPreviewArgs, READ, run_terrain_preview),
    _action("terrain_prepare", "Prepare terrain tile", (
        "One tile per call. An expired terrain_id is not_found: preview the recipe again. build_apply applies "
        "it."), TerrainPrepareArgs, PREPARE, run_terrain_prepare),
    _action("terrain_brush_prepare", "Prepare terrain brush", (
        "The scan box holds at most 4096 cells; returns a preview image and, when something changes, a plan for"
        " build_apply."), TerrainBrushPrepareArgs, PREPARE, run_terrain_brush_prepare),
]

__all__ = ["PLUGIN_REMEDIES", "RPC_ACTIONS", "refusal_codes", "refusal_for", "transport_refusal"]
