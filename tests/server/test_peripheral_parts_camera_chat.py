"""part_define/part_get, camera_list/camera_capture and chat_poll/chat_reply over real HTTP (protocol §3.10, §3.11,
§3.14)."""

from __future__ import annotations

import uuid

import pytest
from test_peripheral_support import P, Rpc, rpc  # noqa: F401  (rpc is a fixture)

from mcb.server.testing import run_server


# -- parts ------------------------------------------------------------------------------------------------------
def test_part_define_and_get(rpc):
    op = rpc.build((1, 70, 2), (3, 71, 2), "minecraft:stone")
    assert op["status"] == "applied" and op["written"] == 6
    part = rpc.ok("part_define", {"name": "wall", "operation_id": op["operation_id"]})
    assert set(part) == {"part_id", "name", "block_count"}
    assert (part["name"], part["block_count"]) == ("wall", 6)
    uuid.UUID(part["part_id"])
    got = rpc.ok("part_get", {"part_id": part["part_id"]})
    assert got == {"part_id": part["part_id"], "name": "wall", "block_count": 6, "protected": False,
                   "operation_id": op["operation_id"],
                   "bounds": {"worldId": rpc.server.world_id, "min": P((1, 70, 2)), "max": P((3, 71, 2))}}
    context = rpc.ok("project_context")
    assert context["parts"] == [{"part_id": part["part_id"], "name": "wall", "protected": False, "block_count": 6}]


def test_part_mask_is_only_the_positions_actually_written(rpc):
    rpc.build((0, 80, 0), (0, 80, 0), "minecraft:stone")
    op = rpc.build((0, 80, 0), (2, 80, 0), "minecraft:stone")  # the first block is already stone: no receipt
    part = rpc.ok("part_define", {"name": "row", "operation_id": op["operation_id"]})
    assert part["block_count"] == 2
    assert rpc.ok("part_get", {"part_id": part["part_id"]})["bounds"]["min"] == P((1, 80, 0))


def test_parts_survive_a_restart(tmp_path):
    with run_server(tmp_path / "d") as server:
        rpc = Rpc(server)
        part = rpc.ok("part_define", {"name": "keep", "operation_id": rpc.build((5, 90, 5), (5, 91, 5),
                                                                                "minecraft:dirt")["operation_id"]})
    with run_server(tmp_path / "d") as server:
        assert Rpc(server).ok("part_get", {"part_id": part["part_id"]})["block_count"] == 2


def test_part_define_errors_in_order(rpc):
    assert rpc.error("part_define", {"operation_id": "x"}) == ("invalid_request", "Required bounded string: name")
    assert rpc.error("part_define", {"name": "n"}) == ("invalid_request", "Required bounded string: operation_id")
    assert rpc.error("part_define", {"name": "n" * 65, "operation_id": "nope"}) == ("invalid_request",
                                                                                    "Unknown operation")
    empty = rpc.build((0, 100, 0), (1, 100, 1), "minecraft:air")
    assert empty["status"] == "applied" and empty["written"] == 0
    assert rpc.error("part_define", {"name": "n", "operation_id": empty["operation_id"]}) == (
        "invalid_request", "Operation has no owned blocks")
    first = rpc.build((0, 70, 0), (1, 70, 0), "minecraft:stone")
    rpc.ok("part_define", {"name": "first", "operation_id": first["operation_id"]})
    second = rpc.build((1, 70, 0), (2, 70, 0), "minecraft:oak_planks")
    assert rpc.error("part_define", {"name": "n" * 65, "operation_id": second["operation_id"]}) == (
        "conflict", "Part overlaps first")
    third = rpc.build((10, 70, 0), (11, 70, 0), "minecraft:stone")
    assert rpc.error("part_define", {"name": "n" * 65, "operation_id": third["operation_id"]}) == (
        "invalid_request", "Part name too long")
    assert rpc.ok("part_define", {"name": "n" * 64, "operation_id": third["operation_id"]})["block_count"] == 2


