"""Turn the plugin's error envelope into :mod:`mcb.errors` types, through the one refusal table (mcb.refusals).

The server folds many engine conditions into ``invalid_request`` and tells them apart only by a message prefix
(protocol §1.4); the table reads both. ``.code`` always carries the protocol's own code; a refined reason
(``operation_active``, ``plan_expired`` ...) goes into ``details["reason"]`` and the server's own words into
``details["server_message"]``, for scripts and for mcb mcp, which reads the same table (never this text).
"""

from __future__ import annotations

from mcb.errors import AuthError, ConflictError, ExitCode, McbError, NetworkError, ServerError, escaped
from mcb.refusals import explain, plain_positions

_CLASSES = {"auth": AuthError, "conflict": ConflictError, "server": ServerError, "network": NetworkError}


def error_from_envelope(method: str, code: str, message: str) -> McbError:
    """The :class:`McbError` for one ``{"ok":false,"error":{code,message}}`` answer to ``method``."""
    known = explain(method, code, message)
    details = {"method": method, "server_message": message}
    if known.remedy.reason:
        details["reason"] = known.remedy.reason
    text = f"{method}: {known.words}" if known.words else f"{method}: {code}: {escaped(plain_positions(message))}"
    return _CLASSES[known.remedy.kind](text, hint=known.hint, code=code, details=details)


def is_busy(method: str, code: str, message: str) -> bool:
    """True for the retryable journal/engine latch (§1.7, §13); not for the misleading ``busy`` codes (a part
    that waits for its operation, the 45 s camera lock), which retrying cannot help."""
    return explain(method, code, message).remedy.transient


# -- transport failures (no complete answer) ------------------------------------------------------------------
TRANSPORT_REASONS = ("peer_closed", "deadline", "io_error", "stopped")


class TransportError(NetworkError):
    """An HTTP exchange that ended without a complete answer, with what is known about it (spec MCP-52).

    ``request_started`` is False only when no byte can have left (connection refused, connect timeout);
    ``outcome_unknown`` means the request started and no full answer came back, so a write may have happened;
    ``timed_out`` is True only for ``reason == "deadline"`` (mcb's budget ran out), never for a peer that hung up;
    ``waited_ms`` is how long the last exchange waited. The same fields are in ``details["transport"]``.
    """

    def __init__(
        self,
        message: str,
        *,
        method: str = "",
        request_started: bool | None = None,
        reason: str | None = None,
        waited_ms: int | None = None,
        hint: str | None = None,
        repeated: bool | None = None,
        code: str | None = None,
        details: dict | None = None,
    ):
        # The plain McbError signature (message, hint, code, details) works too: a caller that re-raises with a
        # new message keeps the transport fields from ``details["transport"]``.
        known = dict((details or {}).get("transport") or {})
        reason = reason or known.get("reason", "io_error")
        if reason not in TRANSPORT_REASONS:
            raise ValueError(f"unknown transport failure reason {reason!r}")
        self.method = method or (details or {}).get("method", "")
        self.request_started = known.get("request_started", True) if request_started is None else request_started
        self.outcome_unknown = self.request_started
        self.timed_out = reason == "deadline"
        self.reason = reason
        self.waited_ms = known.get("waited_ms", 0) if waited_ms is None else waited_ms
        self.repeated = known.get("repeated", False) if repeated is None else repeated
        super().__init__(
            message,
            hint=hint,
            code=code or "network",
            details={**(details or {}), "method": self.method, "transport": self.fields()},
        )

    def fields(self) -> dict:
        data = {
            "request_started": self.request_started,
            "outcome_unknown": self.outcome_unknown,
            "timed_out": self.timed_out,
            "reason": self.reason,
            "waited_ms": self.waited_ms,
        }
        if self.repeated:
            data["repeated"] = True
        return data

    def mark_repeated(self) -> None:
        """This exchange repeated one that may have reached the server: its outcome is unknown, whatever this one
        saw (a refused connection included)."""
        self.request_started = self.outcome_unknown = self.repeated = True
        self.details["transport"] = self.fields()

    def to_json(self) -> dict:
        self.details["transport"] = self.fields()
        return super().to_json()


class Interrupted(McbError):
    """Ctrl-C while waiting on the server, with what is known (the operation id) and how to pick it up again."""

    exit_code = ExitCode.INTERRUPTED
    kind = "interrupted"
