"""The transport against a live `mcb serve`: envelope, error mapping, retries and faults (proxy / broken servers)."""

from __future__ import annotations

import json
import time

import pytest
from rpc_testkit import BrokenServer, FaultProxy, box_recipe, busy_body, free_port

from mcb.client.retry import RetryPolicy
from mcb.errors import AuthError, ConflictError, ExitCode, NetworkError, ServerError


def test_envelope_has_request_id_bearer_token_scope_and_no_origin(live_server, make_client):
    with FaultProxy(live_server.url) as proxy:
        client = make_client(proxy.url, project_id="default")
        context = client.project_context()
    assert context.project_id == "default"
    request = proxy.requests[-1]
    headers = {k.lower(): v for k, v in request["headers"].items()}
    assert request["method"] == "POST" and request["path"] == "/v1/rpc"
    assert "origin" not in headers
    assert headers["authorization"] == f"Bearer {live_server.agent_token}"
    assert headers["content-type"] == "application/json"
    body = request["json"]
    assert body["method"] == "project_context" and body["requestId"]
    assert body["params"] == {"player_id": "console", "project_id": "default"}


def test_keep_alive_reuses_one_connection(live_server, make_client):
    client = make_client()
    for _ in range(3):
        client.region_changes()
    pool = client.transport._client._transport._pool
    assert len(pool.connections) == 1


def test_scope_overrides_same_named_params_and_chat_is_unscoped(live_server, make_client):
    with FaultProxy(live_server.url) as proxy:
        client = make_client(proxy.url)
        client.call("region_changes", {"player_id": "forged", "extra": 1})
        client.chat_poll("tests")
    first, second = proxy.requests[0]["json"], proxy.requests[1]["json"]
    assert first["params"] == {"player_id": "console", "extra": 1}
    assert second["params"] == {"client_id": "tests"}
    assert second["method"] == "chat_poll"


def test_model_wire_is_the_server_result_unchanged(live_server, make_client):
    client = make_client()
    raw = client.call("project_context")
    assert client.project_context().wire() == raw


@pytest.mark.parametrize("token_kind", ["wrong", "agent_for_chat"])
def test_permission_denied_is_auth_error_exit_4(live_server, make_client, token_kind):
    if token_kind == "wrong":
        client = make_client(agent_token="x" * 64, admin_token=None)
        call = client.project_context
    else:
        client = make_client(admin_token=None)
        call = lambda: client.call("chat_poll", {"client_id": "c"}, admin=False)  # noqa: E731
    with pytest.raises(AuthError) as caught:
        call()
    assert caught.value.code == "permission_denied" and caught.value.exit_code == ExitCode.AUTH
    assert "x" * 64 not in caught.value.message


def test_server_error_codes_are_kept(make_client):
    client = make_client()
    with pytest.raises(ServerError) as caught:
        client.call("no_such_method")
    assert caught.value.code == "unsupported_method" and caught.value.exit_code == ExitCode.SERVER
    with pytest.raises(ServerError) as caught:
        client.build_prepare({"version": 1, "operations": [], "extra": True})
    assert caught.value.code == "invalid_request"


def test_stale_plan_hash_is_a_conflict(make_client):
    client = make_client()
    plan = client.build_prepare(box_recipe(0, 100, 0))
    with pytest.raises(ConflictError) as caught:
        client.build_apply(plan.plan_id, "0" * 64, "k1")
    assert caught.value.code == "stale_snapshot" and caught.value.exit_code == ExitCode.CONFLICT


def test_idempotency_key_for_another_plan_is_a_conflict(make_client):
    client = make_client()
    first = client.build_prepare(box_recipe(0, 100, 0))
    client.build_apply(first.plan_id, first.plan_hash, "shared-key")
    second = client.build_prepare(box_recipe(10, 100, 0))
    with pytest.raises(ConflictError) as caught:
        client.build_apply(second.plan_id, second.plan_hash, "shared-key")
    assert caught.value.details["reason"] == "idempotency_key_reused"


def test_lost_build_apply_response_is_replayed_with_the_same_key(live_server, make_client):
    """The proxy forwards build_apply to the server, then drops the connection: exactly one operation results."""
    dropped = []

    def decide(request):
        if request["json"] and request["json"]["method"] == "build_apply" and not dropped:
            dropped.append(True)
            return "drop_after_forward"
        return "forward"

    with FaultProxy(live_server.url, decide) as proxy:
        client = make_client(proxy.url)
        plan = client.build_prepare(box_recipe(0, 100, 0))
        status = client.build_apply(plan.plan_id, plan.plan_hash, "lost-1")
    applies = [r["json"] for r in proxy.requests if r["json"]["method"] == "build_apply"]
    assert len(applies) == 2
    assert applies[0]["params"]["idempotency_key"] == applies[1]["params"]["idempotency_key"] == "lost-1"
    context = make_client().project_context()
    assert context.operations_total == 1
    assert context.operations[0].operation_id == status.operation_id


