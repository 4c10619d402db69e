"""How the RPC tools shape the plugin's answers (mcp-conventions §1.5): follow_up (MCP-42), images (MCP-38), the
result cap's narrowing retry_with (MCP-39, §2.4 budget_exceeded) and a poll that failed after an apply started."""

from __future__ import annotations

import json

from mcb.mcp.actions import Context, Image, Outcome, Refusal
from mcb.mcp.refusals import REMEDY_FIELDS, default_refusal


def wire_pos(value) -> dict[str, int] | None:
    return None if value is None else value.wire()


def apply_follow_up(plan: dict, reason: str = "review the plan summary, then apply it") -> list[dict]:
    """``follow_up`` for a prepared plan (MCP-42); the caller picks one stable idempotency_key for it."""
    if not plan.get("plan_id") or not plan.get("plan_hash"):
        return []
    return [
        {
            "work": "apply",
            "tool": "build_apply",
            "arguments": {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"]},
            "reason": reason + " with build_apply and one stable idempotency_key (reuse it after a lost answer)",
        }
    ]


def poll_follow_up(status: dict) -> list[dict]:
    from mcb.client.models import TERMINAL_STATUSES

    if not status.get("operation_id") or status.get("status") in TERMINAL_STATUSES:
        return []
    return [
        {
            "work": "poll",
            "tool": "operation_status",
            "arguments": {"operation_id": status["operation_id"]},
            "reason": f"the operation is {status.get('status')}; poll until applied, conflict, failed, cancelled or "
            "recovery_required",
        }
    ]


def with_follow_up(data: dict, follow_up: list[dict]) -> dict:
    if follow_up:
        data["follow_up"] = follow_up
    return data


def image_outcome(method: str, data: dict, caption: str) -> Outcome:
    """MCP-38: ``imageBase64``/``mimeType`` leave the JSON and become one PNG image; broken data is refused."""
    encoded = data.pop("imageBase64", None)
    mime = data.pop("mimeType", None)
    if encoded is None:
        return Outcome(data)
    from mcb.errors import ServerError
    from mcb.images import png_from_base64

    try:
        if data.get("status") != "completed":
            raise ServerError(
                f"{method}: an image came with status {data.get('status')!r}, not 'completed'", code="invalid_image"
            )
        png = png_from_base64(method, encoded, mime)
    except ServerError as error:
        raise default_refusal("invalid_image", error.message, extra={"status": data.get("status")}) from None
    return Outcome(data, [Image(png=png, caption=caption)])


def result_cap(ctx: Context) -> int | None:
    """The face's cap on one text item, when its Context tells (``max_result_bytes``); else the face checks alone."""
    cap = getattr(ctx, "max_result_bytes", None)
    return cap if isinstance(cap, int) and cap > 0 else None


def json_size(data: dict) -> int:
    return len(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def narrower_box(args, limit: int | None = None) -> dict:
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
    while root**degree > value:
        root -= 1
    while (root + 1) ** degree <= value:
        root += 1
    return root


READ_LIMIT_BLOCKS = 4096  # protocol §3.4: region_inspect's fixed limit, when the message does not say


def box_limit(refusal: Refusal) -> int:
    """The block limit the server states in its refusal ("Read at most 4096 blocks per request", "Export at most
    N blocks", N = max_plan_blocks), which the refusal table reads into ``limit``."""
    return int(refusal.data.get("limit") or READ_LIMIT_BLOCKS)


def narrowed(refusal: Refusal, retry_with: dict) -> Refusal:
    """The same refusal with a narrowing ``retry_with`` (§2.4 budget_exceeded: "a narrowing retry_with when known")."""
    data = {k: v for k, v in refusal.data.items() if k != "no_remedy"}
    return Refusal(
        refusal.code,
        refusal.message,
        remedy=refusal.remedy,
        field=refusal.field,
        did_you_mean=refusal.did_you_mean,
        retry_with=retry_with,
        data=data,
    )


def box_too_big(refusal: Refusal) -> bool:
    return refusal.code == "budget_exceeded" and "limit" in refusal.data


def poll_failed(operation_id: str, refusal: Refusal) -> Refusal:
    """A poll failed after build_apply started the operation: the one remedy is to poll it again. The poll's own
    remedies (retry_after_ms, retry_with, restart_with ... 'send the same call again') would invite a second apply."""
    poll = {
        "tool": "operation_status",
        "arguments": {"operation_id": operation_id},
        "reason": "the operation started and runs on the server; polling it failed",
    }
    facts = {key: value for key, value in refusal.data.items() if key not in REMEDY_FIELDS}
    data = {**facts, "operation_id": operation_id, "operation_started": True, "next_call": poll}
    remedy = (
        f"operation {operation_id} started and runs on the server; follow it with operation_status "
        "(next_call), and do not apply the plan again"
    )
    return Refusal(
        refusal.code, f"build_apply started operation {operation_id}, then {refusal.message}", remedy=remedy, data=data
    )
