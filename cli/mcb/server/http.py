"""The HTTP transport (protocol §1.1-1.4): routes, statuses, headers, token check, body cap, error envelope.

One asyncio loop on its own thread owns every connection. It reads a request's head, then its body, each within an
overall deadline (a client that dribbles bytes is cut off; an idle connection costs a socket, never a thread), and
hands the complete request to the plugin's handler pool (:mod:`mcb.server.pool`: 2 threads at once, 32 waiting, 2
more threads only when the queue is full). Beyond that the connection is dropped without an answer, as the plugin's
JDK server does.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import socket
import sys
import threading
import traceback
from dataclasses import dataclass, replace
from http import HTTPStatus

from mcb.fileio import SERVER_REQUEST_BYTES as MAX_BODY  # the one definition of the 1 MiB request limit
from mcb.server.dispatch import dispatch
from mcb.server.errors import RpcError, error_body, http_status
from mcb.server.http_requests import MAX_LINE, Refused, Request, drain, read_body, read_head
from mcb.server.pool import HandlerPool, Rejected

# numbers that remember their literal text (terrain_id hashes numbers exactly as they arrived)
from mcb.terrain.jsontext import LiteralFloat, parse_int_literal

HEALTH = {"service": "minecraft-builder-mcp", "version": "0.1.0", "status": "ready"}
NOT_ALLOWED = {"ok": False, "error": {"code": "method_not_allowed", "message": "POST /v1/rpc required"}}
JDK_404 = b"<h1>404 Not Found</h1>No context found for request"
BUSY_MESSAGE = "Server is at capacity; retry"
JSON_TYPE = "application/json; charset=utf-8"


@dataclass(frozen=True)
class Limits:
    """How much any one client may hold: deadlines in seconds, the handler pool (the plugin's executor), open
    connections."""

    head_timeout: float = 10.0  # from waiting for a request (accept, or the previous answer) to its blank line
    body_timeout: float = 10.0  # from the blank line to the body's last byte; also bounds writing the answer
    workers: int = 2  # threads running handlers (the executor's core)
    queue: int = 32  # requests waiting for a worker
    extra_workers: int = 2  # threads started only when the queue is full; one request more is dropped unanswered
    keep_alive: float = 30.0  # an extra thread ends after idling this long
    max_connections: int = 4096  # beyond this (or the file limit) a new connection gets busy and is closed


@dataclass
class _Work:
    body: bytes
    is_admin: bool


def open_listener(address) -> socket.socket:
    """A socket bound to ``address`` (host, port) and listening; a port in use or a host that does not resolve
    raises ``OSError`` here, before the server has created or opened anything else."""
    host, port = address[:2]
    family = socket.AF_INET6 if ":" in str(host) else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(128)
    except BaseException:
        listener.close()
        raise
    return listener


class RpcHttpServer:
    """Serve on ``listener`` (from :func:`open_listener`); :meth:`serve_forever` runs the loop on the calling thread
    until :meth:`shutdown`."""

    def __init__(self, listener: socket.socket, state, *, verbose: bool = False, limits: Limits | None = None):
        self.state = state
        self.verbose = verbose
        self.limits = limits or Limits()
        self.socket = listener
        self.server_address = self.socket.getsockname()
        files = _open_file_limit()
        if files is not None:  # keep some descriptors for the journal, assets and the listener itself
            self.limits = replace(self.limits, max_connections=max(1, min(self.limits.max_connections, files - 64)))
        limits = self.limits
        self.pool = HandlerPool(limits.workers, limits.extra_workers, limits.queue, limits.keep_alive)
        self.connections = 0
        self.in_work = 0  # requests handed to the pool and not yet answered (running or waiting)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._started = threading.Event()
        self._finished = threading.Event()

    # -- lifecycle --------------------------------------------------------------------------------------------------
    def serve_forever(self) -> None:
        try:
            asyncio.run(self._serve())
        finally:
            self._started.set()
            self._finished.set()

    def shutdown(self) -> None:
        """Stop accepting, close every connection, and wait (a few seconds at most) for the loop to end."""
        if self._started.wait(5) and self._loop is not None and not self._finished.is_set():
            try:
                self._loop.call_soon_threadsafe(self._stop.set)
            except RuntimeError:  # the loop closed meanwhile
                pass
            self._finished.wait(5)

    def server_close(self) -> None:
        self.socket.close()
        self.pool.shutdown()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        tasks: set[asyncio.Task] = set()

        async def accepted(reader, writer):
            task = asyncio.current_task()
            tasks.add(task)
            try:
                await self._connection(reader, writer)
            except asyncio.CancelledError:
                pass  # shutting down: the stream's callback would report a cancelled task as an error
            finally:
                tasks.discard(task)

        server = await asyncio.start_server(accepted, sock=self.socket, limit=MAX_LINE + 2)
        self._started.set()
        try:
            await self._stop.wait()
        finally:
            server.close()
            for task in list(tasks):
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    # -- one connection ---------------------------------------------------------------------------------------------
    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        peer = writer.get_extra_info("peername")
        try:
            if self.connections > self.limits.max_connections:
                await self._write(writer, _response(400, _json_bytes(error_body("busy", BUSY_MESSAGE)), close=True))
                return
            while await self._exchange(reader, writer, peer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            pass  # the client went away, or was too slow to read its answer
        finally:
            self.connections -= 1
            writer.close()

    async def _exchange(self, reader, writer, peer) -> bool:
        """Read one request and answer it; True when the connection stays open for another."""
        try:
            async with asyncio.timeout(self.limits.head_timeout):
                request = await read_head(reader)
        except TimeoutError:
            return False  # idle or dribbling: cut off without an answer (nothing may be on its way)
        except Refused as refused:
            self._log(peer, "-", refused.status)
            payload = _json_bytes(error_body("invalid_request", refused.message))
            await self._write(writer, _response(refused.status, payload, close=True))
            return False
        if request is None:
            return False
        if request.headers.get("expect", "").lower() == "100-continue" and request.version == "HTTP/1.1":
            await self._write(writer, b"HTTP/1.1 100 Continue\r\n\r\n")
        try:
            async with asyncio.timeout(self.limits.body_timeout):
                answer = await self._route(request, reader)
        except TimeoutError:
            self._log(peer, request.request_line, "timeout")
            return False
        except Refused as refused:
            self._log(peer, request.request_line, refused.status)
            payload = _json_bytes(error_body("invalid_request", refused.message))
            await self._write(writer, _response(refused.status, payload, close=True))
            return False
        if isinstance(answer, _Work):  # the handler's own time is not the client's: no deadline here
            answer = await self._work(answer)
            if answer is None:  # the pool is full: the plugin's JDK server drops the connection unanswered
                self._log(peer, request.request_line, "dropped")
                writer.transport.abort()
                return False
        status, body, content_type, keep = answer
        keep = keep and request.keep_alive
        self._log(peer, request.request_line, status)
        await self._write(
            writer, _response(status, body, content_type=content_type, close=not keep, head_only=request.verb == "HEAD")
        )
        return keep

    async def _write(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(data)
        if not writer.transport.get_write_buffer_size():
            return  # all of it went out at once (the usual case): nothing to wait for
        try:
            async with asyncio.timeout(self.limits.body_timeout):
                await writer.drain()
        except TimeoutError:
            writer.transport.abort()  # a client that does not read: drop what it has not taken, free the buffers
            raise

    def _log(self, peer, request_line: str, status) -> None:
        if self.verbose:  # never headers (tokens)
            host = peer[0] if peer else "-"
            sys.stderr.write(f'{host} "{request_line}" {status}\n')

    # -- routing (protocol §1.2-1.3) ------------------------------------------------------------------------------
    async def _route(self, request: Request, reader) -> tuple[int, bytes, str, bool] | _Work:
        """(status, body, content type, connection reusable), or the RPC to run on a worker."""
        path = request.path
        if path.startswith("/health"):
            keep = await drain(reader, request)
            if request.verb == "GET" and path == "/health":
                return 200, _json_bytes(HEALTH), JSON_TYPE, keep
            return 404, _json_bytes({"error": "not_found"}), JSON_TYPE, keep
        if not path.startswith("/v1/rpc"):
            keep = await drain(reader, request)
            return 404, JDK_404, "text/html; charset=utf-8", keep
        if request.verb != "POST" or path != "/v1/rpc":
            keep = await drain(reader, request)
            return 405, _json_bytes(NOT_ALLOWED), JSON_TYPE, keep
        if "origin" in request.headers:
            keep = await drain(reader, request)
            return self._error("permission_denied", "Browser origins are not permitted", keep)
        is_admin = self._capability(request.headers.get("authorization", ""))
        if is_admin is None:
            keep = await drain(reader, request)
            return self._error("permission_denied", "Invalid capability token", keep)
        body = await read_body(reader, request, MAX_BODY)
        if body is None:
            # a chunk stream is partly consumed: that connection cannot be reused; a sized body is dropped
            keep = False if request.chunked else await drain(reader, request)
            return self._error("budget_exceeded", "Request exceeds 1 MiB", keep)
        return _Work(body, is_admin)

    async def _work(self, work: _Work) -> tuple[int, bytes, str, bool] | None:
        """The handler's answer, or None when the pool refused the request."""
        try:
            future = self.pool.submit(self._handle, work.body, work.is_admin)
        except Rejected:
            return None
        self.in_work += 1
        try:
            status, payload = await asyncio.wrap_future(future)
        finally:
            self.in_work -= 1
        return status, payload, JSON_TYPE, True

    def _error(self, code: str, message: str, keep: bool) -> tuple[int, bytes, str, bool]:
        return http_status(code), _json_bytes(error_body(code, message)), JSON_TYPE, keep

    def _capability(self, header: str) -> bool | None:
        supplied = header.encode("utf-8", "surrogateescape")
        tokens = self.state.tokens
        admin = hmac.compare_digest(supplied, f"Bearer {tokens.admin}".encode())
        agent = hmac.compare_digest(supplied, f"Bearer {tokens.agent}".encode())
        if admin:
            return True
        if agent:
            return False
        return None

    # -- on a worker thread -----------------------------------------------------------------------------------------
    def _handle(self, body: bytes, is_admin: bool) -> tuple[int, bytes]:
        try:
            result = self._dispatch(body, is_admin)
        except RpcError as error:
            return http_status(error.code), _json_bytes(error_body(error.code, error.message))
        except Exception as error:  # the plugin's fallback: any other exception is invalid_request
            if self.verbose:
                traceback.print_exc()
            return 400, _json_bytes(error_body("invalid_request", str(error) or type(error).__name__))
        return 200, _json_bytes({"ok": True, "result": result})

    def _dispatch(self, body: bytes, is_admin: bool):
        try:
            envelope = _loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise RpcError("invalid_request", f"Malformed JSON: {error}") from None
        except RecursionError:
            raise RpcError("invalid_request", "Malformed JSON: nesting too deep") from None
        if not isinstance(envelope, dict):
            raise RpcError("invalid_request", "Expected a JSON object")
        method = envelope.get("method")
        if method is None:
            raise RpcError("invalid_request", "Missing field: method")
        if isinstance(method, bool):
            method = "true" if method else "false"
        elif isinstance(method, (int, float)):
            method = str(method)
        elif not isinstance(method, str):
            raise RpcError("invalid_request", "method must be a string")
        if method.startswith("chat_") and not is_admin:
            raise RpcError("permission_denied", "Chat routing requires the administrator capability")
        params = envelope.get("params", {})
        if not isinstance(params, dict):
            raise RpcError("invalid_request", "params must be a JSON object")
        return dispatch(self.state, method, params, is_admin=is_admin)


def _loads(text: str):
    """The request's JSON as the plugin's Gson reads it. A text with no ``-0`` in it and no integer too long for
    Python's int conversion means the same with the C parser's own ints, which are several times faster for the
    thousands of coordinates of a build request than a Python call per integer; anything else (malformed text too,
    for its message) goes through :func:`_parse_int`."""
    if "-0" not in text:
        try:
            return json.loads(text, parse_float=LiteralFloat)
        except ValueError:
            pass
    return json.loads(text, parse_float=LiteralFloat, parse_int=_parse_int)


def _parse_int(text: str):
    """JSON integers as the plugin's Gson keeps them: any length parses. One beyond Python's int conversion limit
    (4300 digits) stays a number too (an infinite float that remembers its literal), so the field that reads it
    answers with the plugin's own out-of-range words, never Python's."""
    if len(text) > 4300:
        return LiteralFloat(text)
    return parse_int_literal(text)


def _open_file_limit() -> int | None:
    if sys.platform == "win32":
        return None
    import resource  # POSIX only

    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return None if soft == resource.RLIM_INFINITY else soft


# -- answers --------------------------------------------------------------------------------------------------------
def _json_bytes(payload) -> bytes:
    try:
        return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate echoed from the request: escape instead of failing
        return json.dumps(payload, separators=(",", ":")).encode("ascii")


def _response(
    status: int, body: bytes, *, content_type: str = JSON_TYPE, close: bool, head_only: bool = False
) -> bytes:
    """Head and body in one write: two small segments would meet Nagle + delayed ACK (~40 ms per request)."""
    lines = [
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}",
        "Server: mcb-serve",
        f"Content-Type: {content_type}",
        "Cache-Control: no-store",
        f"Content-Length: {len(body)}",
    ]
    if close:
        lines.append("Connection: close")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")
    return head if head_only else head + body
