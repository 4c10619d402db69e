"""part_define/part_get, camera_list/camera_capture and chat_poll/chat_reply over real HTTP (protocol §3.10, §3.11,
§3.14)."""

from __future__ import annotations

import base64
import io
import time
import uuid

import numpy as np
import pytest
from PIL import Image
from test_peripheral_support import P, Rpc, peripheral_rpc  # noqa: F401  (the `rpc` fixture of these tests)

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
    assert got == {
        "part_id": part["part_id"],
        "name": "wall",
        "block_count": 6,
        "protected": False,
        "operation_id": op["operation_id"],
        "bounds": {"worldId": rpc.server.world_id, "min": P((1, 70, 2)), "max": P((3, 71, 2))},
    }
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
        part = rpc.ok(
            "part_define",
            {"name": "keep", "operation_id": rpc.build((5, 90, 5), (5, 91, 5), "minecraft:dirt")["operation_id"]},
        )
    with run_server(tmp_path / "d") as server:
        assert Rpc(server).ok("part_get", {"part_id": part["part_id"]})["block_count"] == 2


def test_part_define_errors_in_order(rpc):
    assert rpc.error("part_define", {"operation_id": "x"}) == ("invalid_request", "Required bounded string: name")
    assert rpc.error("part_define", {"name": "n"}) == ("invalid_request", "Required bounded string: operation_id")
    assert rpc.error("part_define", {"name": "n" * 65, "operation_id": "nope"}) == (
        "invalid_request",
        "Unknown operation",
    )
    empty = rpc.build((0, 100, 0), (1, 100, 1), "minecraft:air")
    assert empty["status"] == "applied" and empty["written"] == 0
    assert rpc.error("part_define", {"name": "n", "operation_id": empty["operation_id"]}) == (
        "invalid_request",
        "Operation has no owned blocks",
    )
    first = rpc.build((0, 70, 0), (1, 70, 0), "minecraft:stone")
    rpc.ok("part_define", {"name": "first", "operation_id": first["operation_id"]})
    second = rpc.build((1, 70, 0), (2, 70, 0), "minecraft:oak_planks")
    assert rpc.error("part_define", {"name": "n" * 65, "operation_id": second["operation_id"]}) == (
        "conflict",
        "Part overlaps first",
    )
    third = rpc.build((10, 70, 0), (11, 70, 0), "minecraft:stone")
    assert rpc.error("part_define", {"name": "n" * 65, "operation_id": third["operation_id"]}) == (
        "invalid_request",
        "Part name too long",
    )
    assert rpc.ok("part_define", {"name": "n" * 64, "operation_id": third["operation_id"]})["block_count"] == 2


