"""Protocol §1: routes, statuses, headers, token and Origin checks, body cap, envelope parsing, error envelope."""

from __future__ import annotations

import json
import socket

JSON_TYPE = "application/json; charset=utf-8"


def test_health_is_open_and_exact(rpc):
    response = rpc.client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"service": "minecraft-builder-mcp", "version": "0.1.0", "status": "ready"}
    assert response.headers["content-type"] == JSON_TYPE
    assert response.headers["cache-control"] == "no-store"
    assert int(response.headers["content-length"]) == len(response.content)


def test_health_context_other_verbs_and_subpaths_are_json_404(rpc):
    for response in (rpc.client.post("/health"), rpc.client.get("/health/x")):
        assert response.status_code == 404
        assert response.json() == {"error": "not_found"}


def test_rpc_context_wrong_verb_or_subpath_is_405(rpc):
    expected = {"ok": False, "error": {"code": "method_not_allowed", "message": "POST /v1/rpc required"}}
    for response in (rpc.client.get("/v1/rpc"), rpc.client.post("/v1/rpc/x", content=b"{}")):
        assert response.status_code == 405
        assert response.json() == expected
        assert response.headers["content-type"] == JSON_TYPE


def test_other_paths_get_the_plain_404(rpc):
    response = rpc.client.get("/nothing")
    assert response.status_code == 404
    assert "404" in response.text
    assert not response.headers["content-type"].startswith("application/json")


def test_origin_header_is_refused_even_with_a_valid_token(rpc):
    response = rpc.post("project_context", {"player_id": "console"}, headers={"Origin": "http://evil.example"})
    assert response.status_code == 403
    assert response.json()["error"] == {"code": "permission_denied", "message": "Browser origins are not permitted"}


def test_bad_tokens_are_refused(rpc, server):
    for header in (
        "",
        f"bearer {server.agent_token}",
        f"Bearer  {server.agent_token}",
        f"Bearer {server.agent_token}x",
        f"Bearer {server.agent_token.upper()}",
        "Basic abc",
    ):
        response = rpc.client.post(
            "/v1/rpc",
            json={"method": "project_context", "params": {"player_id": "console"}},
            headers={"Authorization": header} if header else {},
        )
        assert response.status_code == 403, header
        assert response.json()["error"] == {"code": "permission_denied", "message": "Invalid capability token"}


def test_tokens_are_distinct_64_hex_and_both_work(rpc, server):
    assert server.admin_token != server.agent_token
    for token in (server.admin_token, server.agent_token):
        assert len(token) == 64 and set(token) <= set("0123456789abcdef")
        assert rpc.call("project_context", token=token)["project_id"] == "default"


def test_body_over_one_mib_is_budget_exceeded_but_only_after_auth(rpc):
    big = b'{"method":"project_context","params":{"pad":"' + b"x" * (1_048_576) + b'"}}'
    response = rpc.client.post("/v1/rpc", content=big, headers={"Authorization": f"Bearer {rpc.token}"})
    assert response.status_code == 400
    assert response.json()["error"] == {"code": "budget_exceeded", "message": "Request exceeds 1 MiB"}
    unauthenticated = rpc.client.post("/v1/rpc", content=big, headers={"Authorization": "Bearer nope"})
    assert unauthenticated.status_code == 403


def test_body_of_exactly_one_mib_is_accepted(rpc):
    head = b'{"method":"project_context","params":{"player_id":"console","pad":"'
    tail = b'"}}'
    body = head + b"x" * (1_048_576 - len(head) - len(tail)) + tail
    assert len(body) == 1_048_576
    response = rpc.client.post("/v1/rpc", content=body, headers={"Authorization": f"Bearer {rpc.token}"})
    assert response.status_code == 200 and response.json()["ok"] is True


def _raw(rpc, content: bytes):
    return rpc.client.post("/v1/rpc", content=content, headers={"Authorization": f"Bearer {rpc.token}"})


def test_malformed_envelopes_are_invalid_request(rpc):
    for content in (
        b"{not json",
        b"[1,2]",
        b'"text"',
        b"\xff\xfe",
        b'{"params":{}}',
        b'{"method":"project_context","params":[1]}',
        b'{"method":{"a":1}}',
    ):
        response = _raw(rpc, content)
        assert response.status_code == 400, content
        assert response.json()["error"]["code"] == "invalid_request", content


def test_numeric_method_is_coerced_to_text(rpc):
    response = _raw(rpc, b'{"method":5,"params":{"player_id":"console"}}')
    assert response.json()["error"] == {"code": "unsupported_method", "message": "Method not implemented: 5"}