def test_part_define_on_an_operation_that_is_not_applied_is_busy(rpc):
    plan = rpc.ok("build_prepare", {"recipe": {"version": 1, "operations": [
        {"type": "box", "min": P((0, 75, 0)), "max": P((2, 75, 0)), "block": "minecraft:stone"}]}})
    rpc.hook("test_set_blocks", {"blocks": [{"pos": P((1, 75, 0)), "state": "minecraft:dirt"}]})
    op = rpc.wait(rpc.ok("build_apply", {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"],
                                         "idempotency_key": "k1"})["operation_id"])
    assert op["status"] == "conflict"
    assert rpc.error("part_define", {"name": "n", "operation_id": op["operation_id"]}) == (
        "busy", "Part requires an applied operation")


def test_part_limit_is_64(rpc):
    state = rpc.server.state
    with state.lock:
        for index in range(64):
            state.parts.define(f"p{index}", "op", [(index, 120, 0)])
    op = rpc.build((0, 110, 0), (0, 110, 0), "minecraft:stone")
    assert rpc.error("part_define", {"name": "x", "operation_id": op["operation_id"]}) == (
        "budget_exceeded", "At most 64 parts are supported")


def test_part_get_errors(rpc):
    assert rpc.error("part_get", {"part_id": str(uuid.uuid4())}) == ("not_found", "Part not found")
    assert rpc.error("part_get", {}) == ("invalid_request", "Required bounded string: part_id")
    assert rpc.raw("part_get", {"part_id": "x", "player_id": "intruder"})[0] == 403


# -- cameras ----------------------------------------------------------------------------------------------------
POSE = {"x": 0.5, "y": 70.0, "z": 0.5, "yaw": 90.0, "pitch": 10.0}


def test_no_camera_configured(rpc):
    assert rpc.ok("camera_list") == {"cameras": [], "configured": False}
    unavailable = ("camera_unavailable", "Configure a spectator camera account")
    assert rpc.error("camera_capture", {"pose": POSE}) == unavailable
    assert rpc.error("camera_capture", {"camera_id": "front"}) == unavailable
    assert rpc.error("camera_capture", {"pose": {"zoom": 1}}) == unavailable
    assert rpc.error("camera_capture", {"capture_id": str(uuid.uuid4())}) == ("permission_denied", "Unknown capture")


@pytest.mark.parametrize("pose, message", [
    ({**POSE, "zoom": 2}, "Unknown camera field: zoom"),
    ({"y": 70, "z": 0, "yaw": 0, "pitch": 0}, "Finite camera number required: x"),
    ({**POSE, "yaw": "90"}, "Finite camera number required: yaw"),
    ({**POSE, "yaw": 360.5}, "Camera yaw must be between -360 and 360"),
    ({**POSE, "pitch": -90.01}, "Camera pitch must be between -90 and 90"),
    ({**POSE, "fov": 29}, "Camera fov must be between 30 and 110"),
    ({**POSE, "fov": 70.5}, "Integer coordinate required: fov"),
    ({**POSE, "width": 1921}, "Camera width must be between 320 and 1920"),
    ({**POSE, "height": 179}, "Camera height must be between 180 and 1080"),
])
def test_pose_validation(rpc, pose, message):
    rpc.hook("test_camera_config", {"camera_player_uuid": str(uuid.uuid4())})
    assert rpc.error("camera_capture", {"pose": pose}) == ("invalid_request", message)


@pytest.mark.parametrize("x", [65.0, -64.5])
def test_pose_block_must_be_inside_the_area(rpc, x):
    rpc.hook("test_camera_config", {"camera_player_uuid": str(uuid.uuid4())})
    assert rpc.error("camera_capture", {"pose": {**POSE, "x": x}}) == ("out_of_bounds", "Camera exceeds project area")


