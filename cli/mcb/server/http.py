"""The HTTP transport (protocol §1.1-1.4): routes, statuses, headers, token check, body cap, error envelope."""

from __future__ import annotations

import hmac
import json
import socketserver
import sys
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from mcb.server.dispatch import dispatch
from mcb.server.errors import RpcError, error_body, http_status
# numbers that remember their literal text (terrain_id hashes numbers exactly as they arrived)
from mcb.terrain.jsontext import LiteralFloat, parse_int_literal

MAX_BODY = 1_048_576
MAX_DISCARD = 16 * MAX_BODY  # oversized bodies up to this size are read and dropped so the client sees the reply
HEALTH = {"service": "minecraft-builder-mcp", "version": "0.1.0", "status": "ready"}
NOT_ALLOWED = {"ok": False, "error": {"code": "method_not_allowed", "message": "POST /v1/rpc required"}}
JDK_404 = b"<h1>404 Not Found</h1>No context found for request"


class RpcHttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, address, state, *, verbose: bool = False):
        self.state = state
        self.verbose = verbose
        super().__init__(address, RpcHandler)

    def server_bind(self):
        # HTTPServer.server_bind calls socket.getfqdn(), a reverse-DNS lookup that can stall for many seconds.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), port


class RpcHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    timeout = 120  # idle keep-alive connections are closed after this many seconds (one thread each)
    server_version = "mcb-serve"
    sys_version = ""

    def log_message(self, format, *args):  # noqa: A002 - stdlib signature; never log headers (tokens)
        if self.server.verbose:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")

    def send_error(self, code, message=None, explain=None):
        """Requests the stdlib refuses before routing (a request line over 64 KiB: 414, oversized or too many
        headers: 431, a malformed request line: 400, an unknown verb: 501) get the JSON error envelope, not the
        stdlib's HTML page; the connection is closed, as the stdlib does."""
        self.log_error("code %d, message %s", code, message)
        short = self.responses.get(code, ("error",))[0]
        body = json.dumps(error_body("invalid_request", message or short)).encode("utf-8")
        self.close_connection = True
        self.send_response(code, message)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD" and code >= 200 and code not in (204, 205, 304):
            self.wfile.write(body)

    def do_GET(self):
        self._route("GET")

    def do_POST(self):
        self._route("POST")

    def do_PUT(self):
        self._route("PUT")

    def do_DELETE(self):
        self._route("DELETE")

    def do_PATCH(self):
        self._route("PATCH")

    def do_HEAD(self):
        self._route("HEAD")

    def do_OPTIONS(self):
        self._route("OPTIONS")

    # -- routing ----------------------------------------------------------------------------------------------
    def _route(self, verb: str) -> None:
        path = self.path.split("?", 1)[0]
        if path.startswith("/health"):
            self._drain()
            if verb == "GET" and path == "/health":
                return self._json(200, HEALTH)
            return self._json(404, {"error": "not_found"})
        if path.startswith("/v1/rpc"):
            if verb != "POST" or path != "/v1/rpc":
                self._drain()
                return self._json(405, NOT_ALLOWED)
            return self._rpc()
        self._drain()
        self._send(404, JDK_404, "text/html; charset=utf-8")

    def _rpc(self) -> None:
        if self.headers.get("Origin") is not None:
            self._drain()
            return self._error("permission_denied", "Browser origins are not permitted")
        is_admin = self._capability()
        if is_admin is None:
            self._drain()
            return self._error("permission_denied", "Invalid capability token")
        body = self._read_body()
        if body is None:
            if self._chunked():  # part of the chunk stream is consumed: the connection cannot be reused
                self.close_connection = True
            else:
                self._drain()
            return self._error("budget_exceeded", "Request exceeds 1 MiB")
        try:
            result = self._handle(body, is_admin)
        except RpcError as error:
            return self._error(error.code, error.message)
        except Exception as error:  # the plugin's fallback: any other exception is invalid_request
            if self.server.verbose:
                traceback.print_exc()
            return self._error("invalid_request", str(error) or type(error).__name__)
        self._json(200, {"ok": True, "result": result})

    def _handle(self, body: bytes, is_admin: bool):
        try:
            envelope = json.loads(body.decode("utf-8"), parse_float=LiteralFloat, parse_int=parse_int_literal)
        except (UnicodeDecodeError, ValueError) as error:
            raise RpcError("invalid_request", f"Malformed JSON: {error}") from None
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
        return dispatch(self.server.state, method, params, is_admin=is_admin)

    def _capability(self) -> bool | None:
        header = self.headers.get("Authorization") or ""
        supplied = header.encode("utf-8", "surrogateescape")
        tokens = self.server.state.tokens
        admin = hmac.compare_digest(supplied, f"Bearer {tokens.admin}".encode())
        agent = hmac.compare_digest(supplied, f"Bearer {tokens.agent}".encode())
        if admin:
            return True
        if agent:
            return False
        return None

    # -- body -------------------------------------------------------------------------------------------------
    def _read_body(self) -> bytes | None:
        """The body, or None when it exceeds 1 MiB (then nothing more is consumed; see ``_drain``)."""
        if self._chunked():
            return self._read_chunked(MAX_BODY, keep=True)
        length = self._content_length()
        if length > MAX_BODY:
            return None
        return self.rfile.read(length) if length else b""

    def _chunked(self) -> bool:
        return "chunked" in (self.headers.get("Transfer-Encoding") or "").lower()

    def _read_chunked(self, limit: int, *, keep: bool) -> bytes | None:
        parts, total = [], 0
        try:
            while True:
                size = int(self.rfile.readline(64).split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(parts)
                total += size
                if total > limit:
                    return None
                chunk = self.rfile.read(size)
                if keep:
                    parts.append(chunk)
                self.rfile.readline(64)
        except ValueError:  # malformed chunk size: give up on this connection
            self.close_connection = True
            return None

    def _content_length(self) -> int:
        try:
            return max(0, int(self.headers.get("Content-Length") or 0))
        except ValueError:
            return 0

    def _drain(self) -> None:
        """Consume an unwanted body so the connection stays usable; beyond 16 MiB close it instead."""
        if self._chunked():
            if self._read_chunked(MAX_DISCARD, keep=False) is None:
                self.close_connection = True
            return
        length = self._content_length()
        if length > MAX_DISCARD:
            self.close_connection = True
            return
        while length > 0:
            chunk = self.rfile.read(min(length, 65536))
            if not chunk:
                break
            length -= len(chunk)

    # -- responses --------------------------------------------------------------------------------------------
    def _error(self, code: str, message: str) -> None:
        self._json(http_status(code), error_body(code, message))

    def _json(self, status: int, payload) -> None:
        try:
            body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate echoed from the request: escape instead of failing
            body = json.dumps(payload, separators=(",", ":")).encode("ascii")
        self._send(status, body, "application/json; charset=utf-8")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        # One write for head and body: two small segments would meet Nagle + delayed ACK (~40 ms per request).
        self._headers_buffer.append(b"\r\n")
        if self.command != "HEAD":
            self._headers_buffer.append(body)
        self.flush_headers()
