"""Plans: the immutable record, its hash, and the preparation pipeline shared by every ``*_prepare`` method
(protocol §3.6 steps 3-9, §4.3, §4.7, §5.1)."""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from dataclasses import dataclass, field

from mcb.server.errors import RpcError, invalid
from mcb.server.params import Pos, blockpos_text, loose_pos, now_ms, pos_json, pos_order, region_json

PLAN_TTL_MS = 600_000
SNAPSHOT_BUDGET = 8 * 1024 * 1024
_SHA256 = re.compile(r"[a-f0-9]{64}")
_NEIGHBOURS = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))


@dataclass
class Plan:
    id: str
    kind: str
    project_id: str
    world_epoch: str
    world_id: str
    region_min: Pos
    region_max: Pos
    changes: list[tuple[Pos, str, str]]  # (pos, expected before-value, desired), sorted by (y, z, x)
    dependencies: list[tuple[Pos, str]]
    created_ms: int
    expires_ms: int
    undo_of: str | None = None
    sha256: str = ""
    text: str | None = field(default=None, repr=False)  # the hashed serialization, journaled verbatim
    _desired: dict | None = field(default=None, repr=False)
    _actual: frozenset | None = field(default=None, repr=False)
    _bounds: dict = field(default_factory=dict, repr=False)

    def record(self) -> dict:
        """The Plan record in Gson field order; its compact serialization is what ``plan_hash`` hashes."""
        out = {
            "id": self.id,
            "projectId": self.project_id,
            "worldEpoch": self.world_epoch,
            "region": region_json(self.world_id, self.region_min, self.region_max),
            "changes": [{"pos": pos_json(p), "expected": e, "desired": d} for p, e, d in self.changes],
            "dependencies": [{"pos": pos_json(p), "expected": e} for p, e in self.dependencies],
            "createdAtMillis": self.created_ms,
            "expiresAtMillis": self.expires_ms,
        }
        if self.undo_of is not None:
            out["undoOf"] = self.undo_of
        return out

    def record_text(self) -> str:
        return gson_text(self.record())

    def compute_hash(self, text: str | None = None) -> str:
        return hashlib.sha256((text or self.record_text()).encode("utf-8")).hexdigest()

    @classmethod
    def from_record(cls, kind: str, sha256: str, record: dict) -> Plan:
        region = record["region"]
        return cls(
            id=record["id"],
            kind=kind,
            project_id=record["projectId"],
            world_epoch=record["worldEpoch"],
            world_id=region["worldId"],
            region_min=_tuple(region["min"]),
            region_max=_tuple(region["max"]),
            changes=[(_tuple(c["pos"]), c["expected"], c["desired"]) for c in record["changes"]],
            dependencies=[(_tuple(d["pos"]), d["expected"]) for d in record["dependencies"]],
            created_ms=record["createdAtMillis"],
            expires_ms=record["expiresAtMillis"],
            undo_of=record.get("undoOf"),
            sha256=sha256,
        )

    def summary(self) -> dict:
        return {
            "plan_id": self.id,
            "plan_hash": self.sha256,
            "changed_blocks": len(self.actual_positions()),
            "region": region_json(self.world_id, self.region_min, self.region_max),
            "expires_at": self.expires_ms,
        }

    def desired_at(self) -> dict:
        if self._desired is None:
            self._desired = {p: d for p, _, d in self.changes}
        return self._desired

    def bounds(self, which: str = "changes") -> tuple[Pos, Pos] | None:
        """Bounding box of the changes (or dependencies): a box region holds them all iff it holds this box."""
        if which not in self._bounds:
            items = [c[0] for c in (self.changes if which == "changes" else self.dependencies)]
            self._bounds[which] = (
                None
                if not items
                else (
                    tuple(min(p[i] for p in items) for i in range(3)),
                    tuple(max(p[i] for p in items) for i in range(3)),
                )
            )
        return self._bounds[which]

    def actual_positions(self) -> frozenset:
        """Positions whose before-value differs from the desired value (the plan's real edits)."""
        if self._actual is None:
            self._actual = frozenset(p for p, e, d in self.changes if e != d)
        return self._actual


