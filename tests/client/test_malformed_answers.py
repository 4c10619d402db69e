"""A server whose answers mcb cannot use (JSON nested too deep, results of the wrong shape), from a tiny HTTP server
that answers every request with the same bytes: one clean error line with exit 5, never a traceback, no output file
written."""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

import pytest
from hostile_kit import DEEP, one_error_line


class _Canned(http.server.BaseHTTPRequestHandler):
    body = b""

    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    do_GET = do_POST = _answer

    def log_message(self, *args):
        pass


@pytest.fixture
def canned(monkeypatch):
    """A server that answers every request with ``canned.set(body)``'s bytes."""
    handler = type("Handler", (_Canned,), {})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    monkeypatch.setenv("MCB_SERVER", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setenv("MCB_TOKEN", "a" * 40)
    monkeypatch.setenv("MCB_PLAYER_ID", "console")
    handler.set = lambda body: setattr(handler, "body", body)
    yield handler
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("command", [("health",), ("context",), ("status", "op-1")])
def test_answer_nested_too_deep_is_a_server_error(run, canned, command):
    canned.set(b'{"ok": true, "result": ' + b"[" * DEEP + b"]" * DEEP + b"}")
    result = run(*command)
    assert result.exit_code == 5
    one_error_line(result)


@pytest.mark.parametrize("body", [b'{"ok": true, "result": [1, 2, 3]}', b'{"ok": true, "result": null}', b"{}"])
def test_health_answer_that_is_not_a_health_object(run, canned, body):
    canned.set(body)
    result = run("health")
    assert result.exit_code == 5
    assert "health" in one_error_line(result)


HILL = Path(__file__).resolve().parents[2] / "recipes" / "terrain" / "small-hill.json"


@pytest.mark.parametrize("result", [{}, {"imageBase64": "abc"}, [1, 2], {"bounds": 5, "imageBase64": ""}])
def test_terrain_preview_answer_of_the_wrong_shape(run, canned, tmp_path, result):
    canned.set(json.dumps({"ok": True, "result": result}).encode())
    answer = run("terrain", "preview", HILL, "-r", "32", "-o", tmp_path / "hill.png")
    assert answer.exit_code == 5
    assert "terrain_preview" in one_error_line(answer)
    assert not (tmp_path / "hill.png").exists()


BRUSH = HILL.with_name("raise-brush.json")


@pytest.mark.parametrize(
    "result",
    [
        {},
        [1],
        {"plan_state": "ready", "imageBase64": "abc"},
        {
            "plan_state": "ready",
            "changed_columns": 1,
            "raised_volume": 1,
            "lowered_volume": 0,
            "height_min": 1,
            "height_max": 2,
            "dependency_blocks": 0,
            "plan_id": 5,
        },
    ],
)
def test_terrain_brush_answer_of_the_wrong_shape(run, canned, tmp_path, result):
    canned.set(json.dumps({"ok": True, "result": result}).encode())
    answer = run("terrain", "brush", BRUSH, "-o", tmp_path / "stroke.png")
    assert answer.exit_code == 5
    assert "terrain_brush_prepare" in one_error_line(answer)
    assert not (tmp_path / "stroke.png").exists()
