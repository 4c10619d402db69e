"""§3.7-3.8 and §5.2-5.5: apply lifecycle, counters, messages, idempotency, busy, conflicts, cancellation, guard."""

from __future__ import annotations

import time

import pytest
from server_rpc import Rpc, box, pos

from mcb.server.testing import run_server

STONE = "minecraft:stone"
APPLIED = "All requested states verified; snapshot is not an atomic world transaction"


@pytest.fixture
def slow(tmp_path):
    """A server whose tick is slow enough to watch an operation run (4096 blocks take ~2.5 s)."""
    with run_server(tmp_path / "slow", tick_ms=20) as handle:
        client = Rpc(handle)
        yield client
        client.close()


def big_box(y=70, block=STONE):
    return [box((-32, y, -32), (31, y + 3, -17), block)]  # 64 * 4 * 16 = 4096 blocks


def test_apply_runs_to_applied_and_the_world_changes(rpc):
    plan = rpc.prepare([box((0, 70, 0), (2, 72, 2), "minecraft:stone_bricks", hollow=True)])
    queued = rpc.apply(plan, "k1")
    assert queued == {
        "operation_id": queued["operation_id"],
        "plan_id": plan["plan_id"],
        "status": "queued",
        "written": 0,
        "total_changes": 26,
        "processed": 0,
        "conflicts": [],
        "message": "Awaiting bounded preflight",
    }
    final = rpc.wait(queued["operation_id"])
    assert (final["status"], final["written"], final["processed"], final["message"]) == ("applied", 26, 26, APPLIED)
    blocks = rpc.inspect_blocks((0, 70, 0), (2, 72, 2))
    assert blocks[(1, 71, 1)] == "minecraft:air"
    assert sum(1 for s in blocks.values() if s == "minecraft:stone_bricks") == 26


def test_progress_messages_and_counters_while_applying(slow):
    plan = slow.prepare([box((-32, 70, -32), (31, 73, -29), STONE)])  # 1024 blocks: 8 slices
    op = slow.apply(plan, "watch")["operation_id"]
    seen = set()
    while True:
        status = slow.call("operation_status", operation_id=op)
        message = status["message"].split(" ")[0] if status["message"].startswith("Preflight") else status["message"]
        seen.add((status["status"], message))
        assert status["processed"] >= status["written"] and status["total_changes"] == 1024
        if status["status"] == "applied":
            break
        time.sleep(0.005)
    assert ("queued", "Preflight") in seen
    assert ("applying", "Intent staged; no blocks written") in seen or (
        "applying",
        "Slice written; awaiting durable receipt",
    ) in seen
    assert status["written"] == 1024 and status["processed"] == 1024


def test_blocks_already_in_place_are_skipped_not_written(rpc):
    rpc.build([box((0, 70, 0), (1, 70, 0), STONE)], "first")
    final = rpc.build([box((0, 70, 0), (2, 70, 0), STONE)], "second")
    assert (final["status"], final["written"], final["processed"], final["total_changes"]) == ("applied", 1, 3, 3)
    nothing = rpc.build([box((0, 70, 0), (2, 70, 0), STONE)], "third")
    assert (nothing["status"], nothing["written"], nothing["processed"], nothing["message"]) == (
        "applied",
        0,
        3,
        APPLIED,
    )


def test_empty_plan_applies_at_once(rpc):
    status = rpc.apply(rpc.prepare([]), "empty")
    assert (status["status"], status["message"], status["total_changes"]) == ("applied", "No changes", 0)


def test_idempotent_replay_and_key_scoping(rpc):
    plan = rpc.prepare([box((0, 70, 0), (0, 70, 0), STONE)])
    first = rpc.apply(plan, "same-key")
    final = rpc.wait(first["operation_id"])
    replay = rpc.apply(plan, "same-key")
    assert replay == final  # the existing operation's current status, even terminal
    other = rpc.prepare([box((0, 71, 0), (0, 71, 0), STONE)])
    assert rpc.error(
        "build_apply", plan_id=other["plan_id"], plan_hash=other["plan_hash"], idempotency_key="same-key"
    ) == (400, "invalid_request", "Idempotency key belongs to another plan")
    assert rpc.call("project_context")["operations_total"] == 1