def test_missing_params_means_empty_object(rpc):
    response = _raw(rpc, b'{"method":"region_changes"}')
    # no player_id: the scope check refuses, proving params defaulted to {} rather than failing to parse
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"


def test_chat_methods_need_admin_even_when_unknown(rpc):
    for method in ("chat_poll", "chat_reply", "chat_whatever"):
        status, code, message = rpc.error(method)
        assert (status, code, message) == (
            403,
            "permission_denied",
            "Chat routing requires the administrator capability",
        )


def test_unknown_method_after_scope(rpc):
    assert rpc.error("no_such_method") == (400, "unsupported_method", "Method not implemented: no_such_method")
    status, code, _ = rpc.error("no_such_method", player_id="someone-else")
    assert (status, code) == (403, "permission_denied")


def test_messages_are_cut_at_600_characters(rpc):
    name = "m" * 2000
    status, code, message = rpc.error(name)
    assert code == "unsupported_method"
    assert message == ("Method not implemented: " + name)[:600]


def test_request_id_is_ignored_and_not_echoed(rpc):
    body = {"method": "region_changes", "params": {"player_id": "console"}, "requestId": {"weird": [1, 2]}}
    response = rpc.client.post("/v1/rpc", json=body, headers={"Authorization": f"Bearer {rpc.token}"})
    assert response.json() == {
        "ok": True,
        "result": {
            "status": "resync_required",
            "reason": "Prototype uses fresh bounded reads; complete event delta journal is not implemented",
        },
    }


def test_keep_alive_serves_several_requests_on_one_connection(server):
    host, port = server.url.removeprefix("http://").split(":")
    body = json.dumps({"method": "region_changes", "params": {"player_id": "console"}}).encode()
    request = (
        f"POST /v1/rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {server.agent_token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        for _ in range(3):
            sock.sendall(request)
            data = b""
            while b"\r\n\r\n" not in data:
                data += sock.recv(4096)
            head, _, rest = data.partition(b"\r\n\r\n")
            length = int([l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")][0].split(b":")[1])
            while len(rest) < length:
                rest += sock.recv(4096)
            assert head.startswith(b"HTTP/1.1 200")
            assert json.loads(rest[:length])["ok"] is True


def test_connection_stays_usable_after_refused_bodies(rpc):
    big = b"x" * (1_048_576 + 10)
    for _ in range(2):
        response = rpc.client.post("/v1/rpc", content=big, headers={"Authorization": f"Bearer {rpc.token}"})
        assert response.json()["error"]["code"] == "budget_exceeded"
        response = rpc.client.post("/v1/rpc", content=big, headers={"Authorization": "Bearer wrong"})
        assert response.status_code == 403
    assert rpc.call("project_context")["project_id"] == "default"


def test_chunked_request_bodies(rpc):
    def chunks():
        yield b'{"method":"region_changes",'
        yield b'"params":{"player_id":"console"}}'

    response = rpc.client.post("/v1/rpc", content=chunks(), headers={"Authorization": f"Bearer {rpc.token}"})
    assert response.json()["result"]["status"] == "resync_required"

    def huge():
        for _ in range(17):
            yield b"y" * 65536

    response = rpc.client.post("/v1/rpc", content=huge(), headers={"Authorization": f"Bearer {rpc.token}"})
    assert response.json()["error"] == {"code": "budget_exceeded", "message": "Request exceeds 1 MiB"}


def test_lone_surrogates_and_non_ascii_are_answered(rpc):
    response = _raw(rpc, b'{"method":"x\\ud800","params":{"player_id":"console"}}')
    assert response.json()["error"] == {"code": "unsupported_method", "message": "Method not implemented: x\ud800"}
    response = _raw(rpc, '{"method":"bâtir","params":{"player_id":"console"}}'.encode())
    assert response.json()["error"]["message"] == "Method not implemented: bâtir"


def _raw_exchange(server, request: bytes) -> tuple[str, dict, bytes]:
    host, port = server.url.split("//", 1)[1].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return lines[0], headers, body


def test_requests_refused_before_routing_get_the_json_envelope(server):
    cases = {
        b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n": "414",
        b"POST /v1/rpc HTTP/1.1\r\nX-Big: " + b"b" * 70_000 + b"\r\n\r\n": "431",
        b"POST /v1/rpc HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(150)) + b"\r\n": "431",
        b"BREW /v1/rpc HTTP/1.1\r\n\r\n": "501",
    }
    for request, status in cases.items():
        line, headers, body = _raw_exchange(server, request)
        assert line.split(" ")[1] == status, line
        assert headers["content-type"] == JSON_TYPE
        assert headers["connection"] == "close"
        payload = json.loads(body)
        assert payload["ok"] is False and payload["error"]["code"] == "invalid_request"
        assert payload["error"]["message"]