def test_part_define_on_an_operation_that_is_not_applied_is_busy(rpc):
    plan = rpc.ok(
        "build_prepare",
        {
            "recipe": {
                "version": 1,
                "operations": [{"type": "box", "min": P((0, 75, 0)), "max": P((2, 75, 0)), "block": "minecraft:stone"}],
            }
        },
    )
    rpc.hook("test_set_blocks", {"blocks": [{"pos": P((1, 75, 0)), "state": "minecraft:dirt"}]})
    op = rpc.wait(
        rpc.ok("build_apply", {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"], "idempotency_key": "k1"})[
            "operation_id"
        ]
    )
    assert op["status"] == "conflict"
    assert rpc.error("part_define", {"name": "n", "operation_id": op["operation_id"]}) == (
        "busy",
        "Part requires an applied operation",
    )


def test_part_limit_is_64(rpc):
    state = rpc.server.state
    with state.lock:
        for index in range(64):
            state.parts.define(f"p{index}", "op", [(index, 120, 0)])
    op = rpc.build((0, 110, 0), (0, 110, 0), "minecraft:stone")
    assert rpc.error("part_define", {"name": "x", "operation_id": op["operation_id"]}) == (
        "budget_exceeded",
        "At most 64 parts are supported",
    )


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


@pytest.mark.parametrize(
    "pose, message",
    [
        ({**POSE, "zoom": 2}, "Unknown camera field: zoom"),
        ({"y": 70, "z": 0, "yaw": 0, "pitch": 0}, "Finite camera number required: x"),
        ({**POSE, "yaw": "90"}, "Finite camera number required: yaw"),
        ({**POSE, "yaw": 360.5}, "Camera yaw must be between -360 and 360"),
        ({**POSE, "pitch": -90.01}, "Camera pitch must be between -90 and 90"),
        ({**POSE, "fov": 29}, "Camera fov must be between 30 and 110"),
        ({**POSE, "fov": 70.5}, "Integer coordinate required: fov"),
        ({**POSE, "width": 1921}, "Camera width must be between 320 and 1920"),
        ({**POSE, "height": 179}, "Camera height must be between 180 and 1080"),
    ],
)
def test_pose_validation(rpc, pose, message):
    rpc.hook("test_camera_config", {"camera_player_uuid": str(uuid.uuid4())})
    assert rpc.error("camera_capture", {"pose": pose}) == ("invalid_request", message)


@pytest.mark.parametrize("x", [65.0, -64.5])
def test_pose_block_must_be_inside_the_area(rpc, x):
    rpc.hook("test_camera_config", {"camera_player_uuid": str(uuid.uuid4())})
    assert rpc.error("camera_capture", {"pose": {**POSE, "x": x}}) == ("out_of_bounds", "Camera exceeds project area")


def test_an_offline_camera_account_is_unavailable_after_validation(rpc):
    assert rpc.hook("test_camera_config", {"camera_player_uuid": str(uuid.uuid4()), "online": False}) == {
        "configured": True
    }
    offline = ("camera_unavailable", "Camera account is offline or not in spectator mode")
    pose = {**POSE, "x": 64.9, "camera_id": "ignored", "fov": 110, "width": 320, "height": 1080}
    assert rpc.error("camera_capture", {"pose": pose, "camera_id": "missing"}) == offline
    assert rpc.error("camera_capture", {"camera_id": "missing"}) == ("not_found", "Camera not found")
    saved = rpc.hook("test_camera_save", {"name": "front", **POSE})
    assert rpc.ok("camera_list") == {"cameras": [saved], "configured": True}
    assert saved == {"camera_id": "front", **POSE}
    assert rpc.error("camera_capture", {"camera_id": "front"}) == offline


def _finish(rpc, capture_id):
    deadline = time.monotonic() + 60
    while True:
        result = rpc.ok("camera_capture", {"capture_id": capture_id})
        if result["status"] != "pending" or time.monotonic() > deadline:
            return result
        time.sleep(0.05)


def _picture(result):
    image = Image.open(io.BytesIO(base64.b64decode(result["imageBase64"], validate=True)))
    assert image.format == "PNG"
    return np.asarray(image.convert("RGB"))


def test_a_capture_is_pending_then_completed_with_a_png_of_the_local_world(rpc):
    rpc.hook("test_camera_config", {"camera_player_uuid": str(uuid.uuid4())})
    view = {"x": 0.5, "y": 66.0, "z": -12.5, "yaw": 0.0, "pitch": -10.0, "fov": 70, "width": 320, "height": 180}
    started = rpc.ok("camera_capture", {"pose": view})
    assert started["status"] == "pending" and len(started["captureId"]) == 36
    assert rpc.error("camera_capture", {"pose": view}) == (
        "busy",
        "A capture is already in progress; poll it before moving the camera",
    )
    empty = _finish(rpc, started["captureId"])
    assert empty["status"] == "completed" and empty["captureId"] == started["captureId"]
    assert {
        k: empty[k]
        for k in (
            "mimeType",
            "width",
            "height",
            "sourceWidth",
            "sourceHeight",
            "dimension",
            "x",
            "y",
            "z",
            "yaw",
            "pitch",
            "fov",
            "readiness",
            "serverRevisionVerified",
        )
    } == {
        "mimeType": "image/png",
        "width": 320,
        "height": 180,
        "sourceWidth": 320,
        "sourceHeight": 180,
        "dimension": "minecraft:overworld",
        "x": 0.5,
        "y": 66.0,
        "z": -12.5,
        "yaw": 0.0,
        "pitch": -10.0,
        "fov": 70,
        "readiness": "local_chunks_and_render_queue_stable",
        "serverRevisionVerified": False,
    }
    assert empty["eyeY"] == pytest.approx(67.62)
    before = _picture(empty)
    assert before.shape == (180, 320, 3)
    assert rpc.ok("camera_capture", {"capture_id": started["captureId"]}) == empty  # polling again: the same answer

    # looking south and a little up, then a wall of stone bricks 12 blocks ahead: the middle turns from sky to grey
    wall = {(x, y, 0): "minecraft:stone_bricks" for x in range(-3, 4) for y in range(64, 72)}
    op = rpc.place(wall)
    again = _finish(
        rpc, rpc.ok("camera_capture", {"pose": view, "after_operation_id": op["operation_id"]})["captureId"]
    )
    assert again["afterOperationId"] == op["operation_id"]
    after = _picture(again)
    middle = (slice(80, 120), slice(140, 180))
    sky_blue = before[middle][..., 2].mean() - before[middle][..., 0].mean()
    grey = np.abs(after[middle][..., 2].astype(int) - after[middle][..., 0]).mean()
    assert sky_blue > 60 and grey < 10  # sky before; the grey wall after
    assert (after[170:] == before[170:]).all()  # the grass at the bottom is untouched


def test_unknown_capture_ids_are_refused_even_with_a_camera(rpc):
    rpc.hook("test_camera_config", {"camera_player_uuid": str(uuid.uuid4())})
    assert rpc.error("camera_capture", {"capture_id": str(uuid.uuid4())}) == ("permission_denied", "Unknown capture")


def test_after_operation_must_be_applied(rpc):
    rpc.hook("test_camera_config", {"camera_player_uuid": str(uuid.uuid4())})
    plan = rpc.ok(
        "build_prepare",
        {
            "recipe": {
                "version": 1,
                "operations": [{"type": "box", "min": P((0, 75, 0)), "max": P((1, 75, 0)), "block": "minecraft:stone"}],
            }
        },
    )
    rpc.hook("test_set_blocks", {"blocks": [{"pos": P((0, 75, 0)), "state": "minecraft:dirt"}]})
    op = rpc.wait(
        rpc.ok("build_apply", {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"], "idempotency_key": "k"})[
            "operation_id"
        ]
    )
    assert rpc.error("camera_capture", {"pose": POSE, "after_operation_id": op["operation_id"]}) == (
        "capture_not_ready",
        "Operation not yet applied",
    )
    assert rpc.error("camera_capture", {"pose": POSE, "after_operation_id": "nope"}) == (
        "invalid_request",
        "Unknown operation",
    )


# -- chat -------------------------------------------------------------------------------------------------------
def test_chat_requires_admin_but_no_scope(rpc):
    assert rpc.error("chat_poll", {"client_id": "c"}) == (
        "permission_denied",
        "Chat routing requires the administrator capability",
    )
    assert rpc.ok("chat_poll", {"client_id": "c", "project_id": "elsewhere"}, admin=True, scope=False) == {
        "messages": []
    }
    assert rpc.error("chat_poll", {}, admin=True, scope=False) == (
        "invalid_request",
        "Required bounded string: client_id",
    )


def test_poll_leases_up_to_eight_in_queue_order(rpc):
    sent = [rpc.hook("test_chat_enqueue", {"text": f"build tower {n}"}) for n in range(10)]
    first = rpc.ok("chat_poll", {"client_id": "bridge"}, admin=True, scope=False)["messages"]
    assert [m["id"] for m in first] == [m["id"] for m in sent[:8]]
    message = first[0]
    assert set(message) == {"id", "playerId", "projectId", "text", "type", "playerPosition", "worldId"}
    assert (message["playerId"], message["projectId"], message["worldId"], message["type"], message["text"]) == (
        rpc.server.owner_uuid,
        rpc.server.project_id,
        rpc.server.world_id,
        "prompt",
        "build tower 0",
    )
    second = rpc.ok("chat_poll", {"client_id": "bridge"}, admin=True, scope=False)["messages"]
    assert [m["id"] for m in second] == [m["id"] for m in sent[8:]]
    assert rpc.ok("chat_poll", {"client_id": "bridge"}, admin=True, scope=False) == {"messages": []}


def test_reply_delivers_and_done_releases(rpc):
    rpc.hook("test_chat_enqueue", {"text": "hi"})
    message = rpc.ok("chat_poll", {"client_id": "b"}, admin=True, scope=False)["messages"][0]
    reply = {"id": message["id"], "playerId": message["playerId"]}
    assert rpc.ok("chat_reply", {**reply, "text": "x" * 2000, "error": "ignored"}, admin=True, scope=False) == {
        "delivered": True
    }
    assert rpc.ok("chat_reply", {**reply, "text": "   "}, admin=True, scope=False) == {"delivered": True}
    rpc.hook("test_set_owner_online", {"online": False})
    assert rpc.ok("chat_reply", {**reply, "text": "unseen", "done": True}, admin=True, scope=False) == {
        "delivered": False
    }
    assert rpc.hook("test_chat_delivered")["lines"] == [
        {"playerId": message["playerId"], "text": "[Builder] " + "x" * 1600}
    ]
    assert rpc.error("chat_reply", reply, admin=True, scope=False) == (
        "permission_denied",
        "Unknown or mismatched chat request",
    )


def test_reply_errors(rpc):
    rpc.hook("test_chat_enqueue", {"text": "hi"})
    unleased = rpc.server.state.chat_queue.messages[0]
    mismatch = ("permission_denied", "Unknown or mismatched chat request")
    assert (
        rpc.error("chat_reply", {"id": unleased["id"], "playerId": unleased["playerId"]}, admin=True, scope=False)
        == mismatch
    )
    message = rpc.ok("chat_poll", {"client_id": "b"}, admin=True, scope=False)["messages"][0]
    assert (
        rpc.error("chat_reply", {"id": message["id"], "playerId": str(uuid.uuid4())}, admin=True, scope=False)
        == mismatch
    )
    assert (
        rpc.error("chat_reply", {"id": str(uuid.uuid4()), "playerId": message["playerId"]}, admin=True, scope=False)
        == mismatch
    )
    assert rpc.error("chat_reply", {"id": message["id"]}, admin=True, scope=False) == (
        "invalid_request",
        "Required bounded string: playerId",
    )
    assert rpc.error("chat_reply", {"id": message["id"], "playerId": message["playerId"]})[0] == "permission_denied"


def test_a_new_client_with_open_leases_pauses_writes_and_cancels(rpc):
    rpc.hook("test_chat_enqueue", {"text": "first"})
    leased = rpc.ok("chat_poll", {"client_id": "old"}, admin=True, scope=False)["messages"][0]
    waiting = rpc.hook("test_chat_enqueue", {"text": "second"})
    polled = rpc.ok("chat_poll", {"client_id": "new"}, admin=True, scope=False)["messages"]
    assert [m["id"] for m in polled] == [waiting["id"]]
    assert (
        rpc.error("chat_reply", {"id": leased["id"], "playerId": leased["playerId"]}, admin=True, scope=False)[0]
        == "permission_denied"
    )
    recipe = {
        "version": 1,
        "operations": [{"type": "box", "min": P((0, 70, 0)), "max": P((0, 70, 0)), "block": "minecraft:stone"}],
    }
    assert rpc.error("build_prepare", {"recipe": recipe}) == (
        "cancelled",
        "Writing paused by the owner; send a new request or /ai resume",
    )
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
            "unsupported_method",
            "Method not implemented: test_camera_save",
        )


def test_part_define_respects_the_journal_latch(rpc):
    op = rpc.build((0, 70, 0), (0, 70, 0), "minecraft:stone")
    state = rpc.server.state
    body = {
        "method": "part_define",
        "params": {"name": "n", "operation_id": op["operation_id"], "player_id": rpc.server.owner_uuid},
    }
    with state.lock:
        state.wait_until_idle()  # let the engine finish persisting the applied operation first
        state.io_busy = True
    try:
        response = rpc.client.post(
            rpc.server.url + "/v1/rpc", json=body, headers={"Authorization": f"Bearer {rpc.server.agent_token}"}
        )
    finally:
        with state.lock:
            state.io_busy = False
    assert response.json()["error"] == {"code": "busy", "message": "A journal step is in progress; retry"}


def test_the_camera_account_can_be_set_when_serving(tmp_path):
    from mcb.server.runner import ServeRequest, build_server

    request = ServeRequest(data_dir=tmp_path / "srv", port=0, camera_player="0F6C3A6E-8A39-4A5B-9D4E-2F3F0D0C0A01")
    server = build_server(request)
    try:
        assert server.state.config.camera_player_uuid == "0f6c3a6e-8a39-4a5b-9d4e-2f3f0d0c0a01"
    finally:
        server.close()
    reopened = build_server(ServeRequest(data_dir=tmp_path / "srv", port=0))  # saved with the world
    try:
        assert reopened.state.config.camera_player_uuid == "0f6c3a6e-8a39-4a5b-9d4e-2f3f0d0c0a01"
    finally:
        reopened.close()
    with pytest.raises(ValueError, match="--camera-player needs a UUID"):
        build_server(ServeRequest(data_dir=tmp_path / "other", port=0, camera_player="front-camera"))