def test_apply_param_and_plan_errors(rpc):
    plan = rpc.prepare([box((0, 70, 0), (0, 70, 0), STONE)])
    assert rpc.error("build_apply", plan_id=plan["plan_id"], plan_hash=plan["plan_hash"]) == (
        400,
        "invalid_request",
        "Required bounded string: idempotency_key",
    )
    assert rpc.error("build_apply", plan_id=plan["plan_id"], plan_hash=plan["plan_hash"], idempotency_key="a\tb") == (
        400,
        "invalid_request",
        "Invalid idempotencyKey",
    )
    assert rpc.error("build_apply", plan_id="nope", plan_hash=plan["plan_hash"], idempotency_key="k") == (
        400,
        "invalid_request",
        "Unknown plan",
    )
    assert rpc.error("build_apply", plan_id=plan["plan_id"], plan_hash="0" * 64, idempotency_key="k") == (
        400,
        "stale_snapshot",
        "Plan hash does not match",
    )
    assert (
        rpc.error("build_apply", plan_id=plan["plan_id"], plan_hash=plan["plan_hash"], idempotency_key="x" * 257)[2]
        == "Required bounded string: idempotency_key"
    )


def test_expired_plan(rpc, server):
    plan = rpc.prepare([box((0, 70, 0), (0, 70, 0), STONE)])
    with server.state.lock:
        server.state.plans[plan["plan_id"]].expires_ms = 1
    assert rpc.error("build_apply", plan_id=plan["plan_id"], plan_hash=plan["plan_hash"], idempotency_key="k") == (
        400,
        "invalid_request",
        "Plan expired; prepare again",
    )


def test_one_active_operation_then_busy(slow):
    running = slow.apply(slow.prepare(big_box()), "long")
    other = slow.prepare([box((0, 90, 0), (0, 90, 0), STONE)])
    status, code, message = slow.error(
        "build_apply", plan_id=other["plan_id"], plan_hash=other["plan_hash"], idempotency_key="second"
    )
    assert (status, code, message) == (
        400,
        "invalid_request",
        "busy: one active or unflushed operation is allowed per world engine",
    )
    slow.call("operation_cancel", operation_id=running["operation_id"])
    slow.wait(running["operation_id"])
    assert slow.wait(slow.apply(other, "second")["operation_id"])["status"] == "applied"


def test_journal_step_in_progress_is_busy(rpc, server):
    with server.state.lock:
        server.state.io_busy = True
    try:
        assert rpc.error("build_prepare", retry_busy=False, recipe={"version": 1, "operations": []}) == (
            400,
            "busy",
            "A journal step is in progress; retry",
        )
        assert rpc.call("project_context")["project_id"] == "default"  # reads are not gated
    finally:
        with server.state.lock:
            server.state.io_busy = False


def test_outside_edit_between_prepare_and_apply_is_a_conflict(rpc):
    plan = rpc.prepare([box((0, 70, 0), (3, 70, 0), STONE)])
    rpc.set_blocks(((2, 70, 0), "minecraft:gold_block"))
    final = rpc.wait(rpc.apply(plan, "k")["operation_id"])
    assert final["status"] == "conflict" and final["message"] == "Write set changed since preparation"
    assert final["conflicts"] == [
        {
            "pos": pos(2, 70, 0),
            "reason": "Write set changed since preparation",
            "expected": "minecraft:air",
            "current": "minecraft:gold_block",
            "desired": STONE,
        }
    ]
    assert final["written"] == 0
    assert rpc.inspect_blocks((2, 70, 0), (2, 70, 0))[(2, 70, 0)] == "minecraft:gold_block"


def test_outside_edit_to_the_desired_state_is_not_a_conflict(rpc):
    plan = rpc.prepare([box((0, 70, 0), (1, 70, 0), STONE)])
    rpc.set_blocks(((1, 70, 0), STONE))
    final = rpc.wait(rpc.apply(plan, "k")["operation_id"])
    assert (final["status"], final["written"], final["processed"]) == ("applied", 1, 2)


def test_read_dependency_change_is_a_conflict(rpc):
    plan = rpc.prepare([box((0, 70, 0), (0, 70, 0), STONE)], dependencies=[pos(5, 63, 5)])
    rpc.set_blocks(((5, 63, 5), "minecraft:air"))
    final = rpc.wait(rpc.apply(plan, "k")["operation_id"])
    assert final["status"] == "conflict"
    assert final["conflicts"][0] == {
        "pos": pos(5, 63, 5),
        "reason": "Read dependency changed",
        "expected": "minecraft:grass_block[snowy=false]",
        "current": "minecraft:air",
        "desired": "minecraft:grass_block[snowy=false]",
    }


