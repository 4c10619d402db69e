"""The test-hook mechanism other modules rely on: chat prompts, /ai stop semantics, player edits."""

from __future__ import annotations

import time

from server_rpc import box, pos


def test_chat_enqueue_and_pause_feed_the_chat_queue(rpc, server):
    message = rpc.admin("test_chat_enqueue", text="build a tower")
    assert message["type"] == "prompt" and message["text"] == "build a tower"
    assert message["playerId"] == server.owner_uuid and message["projectId"] == "default"
    assert message["worldId"] == server.world_id and set(message["playerPosition"]) == {"x", "y", "z", "yaw", "pitch"}
    queue = server.state.chat_queue
    with queue.lock:
        assert [m["id"] for m in queue.messages] == [message["id"]]
    rpc.admin("test_pause_writes", paused=True)
    with queue.lock:  # /ai stop drops unleased prompts and queues one cancel message
        assert [(m["type"], m["text"]) for m in queue.messages] == [("cancel", "")]
    # a new prompt resumes writing, as in game
    rpc.admin("test_chat_enqueue", text="go on")
    assert rpc.prepare([box((0, 70, 0), (0, 70, 0), "minecraft:stone")])["changed_blocks"] == 1
    assert rpc.error("test_chat_enqueue", token=server.admin_token, text="x" * 4001)[1] == "invalid_request"


def test_player_edits_are_durable_and_validated(rpc, server):
    rpc.set_blocks(((3, 70, 3), "oak_log"))
    assert rpc.inspect_blocks((3, 70, 3), (3, 70, 3)) == {(3, 70, 3): "minecraft:oak_log[axis=y]"}
    assert (
        rpc.error(
            "test_set_blocks", token=server.admin_token, blocks=[{"pos": pos(3, 70, 3), "state": "minecraft:nope"}]
        )[1]
        == "unsupported_block"
    )
    assert rpc.error(
        "test_set_blocks", token=server.admin_token, blocks=[{"pos": pos(3, 400, 3), "state": "minecraft:stone"}]
    )[1:] == ("out_of_bounds", "Position exceeds world height")


def test_chat_silence_cancels_operations_without_local_automation(tmp_path):
    from server_rpc import Rpc

    from mcb.server.params import now_ms
    from mcb.server.testing import run_server

    owner = "0f6c3a6e-8a39-4a5b-9d4e-2f3f0d0c0a01"
    with run_server(tmp_path / "s", tick_ms=20, allow_local_automation=False, owner_uuid=owner) as handle:
        client = Rpc(handle)
        try:
            plan = client.prepare([box((0, 70, 0), (63, 73, 15), "minecraft:stone")], player_id=owner)
            handle.state.chat_queue.last_poll_ms = now_ms() - 16_000  # a bridge polled once, then went quiet
            op = client.call(
                "build_apply",
                player_id=owner,
                plan_id=plan["plan_id"],
                plan_hash=plan["plan_hash"],
                idempotency_key="quiet",
            )["operation_id"]
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                final = client.call("operation_status", player_id=owner, operation_id=op)
                if final["status"] not in ("queued", "applying"):
                    break
                time.sleep(0.01)
            assert final["status"] == "cancelled" and final["written"] == 0
        finally:
            client.close()
