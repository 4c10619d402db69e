"""Turn the plugin's error envelope into :mod:`mcb.errors` types.

The server folds many engine conditions into ``invalid_request`` and tells them apart only by a message prefix
(protocol §1.4), so the mapping looks at both. ``.code`` always carries the protocol's own code; a refined reason
(``operation_active``, ``plan_expired`` ...) goes into ``details["reason"]`` for scripts that need it.
"""

from __future__ import annotations

from mcb.errors import AuthError, ConflictError, McbError, NetworkError, ServerError

# Protocol codes that mean "the world or plan moved under you / try again later" (exit 7).
CONFLICT_CODES = frozenset({
    "conflict", "stale_snapshot", "busy", "recovery_required", "version_mismatch", "cancelled", "stale_cursor",
})

# invalid_request messages that are really conflicts, by prefix → refined reason.
CONFLICT_MESSAGE_PREFIXES = (
    ("busy:", "operation_active"),
    ("recovery_required:", "recovery_required"),
    ("Plan expired", "plan_expired"),
    ("Idempotency key belongs to another plan", "idempotency_key_reused"),
    ("Undo conflict", "undo_conflict"),
    ("Recovery mask changed", "recovery_mask_changed"),
)

HINTS = {
    "permission_denied": "check the token (MCB_AGENT_TOKEN / MCB_TOKEN) and MCB_PLAYER_ID; "
    "run `mcb config show` to see which values are in effect",
    "stale_snapshot": "the world or plan changed since it was prepared; prepare again from fresh reads",
    "plan_expired": "plans live 10 minutes; prepare again",
    "operation_active": "another operation is still running; wait for it (`mcb context`) and retry",
    # mcb.client.workflow.recovery_hint names the real operation once it is known
    "recovery_required": "an interrupted operation needs review: `mcb context` shows it, then `mcb recovery review "
    "OPERATION_ID` (admin)",
    "idempotency_key_reused": "use a new idempotency key for a different plan",
    "busy": "the server is busy; retry in a moment",
    "cancelled": "writes are paused in game (/ai stop); run /ai resume",
    "version_mismatch": "the project or world changed; prepare again",
    "out_of_bounds": "keep coordinates inside the project area (`mcb context` shows it)",
    "chunk_not_loaded": "visit or load the target chunks in game first",
    "unsupported_method": "the server does not know this method; `mcb context` lists its capabilities",
    "camera_unavailable": "no spectator camera is configured or online on the server",
    "timeout": "the server's main thread took too long; check `mcb status` before retrying a write",
}


# invalid_request messages a user meets by mistyping an id, by prefix → hint.
MESSAGE_HINTS = (
    ("Unknown operation", "operation ids are printed by `mcb build` and `mcb apply`; `mcb context` lists the recent "
     "ones"),
    ("Unknown plan", "plan ids are printed by `mcb prepare` (or saved with -o); plans live 10 minutes, then prepare "
     "again"),
)


def refined_reason(code: str, message: str) -> str | None:
    if code == "invalid_request":
        for prefix, reason in CONFLICT_MESSAGE_PREFIXES:
            if message.startswith(prefix):
                return reason
    return None


def error_from_envelope(method: str, code: str, message: str) -> McbError:
    """The :class:`McbError` for one ``{"ok":false,"error":{code,message}}`` answer to ``method``."""
    reason = refined_reason(code, message)
    details = {"method": method}
    if reason:
        details["reason"] = reason
    hint = HINTS.get(reason or "") or HINTS.get(code)
    if code == "invalid_request" and hint is None:
        hint = next((h for prefix, h in MESSAGE_HINTS if message.startswith(prefix)), None)
    text = f"{method}: {code}: {message}"
    if code == "permission_denied":
        return AuthError(text, hint=hint, code=code, details=details)
    if code in CONFLICT_CODES or reason:
        return ConflictError(text, hint=hint, code=code, details=details)
    return ServerError(text, hint=hint, code=code, details=details)


def is_busy(code: str, message: str) -> bool:
    """True for the retryable journal/engine latch (§1.7, §13); not for misleading ``busy`` codes."""
    if code == "busy":
        # part_define answers `busy` for "not applied yet" and the camera lock lasts 45 s: retrying cannot help.
        return not message.startswith(("Part requires", "A capture is already in progress"))
    return code == "invalid_request" and message.startswith("busy:")


# -- transport failures (no complete answer) ------------------------------------------------------------------
TRANSPORT_REASONS = ("peer_closed", "deadline", "io_error", "stopped")


class TransportError(NetworkError):
    """An HTTP exchange that ended without a complete answer, with what is known about it (spec MCP-52).

    ``request_started`` is False only when no byte can have left (connection refused, connect timeout);
    ``outcome_unknown`` means the request started and no full answer came back, so a write may have happened;
    ``timed_out`` is True only for ``reason == "deadline"`` (mcb's budget ran out), never for a peer that hung up;
    ``waited_ms`` is how long the last exchange waited. The same fields are in ``details["transport"]``.
    """

    def __init__(self, message: str, *, method: str = "", request_started: bool | None = None,
                 reason: str | None = None, waited_ms: int | None = None, hint: str | None = None,
                 repeated: bool | None = None, code: str | None = None, details: dict | None = None):
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
        super().__init__(message, hint=hint, code=code or "network",
                         details={**(details or {}), "method": self.method, "transport": self.fields()})

    def fields(self) -> dict:
        data = {"request_started": self.request_started, "outcome_unknown": self.outcome_unknown,
                "timed_out": self.timed_out, "reason": self.reason, "waited_ms": self.waited_ms}
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

    exit_code = 130
    kind = "interrupted"
