"""Undo preparation (§3.9, §5.5) and crash recovery review/abandon with the exact digest (§3.15, §5.6)."""

from __future__ import annotations

import hashlib
import hmac
import re
import struct

from mcb.server.errors import invalid
from mcb.server.operation import TERMINAL
from mcb.server.params import blockpos_text, now_ms, pos_order
from mcb.server.plans import new_plan

_DIGEST = re.compile(r"[0-9a-f]{64}")
ABANDON_MESSAGE = "Administrator abandoned uncertain history; world unchanged; this operation cannot be undone"


def prepare_undo(state, op) -> dict:
    state.available()
    if op.status not in TERMINAL or op.status == "recovery_required" or op.abandoned_revision or op.pending:
        raise invalid("Undo requires a terminal, durable, reconciled operation")
    source = state.plans[op.plan_id]
    state.guard(source, mode="apply")
    engine, world = state.engine, state.world
    for receipt in op.receipts:
        writer = engine.last_writers.get(receipt.pos)
        if writer is None or writer[0] != op.id:
            raise invalid(f"Undo conflict: known later operation at {blockpos_text(receipt.pos)}")
        if world.read(receipt.pos) != receipt.desired:
            raise invalid(f"Undo conflict: external change at {blockpos_text(receipt.pos)}")
    changes = [(r.pos, r.desired, r.expected) for r in op.receipts]
    plan = new_plan(state, "undo", changes, [], region=(source.region_min, source.region_max), undo_of=op.id)
    state.store_plan(plan)
    return plan.summary()


def review_mask(state, op) -> list[tuple]:
    """The §5.6 mask: receipts, then pending intent entries that change something, then abandoned positions."""
    plan = state.plans[op.plan_id]
    mask: dict = {}
    for receipt in op.receipts:
        mask.setdefault(receipt.pos, (receipt.expected, receipt.desired))
    if op.pending is not None:
        for pos, expected, desired in op.pending["changes"]:
            if expected != desired:
                mask.setdefault(pos, (expected, desired))
    if op.abandoned_positions:
        by_pos = {p: (e, d) for p, e, d in plan.changes}
        for pos in op.abandoned_positions:
            if pos in by_pos:
                mask.setdefault(pos, by_pos[pos])
    return [(pos, *mask[pos]) for pos in sorted(mask, key=pos_order)]


def review(state, op) -> dict:
    if op.status != "recovery_required":
        raise invalid("Operation does not require recovery")
    plan = state.plans[op.plan_id]
    state.guard(plan, mode="recovery")
    return compute_review(state, op, plan)


def compute_review(state, op, plan) -> dict:
    digest = hashlib.sha256()
    for text in ("minecraft-builder-mcp-recovery-v1", op.id, plan.id, plan.world_id, plan.world_epoch):
        digest.update(_prefixed(text))
    before_count = after_count = foreign = 0
    mask = review_mask(state, op)
    captured = state.snapshots.captured  # the digest covers full captured values, entity part included
    for pos, before, after in mask:
        current = state.world.read(pos)
        if current == before:
            before_count += 1
        elif current == after:
            after_count += 1
        else:
            foreign += 1
        digest.update(struct.pack(">iii", *pos))
        digest.update(_prefixed(captured(before)) + _prefixed(captured(after)) + _prefixed(captured(current)))
    return {
        "operationId": op.id,
        "planId": plan.id,
        "positions": len(mask),
        "matchesBefore": before_count,
        "matchesAfter": after_count,
        "foreignStates": foreign,
        "currentDigest": digest.hexdigest(),
        "sampledAtMillis": now_ms(),
    }


def abandon(state, op, expected_digest) -> dict:
    state.available()
    if op.status != "recovery_required":
        raise invalid("Operation does not require recovery")
    if not isinstance(expected_digest, str) or not _DIGEST.fullmatch(expected_digest):
        raise invalid("A SHA-256 digest from reviewRecovery is required")
    plan = state.plans[op.plan_id]
    state.guard(plan, mode="recovery")
    fresh = compute_review(state, op, plan)
    if not hmac.compare_digest(fresh["currentDigest"], expected_digest):
        raise invalid("Recovery mask changed since review; inspect and review again")
    engine = state.engine
    mask_positions = [entry[0] for entry in review_mask(state, op)]
    engine.revision += 1
    op.abandoned_revision = engine.revision
    op.abandoned_positions = mask_positions
    for pos in mask_positions:
        engine.last_writers[pos] = (f"abandoned:{op.id}", engine.revision)
    op.pending = None
    op.status, op.message = "failed", ABANDON_MESSAGE
    try:
        engine.persist_now(op)
    finally:
        engine.refresh_latch()
    return engine.view(op)


def _prefixed(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack(">I", len(data)) + data


__all__ = ["abandon", "compute_review", "prepare_undo", "review", "review_mask"]