def test_other_writes_are_not_repeated_after_a_lost_response(live_server, make_client):
    with FaultProxy(live_server.url, lambda r: "drop_after_forward") as proxy:
        client = make_client(proxy.url)
        with pytest.raises(NetworkError) as caught:
            client.build_prepare(box_recipe(0, 100, 0))
    assert proxy.methods() == ["build_prepare"]
    assert "may have reached the server" in caught.value.hint


def test_read_only_call_is_retried_once_after_a_drop(live_server, make_client):
    seen = []

    def decide(request):
        seen.append(1)
        return "drop" if len(seen) == 1 else "forward"

    with FaultProxy(live_server.url, decide) as proxy:
        assert make_client(proxy.url).region_changes().status == "resync_required"
    assert proxy.methods() == ["region_changes", "region_changes"]
    with FaultProxy(live_server.url, lambda r: "drop") as proxy:
        with pytest.raises(NetworkError):
            make_client(proxy.url).region_changes()
    assert len(proxy.requests) == 2


@pytest.mark.parametrize(
    "message,code",
    [
        ("A journal step is in progress; retry", "busy"),
        ("busy: one active or unflushed operation is allowed per world engine", "invalid_request"),
    ],
)
def test_busy_storm_is_retried_until_the_server_answers(live_server, make_client, message, code):
    storm = {"left": 25}

    def decide(request):
        if request["json"] and request["json"]["method"] == "build_prepare" and storm["left"] > 0:
            storm["left"] -= 1
            return ("respond", 400, busy_body(message, code))
        return "forward"

    with FaultProxy(live_server.url, decide) as proxy:
        client = make_client(proxy.url, retry=RetryPolicy(busy_pause=(0.001, 0.002)))
        plan = client.build_prepare(box_recipe(0, 100, 0))
    assert plan.changed_blocks == 27
    assert proxy.methods().count("build_prepare") == 26
    assert client.transport.retries_done == 25


def test_endless_busy_is_retried_until_the_deadline_then_a_conflict(live_server, make_client):
    """No count of attempts: the one retry policy sends a busy request again until the call's total budget ends
    (100 quick retries used to give up long before a 30 s budget)."""
    with FaultProxy(live_server.url, lambda r: ("respond", 400, busy_body())) as proxy:
        client = make_client(proxy.url, timeout=1.0, retry=RetryPolicy(busy_pause=(0.002, 0.004)))
        started = time.monotonic()
        with pytest.raises(ConflictError) as caught:
            client.build_prepare(box_recipe(0, 100, 0))
        elapsed = time.monotonic() - started
    assert caught.value.code == "busy" and "send the same request again" in caught.value.hint
    assert 0.8 <= elapsed < 1.6 and len(proxy.requests) > 100


def test_part_define_busy_is_not_retried(live_server, make_client):
    body = busy_body("Part requires an applied operation")
    with FaultProxy(live_server.url, lambda r: ("respond", 400, body)) as proxy:
        with pytest.raises(ConflictError):
            make_client(proxy.url, retry=RetryPolicy(busy_pause=(0.001, 0.001))).part_define(
                "p", "00000000-0000-0000-0000-000000000000"
            )
    assert len(proxy.requests) == 1


@pytest.mark.parametrize(
    "status,body,content_type",
    [
        (404, b"<html><body>Not Found</body></html>", "text/html"),
        (200, b"{not json", "application/json"),
        (200, b"[1, 2, 3]", "application/json"),
        (200, b'{"ok": true}', "application/json"),
        (400, b'{"ok": false, "error": "flat string"}', "application/json"),
        (502, b"", "text/plain"),
        (200, b"\xff\xfe\x00garbage", "application/json"),
    ],
)
def test_malformed_answers_are_clean_server_errors(status, body, content_type):
    from mcb.client import McbClient

    with BrokenServer(status, body, content_type) as broken, McbClient(broken.url, agent_token="t" * 40) as client:
        with pytest.raises(ServerError) as caught:
            client.project_context()
    assert caught.value.code == "invalid_response"
    assert "Traceback" not in caught.value.message


