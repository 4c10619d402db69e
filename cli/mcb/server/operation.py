"""The operation record (protocol §3.8, §5.7 ``OperationSnapshot``) and its public status view."""

from __future__ import annotations

from dataclasses import dataclass, field

from mcb.server.params import Pos, pos_json

NON_TERMINAL = frozenset({"queued", "applying"})
TERMINAL = frozenset({"applied", "conflict", "cancelled", "failed", "recovery_required"})


@dataclass
class Receipt:
    pos: Pos
    expected: str
    desired: str
    revision: int


@dataclass
class Operation:
    id: str
    seq: int
    plan_id: str
    idempotency_key: str  # project-scoped: project_id + "\0" + key
    status: str = "queued"
    cursor: int = 0
    skipped: int = 0
    preflight_cursor: int = 0
    audit_cursor: int = 0
    next_sequence: int = 0
    receipts: list[Receipt] = field(default_factory=list)
    pending: dict | None = None  # {"sequence": n, "changes": [(pos, expected, desired)]}
    conflicts: list[dict] = field(default_factory=list)
    message: str = "Awaiting bounded preflight"
    cancellation_requested: bool = False
    abandoned_revision: int = 0
    abandoned_positions: list[Pos] = field(default_factory=list)
    persisted_receipts: int = 0  # receipts already in the journal

    @property
    def terminal(self) -> bool:
        return self.status not in NON_TERMINAL

    def owned_positions(self) -> list[Pos]:
        return [r.pos for r in self.receipts]

    def payload(self) -> dict:
        """Everything but the receipts (those are rows of their own, appended per slice)."""
        pending = None
        if self.pending is not None:
            pending = {
                "operationId": self.id,
                "sequence": self.pending["sequence"],
                "changes": [{"pos": pos_json(p), "expected": e, "desired": d} for p, e, d in self.pending["changes"]],
            }
        return {
            "id": self.id,
            "planId": self.plan_id,
            "idempotencyKey": self.idempotency_key,
            "status": self.status.upper(),
            "cursor": self.cursor,
            "skipped": self.skipped,
            "preflightCursor": self.preflight_cursor,
            "auditCursor": self.audit_cursor,
            "nextSequence": self.next_sequence,
            "pending": pending,
            "conflicts": self.conflicts,
            "message": self.message,
            "cancellationRequested": self.cancellation_requested,
            "abandonedRevision": self.abandoned_revision,
            "abandonedPositions": [pos_json(p) for p in self.abandoned_positions],
        }

    @classmethod
    def from_payload(cls, seq: int, payload: dict) -> Operation:
        pending = payload.get("pending")
        if pending is not None:
            pending = {
                "sequence": pending["sequence"],
                "changes": [(_t(c["pos"]), c["expected"], c["desired"]) for c in pending["changes"]],
            }
        return cls(
            id=payload["id"],
            seq=seq,
            plan_id=payload["planId"],
            idempotency_key=payload["idempotencyKey"],
            status=payload["status"].lower(),
            cursor=payload["cursor"],
            skipped=payload["skipped"],
            preflight_cursor=payload["preflightCursor"],
            audit_cursor=payload.get("auditCursor", 0),
            next_sequence=payload["nextSequence"],
            pending=pending,
            conflicts=payload["conflicts"],
            message=payload["message"],
            cancellation_requested=payload["cancellationRequested"],
            abandoned_revision=payload["abandonedRevision"],
            abandoned_positions=[_t(p) for p in payload["abandonedPositions"]],
        )

    def view(self, total_changes: int, snapshot_id=lambda state: None) -> dict:
        return {
            "operation_id": self.id,
            "plan_id": self.plan_id,
            "status": self.status,
            "written": len(self.receipts),
            "total_changes": total_changes,
            "processed": self.cursor,
            "conflicts": [public_conflict(c, snapshot_id) for c in self.conflicts],
            "message": self.message or "",
        }


def conflict_entry(pos: Pos, reason: str, expected: str, current: str, desired: str) -> dict:
    return {"pos": pos_json(pos), "expected": expected, "current": current, "desired": desired, "reason": reason}


def public_conflict(entry: dict, snapshot_id) -> dict:
    """The wire shape; a ``*_snapshot_id`` appears only when that value carries a block entity."""
    out = {
        "pos": entry["pos"],
        "reason": entry["reason"],
        "expected": entry["expected"],
        "current": entry["current"],
        "desired": entry["desired"],
    }
    for key in ("expected", "current", "desired"):
        snapshot = snapshot_id(entry[key])
        if snapshot is not None:
            out[f"{key}_snapshot_id"] = snapshot
    return out


def _t(pos: dict) -> Pos:
    return (pos["x"], pos["y"], pos["z"])
