"""§3.9 and §5.5: undo plans, ownership from receipts and the last-writer table, outside edits revoke it."""

from __future__ import annotations

from server_rpc import box, pos

STONE = "minecraft:stone"


def undo(rpc, operation_id, key):
    plan = rpc.call("operation_undo_prepare", operation_id=operation_id)
    return plan, rpc.wait(rpc.apply(plan, key)["operation_id"])


def test_undo_restores_exact_before_values_and_redo_works(rpc, server):
    area = ((0, 62, 0), (2, 64, 0))
    before = rpc.inspect_blocks(*area)
    done = rpc.build([box(*area, "minecraft:oak_planks")], "build")
    assert done["written"] == 9
    plan, undone = undo(rpc, done["operation_id"], "undo")
    assert plan["changed_blocks"] == 9 and plan["region"]["worldId"] == server.world_id
    assert undone["status"] == "applied" and undone["written"] == 9
    assert rpc.inspect_blocks(*area) == before
    _, redone = undo(rpc, undone["operation_id"], "redo")
    assert redone["status"] == "applied"
    assert set(rpc.inspect_blocks(*area).values()) == {"minecraft:oak_planks"}
    # the original is no longer the last writer: undoing it again is refused
    assert rpc.error("operation_undo_prepare", operation_id=done["operation_id"]) == (
        400,
        "invalid_request",
        "Undo conflict: known later operation at BlockPos[x=0, y=62, z=0]",
    )


def test_outside_edit_revokes_ownership_even_when_state_returns(rpc):
    done = rpc.build([box((0, 70, 0), (1, 70, 0), STONE)], "b")
    rpc.set_blocks(((1, 70, 0), "minecraft:dirt"))
    rpc.set_blocks(((1, 70, 0), STONE))  # A -> B -> A still counts as a later writer
    assert rpc.error("operation_undo_prepare", operation_id=done["operation_id"]) == (
        400,
        "invalid_request",
        "Undo conflict: known later operation at BlockPos[x=1, y=70, z=0]",
    )


def test_outside_edit_after_undo_prepare_conflicts_during_apply(rpc):
    done = rpc.build([box((0, 70, 0), (1, 70, 0), STONE)], "b")
    plan = rpc.call("operation_undo_prepare", operation_id=done["operation_id"])
    rpc.set_blocks(((1, 70, 0), STONE))  # same state, but ownership is gone
    final = rpc.wait(rpc.apply(plan, "u")["operation_id"])
    assert final["status"] == "conflict" and final["message"] == "Known later operation prevents undo"
    assert final["conflicts"][0]["pos"] == pos(1, 70, 0)


def test_undo_of_later_own_write_and_external_change(rpc):
    first = rpc.build([box((0, 70, 0), (1, 70, 0), STONE)], "one")
    rpc.build([box((1, 70, 0), (1, 70, 0), "minecraft:dirt")], "two")
    assert (
        rpc.error("operation_undo_prepare", operation_id=first["operation_id"])[2]
        == "Undo conflict: known later operation at BlockPos[x=1, y=70, z=0]"
    )


def test_undo_requires_terminal_operation_and_cancelled_ones_undo_receipts_only(rpc, server):
    import time

    assert rpc.error("operation_undo_prepare", operation_id="missing") == (400, "invalid_request", "Unknown operation")
    plan = rpc.prepare([box((0, 70, 0), (0, 70, 0), STONE)])
    with server.state.lock:  # hold the main thread so the operation cannot progress while we ask
        op = server.state.engine.start(server.state.plans[plan["plan_id"]], "default\0hold")
        from mcb.server import recovery

        try:
            recovery.prepare_undo(server.state, op)
            raise AssertionError("expected refusal")
        except Exception as error:
            assert getattr(error, "message", "") == "Undo requires a terminal, durable, reconciled operation"
    rpc.wait(op.id)
    empty = rpc.build([], "nothing")
    undo_plan = rpc.call("operation_undo_prepare", operation_id=empty["operation_id"])
    assert undo_plan["changed_blocks"] == 0
    assert rpc.apply(undo_plan, "undo-nothing")["message"] == "No changes"
    time.sleep(0)


def test_undo_prepare_runs_the_guard_on_the_source_plan(rpc, server):
    done = rpc.build([box((0, 70, 0), (1, 70, 0), STONE)], "g")
    rpc.admin("test_pause_writes", paused=True)
    assert rpc.error("operation_undo_prepare", operation_id=done["operation_id"]) == (
        400,
        "cancelled",
        "Writing paused by the owner; send a new request or /ai resume",
    )
    rpc.admin("test_pause_writes", paused=False)
    with server.state.lock:
        part = server.state.parts.define("gate", done["operation_id"], [(0, 70, 0), (1, 70, 0)])
    rpc.admin("test_protect_part", part_id=part.id)
    assert rpc.error("operation_undo_prepare", operation_id=done["operation_id"]) == (
        403,
        "permission_denied",
        "Part is protected: gate",
    )
