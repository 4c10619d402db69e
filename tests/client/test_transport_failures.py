"""Transport failures carry what is known (request_started, outcome_unknown, timed_out, reason, waited_ms), a read
is repeated once, a write with an unknown outcome only with the same idempotency key. Real HTTP throughout."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
from rpc_testkit import BrokenServer, FaultProxy, box_recipe, free_port

from mcb.client.errors import TransportError


def _method(request):
    return request["json"]["method"] if request["json"] else None


def test_connection_refused_never_started():
    from mcb.client import McbClient

    with McbClient(f"http://127.0.0.1:{free_port()}", agent_token="t" * 40) as client:
        with pytest.raises(TransportError) as caught:
            client.build_prepare(box_recipe(0, 100, 0))
    error = caught.value
    assert (error.request_started, error.outcome_unknown, error.timed_out, error.reason) == (
        False,
        False,
        False,
        "io_error",
    )
    assert error.to_json()["details"]["transport"]["request_started"] is False
    assert "is the server running" in error.hint


def test_a_dropped_read_is_repeated_once_then_succeeds(live_server, make_client):
    seen = []

    def decide(request):
        if _method(request) == "project_context" and not seen:
            seen.append(1)
            return "drop_after_forward"
        return "forward"

    with FaultProxy(live_server.url, decide) as proxy:
        context = make_client(proxy.url).project_context()
    assert context.project_id and proxy.methods() == ["project_context", "project_context"]


def test_a_read_dropped_twice_reports_peer_closed_repeated(live_server, make_client):
    with FaultProxy(live_server.url, lambda r: "drop_after_forward") as proxy:
        with pytest.raises(TransportError) as caught:
            make_client(proxy.url).region_changes()
    error = caught.value
    assert proxy.methods() == ["region_changes", "region_changes"]  # once more, never in a loop
    assert error.reason == "peer_closed" and not error.timed_out and error.outcome_unknown and error.repeated
    fields = error.to_json()["details"]["transport"]
    assert fields["repeated"] is True and isinstance(fields["waited_ms"], int)


def test_a_write_with_unknown_outcome_is_not_repeated(live_server, make_client):
    with FaultProxy(live_server.url, lambda r: "drop_after_forward") as proxy:
        with pytest.raises(TransportError) as caught:
            make_client(proxy.url).build_prepare(box_recipe(0, 100, 0))
    assert proxy.methods() == ["build_prepare"]
    assert caught.value.outcome_unknown and caught.value.reason == "peer_closed"


def test_lost_build_apply_is_repeated_only_with_the_same_key(live_server, make_client):
    def decide(request):
        return "drop_after_forward" if _method(request) == "build_apply" else "forward"

    with FaultProxy(live_server.url, decide) as proxy:
        client = make_client(proxy.url)
        plan = client.build_prepare(box_recipe(0, 100, 0))
        with pytest.raises(TransportError) as caught:
            client.build_apply(plan.plan_id, plan.plan_hash, "k-same")
    keys = [r["json"]["params"]["idempotency_key"] for r in proxy.requests if _method(r) == "build_apply"]
    assert len(keys) > 1 and set(keys) == {"k-same"}
    assert caught.value.outcome_unknown and caught.value.repeated
    assert make_client().project_context().operations_total == 1


def test_a_silent_server_hits_the_deadline_with_waited_ms():
    """A server that accepts and never answers: reason deadline, timed_out, waited close to the budget."""
    from mcb.client import McbClient

    with BrokenServer(200, b'{"ok":true,"result":{}}', delay=3.0) as silent:
        with McbClient(silent.url, agent_token="t" * 40, timeout=0.5) as client:
            with pytest.raises(TransportError) as caught:
                client.build_prepare(box_recipe(0, 100, 0))
    error = caught.value
    assert error.reason == "deadline" and error.timed_out and error.outcome_unknown
    assert 400 <= error.waited_ms < 2000


def test_stop_from_another_thread_reports_stopped():
    from mcb.client import McbClient

    with BrokenServer(200, b'{"ok":true,"result":{}}', delay=3.0) as silent:
        client = McbClient(silent.url, agent_token="t" * 40)
        caught = {}

        def call():
            try:
                client.region_changes()
            except TransportError as error:
                caught["error"] = error

        worker = threading.Thread(target=call)
        worker.start()
        deadline = time.monotonic() + 5
        while silent.hits == 0 and time.monotonic() < deadline:  # the request has reached the server
            time.sleep(0.01)
        client.transport.stop()
        worker.join(5)
    assert caught["error"].reason == "stopped" and not caught["error"].timed_out


def test_json_error_output_of_a_command_carries_the_transport_fields(cli, monkeypatch):
    with socket.socket() as sock:  # accepts connections (backlog) and never answers
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        monkeypatch.setenv("MCB_AGENT_TOKEN", "t" * 40)
        result = cli("--server", f"http://127.0.0.1:{sock.getsockname()[1]}", "--timeout", "0.5", "context", "--json")
    assert result.exit_code == 6
    error = json.loads(result.stderr.strip().splitlines()[-1])["error"]
    assert error["details"]["transport"]["reason"] == "deadline"
    assert error["details"]["transport"]["timed_out"] is True


def test_a_connection_that_never_opens_stays_inside_the_budget():
    """A listener whose backlog is full drops new SYNs: connect attempts (retries included) share one budget."""
    from mcb.client import McbClient

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        fillers = []
        for _ in range(3):
            filler = socket.socket()
            filler.setblocking(False)
            try:
                filler.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            fillers.append(filler)
        time.sleep(0.1)
        try:
            with McbClient(f"http://127.0.0.1:{port}", agent_token="t" * 40, timeout=1.0) as client:
                started = time.monotonic()
                with pytest.raises(TransportError) as caught:
                    client.project_context()
                elapsed = time.monotonic() - started
        finally:
            for filler in fillers:
                filler.close()
    assert elapsed < 1.6  # httpx's own retries gave each attempt a full connect timeout: 3 x 1 s
    assert caught.value.reason == "deadline" and not caught.value.request_started


def test_a_refused_connection_is_tried_twice_more_within_the_budget():
    """Connect retries are safe for any method, a write included: nothing was sent (a server restarting)."""
    from mcb.client import McbClient

    lines = []
    with McbClient(f"http://127.0.0.1:{free_port()}", agent_token="t" * 40, log=lines.append) as client:
        with pytest.raises(TransportError) as caught:
            client.build_prepare(box_recipe(0, 100, 0))
    sent = [line for line in lines if line.startswith("-> POST")]
    assert len(sent) == 3 and sum("trying again" in line for line in lines) == 2
    assert not caught.value.request_started and caught.value.reason == "io_error"
