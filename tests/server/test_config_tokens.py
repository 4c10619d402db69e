"""Tokens and settings on disk (§1.5, §11), the main-thread timeout (§1.7), configured plan limit."""

from __future__ import annotations

import json
import threading

from server_rpc import Rpc, box

from mcb.server.testing import run_server


def test_existing_tokens_are_kept_and_the_file_is_made_private(tmp_path):
    data = tmp_path / "d"
    data.mkdir()
    tokens = {"admin_token": "a" * 40, "agent_token": "b" * 40, "camera_token": "c" * 40}
    (data / "tokens.json").write_text(json.dumps(tokens))
    (data / "tokens.json").chmod(0o644)
    with run_server(data) as handle:
        assert (handle.admin_token, handle.agent_token) == ("a" * 40, "b" * 40)
        assert (data / "tokens.json").stat().st_mode & 0o777 == 0o600


def test_invalid_or_duplicate_tokens_are_regenerated(tmp_path):
    data = tmp_path / "d"
    data.mkdir()
    (data / "tokens.json").write_text(
        json.dumps({"admin_token": "x" * 40, "agent_token": "x" * 40, "camera_token": "short"})
    )
    with run_server(data) as handle:
        assert handle.admin_token == "x" * 40
        assert handle.agent_token != handle.admin_token and len(handle.agent_token) == 64
        stored = json.loads((data / "tokens.json").read_text())
        assert len({stored["admin_token"], stored["agent_token"], stored["camera_token"]}) == 3


def test_settings_are_saved_and_reused(tmp_path):
    data = tmp_path / "d"
    with run_server(data, project_id="castle", region_min=(0, 0, 0), region_max=(10, 100, 10)) as first:
        world_id = first.world_id
    with run_server(data) as second:
        assert (second.project_id, second.world_id) == ("castle", world_id)
        client = Rpc(second)
        try:
            region = client.call("project_context", project_id="castle")["region"]
            assert (region["min"], region["max"]) == ({"x": 0, "y": 0, "z": 0}, {"x": 10, "y": 100, "z": 10})
        finally:
            client.close()


def test_configured_plan_limit(tmp_path):
    with run_server(tmp_path / "d", max_plan_blocks=10) as handle:
        client = Rpc(handle)
        try:
            assert client.call("project_context")["max_plan_blocks"] == 10
            assert client.prepare([box((0, 70, 0), (9, 70, 0), "minecraft:stone")])["changed_blocks"] == 10
            assert client.error(
                "build_prepare", recipe={"version": 1, "operations": [box((0, 70, 0), (10, 70, 0), "minecraft:stone")]}
            ) == (400, "invalid_request", "Recipe block limit exceeded")
        finally:
            client.close()


def test_main_thread_wait_times_out(rpc, server, monkeypatch):
    import mcb.server.state as state_module

    monkeypatch.setattr(state_module, "MAIN_THREAD_WAIT_S", 0.2)
    held, release = threading.Event(), threading.Event()

    def hold():
        with server.state.lock:
            held.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait(5)
    try:
        status, code, _ = rpc.error("project_context")
        assert (status, code) == (400, "timeout")
    finally:
        release.set()
        thread.join()
    assert rpc.call("project_context")["project_id"] == "default"
