"""Line framing and JSON-RPC shape checks for the stdio transport (MCP-1..MCP-8).

One message per line. `decode_line` turns raw bytes into a message dict or the error reply the line deserves;
`encode` writes one compact UTF-8 line. No MCP semantics here: eras, methods and tools live in `session.py`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mcb.fileio import loads_json

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002  # legacy era only (MCP-62)
UNSUPPORTED_VERSION = -32022


class ProtocolError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


@dataclass
class Decoded:
    """What one input line amounts to: a message to serve, an error to answer, or nothing."""

    message: dict | None = None
    error: dict | None = None  # a complete JSON-RPC error response
    stop: bool = False  # the session must end after answering (a Content-Length header, MCP-2)


def error_response(request_id: Any, code: int, message: str, data: Any = None) -> dict:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def legal_id(value: Any) -> bool:
    """A request id is a string or an integer (never a bool, a float, null or a container)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class TooLongNumber(float):
    """An integer literal longer than Python converts (``sys.get_int_max_str_digits()``, 4,300 digits): kept as an
    infinite number, so it is no legal id or token, and a tool call holding it is refused naming the argument
    (:func:`mcb.mcp.arguments.parse_arguments`), never with Python's words about its conversion limit."""

    digits: int

    def __new__(cls, text: str):
        number = super().__new__(cls, "-inf" if text.startswith("-") else "inf")
        number.digits = len(text.lstrip("-"))
        return number


def _integer(text: str):
    import sys

    limit = sys.get_int_max_str_digits()
    return TooLongNumber(text) if limit and len(text.lstrip("-")) > limit else int(text)


def decode_line(raw: bytes) -> Decoded:
    line = raw.rstrip(b"\n").rstrip(b"\r")
    if not line.strip():
        return Decoded()
    if line.lstrip()[:15].lower() == b"content-length:":
        return Decoded(
            error=error_response(
                None, PARSE_ERROR, "Content-Length framing is not supported: send one JSON object per line"
            ),
            stop=True,
        )
    try:
        text = line.decode("utf-8")
        value = loads_json(text, parse_int=_integer)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        return Decoded(error=error_response(None, PARSE_ERROR, f"Parse error: {_reason(error)}"))
    if isinstance(value, list):
        return Decoded(error=error_response(None, INVALID_REQUEST, "JSON-RPC batches are not supported"))
    if not isinstance(value, dict):
        return Decoded(error=error_response(None, INVALID_REQUEST, "a message must be a JSON object"))
    has_id = "id" in value
    request_id = value.get("id")
    echo = request_id if has_id and legal_id(request_id) else None
    if value.get("jsonrpc") != "2.0":
        return Decoded(error=error_response(echo, INVALID_REQUEST, 'jsonrpc must be "2.0"'))
    if "method" not in value:
        # A response or junk: mcb never sends requests, so nothing is waiting for a response.
        if has_id and ("result" in value or "error" in value):
            return Decoded()
        return Decoded(error=error_response(echo, INVALID_REQUEST, "a request needs a method"))
    if not isinstance(value["method"], str):
        return Decoded(error=error_response(echo, INVALID_REQUEST, "method must be a string"))
    if has_id and not legal_id(request_id):
        return Decoded(error=error_response(None, INVALID_REQUEST, "id must be a string or an integer"))
    if "params" in value and not isinstance(value["params"], (dict, list)):
        return Decoded(error=error_response(echo, INVALID_REQUEST, "params must be an object or an array"))
    return Decoded(message=value)


def _reason(error: Exception) -> str:
    if isinstance(error, UnicodeDecodeError):
        return "the line is not valid UTF-8"
    if isinstance(error, RecursionError):
        return "nesting too deep"
    return str(error).split(":")[0] if isinstance(error, json.JSONDecodeError) else str(error)


# Line breaks to str.splitlines() that json leaves raw with ensure_ascii=False (it escapes only U+0000..U+001F).
# Compact JSON has them only inside strings, where the escape means the same character.
_LINE_BREAKS = str.maketrans({"\u0085": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def encode(message: dict) -> bytes:
    """One compact UTF-8 line that every line splitter sees as one line: json escapes newlines and control
    characters inside strings, and U+0085, U+2028 and U+2029 are escaped here (MCP-1)."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).translate(_LINE_BREAKS)
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate from an escaped input string: keep it escaped
        return json.dumps(message, separators=(",", ":"), allow_nan=False).encode("ascii") + b"\n"
