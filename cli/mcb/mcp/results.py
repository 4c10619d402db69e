"""tools/call results: structuredContent plus its compact JSON text copy, images as image items (MCP-37..39).

A result over the text cap is never cut short: it becomes a `context_limit` refusal, with a narrowing `retry_with`
when the call's own arguments show one (a summary instead of blocks, a smaller limit).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from mcb.images import MAX_IMAGE_BASE64, is_png
from mcb.mcp.actions import Outcome, Refusal
from mcb.mcp.refusals import REMEDY_FIELDS

MAX_REFUSAL_BYTES = 32 * 1024


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def success(outcome: Outcome, *, cap_bytes: int, arguments: dict[str, Any], tool: str) -> dict[str, Any]:
    if not isinstance(outcome, Outcome) or not isinstance(outcome.data, dict):
        raise TypeError(f"{tool} returned {type(outcome).__name__}, not an Outcome with a dict")
    text = compact(outcome.data)
    size = len(text.encode("utf-8"))
    if size > cap_bytes:
        raise context_limit(tool, size, cap_bytes, arguments, outcome.data)
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for image in outcome.images:
        encoded = base64.b64encode(image.png).decode("ascii")
        if not is_png(image.png) or len(encoded) > MAX_IMAGE_BASE64:
            raise Refusal(
                "invalid_image",
                f"{tool} produced an image that is not a PNG of at most {MAX_IMAGE_BASE64} base64 characters",
                remedy="no call can fix this picture",
                data={"no_remedy": "the picture itself is broken or too large"},
            )
        content.append({"type": "image", "data": encoded, "mimeType": "image/png"})
    result = {"content": content, "structuredContent": outcome.data, "isError": False}
    if outcome.meta:
        result["_meta"] = dict(outcome.meta)
    return result


def context_limit(
    tool: str, size: int, cap: int, arguments: dict[str, Any], data: dict[str, Any] | None = None
) -> Refusal:
    """MCP-39: over the cap. Only a narrowing known to fit is offered: detail='summary', or for a paged answer the
    largest `limit` whose page fits, measured on the answer itself (its fixed part plus the first items)."""
    narrowing = {"detail": "summary"} if arguments.get("detail") not in (None, "summary") else None
    facts: dict[str, Any] = {"result_bytes": size, "cap_bytes": cap}
    if narrowing is None and data is not None:
        fitting = _fitting_limit(data, cap)
        if fitting is not None:
            narrowing = {"limit": fitting, **({"offset": arguments["offset"]} if "offset" in arguments else {})}
    if narrowing is None:
        facts["no_remedy"] = (
            "no argument makes this answer fit (even one item of a page is too large): restart "
            "mcb mcp with a larger --max-result-kb, or ask another tool for less"
        )
        remedy = "this answer cannot be narrowed to fit the cap"
    else:
        remedy = "ask for less: " + ", ".join(f"{key}={value!r}" for key, value in narrowing.items())
    return Refusal(
        "context_limit",
        f"the {tool} result is {size:,} bytes, over the {cap:,}-byte cap",
        remedy=remedy,
        retry_with=narrowing,
        data=facts,
    )


PAGE_MARGIN = 160  # room for has_more, next_offset and hint, which a shorter page adds


def _fitting_limit(data: dict[str, Any], cap: int) -> int | None:
    """The largest page size that fits under ``cap`` for a paged answer (``returned`` items in one list)."""
    returned = data.get("returned")
    if not isinstance(returned, int) or returned < 2:
        return None
    key = next((k for k, v in data.items() if isinstance(v, list) and len(v) == returned), None)
    if key is None:
        return None
    items = data[key]
    fixed = len(compact({**data, key: []}).encode("utf-8")) + PAGE_MARGIN
    total, fits = fixed, 0
    for item in items:
        total += len(compact(item).encode("utf-8")) + 1
        if total > cap:
            break
        fits += 1
    return fits if 1 <= fits < returned else None


def refusal(error: Refusal, *, repeated: dict | None = None) -> dict[str, Any]:
    body = error.to_dict()
    if repeated:
        body["error"]["data"]["repeated"] = repeated
    text = compact(body)
    if len(text.encode("utf-8")) > MAX_REFUSAL_BYTES:
        data = body["error"]["data"]
        kept = {key: data[key] for key in ("remedy", *REMEDY_FIELDS) if key in data and len(compact(data[key])) < 4096}
        kept["trimmed"] = True
        body = {"error": {"code": error.code, "message": error.message[:2000], "data": kept}}
        text = compact(body)
    return {"content": [{"type": "text", "text": text}], "structuredContent": body, "isError": True}


def internal(tool: str, error: BaseException) -> Refusal:
    """A handler exception (MCP-44). An mcb error keeps its own sentence, which says what went wrong."""
    from mcb.errors import McbError

    said = f": {error.message}" if isinstance(error, McbError) else f" ({type(error).__name__})"
    return Refusal(
        "internal",
        f"{tool} failed inside mcb{said}; this is a bug in mcb",
        remedy="report it with the traceback from mcb mcp's stderr",
    )


def follow_field(error: Refusal) -> str:
    data = error.to_dict()["error"]["data"]
    return next((name for name in REMEDY_FIELDS if name in data), "remedy")