def test_configured_camera_is_offline_in_the_emulator(rpc):
    assert rpc.hook("test_camera_config", {"camera_player_uuid": str(uuid.uuid4())}) == {"configured": True}
    offline = "camera_unavailable"
    pose = {**POSE, "x": 64.9, "camera_id": "ignored", "fov": 110, "width": 320, "height": 1080}
    assert rpc.error("camera_capture", {"pose": pose, "camera_id": "missing"})[0] == offline
    assert rpc.error("camera_capture", {"camera_id": "missing"}) == ("not_found", "Camera not found")
    saved = rpc.hook("test_camera_save", {"name": "front", **POSE})
    assert rpc.ok("camera_list") == {"cameras": [saved], "configured": True}
    assert saved == {"camera_id": "front", **POSE}
    assert rpc.error("camera_capture", {"camera_id": "front"})[0] == offline


def test_after_operation_must_be_applied(rpc):
    rpc.hook("test_camera_config", {"camera_player_uuid": str(uuid.uuid4())})
    plan = rpc.ok("build_prepare", {"recipe": {"version": 1, "operations": [
        {"type": "box", "min": P((0, 75, 0)), "max": P((1, 75, 0)), "block": "minecraft:stone"}]}})
    rpc.hook("test_set_blocks", {"blocks": [{"pos": P((0, 75, 0)), "state": "minecraft:dirt"}]})
    op = rpc.wait(rpc.ok("build_apply", {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"],
                                         "idempotency_key": "k"})["operation_id"])
    assert rpc.error("camera_capture", {"pose": POSE, "after_operation_id": op["operation_id"]}) == (
        "capture_not_ready", "Operation not yet applied")
    assert rpc.error("camera_capture", {"pose": POSE, "after_operation_id": "nope"}) == (
        "invalid_request", "Unknown operation")


# -- chat -------------------------------------------------------------------------------------------------------
def test_chat_requires_admin_but_no_scope(rpc):
    assert rpc.error("chat_poll", {"client_id": "c"}) == ("permission_denied",
                                                         "Chat routing requires the administrator capability")
    assert rpc.ok("chat_poll", {"client_id": "c", "project_id": "elsewhere"}, admin=True, scope=False) == {
        "messages": []}
    assert rpc.error("chat_poll", {}, admin=True, scope=False) == ("invalid_request",
                                                                  "Required bounded string: client_id")


def test_poll_leases_up_to_eight_in_queue_order(rpc):
    sent = [rpc.hook("test_chat_enqueue", {"text": f"build tower {n}"}) for n in range(10)]
    first = rpc.ok("chat_poll", {"client_id": "bridge"}, admin=True, scope=False)["messages"]
    assert [m["id"] for m in first] == [m["id"] for m in sent[:8]]
    message = first[0]
    assert set(message) == {"id", "playerId", "projectId", "text", "type", "playerPosition", "worldId"}
    assert (message["playerId"], message["projectId"], message["worldId"], message["type"], message["text"]) == (
        rpc.server.owner_uuid, rpc.server.project_id, rpc.server.world_id, "prompt", "build tower 0")
    second = rpc.ok("chat_poll", {"client_id": "bridge"}, admin=True, scope=False)["messages"]
    assert [m["id"] for m in second] == [m["id"] for m in sent[8:]]
    assert rpc.ok("chat_poll", {"client_id": "bridge"}, admin=True, scope=False) == {"messages": []}


def test_reply_delivers_and_done_releases(rpc):
    rpc.hook("test_chat_enqueue", {"text": "hi"})
    message = rpc.ok("chat_poll", {"client_id": "b"}, admin=True, scope=False)["messages"][0]
    reply = {"id": message["id"], "playerId": message["playerId"]}
    assert rpc.ok("chat_reply", {**reply, "text": "x" * 2000, "error": "ignored"}, admin=True, scope=False) == {
        "delivered": True}
    assert rpc.ok("chat_reply", {**reply, "text": "   "}, admin=True, scope=False) == {"delivered": True}
    rpc.hook("test_set_owner_online", {"online": False})
    assert rpc.ok("chat_reply", {**reply, "text": "unseen", "done": True}, admin=True, scope=False) == {
        "delivered": False}
    assert rpc.hook("test_chat_delivered")["lines"] == [{"playerId": message["playerId"], "text": "[Builder] " + "x" * 1600}]
    assert rpc.error("chat_reply", reply, admin=True, scope=False) == ("permission_denied",
                                                                      "Unknown or mismatched chat request")


