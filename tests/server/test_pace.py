"""The plugin's pace over real HTTP (formats-and-building C2; protocol §1.1, §1.7, §5.2): world work waits for the
main thread's next tick (a scope-check hop, a work hop, a third hop for the prepare-like calls), 2 requests run at
once, up to 32 wait, and beyond 36 outstanding the connection is dropped without an answer.

Timing is asserted only as lower bounds (no hop runs before its tick boundary). The concurrency tests hold the main
thread (the server lock) while requests pile up, so what runs and what waits does not depend on timing. The rates
(one read's latency, two readers' throughput, an apply's ticks) are measured in benchmarks/bench_pace.py.
"""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest
from server_rpc import TLS, Rpc, box, pos

from mcb.server.testing import run_server

TICK_S = 0.050
CONTEXT = json.dumps({"method": "project_context", "params": {"player_id": "console"}}).encode()


@pytest.fixture(scope="module")
def paced(tmp_path_factory):
    """`mcb serve --tick-ms 50`, the plugin's 20 ticks a second."""
    with run_server(tmp_path_factory.mktemp("paced"), tick_ms=50) as handle:
        client = Rpc(handle)
        yield client
        client.close()


@pytest.fixture
def held(tmp_path):
    """A short tick (5 ms) and the default handler pool; the test holds ``state.lock`` to stall the main thread."""
    with run_server(tmp_path / "held", tick_ms=5) as handle:
        yield handle


def _timed(call) -> tuple[float, object]:
    started = time.monotonic()
    result = call()
    return time.monotonic() - started, result


def test_a_one_cell_read_waits_at_least_a_tick(paced):
    """Scope check at one tick boundary, the read at the next: never less than one tick (50 ms)."""
    for _ in range(3):
        elapsed, result = _timed(lambda: paced.call("region_inspect", min=pos(0, 64, 0), max=pos(0, 64, 0)))
        assert sum(result["palette"].values()) == 1
        assert elapsed >= TICK_S, elapsed
        elapsed, _ = _timed(lambda: paced.call("project_context"))
        assert elapsed >= TICK_S, elapsed


def test_prepare_and_apply_take_three_hops_and_leave_no_latch(paced):
    """build_prepare and build_apply hop three times (scope, work, clear the journal latch): at least two ticks. The
    third hop has run before the answer, so the next prepare-like call is not `busy`."""
    elapsed, plan = _timed(lambda: paced.prepare([box((5, 70, 5), (5, 70, 5), "minecraft:stone")]))
    assert elapsed >= 2 * TICK_S, elapsed
    elapsed, started = _timed(
        lambda: paced.call(
            "build_apply", retry_busy=False, plan_id=plan["plan_id"], plan_hash=plan["plan_hash"], idempotency_key="p"
        )
    )
    assert elapsed >= 2 * TICK_S, elapsed
    elapsed, status = _timed(lambda: paced.call("operation_status", operation_id=started["operation_id"]))
    assert elapsed >= TICK_S, elapsed
    assert paced.wait(started["operation_id"])["status"] == "applied"


# -- the handler pool: ThreadPoolExecutor(core 2, max 4, queue 32, AbortPolicy) ------------------------------------
def _address(server) -> tuple[str, int]:
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def _send(server, body: bytes) -> socket.socket:
    """One request on its own connection (closed by the server after its answer)."""
    sock = socket.create_connection(_address(server), timeout=10)
    head = (
        f"POST /v1/rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {server.agent_token}\r\n"
        f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    sock.sendall(head.encode() + body)
    return sock


def _answer(sock: socket.socket) -> bytes:
    """Everything the server sent before closing (b"" when it dropped the connection unanswered)."""
    sock.settimeout(30)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    sock.close()
    return received


def _status_and_code(answer: bytes) -> tuple[bytes, str | None]:
    head, _, body = answer.partition(b"\r\n\r\n")
    payload = json.loads(body)
    return head.split(b" ")[1], None if payload["ok"] else payload["error"]["code"]


def _wait_outstanding(server, count: int) -> None:
    deadline = time.monotonic() + 10
    while server.httpd.in_work < count and time.monotonic() < deadline:
        time.sleep(0.005)
    assert server.httpd.in_work == count


def test_two_requests_run_at_once_and_a_third_waits(held):
    """With the main thread stalled, two requests hold both handler threads; a third that needs no main thread (a
    malformed body) still waits in the queue, and is answered once the two are through."""
    with held.state.lock:
        running = [_send(held, CONTEXT) for _ in range(2)]
        _wait_outstanding(held, 2)
        queued = _send(held, b"{not json")
        _wait_outstanding(held, 3)
        queued.settimeout(0.3)
        with pytest.raises(TimeoutError):
            queued.recv(1)
    assert [_status_and_code(_answer(sock)) for sock in running] == [(b"200", None)] * 2
    assert _status_and_code(_answer(queued)) == (b"400", "invalid_request")


def test_one_stalled_request_leaves_the_second_thread_free(held):
    with held.state.lock:
        stalled = _send(held, CONTEXT)
        _wait_outstanding(held, 1)
        answer = httpx.post(
            held.url + "/v1/rpc",
            content=b"{not json",
            headers={"Authorization": f"Bearer {held.agent_token}"},
            timeout=10,
            verify=TLS,
        )
        assert answer.json()["error"]["code"] == "invalid_request"
    assert _status_and_code(_answer(stalled)) == (b"200", None)


def test_past_36_outstanding_requests_the_connection_is_dropped(held):
    """2 running and 32 queued; the queue full, 2 more threads take the next two; the 37th connection is closed
    without a byte (the JDK server's answer to a rejected task). /health is the loop's own and still answers."""
    with held.state.lock:
        waiting = [_send(held, CONTEXT) for _ in range(36)]
        _wait_outstanding(held, 36)
        assert (held.httpd.pool.running, held.httpd.pool.queued) == (4, 32)
        assert _answer(_send(held, CONTEXT)) == b""
        assert httpx.get(held.url + "/health", timeout=10, verify=TLS).status_code == 200
    assert [_status_and_code(_answer(sock)) for sock in waiting] == [(b"200", None)] * 36
    assert _status_and_code(_answer(_send(held, CONTEXT))) == (b"200", None)
