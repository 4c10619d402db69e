"""Parts: named exact masks of positions written by an operation (protocol §3.10), persisted in the journal."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from mcb.server.params import pos_json

MAX_PARTS = 64


@dataclass
class Part:
    id: str
    seq: int
    name: str
    operation_id: str
    positions: frozenset
    protected: bool = False

    def summary(self) -> dict:
        return {"part_id": self.id, "name": self.name, "protected": self.protected, "block_count": len(self.positions)}

    def payload(self) -> dict:
        ordered = sorted(self.positions, key=lambda p: (p[1], p[2], p[0]))
        return {
            "id": self.id,
            "name": self.name,
            "operationId": self.operation_id,
            "positions": [pos_json(p) for p in ordered],
            "locked": self.protected,
        }


class PartStore:
    """In-memory index over the ``parts`` table. Callers hold the server lock."""

    def __init__(self, journal):
        self._journal = journal
        self._parts: dict[str, Part] = {}

    def load(self, rows) -> None:
        for part_id, seq, payload in rows:
            positions = frozenset((p["x"], p["y"], p["z"]) for p in payload["positions"])
            self._parts[part_id] = Part(
                part_id, seq, payload["name"], payload["operationId"], positions, bool(payload.get("locked"))
            )

    def all(self) -> list[Part]:
        return sorted(self._parts.values(), key=lambda p: p.seq)

    def get(self, part_id) -> Part | None:
        return self._parts.get(part_id) if isinstance(part_id, str) else None

    def define(self, name: str, operation_id: str, positions) -> Part:
        """Create and persist a part (the caller has done the §3.10 checks: limits, overlap, name)."""
        seq = max((p.seq for p in self._parts.values()), default=0) + 1
        part = Part(str(uuid.uuid4()), seq, name, operation_id, frozenset(tuple(p) for p in positions))
        self._journal.persist(parts=[(part.id, part.seq, part.payload())])
        self._parts[part.id] = part
        return part

    def protect(self, part_id: str) -> Part | None:
        part = self._parts.get(part_id)
        if part is not None and not part.protected:
            part.protected = True
            self._journal.persist(parts=[(part.id, part.seq, part.payload())])
        return part

    def protected_overlap(self, positions: frozenset) -> Part | None:
        for part in self.all():
            if part.protected and not part.positions.isdisjoint(positions):
                return part
        return None
