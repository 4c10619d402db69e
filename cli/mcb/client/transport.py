"""HTTP transport for the plugin's JSON RPC: envelope, timeouts, retries and error mapping.

Retries follow the one policy of :mod:`mcb.client.retry` (connections never opened, transient `busy`, a lost
answer to a read, build_apply replayed with its key), and nothing else is ever sent twice.

Budgets: a call's timeout is a *total* budget (every attempt and every retry fit inside it, and every socket wait
while the head or the body still arrives: :mod:`mcb.client.deadline`), by default short for ``/health`` and reads
and longer for writes; ``--timeout`` / a profile's ``timeout`` replaces all of them. A failure
without a complete answer is a :class:`mcb.client.errors.TransportError` saying what is known about the exchange.
"""

from __future__ import annotations

import json
import socket
import time
import uuid
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from mcb.client.errors import TransportError, error_from_envelope, is_busy
from mcb.client.retry import RetryPolicy
from mcb.errors import McbError, ServerError
from mcb.fileio import loads_json
from mcb.redact import redact_url, redact_urls_in
from mcb.refusals import NOT_REACHED, READ_ONLY_METHODS, code_hint, unknown_outcome
from mcb.wording import plural

DEFAULT_TIMEOUT = 30.0  # writes: above the server's 20 s main-thread limit
READ_TIMEOUT = 15.0  # reads: the plugin bridge's own HTTP budget
HEALTH_TIMEOUT = 3.0  # /health does no world work: a server that does not answer within 3 s is not usable
CAMERA_TIMEOUT = 60.0
CONNECT_TIMEOUT = 3.0
MAX_RESPONSE_BYTES = 32 * 1024 * 1024  # camera PNGs come base64-encoded, up to ~11 MiB

Logger = Callable[[str], None]


class RawJson(str):
    """A params value that is JSON text already (a build's 4096-entry ``expected_blocks``): sent as it is, so the
    caller need not build dicts only for them to be serialised."""


def encode_envelope(envelope: dict) -> bytes:
    """The request body: compact JSON, UTF-8; :class:`RawJson` param values are spliced in unchanged."""
    params = envelope.get("params") or {}
    raw = {key: value for key, value in params.items() if isinstance(value, RawJson)}
    marks = {key: f"\x00raw-{uuid.uuid4().hex}" for key in raw}
    if raw:
        envelope = {**envelope, "params": {**params, **marks}}

    def spliced(text: str) -> str:
        for key, value in raw.items():
            text = text.replace(json.dumps(marks[key]), value, 1)
        return text

    try:
        return spliced(json.dumps(envelope, separators=(",", ":"), ensure_ascii=False)).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (a "\ud800" escape, an undecodable argv byte): send it escaped
        return spliced(json.dumps(envelope, separators=(",", ":"))).encode("ascii")


def default_budget(method: str) -> float:
    """The total seconds a call to ``method`` may take when no ``--timeout`` is configured."""
    return READ_TIMEOUT if method in READ_ONLY_METHODS else DEFAULT_TIMEOUT