def test_reply_errors(rpc):
    rpc.hook("test_chat_enqueue", {"text": "hi"})
    unleased = rpc.server.state.chat_queue.messages[0]
    mismatch = ("permission_denied", "Unknown or mismatched chat request")
    assert rpc.error("chat_reply", {"id": unleased["id"], "playerId": unleased["playerId"]},
                     admin=True, scope=False) == mismatch
    message = rpc.ok("chat_poll", {"client_id": "b"}, admin=True, scope=False)["messages"][0]
    assert rpc.error("chat_reply", {"id": message["id"], "playerId": str(uuid.uuid4())}, admin=True,
                     scope=False) == mismatch
    assert rpc.error("chat_reply", {"id": str(uuid.uuid4()), "playerId": message["playerId"]}, admin=True,
                     scope=False) == mismatch
    assert rpc.error("chat_reply", {"id": message["id"]}, admin=True, scope=False) == (
        "invalid_request", "Required bounded string: playerId")
    assert rpc.error("chat_reply", {"id": message["id"], "playerId": message["playerId"]})[0] == "permission_denied"


def test_a_new_client_with_open_leases_pauses_writes_and_cancels(rpc):
    rpc.hook("test_chat_enqueue", {"text": "first"})
    leased = rpc.ok("chat_poll", {"client_id": "old"}, admin=True, scope=False)["messages"][0]
    waiting = rpc.hook("test_chat_enqueue", {"text": "second"})
    polled = rpc.ok("chat_poll", {"client_id": "new"}, admin=True, scope=False)["messages"]
    assert [m["id"] for m in polled] == [waiting["id"]]
    assert rpc.error("chat_reply", {"id": leased["id"], "playerId": leased["playerId"]}, admin=True, scope=False)[
        0] == "permission_denied"
    recipe = {"version": 1, "operations": [{"type": "box", "min": P((0, 70, 0)), "max": P((0, 70, 0)),
                                            "block": "minecraft:stone"}]}
    assert rpc.error("build_prepare", {"recipe": recipe}) == (
        "cancelled", "Writing paused by the owner; send a new request or /ai resume")
    assert "Bridge restarted" in rpc.hook("test_chat_delivered")["lines"][0]["text"]


def test_a_new_client_without_open_leases_changes_nothing(rpc):
    rpc.ok("chat_poll", {"client_id": "old"}, admin=True, scope=False)
    rpc.ok("chat_poll", {"client_id": "new"}, admin=True, scope=False)
    assert rpc.build((0, 70, 0), (0, 70, 0), "minecraft:stone")["status"] == "applied"


def test_cancel_message_from_stop(rpc):
    rpc.hook("test_chat_enqueue", {"text": "queued but not leased"})
    rpc.hook("test_pause_writes", {"paused": True})
    messages = rpc.ok("chat_poll", {"client_id": "b"}, admin=True, scope=False)["messages"]
    assert [(m["type"], m["text"]) for m in messages] == [("cancel", "")]


def test_test_hooks_are_hidden_without_the_flag(tmp_path):
    with run_server(tmp_path / "plain", test_hooks=False) as server:
        rpc = Rpc(server)
        assert rpc.error("test_camera_save", {"name": "a", **POSE}, admin=True) == (
            "unsupported_method", "Method not implemented: test_camera_save")


def test_part_define_respects_the_journal_latch(rpc):
    op = rpc.build((0, 70, 0), (0, 70, 0), "minecraft:stone")
    state = rpc.server.state
    body = {"method": "part_define",
            "params": {"name": "n", "operation_id": op["operation_id"], "player_id": rpc.server.owner_uuid}}
    with state.lock:
        state.wait_until_idle()  # let the engine finish persisting the applied operation first
        state.io_busy = True
    try:
        response = rpc.client.post(rpc.server.url + "/v1/rpc", json=body,
                                   headers={"Authorization": f"Bearer {rpc.server.agent_token}"})
    finally:
        with state.lock:
            state.io_busy = False
    assert response.json()["error"] == {"code": "busy", "message": "A journal step is in progress; retry"}
