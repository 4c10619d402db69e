"""The test-hook mechanism other modules rely on: chat prompts, /ai stop semantics, player edits."""

from __future__ import annotations

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
    assert rpc.error("test_set_blocks", token=server.admin_token,
                     blocks=[{"pos": pos(3, 70, 3), "state": "minecraft:nope"}])[1] == "unsupported_block"
    assert rpc.error("test_set_blocks", token=server.admin_token,
                     blocks=[{"pos": pos(3, 400, 3), "state": "minecraft:stone"}])[1:] == (
        "out_of_bounds", "Position exceeds world height")
