"""§5.6 crash recovery after a real SIGKILL of a spawned `mcb serve`, review digest, abandon, latch; and a clean
restart keeping world, journal, tokens and idempotency keys."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import struct
import time

import pytest
from server_rpc import Rpc, box, pos

from mcb.server.testing import spawn_server

STONE = "minecraft:stone"
BIG = [box((-32, 70, -32), (31, 73, -17), STONE)]  # 4096 blocks
INTERRUPTED = "Interrupted operation: inspect before/after/current; automatic replay is disabled"


def _prefixed(text: str) -> bytes:
    data = text.encode()
    return struct.pack(">I", len(data)) + data


def expected_digest(data_dir, operation_id: str, current: dict) -> tuple[str, int]:
    """Recompute the §5.6 digest from the journal rows (independently of the server code)."""
    with sqlite3.connect(data_dir / "journal.sqlite3") as db:
        payload = json.loads(db.execute("SELECT payload FROM operations WHERE id=?", (operation_id,)).fetchone()[0])
        plan = json.loads(db.execute("SELECT payload FROM plans WHERE id=?", (payload["planId"],)).fetchone()[0])
        receipts = db.execute(
            "SELECT x, y, z, expected, desired FROM receipts WHERE op_id=? ORDER BY idx", (operation_id,)
        ).fetchall()
    mask = {}
    for x, y, z, expected, desired in receipts:
        mask.setdefault((x, y, z), (expected, desired))
    for change in (payload.get("pending") or {}).get("changes", []):
        p = change["pos"]
        if change["expected"] != change["desired"]:
            mask.setdefault((p["x"], p["y"], p["z"]), (change["expected"], change["desired"]))
    digest = hashlib.sha256()
    for text in (
        "minecraft-builder-mcp-recovery-v1",
        operation_id,
        plan["id"],
        plan["region"]["worldId"],
        plan["worldEpoch"],
    ):
        digest.update(_prefixed(text))
    for key in sorted(mask, key=lambda p: (p[1], p[2], p[0])):
        before, after = mask[key]
        digest.update(struct.pack(">iii", *key) + _prefixed(before) + _prefixed(after) + _prefixed(current[key]))
    return digest.hexdigest(), len(mask)


@pytest.fixture
def killed_mid_apply(tmp_path):
    data = tmp_path / "data"
    first = spawn_server(data, tick_ms=15)
    client = Rpc(first)
    try:
        plan = client.prepare(BIG)
        op = client.apply(plan, "crash-key")["operation_id"]
        while client.call("operation_status", operation_id=op)["written"] < 300:
            time.sleep(0.01)
        first.kill()
    finally:
        client.close()
    second = spawn_server(data, tick_ms=1)
    client = Rpc(second)
    yield client, second, plan, op
    client.close()
    second.stop()


def test_sigkill_mid_apply_needs_recovery_and_nothing_is_lost_or_doubled(killed_mid_apply):
    client, server, plan, op = killed_mid_apply
    status = client.call("operation_status", operation_id=op)
    assert (status["status"], status["message"]) == ("recovery_required", INTERRUPTED)
    # confirmed writes survived, and the world holds exactly the receipted blocks (none written twice or lost)
    palette = client.call("region_inspect", min=pos(-32, 70, -32), max=pos(31, 73, -17))["palette"]
    assert palette.get(STONE, 0) == status["written"] > 0
    # the latch: new keys refused, the old key replays, preparing still works
    assert client.apply(plan, "crash-key")["operation_id"] == op
    fresh = client.prepare([box((0, 90, 0), (0, 90, 0), STONE)])
    assert client.error(
        "build_apply", plan_id=fresh["plan_id"], plan_hash=fresh["plan_hash"], idempotency_key="new"
    ) == (400, "invalid_request", "recovery_required: unresolved journal prevents new writes")
    assert client.error("recovery_review", operation_id=op)[:2] == (403, "permission_denied")

    review = client.admin("recovery_review", operation_id=op)
    assert set(review) == {
        "operationId",
        "planId",
        "positions",
        "matchesBefore",
        "matchesAfter",
        "foreignStates",
        "currentDigest",
        "sampledAtMillis",
    }
    assert review["operationId"] == op and review["planId"] == plan["plan_id"]
    assert review["matchesAfter"] == status["written"] and review["foreignStates"] == 0
    assert review["positions"] == review["matchesBefore"] + review["matchesAfter"]
    current = {}
    for y in range(70, 74):
        current.update(client.inspect_blocks((-32, y, -32), (31, y, -17)))
    digest, mask_size = expected_digest(server.data_dir, op, current)
    assert (review["currentDigest"], review["positions"]) == (digest, mask_size)

    # abandon: digest format, then digest freshness, then success
    assert (
        client.error("recovery_abandon", token=server.admin_token, operation_id=op, expected_digest="XYZ")[2]
        == "A SHA-256 digest from reviewRecovery is required"
    )
    some_receipt = next(p for p, s in current.items() if s == STONE)
    client.set_blocks((some_receipt, "minecraft:dirt"))
    assert client.error(
        "recovery_abandon", token=server.admin_token, operation_id=op, expected_digest=review["currentDigest"]
    ) == (400, "invalid_request", "Recovery mask changed since review; inspect and review again")
    review = client.admin("recovery_review", operation_id=op)
    assert review["foreignStates"] == 1
    result = client.admin("recovery_abandon", operation_id=op, expected_digest=review["currentDigest"])
    assert result["status"] == "failed"
    assert result["message"] == (
        "Administrator abandoned uncertain history; world unchanged; this operation cannot be undone"
    )
    assert (
        client.error("recovery_review", token=server.admin_token, operation_id=op)[2]
        == "Operation does not require recovery"
    )
    assert (
        client.error("operation_undo_prepare", operation_id=op)[2]
        == "Undo requires a terminal, durable, reconciled operation"
    )
    # latch cleared: new writes work again
    assert client.wait(client.apply(fresh, "new")["operation_id"])["status"] == "applied"


def test_clean_restart_keeps_world_journal_tokens_and_keys(tmp_path):
    data = tmp_path / "data"
    first = spawn_server(data)
    client = Rpc(first)
    try:
        done = client.build([box((0, 70, 0), (2, 70, 0), "minecraft:bricks")], "keep")
        tokens = (first.admin_token, first.agent_token)
    finally:
        client.close()
    assert first.stop() == 0
    log = first.stderr_path.read_text()
    assert "tokens.json" in log and tokens[0] not in log and tokens[1] not in log
    assert (data / "tokens.json").stat().st_mode & 0o777 == 0o600
    second = spawn_server(data)
    client = Rpc(second)
    try:
        assert (second.admin_token, second.agent_token) == tokens
        assert set(client.inspect_blocks((0, 70, 0), (2, 70, 0)).values()) == {"minecraft:bricks"}
        assert client.call("operation_status", operation_id=done["operation_id"]) == done
        plan_id = done["plan_id"]
        with sqlite3.connect(data / "journal.sqlite3") as db:
            plan_hash = db.execute("SELECT sha256 FROM plans WHERE id=?", (plan_id,)).fetchone()[0]
        replay = client.call("build_apply", plan_id=plan_id, plan_hash=plan_hash, idempotency_key="keep")
        assert replay["operation_id"] == done["operation_id"]
        undo = client.call("operation_undo_prepare", operation_id=done["operation_id"])
        assert client.wait(client.apply(undo, "undo")["operation_id"])["written"] == 3
    finally:
        client.close()
        second.stop()


def test_recovery_guard_and_an_operation_interrupted_before_any_write(tmp_path):
    from mcb.server.testing import run_server

    data = tmp_path / "d"
    with run_server(data) as first:
        client = Rpc(first)
        client.admin("test_hold_apply", held=True)  # the engine never gets to step: the op stays queued
        plan = client.prepare([box((40, 70, 0), (41, 70, 0), STONE)])
        op = client.apply(plan, "q")["operation_id"]
        client.close()
    with run_server(data) as second:
        client = Rpc(second)
        try:
            status = client.call("operation_status", operation_id=op)
            assert (status["status"], status["message"], status["written"]) == ("recovery_required", INTERRUPTED, 0)
            assert client.admin("project_context")["operations"][0]["status"] == "recovery_required"
            client.admin("test_set_area", min=pos(-32, 0, -32), max=pos(32, 128, 32))
            assert client.error("recovery_review", token=second.admin_token, operation_id=op) == (
                400,
                "out_of_bounds",
                "Plan exceeds current project area",
            )
            client.admin("test_set_area", min=pos(-64, 0, -64), max=pos(64, 128, 64))
            review = client.admin("recovery_review", operation_id=op)
            assert (review["positions"], review["matchesBefore"], review["matchesAfter"]) == (0, 0, 0)
            epoch = client.admin("test_new_world_epoch")
            assert client.error(
                "recovery_abandon", token=second.admin_token, operation_id=op, expected_digest=review["currentDigest"]
            ) == (400, "version_mismatch", "Project or world changed")
            assert epoch["world_epoch"]
        finally:
            client.close()
