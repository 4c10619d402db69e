"""The Context one tools/call hands to its action: client, progress, cancellation, created files (MCP-45..49)."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcb.mcp.actions import Cancelled

log = logging.getLogger("mcb.mcp")
PROGRESS_INTERVAL = 0.1  # at most 10 notifications a second


class CallContext:
    """Valid for one call only; ``cancelled`` is set when the client sends notifications/cancelled."""

    def __init__(
        self,
        *,
        progress_token: Any,
        notify: Callable[[dict], None],
        make_client: Callable[[], Any],
        max_result_bytes: int = 64 * 1024,
    ) -> None:
        self.cancelled = threading.Event()
        self._renaming = threading.Lock()  # held around an atomic write's check and rename (see renaming())
        self.replaced_files = False  # an atomic write of this call has replaced its target
        self.max_result_bytes = max_result_bytes
        self._token = progress_token
        self._notify = notify
        self._make_client = make_client
        self._client: Any = None
        self._created: list[Path] = []
        self._last_progress: float | None = None
        self._last_sent = 0.0
        self._lock = threading.Lock()
        self.repeats = 0  # requests the client sent again after a lost answer (reads only, MCP-55)
        # The time.monotonic() by which the call must answer (None: no deadline): no request it sends, busy retries
        # included, runs past it (MCP-56).
        self.deadline: float | None = None

    def note_repeats(self, count: int) -> None:
        self.repeats += count

    def client(self) -> Any:
        self.check_cancelled()
        if self._client is None:
            self._client = self._make_client() if self.deadline is None else self._make_client(self.deadline)
            if self.cancelled.is_set():  # cancel() ran while the client was being built
                self._stop_client()
        return self._client

    def cancel(self) -> None:
        """Stop the call from another thread: its next check raises Cancelled and an HTTP exchange in flight
        ends at once (MCP-47/48); nothing is sent again after that. A rename under way finishes first."""
        with self._renaming:
            self.cancelled.set()
        self._stop_client()

    def cancel_unless_replaced(self) -> bool:
        """:meth:`cancel`, unless a file of this call has been replaced already: then False, and the call goes on
        to its answer (its work is done and shows; MCP lets a finished request ignore a cancel)."""
        with self._renaming:
            if self.replaced_files:
                return False
            self.cancelled.set()
        self._stop_client()
        return True

    @contextlib.contextmanager
    def renaming(self):
        """Around an atomic write's rename (mcb.fileio.cancellable_writes): the cancel check and the rename are one
        step to a cancel from another thread, which comes before it (the rename is called off) or after it (the
        file is replaced), never between (D1: a cancel a few ms after an in-place rotate rewrote it anyway)."""
        with self._renaming:
            self.check_cancelled()
            yield
            self.replaced_files = True

    def _stop_client(self) -> None:
        transport = getattr(self._client, "transport", None)
        if transport is not None and hasattr(transport, "stop"):
            transport.stop()

    @property
    def server(self) -> str | None:
        """The server URL of the client this call built, if it built one (for the plugin probe)."""
        return getattr(self._client, "server", None)

    def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        if self._token is None or self.cancelled.is_set():
            return
        now = time.monotonic()
        with self._lock:
            if self._last_progress is not None and (
                done <= self._last_progress or now - self._last_sent < PROGRESS_INTERVAL
            ):
                return
            self._last_progress, self._last_sent = done, now
            params: dict[str, Any] = {"progressToken": self._token, "progress": done}
            if total is not None:
                params["total"] = total
            if message:
                params["message"] = message
            self._notify({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})

    def check_cancelled(self) -> None:
        if self.cancelled.is_set():
            raise Cancelled()

    def created(self, path: Path) -> None:
        self._created.append(Path(path))

    def remove_created(self) -> list[Path]:
        """Delete exactly the files this call recorded (newest first); nothing else is touched."""
        removed = []
        for path in reversed(self._created):
            try:
                path.unlink()
                removed.append(path)
            except FileNotFoundError:
                pass
            except OSError as error:
                log.warning("could not remove %s after the call ended: %s", path, error)
        self._created.clear()
        return removed

    def close(self) -> None:
        if self._client is not None:
            try:
                self._client.close()
            except Exception:  # closing a client must never hide the call's own result
                log.debug("closing the RPC client failed", exc_info=True)
            self._client = None


def client_factory(settings_loader: Callable[[], Any]) -> Callable[[], Any]:
    """Builds the CLI's RPC client from the CLI's settings with the agent token only (never the admin token).

    A broken configuration raises ConfigError and a missing agent token makes the client raise AuthError
    (no_token) on its first call; the RPC catalog turns both into refusals with restart_with (catalog/remedies.py).
    """

    def make(deadline: float | None = None) -> Any:
        from mcb.client import McbClient
        from mcb.client.retry import RetryPolicy
        from mcb.mcp.refusals import bridge_response_limit

        settings = settings_loader()
        # MCP-54: through the MCP face a write is never repeated automatically; the refusal offers the identical
        # call (same idempotency key) as retry_with instead. A read's one repeat gets a budget of its own (MCP-55).
        # MCP-56: busy is retried until the tool call's own deadline. MCP-57: the bridge's answer limits.
        return McbClient.from_settings(
            settings.model_copy(update={"admin_token": None}),
            retry=RetryPolicy(replays=0, fresh_read_budget=True, busy_to_cap=True),
            ends_by=deadline,
            response_limit=bridge_response_limit,
        )

    return make