def gson_text(value) -> str:
    """Compact JSON with Gson's default HTML escaping, so hashes match the plugin's serialization style."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("=", "\\u003d"), ("'", "\\u0027")):
        text = text.replace(char, escape)
    return text


def _tuple(pos: dict) -> Pos:
    return (pos["x"], pos["y"], pos["z"])


def new_plan(state, kind: str, changes, dependencies, *, region=None, undo_of=None) -> Plan:
    created = now_ms()
    low, high = region or (state.world.region_min, state.world.region_max)
    plan = Plan(
        id=str(uuid.uuid4()),
        kind=kind,
        project_id=state.config.project_id,
        world_epoch=state.world.epoch,
        world_id=state.world.world_id,
        region_min=low,
        region_max=high,
        changes=sorted(changes, key=lambda c: pos_order(c[0])),
        dependencies=sorted(dependencies, key=lambda d: pos_order(d[0])),
        created_ms=created,
        expires_ms=created + PLAN_TTL_MS,
        undo_of=undo_of,
    )
    plan.text = plan.record_text()
    plan.sha256 = plan.compute_hash(plan.text)
    return plan


def prepare_plan(
    state, kind, changes, *, dependencies=(), part_id=None, expected_blocks=None, undo_of=None, check_available=True
) -> dict:
    """§3.6 steps 3-9 for a list of ``(pos, desired_text)``; returns the plan summary. Caller holds the lock."""
    if check_available:
        state.available()
    desired: dict[Pos, str] = {}
    for pos, text in changes:
        desired[tuple(pos)] = state.canonicalize(text)
    world = state.world
    if part_id is not None:
        part = state.parts.get(part_id)
        if part is None:
            raise RpcError("not_found", "Part not found")
        if any(pos not in part.positions for pos in desired):
            raise RpcError("out_of_bounds", "Patch exceeds the exact part mask; create a new part for an extension")
    for pos in sorted(desired, key=pos_order):
        if not world.in_region(pos):
            raise RpcError("out_of_bounds", "Recipe exceeds project region")
        for dx, dy, dz in _NEIGHBOURS:
            neighbour = (pos[0] + dx, pos[1] + dy, pos[2] + dz)
            if neighbour not in desired and world.within_height(neighbour):
                world.read(neighbour)
    if expected_blocks is not None:
        check_expected_blocks(state, expected_blocks, desired)
    state.guard(None, mode="prepare")
    deps = list(dict.fromkeys(tuple(d) for d in dependencies))
    for pos in deps:
        if not world.in_region(pos):
            raise invalid(f"Position outside authorized region: {blockpos_text(pos)}")
    before = {pos: world.read(pos) for pos in desired}
    dep_records = [(pos, before[pos] if pos in before else world.read(pos)) for pos in deps]
    size = sum(len(b) + len(desired[p]) for p, b in before.items()) + sum(len(e) for _, e in dep_records)
    if size > SNAPSHOT_BUDGET:
        raise invalid("snapshot_budget_exceeded: split the edit into smaller plans (8 MiB snapshot limit)")
    plan = new_plan(state, kind, [(p, before[p], d) for p, d in desired.items()], dep_records, undo_of=undo_of)
    state.store_plan(plan)
    return plan.summary()


def check_expected_blocks(state, entries, desired: dict) -> None:
    """§4.7: exact coverage, canonical states, optional snapshot ids; then compare with the live world in order."""
    if not isinstance(entries, list) or len(entries) != len(desired) or len(entries) > 4096:
        raise invalid("expected_blocks must cover every desired position exactly once")
    parsed: list[tuple[Pos, str, str | None]] = []
    seen: set[Pos] = set()
    for entry in entries:
        if not isinstance(entry, dict):
            raise invalid("expected_blocks must cover every desired position exactly once")
        pos = loose_pos(entry.get("pos"), message="Expected position coordinates must be integers")
        if pos not in desired or pos in seen:
            raise invalid("Unexpected or duplicate expected_blocks position")
        seen.add(pos)
        text = entry.get("state")
        if not isinstance(text, str):
            raise RpcError("unsupported_block", "Invalid registered block or block properties")
        snapshot = entry.get("snapshot_id")
        if snapshot is not None and (not isinstance(snapshot, str) or not _SHA256.fullmatch(snapshot)):
            raise invalid("snapshot_id must be a SHA-256 digest")
        parsed.append((pos, state.canonicalize(text), snapshot))
    for pos, expected, snapshot in parsed:
        current = state.world.read(pos)
        if current != expected:
            raise RpcError("stale_snapshot", f"Caller snapshot changed at {blockpos_text(pos)}")
        current_id = state.snapshots.snapshot_id(current)
        if current_id is not None and snapshot is None:
            raise invalid(
                f"expected_blocks needs snapshot_id for block-entity data at {blockpos_text(pos)}; "
                "inspect this block again"
            )
        if snapshot is not None and snapshot != current_id:
            raise RpcError("stale_snapshot", f"Caller block-entity snapshot changed at {blockpos_text(pos)}")