class RpcTransport:
    """One keep-alive HTTP connection pool to one server; safe to reuse for many calls."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float | None = None,
        log: Logger | None = None,
        secrets: Iterable[str] = (),
        retry: RetryPolicy | None = None,
        ends_by: float | None = None,
        response_limit: Callable[[str], int] | None = None,
    ):
        import httpx

        from mcb.client.deadline import DeadlineTransport, deadline

        self.base_url = base_url.rstrip("/")
        self.shown_url = redact_url(self.base_url)
        self.timeout = timeout  # None: the per-kind default budgets
        self._log = log
        self._secrets = [s for s in secrets if s]
        self.retry = retry or RetryPolicy()
        # No call runs past this time.monotonic() value (None: no cap): the deadline of the tool call it serves (mcb
        # mcp), so a busy server is given up, and a stall reported, while that call can still answer.
        self.ends_by = ends_by
        self.last_repeats = 0  # lost-answer repeats of the last call
        # The most bytes a method's answer may have (None: MAX_RESPONSE_BYTES); mcb mcp holds the bridge's limits.
        self.response_limit = response_limit
        self.retries_done = 0  # every retry (connects, busy, lost answers), for tests and --verbose summaries
        self._stopped = False
        self._streams: weakref.WeakSet = weakref.WeakSet()  # connections opened, so stop() can end them
        self._httpx = httpx
        self._deadline = deadline  # `with self._deadline(at):` bounds every socket wait of a request by `at`
        self._client = httpx.Client(
            # Every socket wait ends by the call's deadline (a server trickling bytes gets no more than the budget);
            # no connect retries of its own, and no SSL context unless an https:// connection opens.
            transport=DeadlineTransport(),
            timeout=httpx.Timeout(DEFAULT_TIMEOUT, connect=CONNECT_TIMEOUT),
            follow_redirects=False,
            trust_env=False,  # a loopback plugin must never be reached through a proxy from the environment
            headers={"User-Agent": "mcb"},
        )

    # -- public ----------------------------------------------------------------
    def close(self) -> None:
        self._client.close()

    def stop(self) -> None:
        """Abandon calls in flight (from another thread): they fail with reason ``stopped`` at once.

        Closing the pool alone does not wake a thread blocked reading an answer, so every connection this
        transport opened is shut down first (httpcore's public ``trace`` extension hands each one over).
        """
        self._stopped = True
        for stream in list(self._streams):
            _shut_down(stream)
        self._client.close()

    def _note_connection(self, event: str, info: dict) -> None:
        if event == "connection.connect_tcp.complete" and info.get("return_value") is not None:
            self._streams.add(info["return_value"])
            if self._stopped:  # stop() came while this connection was opening
                _shut_down(info["return_value"])

    def health(self) -> dict:
        """``GET /health`` (no authentication), within a short budget."""
        attempts = self.retry.start("health", self.timeout or HEALTH_TIMEOUT, cap=self.ends_by)
        while True:
            started = time.monotonic()
            try:
                with self._deadline(attempts.deadline):
                    response = self._client.get(
                        self.base_url + "/health", timeout=self._httpx_timeout(attempts.deadline - started)
                    )
                break
            except self._httpx.HTTPError as error:
                failure = self._transport_error("health", error, started)
            pause = attempts.after_transport_failure(failure)
            if pause is None:
                raise failure
            self._debug(f"health: connection not opened ({failure.reason}); trying again")
            time.sleep(pause)
        self._debug(f"<- GET /health {response.status_code} in {_ms(started)} ms")
        body = self._decode("health", response.status_code, response.content)
        if response.status_code != 200 or not isinstance(body, dict) or not isinstance(body.get("status"), str):
            raise ServerError(f"health: unexpected answer (HTTP {response.status_code})", code="invalid_response")
        return body

    def call(self, method: str, params: dict, token: str, *, timeout: float | None = None) -> Any:
        """Send one RPC and return its ``result``; raises an :class:`McbError` subclass on any failure.

        ``timeout`` (else the transport's, else :func:`default_budget`) bounds the whole call, retries included.
        """
        envelope = {"method": method, "params": params, "requestId": str(uuid.uuid4())}
        body = encode_envelope(envelope)
        if len(body) > 1_048_576:
            raise McbError(
                f"{method}: request is {plural(len(body), 'byte')}; the server accepts at most 1 MiB",
                code="request_too_large",
                hint=code_hint("request_too_large"),
            )
        attempts = self.retry.start(method, timeout or self.timeout or default_budget(method), cap=self.ends_by)
        self.last_repeats = 0
        busy_seen = 0
        try:
            while True:
                try:
                    status, content = self._post(method, envelope["requestId"], body, token, attempts.deadline)
                except TransportError as error:
                    pause = attempts.after_transport_failure(error)
                    if pause is None:
                        error.hint = _hint(method, error.outcome_unknown)
                        if self.retry.fresh_read_budget and attempts.maybe_delivered:  # the whole wait (MCP-55)
                            error.waited_ms = attempts.waited_ms()
                            error.details["transport"] = error.fields()
                        raise
                    self._debug(
                        f"{method}: {error.reason} after {error.waited_ms} ms; "
                        + (
                            "sending the same request again"
                            if error.request_started
                            else "connection not opened; trying again"
                        )
                    )
                else:
                    result, failure = self._parse(method, status, content)
                    if failure is None:
                        return result
                    code, message = failure
                    pause = attempts.after_busy() if is_busy(method, code, message) else None
                    if pause is None:
                        raise error_from_envelope(method, code, self._redact(message))
                    busy_seen += 1
                    if busy_seen == 1 or busy_seen % 20 == 0:
                        self._debug(f"{method}: {code} ({self._redact(message)[:80]}); retry {busy_seen}")
                time.sleep(pause)
        finally:
            self.last_repeats = attempts.repeats
            self.retries_done += attempts.retries

    # -- internals ---------------------------------------------------------------
    def _httpx_timeout(self, seconds: float):
        seconds = max(seconds, 0.001)
        return self._httpx.Timeout(seconds, connect=min(CONNECT_TIMEOUT, seconds))

    def _post(self, method: str, request_id: str, body: bytes, token: str, deadline: float) -> tuple[int, bytes]:
        httpx = self._httpx
        headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
        self._debug(f"-> POST /v1/rpc {method} requestId={request_id} ({len(body):,} bytes)")
        started = time.monotonic()
        try:
            timeout = self._httpx_timeout(deadline - started)
            limit = self.response_limit(method) if self.response_limit else MAX_RESPONSE_BYTES
            with (
                self._deadline(deadline),
                self._client.stream(
                    "POST",
                    self.base_url + "/v1/rpc",
                    content=body,
                    headers=headers,
                    timeout=timeout,
                    extensions={"trace": self._note_connection},
                ) as response,
            ):
                chunks, size = [], 0
                declared = response.headers.get("Content-Length", "")
                if declared.isdigit() and int(declared) > limit:  # refused before reading it
                    raise _too_large(method, limit)
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > limit:
                        raise _too_large(method, limit)
                    chunks.append(chunk)
                status = response.status_code
        except httpx.HTTPError as error:
            raise self._transport_error(method, error, started) from None
        except RuntimeError as error:  # httpx refuses a closed client: the transport was stopped
            if not self._stopped:
                raise
            raise self._transport_error(method, error, started) from None
        self._debug(f"<- {status} {method} in {_ms(started)} ms ({size:,} bytes)")
        return status, b"".join(chunks)

    def _transport_error(self, method: str, error: Exception, started: float) -> TransportError:
        httpx = self._httpx
        never_sent = isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout))
        if self._stopped:
            reason = "stopped"
        elif isinstance(error, httpx.TimeoutException):
            reason = "deadline"
        elif isinstance(error, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
            reason = "peer_closed"
        else:
            reason = "io_error"
        waited = _ms(started)
        text = "stopped by mcb" if reason == "stopped" else _describe(error)
        if reason == "deadline":
            text += f" ({waited / 1000:.1f} s)"
        return TransportError(
            f"{method}: {text} talking to {self.shown_url}",
            method=method,
            request_started=not never_sent,
            reason=reason,
            waited_ms=waited,
            hint=_hint(method, not never_sent),
        )

    def _parse(self, method: str, status: int, content: bytes) -> tuple[Any, tuple[str, str] | None]:
        body = self._decode(method, status, content)
        if not isinstance(body, dict):
            raise ServerError(
                f"{method}: HTTP {status} with a body that is not a JSON object",
                code="invalid_response",
                hint=_WRONG_SERVER_HINT,
            )
        if status == 200 and body.get("ok") is True and "result" in body:
            return body["result"], None
        error = body.get("error")
        if body.get("ok") is False and isinstance(error, dict):
            code = str(error.get("code") or "unknown_error")
            message = str(error.get("message") or "")
            return None, (code, message)
        raise ServerError(
            f"{method}: HTTP {status} without a valid RPC envelope", code="invalid_response", hint=_WRONG_SERVER_HINT
        )

    def _decode(self, method: str, status: int, content: bytes) -> Any:
        try:
            return loads_json(content.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):  # RecursionError: nesting deeper than the stack
            raise ServerError(
                f"{method}: HTTP {status} with a body that is not JSON ({plural(len(content), 'byte')})",
                code="invalid_response",
                hint=_WRONG_SERVER_HINT,
            ) from None

    def _redact(self, text: str) -> str:
        text = redact_urls_in(text)
        for secret in self._secrets:
            text = text.replace(secret, "[redacted]")
        return text

    def _debug(self, message: str) -> None:
        if self._log is not None:
            self._log(self._redact(message))


_WRONG_SERVER_HINT = code_hint("invalid_response")


def _hint(method: str, maybe_applied: bool) -> str:
    """The next step after no complete answer, from the one refusal table."""
    return (unknown_outcome(method) if maybe_applied else NOT_REACHED).hint


def _too_large(method: str, limit: int) -> ServerError:
    return ServerError(
        f"{method}: response exceeds {limit / 1048576:g} MiB",
        code="response_too_large",
        hint=code_hint("response_too_large"),
        details={"limit_bytes": limit},
    )


def _shut_down(stream: Any) -> None:
    """End a connection from another thread: shutdown() wakes a blocked read, where close() would not."""
    sock = stream.get_extra_info("socket")
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # already closed
        pass


def _describe(error: Exception) -> str:
    kind = type(error).__name__
    names = {
        "ConnectError": "connection refused or unreachable",
        "ConnectTimeout": "connection timed out",
        "ReadTimeout": "no answer before the timeout",
        "WriteTimeout": "timed out while sending",
        "PoolTimeout": "no free connection",
        "RemoteProtocolError": "connection closed without a complete answer",
        "ReadError": "connection dropped while reading the answer",
        "WriteError": "connection dropped while sending",
    }
    return names.get(kind, kind)


def _ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
