"""RPC commands fed hostile local files, and a server that answers garbage or drops the connection.

Against a real `mcb serve` (or a tiny misbehaving HTTP server): one clean error line and the documented exit code."""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

import pytest
from hostile_kit import DEEP, one_error_line

RECIPE = {
    "version": 1,
    "operations": [
        {
            "type": "box",
            "block": "minecraft:stone",
            "min": {"x": 0, "y": 100, "z": 0},
            "max": {"x": 1, "y": 100, "z": 1},
        }
    ],
}


@pytest.fixture
def live(tmp_path, monkeypatch):
    from mcb.server.testing import run_server

    with run_server(tmp_path / "server", tick_ms=2) as server:
        monkeypatch.setenv("MCB_SERVER", server.url)
        monkeypatch.setenv("MCB_TOKEN", server.admin_token)
        monkeypatch.setenv("MCB_AGENT_TOKEN", server.agent_token)
        monkeypatch.setenv("MCB_PLAYER_ID", "console")
        yield server


@pytest.fixture
def recipe_file(tmp_path):
    path = tmp_path / "tower.json"
    path.write_text(json.dumps(RECIPE))
    return path


@pytest.mark.parametrize("text", ["[" * DEEP + "]" * DEEP, '{"blocks": ' + "[" * DEEP])
def test_prepare_expected_nested_too_deep(run, live, tmp_path, recipe_file, text):
    expected = tmp_path / "before.json"
    expected.write_text(text)
    result = run("prepare", recipe_file, "--expected", expected)
    assert result.exit_code == 1
    assert str(expected) in one_error_line(result)
    assert expected.read_text() == text


@pytest.mark.parametrize(
    "blocks",
    [
        [{"pos": 5, "state": "minecraft:stone"}],
        [{"pos": {"x": 0}, "state": "minecraft:stone"}],
        [{"pos": {"x": "a", "y": [], "z": None}, "state": 7}],
        [{"pos": {"x": 0, "y": 100, "z": 0}, "state": ["minecraft:stone"]}],
    ],
)
def test_prepare_expected_with_wrongly_typed_blocks(run, live, tmp_path, recipe_file, blocks):
    expected = tmp_path / "before.json"
    expected.write_text(json.dumps({"blocks": blocks}))
    result = run("prepare", recipe_file, "--expected", expected)
    assert result.exit_code == 1
    assert "--expected" in one_error_line(result)


def test_recipe_from_stdin_nested_too_deep(run, live):
    result = run("prepare", "-", input="[" * DEEP)
    assert result.exit_code == 1
    assert "stdin" in one_error_line(result)


def test_rpc_params_nested_too_deep(run, live):
    result = run("rpc", "material_search", "-", input='{"query": ' + "[" * DEEP + "]" * DEEP + "}")
    assert result.exit_code in (1, 2)
    one_error_line(result)


def test_server_still_serves_after_hostile_requests(run, live):
    run("rpc", "material_search", "-", input='{"query": ' + "[" * DEEP + "]" * DEEP + "}")
    assert run("health").exit_code == 0


# -- a server that answers garbage ------------------------------------------------------------------------------
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


def test_rpc_params_argument_nested_too_deep(run, live):
    depth = 50_000  # an argv string may be up to 128 KiB
    result = run("rpc", "material_search", '{"query": ' + "[" * depth + "]" * depth + "}")
    assert result.exit_code == 2
    assert "PARAMS" in one_error_line(result)


UNDECODABLE = "a" + bytes([0xFF]).decode("utf-8", "surrogateescape") + "b"  # what Python makes of argv byte 0xff


@pytest.mark.parametrize(
    ("method", "args"),
    [("operation_status", ("status", UNDECODABLE)), ("material_describe", ("material", "describe", UNDECODABLE))],
)
def test_argument_that_is_not_utf8_reaches_the_server_escaped(run, live, method, args):
    result = run(*args)
    assert result.exit_code == 5  # the server's own refusal, not a UnicodeEncodeError in the client
    assert one_error_line(result).startswith(f"error: {method}: ")


def test_recipe_with_a_lone_surrogate_escape_is_sent_as_json_allows(run, live, tmp_path):
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(RECIPE).replace("minecraft:stone", "minecraft:stone\\ud800"))
    result = run("prepare", recipe)
    assert result.exit_code == 5
    assert "block state" in one_error_line(result).lower()


@pytest.mark.parametrize("text", ["[" * DEEP + "]" * DEEP, '{"a": ' * DEEP])
def test_terrain_brush_file_that_is_hostile(run, live, tmp_path, text):
    brush = tmp_path / "brush.json"
    brush.write_text(text)
    result = run("terrain", "brush", brush)
    assert result.exit_code == 1
    assert str(brush) in one_error_line(result)


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