def test_cancel_keeps_confirmed_writes(slow):
    op = slow.apply(slow.prepare(big_box()), "c")["operation_id"]
    while slow.call("operation_status", operation_id=op)["written"] == 0:
        time.sleep(0.005)
    immediate = slow.call("operation_cancel", operation_id=op)
    assert immediate["operation_id"] == op
    final = slow.wait(op)
    assert final["status"] == "cancelled"
    assert final["message"] in (
        "Cancelled; confirmed writes remain available for undo",
        "Stopped between blocks; completed writes remain",
    )
    assert 0 < final["written"] < 4096
    palette = slow.call("region_inspect", min=pos(-32, 70, -32), max=pos(31, 73, -17))["palette"]
    assert palette.get(STONE, 0) == final["written"]
    assert slow.call("operation_cancel", operation_id=op) == final  # terminal: nothing changes
    assert slow.error("operation_status", operation_id="nope") == (400, "invalid_request", "Unknown operation")


def test_pause_cancels_running_operation_and_refuses_apply(slow):
    op = slow.apply(slow.prepare(big_box()), "p")["operation_id"]
    slow.admin("test_pause_writes", paused=True)
    assert slow.wait(op)["status"] == "cancelled"
    slow.admin("test_pause_writes", paused=False)
    plan = slow.prepare([box((0, 90, 0), (0, 90, 0), STONE)])
    slow.admin("test_pause_writes", paused=True)
    assert (
        slow.error("build_apply", plan_id=plan["plan_id"], plan_hash=plan["plan_hash"], idempotency_key="q")[1]
        == "cancelled"
    )


def test_protected_part_refuses_apply_but_not_prepare(rpc, server):
    done = rpc.build([box((0, 70, 0), (1, 70, 0), STONE)], "base")
    with server.state.lock:
        part = server.state.parts.define("tower", done["operation_id"], [(0, 70, 0), (1, 70, 0)])
    rpc.admin("test_protect_part", part_id=part.id)
    context = rpc.call("project_context")
    assert context["parts"] == [{"part_id": part.id, "name": "tower", "protected": True, "block_count": 2}]
    assert context["parts_total"] == 1
    plan = rpc.prepare([box((1, 70, 0), (2, 70, 0), "minecraft:dirt")])
    assert rpc.error("build_apply", plan_id=plan["plan_id"], plan_hash=plan["plan_hash"], idempotency_key="x") == (
        403,
        "permission_denied",
        "Part is protected: tower",
    )
    same = rpc.prepare([box((0, 70, 0), (0, 70, 0), STONE)])  # no actual change inside the part: allowed
    assert rpc.wait(rpc.apply(same, "y")["operation_id"])["status"] == "applied"


def test_plan_expiring_mid_operation_fails(slow):
    plan = slow.prepare(big_box())
    op = slow.apply(plan, "e")["operation_id"]
    state = slow.handle.state
    with state.lock:
        state.plans[plan["plan_id"]].expires_ms = 1
    final = slow.wait(op)
    assert (final["status"], final["message"]) == ("failed", "Plan expired; prepare from fresh state")


def test_owner_going_offline_mid_operation_fails_the_context(tmp_path):
    owner = "0f6c3a6e-8a39-4a5b-9d4e-2f3f0d0c0a01"
    with run_server(tmp_path / "s", tick_ms=20, allow_local_automation=False, owner_uuid=owner) as handle:
        client = Rpc(handle)
        try:
            plan = client.prepare(big_box(), player_id=owner)
            op = client.call(
                "build_apply",
                player_id=owner,
                plan_id=plan["plan_id"],
                plan_hash=plan["plan_hash"],
                idempotency_key="o",
            )["operation_id"]
            client.admin("test_set_owner_online", online=False)
            handle.state.owner_online = False
            deadline = time.monotonic() + 20
            while handle.state.engine.get(op).status in ("queued", "applying") and time.monotonic() < deadline:
                time.sleep(0.01)
            operation = handle.state.engine.get(op)
            assert (operation.status, operation.message) == (
                "failed",
                "Context no longer valid: Project owner must be online and authorised",
            )
        finally:
            client.close()


def test_area_shrinking_after_prepare_is_out_of_bounds_at_apply(rpc):
    plan = rpc.prepare([box((40, 70, 0), (40, 70, 0), STONE)])
    with_dep = rpc.prepare([box((0, 70, 0), (0, 70, 0), STONE)], dependencies=[pos(40, 63, 0)])
    rpc.admin("test_set_area", min=pos(-32, 0, -32), max=pos(32, 128, 32))
    assert rpc.error("build_apply", plan_id=plan["plan_id"], plan_hash=plan["plan_hash"], idempotency_key="a") == (
        400,
        "out_of_bounds",
        "Plan exceeds current project area",
    )
    assert rpc.error(
        "build_apply", plan_id=with_dep["plan_id"], plan_hash=with_dep["plan_hash"], idempotency_key="b"
    ) == (400, "out_of_bounds", "Dependency exceeds current project area")
    assert rpc.call("project_context")["region"]["max"] == pos(32, 128, 32)


