"""Slow and greedy clients over real sockets (issue 13 item 2): the request head and the body each have an overall
deadline, and idle connections hold no thread. (Work beyond the handler pool: tests/server/test_pace.py.)

The deadlines are shortened through the fixtures (`Limits`, `--head-timeout`) so the suite stays fast; the figures
for 1,000 idle and 50 dribbling connections are in benchmarks/bench_server.py.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import httpx
import pytest
from server_rpc import TLS

from mcb.server.http import Limits
from mcb.server.testing import run_server, spawn_server

DEADLINE = 0.3


@pytest.fixture
def quick(tmp_path):
    limits = Limits(head_timeout=DEADLINE, body_timeout=DEADLINE)
    with run_server(tmp_path / "quick", tick_ms=5, limits=limits) as handle:
        yield handle


def _address(server) -> tuple[str, int]:
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def _connect(server, timeout: float = 10) -> socket.socket:
    return socket.create_connection(_address(server), timeout=timeout)


def _head(server, extra: str = "", token: str | None = None) -> bytes:
    return (
        f"POST /v1/rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token or server.agent_token}\r\n{extra}"
    ).encode()


def _served(server) -> bool:
    answer = httpx.post(
        server.url + "/v1/rpc",
        json={"method": "project_context", "params": {"player_id": "console"}},
        headers={"Authorization": f"Bearer {server.agent_token}"},
        timeout=10,
        verify=TLS,
    )
    return answer.status_code == 200 and answer.json()["ok"] is True


def _closed_by_server(sock: socket.socket) -> bool:
    """True when the server has closed the connection (EOF or reset) rather than answered."""
    try:
        return sock.recv(4096) == b""
    except ConnectionResetError:
        return True


def _dribble(sock: socket.socket, data: bytes, every: float, stop: threading.Event) -> None:
    for byte in data:
        if stop.wait(every):
            return
        try:
            sock.send(bytes([byte]))
        except OSError:  # cut off: what the test wants
            return


def test_a_client_dribbling_its_head_is_cut_off_within_the_deadline(quick):
    sock, stop = _connect(quick), threading.Event()
    started = time.monotonic()
    feeder = threading.Thread(target=_dribble, args=(sock, _head(quick) * 20, 0.05, stop), daemon=True)
    feeder.start()
    try:
        assert _served(quick)  # others are served while it dribbles
        assert _closed_by_server(sock)
        elapsed = time.monotonic() - started
        assert DEADLINE * 0.8 <= elapsed < DEADLINE + 3, elapsed
    finally:
        stop.set()
        sock.close()


def test_a_client_dribbling_its_body_is_cut_off_within_the_deadline(quick):
    body = json.dumps({"method": "project_context", "params": {"player_id": "console"}}).encode()
    sock, stop = _connect(quick), threading.Event()
    sock.sendall(_head(quick, f"Content-Length: {len(body)}\r\n\r\n"))
    started = time.monotonic()
    feeder = threading.Thread(target=_dribble, args=(sock, body, 0.05, stop), daemon=True)
    feeder.start()
    try:
        assert _served(quick)
        assert _closed_by_server(sock)
        assert time.monotonic() - started < DEADLINE + 3
    finally:
        stop.set()
        sock.close()


def test_a_body_shorter_than_its_content_length_does_not_hold_the_connection(quick):
    with _connect(quick) as sock:
        sock.sendall(_head(quick, 'Content-Length: 1000\r\n\r\n{"method":'))
        started = time.monotonic()
        assert _closed_by_server(sock)
        assert time.monotonic() - started < DEADLINE + 3


def test_an_idle_keep_alive_connection_is_closed_after_the_head_deadline(quick):
    body = json.dumps({"method": "region_changes", "params": {"player_id": "console"}}).encode()
    with _connect(quick) as sock:
        started = time.monotonic()  # the server's wait begins after its answer, so after this
        sock.sendall(_head(quick, f"Content-Length: {len(body)}\r\n\r\n") + body)
        answer = sock.recv(65536)
        assert answer.startswith(b"HTTP/1.1 200")
        assert _closed_by_server(sock)
        assert DEADLINE * 0.8 <= time.monotonic() - started < DEADLINE + 3


def test_pipelined_requests_are_answered_in_order(quick):
    bodies = [
        json.dumps({"method": m, "params": {"player_id": "console"}}).encode()
        for m in ("region_changes", "no_such_method", "region_changes")
    ]
    data = b"".join(_head(quick, f"Content-Length: {len(b)}\r\n\r\n") + b for b in bodies)
    with _connect(quick) as sock:
        sock.sendall(data)
        received = b""
        while received.count(b"HTTP/1.1 ") < 3 or not received.endswith(b"}"):
            chunk = sock.recv(65536)
            assert chunk, received
            received += chunk
    statuses = [part.split(b" ", 1)[0] for part in received.split(b"HTTP/1.1 ")[1:]]
    assert statuses == [b"200", b"400", b"200"]


@pytest.mark.parametrize(
    "lie",
    [
        b"Content-Length: 5\r\nContent-Length: 500\r\n",
        b"Content-Length: +5\r\n",
        b"Content-Length: 0x10\r\n",
        b"Content-Length: 1e3\r\n",
    ],
)
def test_content_length_lies_are_refused_and_the_connection_closed(quick, lie):
    with _connect(quick) as sock:
        sock.sendall(_head(quick, lie.decode() + "\r\n") + b"{}")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"Connection: close" in head
    assert json.loads(body)["error"]["code"] == "invalid_request"
    assert _served(quick)


def _threads(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError("no Threads line")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="counts threads through /proc")
def test_idle_and_dribbling_connections_hold_no_threads(tmp_path):
    """A real `mcb serve`: 300 idle and 20 dribbling connections; its thread count stays where one request puts it."""
    server = spawn_server(tmp_path / "threads", tick_ms=5, extra_args=("--head-timeout", "30"))
    sockets, stop = [], threading.Event()
    try:
        assert _served(server)
        baseline = _threads(server.process.pid)
        for _ in range(300):
            sockets.append(_connect(server))
        feeders = []
        for _ in range(20):
            sock = _connect(server)
            sockets.append(sock)
            feeders.append(threading.Thread(target=_dribble, args=(sock, _head(server) * 5, 0.05, stop), daemon=True))
        for feeder in feeders:
            feeder.start()
        time.sleep(0.5)
        assert _served(server)
        held = _threads(server.process.pid)
        assert held <= baseline + 2, (baseline, held)  # a worker or two more at most, never one per connection
    finally:
        stop.set()
        for sock in sockets:
            sock.close()
        server.stop()


# -- the same class of mistake beside it (issue 13 "look beside it") ---------------------------------------------
def _exchange_until_closed(sock: socket.socket) -> bytes:
    answer = b""
    try:
        while chunk := sock.recv(65536):
            answer += chunk
    except ConnectionResetError:
        pass
    return answer


def test_a_header_flood_of_allowed_lines_is_refused_as_a_whole(quick):
    flood = "".join(f"X-Pad-{i}: {'a' * 30_000}\r\n" for i in range(10))  # each line is legal, together 300 KB
    with _connect(quick) as sock:
        sock.sendall(_head(quick, flood + "Content-Length: 2\r\n\r\n") + b"{}")
        answer = _exchange_until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 431")
    assert _served(quick)


def test_a_body_of_tiny_chunks_is_refused(quick):
    chunks = b"1\r\nx\r\n" * 20_000 + b"0\r\n\r\n"
    with _connect(quick) as sock:
        sock.sendall(_head(quick, "Transfer-Encoding: chunked\r\n\r\n") + chunks)
        answer = _exchange_until_closed(sock)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"Connection: close" in head
    assert json.loads(body)["error"]["message"] == "More than 16384 chunks in one body"
    assert _served(quick)


def test_a_client_that_never_reads_its_answers_is_cut_off(quick):
    """40 pipelined 4096-block reads (~12 MB of answers) and no reading: the server's writes stall, and the
    connection is closed after the body deadline instead of holding its buffers for ever."""
    body = json.dumps(
        {
            "method": "region_inspect",
            "params": {
                "player_id": "console",
                "min": {"x": 0, "y": 60, "z": 0},
                "max": {"x": 15, "y": 75, "z": 15},
                "detail": "blocks",
            },
        }
    ).encode()
    request = _head(quick, f"Content-Length: {len(body)}\r\n\r\n") + body
    with _connect(quick) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        sock.sendall(request * 40)
        # The server takes the connection; ~4 MB of answers fill the buffers, a write stalls past DEADLINE, and
        # the server lets the connection go (waiting for that, not a fixed time: a busy machine answers slowly).
        deadline = time.monotonic() + 30
        while not quick.httpd.connections and time.monotonic() < deadline:
            time.sleep(0.01)
        while quick.httpd.connections and time.monotonic() < deadline:
            time.sleep(0.05)
        assert quick.httpd.connections == 0
        assert _served(quick)  # others are served while it sits there
        started = time.monotonic()
        answer = _exchange_until_closed(sock)
        assert time.monotonic() - started < 5  # the rest was dropped, not trickled out
    assert answer.count(b"HTTP/1.1 200") < 40


def test_stopping_with_open_connections_prints_nothing(tmp_path, capfd):
    with run_server(tmp_path / "stop", tick_ms=5) as server:
        idle = _connect(server)
        half = _connect(server)
        half.sendall(_head(server, "Content-Length: 100\r\n\r\n{"))
        assert _served(server)
    idle.close()
    half.close()
    assert capfd.readouterr().err == ""


def test_connections_beyond_the_bound_are_answered_busy_and_closed(tmp_path):
    limits = Limits(head_timeout=5, body_timeout=5, max_connections=4)
    with run_server(tmp_path / "few", tick_ms=5, limits=limits) as server:
        held = [_connect(server) for _ in range(4)]
        try:
            deadline = time.monotonic() + 5
            while server.httpd.connections < 4 and time.monotonic() < deadline:
                time.sleep(0.01)
            with _connect(server) as extra:
                answer = _exchange_until_closed(extra)
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 400") and b"Connection: close" in head
            assert json.loads(body) == {
                "ok": False,
                "error": {"code": "busy", "message": "Server is at capacity; retry"},
            }
        finally:
            for sock in held:
                sock.close()
        deadline = time.monotonic() + 5
        while server.httpd.connections and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _served(server)  # the places are given back when those clients leave


def test_a_verbose_server_logs_paths_without_queries_and_echoes_no_request_line(tmp_path, capfd):
    with run_server(tmp_path / "loud", tick_ms=5, verbose=True) as server:
        assert httpx.get(server.url + "/health?token=SECRET-IN-QUERY", timeout=10).status_code == 200
        with _connect(server) as sock:
            sock.sendall(b"GET /x?token=SECRET-IN-LINE HTTP/1.1 extra\r\n\r\n")
            answer = _exchange_until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 400") and b"SECRET" not in answer
    err = capfd.readouterr().err
    assert "GET /health HTTP/1.1" in err and "SECRET" not in err
