"""RPC errors: the one exception type handlers raise, and the HTTP status rule (protocol §1.4, §9)."""

from __future__ import annotations

MAX_MESSAGE_CHARS = 600


class RpcError(Exception):
    """A protocol error: ``code`` is the wire code (``invalid_request``, ``busy``, ...), ``message`` the exact text.

    The HTTP layer turns it into ``{"ok":false,"error":{"code","message"}}`` with status 403 for
    ``permission_denied`` and 400 for everything else; the message is cut at 600 characters.
    """

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"RpcError({self.code!r}, {self.message!r})"


def http_status(code: str) -> int:
    return 403 if code == "permission_denied" else 400


def error_body(code: str, message: str) -> dict:
    return {"ok": False, "error": {"code": code, "message": str(message)[:MAX_MESSAGE_CHARS]}}


def invalid(message: str) -> RpcError:
    return RpcError("invalid_request", message)
