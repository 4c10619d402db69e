"""An httpx transport on which every socket wait ends by the call's total deadline.

httpx's timeouts bound each connect, read and write on its own: a server that sends its status line (or its body)
one byte every half second never lets a read time out, and a call would wait for ever. This transport gives
httpcore a network backend (its documented ``NetworkBackend`` / ``NetworkStream`` interface) whose every wait is
shrunk to what is left before the deadline set with :func:`deadline`, so headers and body both stop in time.

    with deadline(time.monotonic() + 2.0):
        client.get(url)  # raises httpx.ReadTimeout after ~2 s, however the server trickles

No SSL context is made until an https:// connection opens (the plugin speaks plain HTTP on loopback).
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator

import httpcore
import httpx

_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("mcb_http_deadline", default=None)


@contextlib.contextmanager
def deadline(at: float) -> Iterator[None]:
    """Bound every socket wait of this thread's requests by ``at`` (a ``time.monotonic()`` value)."""
    token = _DEADLINE.set(at)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _shrunk(timeout: float | None, expired: type[Exception]) -> float | None:
    at = _DEADLINE.get()
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise expired("total budget exhausted")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream):
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _shrunk(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _shrunk(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None) -> httpcore.NetworkStream:
        inner = self._inner.start_tls(ssl_context, server_hostname, _shrunk(timeout, httpcore.ConnectTimeout))
        return _DeadlineStream(inner)

    def get_extra_info(self, info: str):
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self):
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        stream = self._inner.connect_tcp(
            host, port, _shrunk(timeout, httpcore.ConnectTimeout), local_address, socket_options
        )
        return _DeadlineStream(stream)

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        stream = self._inner.connect_unix_socket(path, _shrunk(timeout, httpcore.ConnectTimeout), socket_options)
        return _DeadlineStream(stream)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


# httpcore's failures as the httpx ones callers catch; most specific first.
_HTTPX_ERRORS = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.ProxyError, httpx.ProxyError),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.ProtocolError, httpx.ProtocolError),
)


@contextlib.contextmanager
def _as_httpx_errors(request: httpx.Request) -> Iterator[None]:
    try:
        yield
    except Exception as error:
        kind = next((target for source, target in _HTTPX_ERRORS if isinstance(error, source)), None)
        if kind is None:
            raise
        raise kind(str(error) or type(error).__name__, request=request) from error


class _Body(httpx.SyncByteStream):
    def __init__(self, stream, request: httpx.Request):
        self._stream = stream
        self._request = request

    def __iter__(self) -> Iterator[bytes]:
        with _as_httpx_errors(self._request):
            yield from self._stream

    def close(self) -> None:
        with _as_httpx_errors(self._request):
            self._stream.close()


class DeadlineTransport(httpx.BaseTransport):
    """HTTP/1.1 connection pool (httpx's default limits, no proxy, no retries) bounded by :func:`deadline`."""

    def __init__(self):
        limits = httpx.Limits()
        self._pool = httpcore.ConnectionPool(
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            retries=0,
            network_backend=_DeadlineBackend(),
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _as_httpx_errors(request):
            answer = self._pool.handle_request(core_request)
        return httpx.Response(
            answer.status, headers=answer.headers, stream=_Body(answer.stream, request), extensions=answer.extensions
        )

    def close(self) -> None:
        self._pool.close()
