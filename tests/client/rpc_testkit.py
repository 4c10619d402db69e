"""Fault injection for client tests: a loopback HTTP proxy in front of a *real* `mcb serve`, and a tiny server that
answers with broken bodies. Neither implements any RPC method; the real server does all the work.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

# A decision for one proxied request: "forward", "drop_after_forward" (server processes it, client gets no answer),
# "drop" (never reaches the server), ("respond", status, body_bytes), ("sleep_then_forward", seconds).
Decision = str | tuple
Decider = Callable[[dict], Decision]


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def server_bind(self):  # skip the reverse-DNS lookup of HTTPServer.server_bind
        import socketserver

        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = host, port


class FaultProxy:
    """Forwards to ``upstream`` unless ``decide(request)`` says otherwise; records every request it saw."""

    def __init__(self, upstream: str, decide: Decider | None = None):
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname, parts.port)
        self.decide = decide or (lambda request: "forward")
        self.requests: list[dict] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def setup(self):
                super().setup()
                _no_delay(self.connection)

            def do_GET(self):
                proxy._handle(self, b"")

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                proxy._handle(self, self.rfile.read(length))

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def methods(self) -> list[str]:
        return [r["json"].get("method") for r in self.requests if isinstance(r.get("json"), dict)]

    def _handle(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        request = {
            "method": handler.command,
            "path": handler.path,
            "headers": dict(handler.headers.items()),
            "body": body,
            "json": parsed,
        }
        self.requests.append(request)
        decision = self.decide(request)
        if decision == "drop":
            return _drop(handler)
        if isinstance(decision, tuple) and decision[0] == "respond":
            return _respond(handler, decision[1], decision[2])
        if isinstance(decision, tuple) and decision[0] == "sleep_then_forward":
            time.sleep(decision[1])
        status, headers, content = self._forward(handler, body)
        if decision == "drop_after_forward":
            return _drop(handler)
        _respond(handler, status, content, headers.get("Content-Type", "application/json"))

    def _forward(self, handler: BaseHTTPRequestHandler, body: bytes):
        connection = http.client.HTTPConnection(*self.upstream, timeout=30)
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in {"host", "connection"}}
        connection.request(handler.command, handler.path, body=body or None, headers=headers)
        response = connection.getresponse()
        content = response.read()
        connection.close()
        return response.status, dict(response.getheaders()), content


def _no_delay(connection) -> None:
    # Headers and body go out in two writes; without this, delayed ACKs add ~40 ms to every keep-alive answer.
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _drop(handler: BaseHTTPRequestHandler) -> None:
    handler.close_connection = True
    try:
        handler.connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _respond(handler: BaseHTTPRequestHandler, status: int, content: bytes, content_type: str = "application/json"):
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(content)))
    handler.end_headers()
    handler.wfile.write(content)


def busy_body(message: str = "A journal step is in progress; retry", code: str = "busy") -> bytes:
    return json.dumps({"ok": False, "error": {"code": code, "message": message}}).encode()


class BrokenServer:
    """Answers every request with the same fixed status and body (for malformed / non-JSON answers)."""

    def __init__(self, status: int, body: bytes, content_type: str = "application/json", delay: float = 0.0):
        outer = self
        self.hits = 0

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def setup(self):
                super().setup()
                _no_delay(self.connection)

            def _answer(self):
                outer.hits += 1
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                if delay:
                    time.sleep(delay)
                try:
                    _respond(self, status, body, content_type)
                except OSError:
                    pass

            do_GET = do_POST = _answer

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> BrokenServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class TricklingServer:
    """Answers every request one byte every ``interval`` seconds, for ``lasting`` seconds, then holds the socket.

    ``part="head"``: ``HTTP/1.1 200 OK`` and then header bytes that never end the head; ``part="body"``: a complete
    head announcing ``Content-Length: 100000`` and then body bytes. Each byte keeps a per-read timeout from firing.
    """

    def __init__(self, part: str, interval: float = 0.1, lasting: float = 20.0):
        assert part in ("head", "body")
        self.part, self.interval, self.lasting = part, interval, lasting
        self.hits = 0
        self.request_lines: list[str] = []  # "POST /v1/rpc", "GET /health", ...
        self._stop = threading.Event()
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.05)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._sock.accept()
            except OSError:  # the accept timeout, or the socket closed at exit
                continue
            threading.Thread(target=self._trickle, args=(connection,), daemon=True).start()

    def _trickle(self, connection: socket.socket) -> None:
        with connection:
            try:
                head = connection.recv(65536)
                self.hits += 1
                self.request_lines.append(" ".join(head.split(b"\r\n", 1)[0].decode("latin-1").split()[:2]))
                if self.part == "head":
                    connection.sendall(b"HTTP/1.1 200 OK\r\n")
                    byte = b"X"
                else:
                    connection.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
                    )
                    byte = b" "
                until = time.monotonic() + self.lasting
                while time.monotonic() < until and not self._stop.wait(self.interval):
                    connection.sendall(byte)
                self._stop.wait()
            except OSError:
                pass

    def __enter__(self) -> TricklingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(5)
        self._sock.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def box_recipe(
    x: int, y: int, z: int, size: int = 3, block: str = "minecraft:stone_bricks", hollow: bool = False
) -> dict:
    return {
        "version": 1,
        "operations": [
            {
                "type": "box",
                "min": {"x": x, "y": y, "z": z},
                "max": {"x": x + size - 1, "y": y + size - 1, "z": z + size - 1},
                "block": block,
                "hollow": hollow,
            }
        ],
    }


@contextmanager
def interrupted_operation(data_dir):
    """A local `mcb serve` whose journal holds an unfinished operation: one killed mid-apply and started again.
    Yields (server, operation_id); the server is killed at the end. (At the plugin's 50 ms pace the 1000-block apply
    writes its first slice after 10 ticks and has 22 more to go: 1.1 s for the poll below to see it and kill.)"""
    from mcb.client import McbClient
    from mcb.server.testing import spawn_server

    server = spawn_server(data_dir, tick_ms=50)
    try:
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
            plan = client.build_prepare(box_recipe(0, 100, 0, size=10))
            operation = client.build_apply(plan.plan_id, plan.plan_hash, "crash-1").operation_id
            deadline = time.monotonic() + 20
            while client.operation_status(operation).written == 0 and time.monotonic() < deadline:
                time.sleep(0.05)
        server.kill()  # mid-operation: the journal holds an unfinished operation
        server = spawn_server(data_dir, tick_ms=5)
        yield server, operation
    finally:
        server.kill()
