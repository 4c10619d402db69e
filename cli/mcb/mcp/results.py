"""tools/call results: structuredContent plus its compact JSON text copy, images as image items (MCP-37..39).

A result over the text cap is never cut short: it becomes a `context_limit` refusal, with a narrowing `retry_with`
when the call's own arguments show one (a summary instead of blocks, a smaller limit).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from mcb.catalog.base import Outcome, Refusal

MAX_IMAGE_BASE64 = 12_000_000
MAX_REFUSAL_BYTES = 32 * 1024
REMEDY_FIELDS = ("retry_with", "field", "next_call", "restart_with", "retry_after_ms", "no_remedy")


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def success(outcome: Outcome, *, cap_bytes: int, arguments: dict[str, Any], tool: str) -> dict[str, Any]:
    if not isinstance(outcome, Outcome) or not isinstance(outcome.data, dict):
        raise TypeError(f"{tool} returned {type(outcome).__name__}, not an Outcome with a dict")
    text = compact(outcome.data)
    size = len(text.encode("utf-8"))
    if size > cap_bytes:
        raise context_limit(tool, size, cap_bytes, arguments)
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for image in outcome.images:
        encoded = base64.b64encode(image.png).decode("ascii")
        if not image.png.startswith(b"\x89PNG\r\n\x1a\n") or len(encoded) > MAX_IMAGE_BASE64:
            raise Refusal("invalid_image", f"{tool} produced an image that is not a PNG of at most "
                          f"{MAX_IMAGE_BASE64} base64 characters", remedy="no call can fix this picture",
                          data={"no_remedy": "the picture itself is broken or too large"})
        content.append({"type": "image", "data": encoded, "mimeType": "image/png"})
    result = {"content": content, "structuredContent": outcome.data, "isError": False}
    if outcome.meta:
        result["_meta"] = dict(outcome.meta)
    return result


def context_limit(tool: str, size: int, cap: int, arguments: dict[str, Any]) -> Refusal:
    # Only a narrowing known to shrink the answer is offered; tools that know better refuse before this cap.
    narrowing = {"detail": "summary"} if arguments.get("detail") not in (None, "summary") else None
    data: dict[str, Any] = {"bytes": size, "limit_bytes": cap}
    if narrowing is None:
        data["no_remedy"] = ("no argument is known to make this answer fit; ask for a smaller page (limit, offset) "
                             "or selection, or restart mcb mcp with a larger --max-result-kb")
    return Refusal("context_limit", f"the {tool} result is {size} bytes, over the {cap}-byte cap",
                   remedy="ask for less: " + ("detail='summary'" if narrowing else "a smaller page or selection"),
                   retry_with=narrowing, data=data)


def refusal(error: Refusal, *, repeated: dict | None = None) -> dict[str, Any]:
    body = error.to_dict()
    if repeated:
        body["error"]["repeated"] = repeated
    text = compact(body)
    if len(text.encode("utf-8")) > MAX_REFUSAL_BYTES:
        kept = {key: body["error"][key] for key in ("code", "message", "remedy", "field", "retry_with")
                if key in body["error"]}
        kept["message"] = kept["message"][:2000]
        kept["trimmed"] = True
        body = {"error": kept}
        text = compact(body)
    return {"content": [{"type": "text", "text": text}], "structuredContent": body, "isError": True}


def internal(tool: str, error: BaseException) -> Refusal:
    """A handler exception (MCP-44). An mcb error keeps its own sentence, which says what went wrong."""
    from mcb.errors import McbError

    said = f": {error.message}" if isinstance(error, McbError) else f" ({type(error).__name__})"
    return Refusal("internal", f"{tool} failed inside mcb{said}; this is a bug in mcb",
                   remedy="report it with the traceback from mcb mcp's stderr")


def follow_field(error: Refusal) -> str:
    body = error.to_dict()["error"]
    return next((name for name in REMEDY_FIELDS if name in body), "remedy")
