"""The pipelined loop of a schematic build: while one plan applies, the next is read, diffed and prepared.

At most one plan is ahead (plans expire after 10 minutes). Both never share a position: the next plan's positions
come from tiles read before, or beside, the running one's. Every plan is an entry of the step's :class:`PlanLog`,
recorded before each request; ``record["cursor"]`` is where the walk resumes (the end tile of the last applied
plan), so a re-run — after Ctrl-C, a crash or kill -9 — settles what was in flight and reads on from there.

When the world changes under a plan (a conflict, a stale ``expected_blocks``) or a plan expires, the walk rewinds to
that plan's first tile and reads again, at most ``max_replans`` times per tile; then it stops and says where.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass, field

from mcb.batch.plans import PlanLog, StopRequest, drop_entry, finish_entry, settle_in_flight, start_operation
from mcb.client.progress import OperationTracker, RateClock
from mcb.client.workflow import outcome_error, wait_for_operation
from mcb.errors import ConflictError, McbError

MAX_REPLANS = 3


@dataclass
class BuildOutcome:
    result: str  # applied | nothing_to_change | stopped | failed
    plans: int = 0  # plans applied (or ended) in this run
    written: int = 0
    positions: int = 0  # positions planned in this run
    error: McbError | None = None
    operations: list[str] = field(default_factory=list)


class BuildLoop:
    def __init__(
        self,
        client,
        log: PlanLog,
        planner,
        *,
        wait_timeout: float = 600.0,
        interval: float = 0.1,
        stop: StopRequest | None = None,
        on_event=None,
        on_view=None,
        max_replans: int = MAX_REPLANS,
    ):
        self.client, self.log, self.planner = client, log, planner
        self.wait_timeout, self.interval = wait_timeout, interval
        self.stop = stop or StopRequest()
        self._event = on_event or (lambda event, details: None)
        self._view = on_view
        self.max_replans = max_replans
        self.replans: Counter = Counter()
        self.ahead = None  # (entry, planned) prepared while the current plan applies
        self.exhausted = False
        self.deferred_rewind = None  # a stale read found while another plan applied: rewind once it ends
        self.deferred_error: McbError | None = None
        self.outcome = BuildOutcome("applied")
        self.clock = RateClock()
        self.done_positions = 0  # positions of plans that ended in this run
        self.current = None  # (entry, planned, tracker)
        self.cancel_sent = False

    # -- the loop ---------------------------------------------------------------------------------------------------
    def run(self) -> BuildOutcome:
        self.planner.rewind(tuple(self.log.record.get("cursor") or (0, 0)))  # so a bar counts from there
        self.settle()
        self.planner.rewind(tuple(self.log.record.get("cursor") or (0, 0)))
        completed = False
        try:
            while not self.stop.stop:
                if self.ahead is None:
                    self.ahead = self.prepare_next()
                    if self.ahead is None:
                        completed = True
                        break
                entry, planned = self.ahead
                self.ahead = None
                if not self.apply(entry, planned):
                    break
        finally:
            if self.ahead is not None:
                drop_entry(self.log, self.ahead[0], "the run stopped before applying it")
                self.ahead = None
        if self.outcome.result == "applied":
            if not completed:
                self.outcome.result = "stopped"
            elif not self.outcome.plans:
                self.outcome.result = "nothing_to_change"
        return self.outcome

    def apply(self, entry: dict, planned) -> bool:
        """Apply one prepared plan and wait for it; False when the loop must stop."""
        status = start_operation(self.client, self.log, entry, deadline=time.monotonic() + self.wait_timeout)
        if status is None:
            self.rewind(planned.start, f"plan {entry['plan']['plan_id']} expired before it applied")
            return True
        self._event("started", {"operation_id": status.operation_id, "positions": len(planned)})
        self.current = (entry, planned, OperationTracker())
        self.cancel_sent = False
        final = wait_for_operation(
            self.client,
            status.operation_id,
            timeout=self.wait_timeout,
            interval=self.interval,
            first=status,
            on_progress=self.on_status,
        )
        finish_entry(self.log, entry, final)
        self.current = None
        self.done_positions += len(planned)
        self.outcome.plans += 1
        self.outcome.written += final.written
        self.outcome.positions += len(planned)
        self.outcome.operations.append(final.operation_id)
        self._event(
            "finished",
            {
                "status": final.status,
                "written": final.written,
                "total": final.total_changes,
                "processed": final.processed,
                "operation_id": final.operation_id,
            },
        )
        if final.status == "applied":
            self.log.set(cursor=list(planned.end))
            if self.deferred_error is not None:
                error, self.deferred_error = self.deferred_error, None
                raise error
            if self.deferred_rewind is not None:
                cursor, self.deferred_rewind = self.deferred_rewind, None
                self.rewind(cursor, "the world changed under a plan being prepared")
            return True
        if self.ahead is not None:  # its reads may be fine, but the walk goes back before it
            drop_entry(self.log, self.ahead[0], f"re-planning after {final.status}")
            self.ahead = None
        self.exhausted = False
        if final.status == "cancelled" and self.stop.cancel:
            self.outcome.result = "stopped"
            return False
        expired = final.status == "failed" and final.message.startswith("Plan expired")
        if final.status == "conflict" or expired:
            self.rewind(planned.start, outcome_error(final).message, final)
            return True
        self.outcome.result = "failed"
        self.outcome.error = outcome_error(final)
        return False

    def settle(self) -> None:
        """Finish what an earlier run left in flight before reading anything (plans.settle_in_flight)."""
        trackers: dict = {}

        def show(entry, status) -> None:
            tracker = trackers.setdefault(id(entry), OperationTracker())
            self._cancel_if_asked(status)
            self._show(status, tracker, entry.get("positions", 0), phase_prefix="resuming ")

        for entry, final in settle_in_flight(
            self.client,
            self.log,
            wait_timeout=self.wait_timeout,
            interval=self.interval,
            on_status=show,
            on_event=self._event,
        ):
            self.outcome.plans += 1
            self.outcome.written += final.written
            self.done_positions += entry.get("positions", 0)  # its writes are counted, so are its positions
            self.outcome.operations.append(final.operation_id)
            if final.status == "applied" and entry.get("end"):
                self.log.set(cursor=entry["end"])

    # -- planning ---------------------------------------------------------------------------------------------------
    def prepare_next(self, *, beside_apply: bool = False):
        """Read, diff and prepare the next plan: ``(entry, planned)``, or None when the build is complete."""
        while True:
            planned = self.planner.next_plan()
            if planned is None:
                self.exhausted = True
                return None
            params = planned.params(self.planner.table)
            try:
                summary = self.client.build_prepare(params["recipe"], expected_blocks=params["expected_blocks"])
            except ConflictError as error:
                if error.code != "stale_snapshot":
                    raise
                if beside_apply:  # re-reading now could catch the running plan half-way: wait for its end
                    self.deferred_rewind = planned.start
                    return None
                self.rewind(planned.start, error.message)
                continue
            entry = self.log.add(summary, start=list(planned.start), end=list(planned.end), positions=len(planned))
            self._event(
                "prepared",
                {"plan_id": summary.plan_id, "changed_blocks": summary.changed_blocks, "positions": len(planned)},
            )
            return entry, planned

    def rewind(self, cursor, why: str, final=None) -> None:
        cursor = tuple(cursor)
        self.replans[cursor] += 1
        if self.replans[cursor] > self.max_replans:
            where = _tile_text(self.planner, cursor)
            details = {"cursor": list(cursor), "tile": where}
            if final is not None and final.conflicts:
                details["conflicts"] = [c.wire() for c in final.conflicts]
            raise ConflictError(
                f"the world keeps changing under the build near {where} ({why}); stopped after "
                f"{self.max_replans} fresh reads and plans",
                code="build_conflict",
                details=details,
                hint="find what edits that area (a player, a farm, another build), then run the same command "
                "again: it reads the world afresh and goes on from there",
            )
        self._event("replan", {"why": why, "tile": _tile_text(self.planner, cursor)})
        self.exhausted = False
        self.planner.rewind(cursor)

    # -- waiting ----------------------------------------------------------------------------------------------------
    def _cancel_if_asked(self, status) -> None:
        """Ctrl-C twice: cancel the running operation (once; again at the next poll if that failed)."""
        if self.stop.cancel and not self.cancel_sent and not status.terminal:
            self.cancel_sent = True
            self._event("cancel", {"operation_id": status.operation_id})
            try:
                self.client.operation_cancel(status.operation_id)
            except McbError:
                self.cancel_sent = False

    def on_status(self, status) -> None:
        entry, planned, tracker = self.current
        self._cancel_if_asked(status)
        self._show(status, tracker, len(planned))
        if status.terminal or self.ahead is not None or self.exhausted or self.stop.stop:
            return
        if self.deferred_rewind is not None or self.deferred_error is not None:
            return
        try:
            self.ahead = self.prepare_next(beside_apply=True)
        except McbError as error:  # raised once the running plan has ended and is recorded
            self.deferred_error = error

    def _show(self, status, tracker: OperationTracker, positions: int, phase_prefix: str = "") -> None:
        if self._view is None:
            return
        fraction = tracker.update(status)
        ahead = len(self.ahead[1]) if self.ahead is not None else 0
        left = ahead + self.planner.pending_count() + self.planner.remaining_blocks()
        total = self.done_positions + positions + left
        plan = self.outcome.plans + 1
        plans = plan + (1 if ahead else 0) + math.ceil((left - ahead) / self.planner.capacity)
        view = self.clock.view(
            self.done_positions + fraction * positions,
            total,
            written=self.outcome.written + status.written,
            phase=phase_prefix + tracker.phase,
            plan=plan,
            plans=plans,
            operation_id=status.operation_id,
            estimated=not self.planner.all_read(),
        )
        self._view(view)


def _tile_text(planner, cursor) -> str:
    pass_no, index = cursor
    tiles = planner.walker.tiles
    if index >= len(tiles):
        return "the end of the build"
    tile = tiles[index]
    ox, oy, oz = planner.walker.placement.origin
    low = (tile.lo[0] + ox, tile.lo[1] + oy, tile.lo[2] + oz)
    high = (tile.hi[0] + ox - 1, tile.hi[1] + oy - 1, tile.hi[2] + oz - 1)
    return f"{','.join(map(str, low))} .. {','.join(map(str, high))}"