def test_new_world_epoch_makes_old_plans_version_mismatch(rpc):
    plan = rpc.prepare([box((0, 70, 0), (0, 70, 0), STONE)])
    epoch = rpc.admin("test_new_world_epoch")["world_epoch"]
    assert rpc.call("project_context")["world_epoch"] == epoch
    assert rpc.error("build_apply", plan_id=plan["plan_id"], plan_hash=plan["plan_hash"], idempotency_key="v") == (
        400,
        "version_mismatch",
        "Project or world changed",
    )


@pytest.fixture
def stepwise(tmp_path):
    """The apply held (test_hold_apply): the test lets the engine through one step at a time and acts between two."""
    with run_server(tmp_path / "stepwise", tick_ms=5) as handle:
        client = Rpc(handle)
        client.admin("test_hold_apply", held=True)
        yield client
        client.close()


def test_change_while_intent_is_staged_conflicts_before_any_write(stepwise):
    op = stepwise.apply(stepwise.prepare([box((0, 70, 0), (3, 70, 0), STONE)]), "i")["operation_id"]
    stepwise.step_until(op, "Intent staged; no blocks written")
    stepwise.set_blocks(((3, 70, 0), "minecraft:glass"))
    stepwise.admin("test_hold_apply", held=False)
    final = stepwise.wait(op)
    assert (final["status"], final["message"], final["written"]) == (
        "conflict",
        "Changed while intent was persisted",
        0,
    )
    assert final["conflicts"][0] == {
        "pos": pos(3, 70, 0),
        "reason": "Changed while intent was persisted",
        "expected": "minecraft:air",
        "current": "minecraft:glass",
        "desired": STONE,
    }


def test_change_after_the_last_slice_fails_the_final_audit(stepwise):
    op = stepwise.apply(stepwise.prepare([box((0, 70, 0), (3, 70, 0), STONE)]), "f")["operation_id"]
    stepwise.step_until(op, "Slice written; awaiting durable receipt")
    stepwise.set_blocks(((1, 70, 0), "minecraft:glass"))
    stepwise.admin("test_hold_apply", held=False)
    final = stepwise.wait(op)
    assert (final["status"], final["message"], final["written"]) == (
        "conflict",
        "Final verification differs from desired state",
        4,
    )
    assert final["conflicts"][0]["current"] == "minecraft:glass" and final["conflicts"][0]["desired"] == STONE


def test_replay_still_passes_hash_and_guard_checks_first(rpc):
    plan = rpc.prepare([box((0, 70, 0), (0, 70, 0), STONE)])
    done = rpc.wait(rpc.apply(plan, "r")["operation_id"])
    assert (
        rpc.error("build_apply", plan_id=plan["plan_id"], plan_hash="f" * 64, idempotency_key="r")[1]
        == "stale_snapshot"
    )
    rpc.admin("test_pause_writes", paused=True)
    assert (
        rpc.error("build_apply", plan_id=plan["plan_id"], plan_hash=plan["plan_hash"], idempotency_key="r")[1]
        == "cancelled"
    )
    rpc.admin("test_pause_writes", paused=False)
    assert rpc.apply(plan, "r") == done


def test_journal_failure_halts_until_restart(rpc, server):
    state = server.state
    plan = rpc.prepare([box((0, 70, 0), (3, 70, 0), STONE)])
    original = state.journal.persist

    def broken(**rows):
        if rows.get("operations") and rows.get("operations")[0][4]["status"] != "QUEUED":
            raise OSError("disk full")
        return original(**rows)

    state.journal.persist = broken
    try:
        op = rpc.apply(plan, "h")["operation_id"]
        final = rpc.wait(op)
        assert final["status"] == "recovery_required"
        assert final["message"] == "Cannot persist operation state: disk full"
        assert rpc.error("build_prepare", recipe={"version": 1, "operations": []}) == (
            400,
            "recovery_required",
            "Journal unavailable",
        )
        assert rpc.call("project_context")["operations"][0]["status"] == "recovery_required"
    finally:
        state.journal.persist = original
