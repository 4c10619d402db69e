"""A schematic file of any size as a plan source: read the world, diff, pack into plans (:mod:`mcb.building`).

Both ``mcb build FILE`` (its state in the user state directory, under its build id: :func:`build_identity`) and a
batch file's ``schematic`` step run it on the one engine. ``record["cursor"]`` is where the walk resumes (the end tile
of the last applied plan), so a re-run — after Ctrl-C, a crash or kill -9 — settles what was in flight and reads on
from there.

When the world changes under a plan (a conflict, a stale ``expected_blocks``), a plan expires, or an administrator
abandons its operation after a restart, the walk rewinds to that plan's first tile and reads again, at most
``max_replans`` times per tile; then it stops and says where. Every plan records, before it is applied, the states mcb
read at its positions and the states it asked for (:class:`mcb.batch.log.ExpectedStates`): what an undo the plugin
refuses is restored from.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import numpy as np

from mcb.batch.log import ExpectedStates, PlanLog
from mcb.batch.source import FAIL, NEXT, Prepared, Remaining
from mcb.batch.sources import prepare_again
from mcb.building.planner import BuildPlanner
from mcb.client.models import OperationStatus
from mcb.client.operations import outcome_error
from mcb.errors import ConflictError, InputError
from mcb.refusals import code_hint

BUILD_STEP = "build"
MAX_REPLANS = 3


def file_identity(path: Path) -> str:
    """sha256 of a schematic file (what makes a step "the same" besides its fields)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as error:
        raise InputError(f"{path}: {error.strerror or error}", code="unreadable_file") from None


def build_identity(server: str, project_id: str | None, player_id: str | None, file_sha256: str,
                   options_json: dict) -> str:  # fmt: skip
    """The build id of ``mcb build FILE``: 12 hex digits naming this file placed this way on this server."""
    text = json.dumps(
        {"server": server.rstrip("/"), "project_id": project_id, "player_id": player_id, "file": file_sha256,
         "placement": options_json},
        sort_keys=True,
        separators=(",", ":"),
    )  # fmt: skip
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def builds_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_state_dir("mcb")) / "builds"


def build_state_path(build_id: str) -> Path:
    return builds_dir() / f"{build_id}.state.json"


class SchematicSource:
    """The plans of one placed file, read and diffed tile by tile, one prepared ahead while another applies."""

    ahead = True

    def __init__(self, client, placement, log: PlanLog, *, capacity: int = 4096, max_replans: int = MAX_REPLANS):
        self.client, self.placement, self.log = client, placement, log
        self.capacity = capacity
        self.max_replans = max_replans
        self.planner = BuildPlanner(client, placement, capacity=capacity, cursor=self.cursor(), start=False)
        self.started = False
        self.replans: Counter = Counter()
        self.deferred: tuple[tuple, str] | None = None  # a stale read found beside an apply: rewind once it ends
        self.event = lambda name, details: None

    def cursor(self) -> tuple[int, int]:
        return tuple(self.log.record.get("cursor") or (0, 0))

    def close(self) -> None:
        self.planner.close()

    # -- the engine's questions -------------------------------------------------------------------------------------
    def next_plan(self, *, beside: bool) -> Prepared | None:
        if not self.started:  # after settling: reads start from the cursor the settled plans left
            self.started = True
            self.planner.rewind(self.cursor(), world_changed=False)
        if self.deferred is not None:
            if beside:
                return None
            (cursor, why), self.deferred = self.deferred, None
            self.rewind(cursor, why)
        while True:
            planned = self.planner.next_plan()
            if planned is None:
                return None
            params = planned.params(self.planner.table)
            try:
                summary = self.client.build_prepare(params["recipe"], expected_blocks=params["expected_blocks"])
            except ConflictError as error:
                if error.code != "stale_snapshot":
                    raise
                if beside:  # re-reading now could catch the running plan half-way: wait for its end
                    self.deferred = (planned.start, error.message)
                    return None
                self.rewind(planned.start, error.message)
                continue
            fields = {"start": list(planned.start), "end": list(planned.end), "positions": len(planned),
                      "expected": self.log.save_expected(self._expected(planned))}  # fmt: skip
            return Prepared(summary, fields)

    def _expected(self, planned) -> ExpectedStates:
        changes, names = planned.changes, self.planner.table.names
        snapshots = changes.snapshots
        be = np.array([p in snapshots for p in zip(changes.x.tolist(), changes.y.tolist(), changes.z.tolist())],
                      dtype=bool)  # fmt: skip
        return ExpectedStates(changes.x, changes.y, changes.z, [names[i] for i in changes.have.tolist()],
                              [names[i] for i in changes.want.tolist()], be)  # fmt: skip

    def on_settled(self, entry: dict, final: OperationStatus) -> str:
        if final.status == "applied" and entry.get("end"):
            self.log.set(cursor=entry["end"])
        return NEXT  # anything else: the walk reads the world afresh from the cursor

    def on_finished(self, entry: dict, final: OperationStatus | None) -> str:
        start = tuple(entry.get("start") or (0, 0))
        if final is None:
            self.rewind(start, f"plan {entry['plan']['plan_id']} expired before it applied")
            return NEXT
        if final.status == "applied":
            self.log.set(cursor=entry["end"])
            return NEXT
        if final.status == "conflict" or prepare_again(final):
            self.rewind(start, outcome_error(final).message, final)
            return NEXT
        return FAIL

    def remaining(self) -> Remaining:
        positions, estimated = self.planner.remaining()
        return Remaining(positions, estimated, self.planner.likely_remaining() if estimated else positions)

    def more(self) -> bool:
        return not self.started or self.deferred is not None or self.planner.remaining()[0] > 0

    # -- re-reading -----------------------------------------------------------------------------------------------
    def rewind(self, cursor, why: str, final: OperationStatus | None = None) -> None:
        cursor = tuple(cursor)
        self.replans[cursor] += 1
        if self.replans[cursor] > self.max_replans:
            where = self.tile_text(cursor)
            details = {"cursor": list(cursor), "tile": where}
            if final is not None and final.conflicts:
                details["conflicts"] = [c.wire() for c in final.conflicts]
            raise ConflictError(
                f"the world keeps changing under the build near {where} ({why}); stopped after "
                f"{self.max_replans} fresh reads and plans",
                code="build_conflict",
                details=details,
                hint=code_hint("build_conflict"),
            )
        self.event("replan", {"why": why, "tile": self.tile_text(cursor)})
        self.planner.rewind(cursor)

    def tile_text(self, cursor) -> str:
        _, index = cursor
        walker = self.planner.walker
        if index >= len(walker.tiles):
            return "the end of the build"
        low, high = walker.world_box(walker.tiles[index])
        return f"{','.join(map(str, low))} .. {','.join(map(str, high))}"
