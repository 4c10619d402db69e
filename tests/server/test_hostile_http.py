"""`mcb serve` over real HTTP against hostile clients: the protocol's error envelope (§1.3-1.4), never a 500, a
crash or a hang, and other clients are still served afterwards."""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest
from hostile_kit import DEEP


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from mcb.server.testing import run_server

    with run_server(tmp_path_factory.mktemp("hostile-server"), tick_ms=5) as handle:
        yield handle


@pytest.fixture(scope="module")
def client(server):
    with httpx.Client(base_url=server.url, timeout=10) as http:  # keep-alive: one connection for many requests
        yield http


def post_raw(server, body: bytes, *, client: httpx.Client | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {server.admin_token}", "Content-Type": "application/json"}
    if client is not None:
        return client.post("/v1/rpc", content=body, headers=headers)
    return httpx.post(server.url + "/v1/rpc", content=body, headers=headers, timeout=10)


def still_serving(server) -> bool:
    answer = httpx.post(
        server.url + "/v1/rpc",
        json={"method": "project_context", "params": {"player_id": "console"}},
        headers={"Authorization": f"Bearer {server.agent_token}"},
        timeout=5,
    )
    return answer.status_code == 200 and answer.json()["ok"] is True


def assert_envelope(response: httpx.Response, code: str = "invalid_request") -> str:
    assert response.status_code == (403 if code == "permission_denied" else 400)
    body = response.json()
    assert body["ok"] is False and set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == code
    return body["error"]["message"]


BODIES = {
    "deep_params": b'{"method": "material_search", "params": {"query": ' + b"[" * DEEP + b"]" * DEEP + b"}}",
    "deep_unclosed": b"[" * DEEP,
    "huge_int": b'{"method": "material_search", "params": {"player_id": "console", "limit": ' + b"9" * 5000 + b"}}",
    "non_utf8": b'{"method": "material_search", "params": {"query": "\xff\xfe"}}',
    "nan_coordinate": b'{"method": "region_inspect", "params": {"player_id": "console", '
    b'"min": {"x": NaN, "y": 0, "z": 0}, "max": {"x": 0, "y": 0, "z": 0}}}',
    "huge_coordinate": b'{"method": "region_inspect", "params": {"player_id": "console", '
    b'"min": {"x": 1e400, "y": 0, "z": 0}, "max": {"x": 1e40, "y": 0, "z": 0}}}',
    "method_array": b'{"method": [1], "params": {}}',
    "params_array": b'{"method": "project_context", "params": []}',
    "empty": b"",
}


@pytest.mark.parametrize("kind", sorted(BODIES))
def test_hostile_body_gets_the_error_envelope(server, kind):
    started = time.monotonic()
    assert_envelope(post_raw(server, BODIES[kind]))
    assert time.monotonic() - started < 5
    assert still_serving(server)


WRONG = [None, True, -1, 2**63, 1.5, "x", "a" * 20_000, [[1]], {"x": 1}]
METHOD_PARAMS = {
    "material_search": {"query": "stone", "limit": 5},
    "region_inspect": {"min": {"x": 0, "y": 60, "z": 0}, "max": {"x": 1, "y": 61, "z": 1}},
    "build_prepare": {"recipe": {"version": 1, "operations": []}},
    "build_apply": {"plan_id": "p", "plan_hash": "h", "idempotency_key": "k"},
    "operation_status": {"operation_id": "o"},
    "schematic_import_prepare": {"asset_id": "a", "target": {"x": 0, "y": 64, "z": 0}, "rotation": 90},
}


@pytest.mark.parametrize("method", sorted(METHOD_PARAMS))
def test_wrong_types_in_every_param(server, client, method):
    for key in METHOD_PARAMS[method]:
        for value in WRONG:
            params = {"player_id": "console", **METHOD_PARAMS[method], key: value}
            body = json.dumps({"method": method, "params": params}).encode()
            response = post_raw(server, body, client=client)
            assert response.status_code in (200, 400), (method, key, value, response.text[:200])
            envelope = response.json()
            assert envelope["ok"] is (response.status_code == 200), (method, key, value)
    assert still_serving(server)


def connect(server) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=5)


def request_head(server, extra: bytes = b"") -> bytes:
    return b"POST /v1/rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + server.admin_token.encode() + b"\r\n" + extra


def test_body_shorter_than_content_length_then_close(server):
    for _ in range(5):
        sock = connect(server)
        sock.sendall(request_head(server, b'Content-Length: 1000\r\n\r\n{"method":'))
        sock.close()
    assert still_serving(server)


def test_many_silent_and_half_sent_connections_do_not_starve_others(server):
    sockets = []
    try:
        for index in range(100):
            sock = connect(server)
            if index % 2:
                sock.sendall(request_head(server, b"Content-Length: 100000\r\n\r\n{"))
            sockets.append(sock)
        started = time.monotonic()
        assert still_serving(server)
        assert time.monotonic() - started < 3
    finally:
        for sock in sockets:
            sock.close()


MANY_HEADERS = b"".join(b"X-H%d: v\r\n" % i for i in range(5000))
HUGE_HEADER = b"X-Big: " + b"a" * 200_000 + b"\r\n"


@pytest.mark.parametrize("flood", [MANY_HEADERS, HUGE_HEADER])
def test_header_flood_is_refused_and_the_server_lives(server, flood):
    sock = connect(server)
    try:
        sock.sendall(request_head(server, flood + b"Content-Length: 2\r\n\r\n{}"))
        status_line = sock.recv(200).split(b"\r\n")[0]
    except (ConnectionResetError, BrokenPipeError):
        status_line = b"reset"
    finally:
        sock.close()
    assert b" 200 " not in status_line and b" 500 " not in status_line
    assert still_serving(server)


@pytest.mark.parametrize("length", [b"-5", b"abc", b"99999999999999999999999"])
def test_nonsense_content_length(server, length):
    sock = connect(server)
    try:
        sock.sendall(request_head(server, b"Content-Length: " + length + b"\r\nConnection: close\r\n\r\n{}"))
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    finally:
        sock.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400")
    assert json.loads(body)["ok"] is False
    assert still_serving(server)