def test_timeout_is_a_total_budget_not_per_attempt():
    """A read may be repeated once, but only inside the one budget: 0.8 s means about 0.8 s, not 2 x 0.8 s."""
    from mcb.client import McbClient

    with BrokenServer(200, b'{"ok":true,"result":{}}', delay=1.5) as slow:
        with McbClient(slow.url, agent_token="t" * 40, timeout=0.8) as client:
            started = time.monotonic()
            with pytest.raises(NetworkError) as caught:
                client.region_changes()
            elapsed = time.monotonic() - started
    assert slow.hits == 1 and elapsed < 1.4
    assert caught.value.exit_code == ExitCode.NETWORK
    assert caught.value.timed_out and caught.value.reason == "deadline"


def test_connection_refused_is_a_network_error():
    from mcb.client import McbClient

    with McbClient(f"http://127.0.0.1:{free_port()}", agent_token="t" * 40) as client:
        with pytest.raises(NetworkError) as caught:
            client.project_context()
    assert "is the server running" in caught.value.hint


def test_health_needs_no_token(live_server):
    from mcb.client import McbClient

    with McbClient(live_server.url) as client:
        health = client.health()
    assert health.status == "ready" and health.service == "minecraft-builder-mcp"


def test_missing_token_is_an_auth_error_before_any_request(live_server):
    from mcb.client import McbClient

    with FaultProxy(live_server.url) as proxy, McbClient(proxy.url) as client:
        with pytest.raises(AuthError):
            client.project_context()
        with McbClient(proxy.url, agent_token=live_server.agent_token) as agent_only:
            with pytest.raises(AuthError) as caught:
                agent_only.recovery_review("00000000-0000-0000-0000-000000000000")
    assert proxy.requests == [] and "admin" in caught.value.message


def test_oversized_request_is_refused_locally(make_client):
    client = make_client()
    huge = {"version": 1, "operations": [], "pad": "x" * 1_100_000}
    with pytest.raises(Exception) as caught:
        client.build_prepare(huge)
    assert getattr(caught.value, "code", "") == "request_too_large"
    assert json.dumps  # keep the import used


def test_build_apply_gives_up_after_bounded_replays_with_a_safe_hint(live_server, make_client):
    def decide(request):
        method = request["json"]["method"] if request["json"] else None
        return "drop_after_forward" if method == "build_apply" else "forward"

    with FaultProxy(live_server.url, decide) as proxy:
        client = make_client(proxy.url)
        plan = client.build_prepare(box_recipe(0, 100, 0))
        with pytest.raises(NetworkError) as caught:
            client.build_apply(plan.plan_id, plan.plan_hash, "always-lost")
    keys = {r["json"]["params"]["idempotency_key"] for r in proxy.requests if r["json"]["method"] == "build_apply"}
    assert keys == {"always-lost"} and proxy.methods().count("build_apply") == 4
    assert "same idempotency key" in caught.value.hint
    assert make_client().project_context().operations_total == 1


def test_a_result_of_the_wrong_shape_is_a_clean_server_error():
    from mcb.client import McbClient

    body = b'{"ok": true, "result": {"operation_id": "x", "status": 5, "written": "many"}}'
    with BrokenServer(200, body) as odd, McbClient(odd.url, agent_token="t" * 40) as client:
        with pytest.raises(ServerError) as caught:
            client.operation_status("x")
    assert caught.value.code == "invalid_response" and "operation_status" in caught.value.message


def test_oversized_response_is_refused(monkeypatch):
    from mcb.client import McbClient, transport

    monkeypatch.setattr(transport, "MAX_RESPONSE_BYTES", 64 * 1024)
    body = json.dumps({"ok": True, "result": {"status": "resync_required", "reason": "x" * 100_000}}).encode()
    with BrokenServer(200, body) as big, McbClient(big.url, agent_token="t" * 40) as client:
        with pytest.raises(ServerError) as caught:
            client.region_changes()
    assert caught.value.code == "response_too_large"


def test_build_apply_lost_then_server_gone_keeps_the_replay_hint(live_server, make_client):
    """First build_apply reaches the server but the answer is lost; then the proxy is gone entirely."""
    proxy = FaultProxy(live_server.url)

    def decide(request):
        if request["json"] and request["json"]["method"] == "build_apply":
            proxy.httpd.socket.close()  # nothing listens any more after this request
            return "drop_after_forward"
        return "forward"

    proxy.decide = decide
    with proxy:
        client = make_client(proxy.url)
        plan = client.build_prepare(box_recipe(0, 100, 0))
        with pytest.raises(NetworkError) as caught:
            client.build_apply(plan.plan_id, plan.plan_hash, "gone-after")
    assert "same idempotency key" in caught.value.hint
    assert make_client().project_context().operations_total == 1
