"""The one engine: every write mcb makes runs here, as the entries of a plan log (:mod:`mcb.batch.log`).

    engine = Engine(client, PlanLog(state, "build"), wait=WaitPolicy(), stop=StopRequest(), on_view=bar.show)
    outcome = engine.run(source)         # a PlanSource: one recipe, a schematic walk, terrain tiles, an undo

A run first settles what an earlier run left in flight (re-sending ``build_apply`` with the recorded key returns the
existing operation; an operation a server restart interrupted is reviewed and abandoned with the administrator
capability, or named with the one command that does it). Then it asks its source for plans: prepares the next
while one applies (when the source allows), applies with a key recorded first, follows the operation at the plugin's
pace, and lets the source decide what a conflict or an expired plan means. Ctrl-C once stops at the next plan
boundary; twice also cancels the operation under way (:class:`mcb.batch.source.StopRequest`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from mcb.batch.log import PlanLog, counted_positions, entry_positions
from mcb.batch.source import FAIL, NEXT, EventSink, PlanSource, RunOutcome, StopRequest
from mcb.client.models import OperationStatus, PlanSummary
from mcb.client.operations import (
    build_seconds,
    default_idempotency_key,
    follow_operation,
    never_started,
    outcome_error,
    plan_seconds,
    plan_ticks,
    recovery_hint,
    resume_hint,
)
from mcb.client.progress import OperationTracker, ProgressView, RateClock
from mcb.client.transport import DEFAULT_TIMEOUT
from mcb.errors import ConflictError, McbError, NetworkError
from mcb.waiting import WaitPolicy


class Engine:
    def __init__(
        self,
        client,
        log: PlanLog,
        *,
        wait: WaitPolicy | None = None,
        stop: StopRequest | None = None,
        on_event: EventSink | None = None,
        on_view: Callable[[ProgressView], None] | None = None,
    ):
        self.client, self.log = client, log
        self.wait = wait or WaitPolicy()
        self.stop = stop or StopRequest()
        self.event: EventSink = on_event or (lambda name, details: None)
        self._view = on_view
        self.outcome = RunOutcome()
        self.ahead: tuple[dict, int] | None = None  # (entry, positions) prepared while the current plan applies
        self.deferred: McbError | None = None  # raised by preparing beside an apply: raised once that apply ends
        self.current: tuple[dict, OperationTracker] | None = None
        self.cancel_sent = False
        self.clock = RateClock()
        self.source: PlanSource | None = None  # none while an undo settles its build's log: entries are only recorded
        self.settling = False  # settle() is ending an earlier run's entries: reported apart from this run's
        self.shown_total: int | None = None
        self.settled_positions = 0  # of the earlier run's operations settled: the bar counts them as this run's work
        self.tick = None  # seconds per server tick, learned from plans that ended (the dry run assumes 0.05)

    # -- the run --------------------------------------------------------------------------------------------------
    def run(self, source: PlanSource) -> RunOutcome:
        self.source = source
        source.event = self.event
        if not self.settle():
            return self.outcome
        completed = False
        try:
            while True:
                if self.stop.stop:
                    completed = self.ahead is None and not self.source.more()
                    break
                entry = self._take_ahead() or self._prepare(beside=False)
                if entry is None:
                    completed = True
                    break
                if not self.apply(entry):
                    break
        finally:
            if self.ahead is not None:
                self._drop(self.ahead[0], "the run stopped before applying it")
                self.ahead = None
        if self.outcome.result == "applied":
            if not completed:
                self.outcome.result = "stopped"
            elif not self.outcome.plans:
                self.outcome.result = "nothing_to_change"
        return self.outcome

    def _take_ahead(self) -> dict | None:
        entry, self.ahead = (self.ahead or (None, 0))[0], None
        return entry

    def _prepare(self, *, beside: bool) -> dict | None:
        prepared = self.source.next_plan(beside=beside)
        if prepared is None:
            return None
        entry = self.log.add(prepared.plan, **prepared.fields)
        self.event(
            "prepared",
            {"plan_id": prepared.plan.plan_id, "changed_blocks": prepared.plan.changed_blocks,
             "positions": prepared.fields.get("positions", prepared.plan.changed_blocks)},
        )  # fmt: skip
        return entry

    def apply(self, entry: dict) -> bool:
        """Apply one prepared entry and follow it to its end; False when the run must stop."""
        status = self.start(entry)
        if status is None:  # it expired (or was otherwise refused) before any operation started
            self.event("expired", {"plan_id": entry["plan"]["plan_id"]})
            return self._decide(entry, None)
        positions = entry_positions(entry)
        self.event("started", {"operation_id": status.operation_id, "positions": positions})
        self.current = (entry, OperationTracker())
        self.cancel_sent = False
        started = time.monotonic()
        final = follow_operation(self.client, status.operation_id, self.wait, on_status=self._on_status, first=status)
        self.current = None
        if final.status == "recovery_required":
            final = self.recover(entry, final)
        if final.status == "applied" and final.total_changes:
            self.tick = (time.monotonic() - started) / plan_ticks(final.total_changes)
        self._ended(entry, final)
        if self.deferred is not None:
            error, self.deferred = self.deferred, None
            if final.status == "applied":
                raise error  # else the walk goes back before it anyway, and prepares that plan again
        if final.status != "applied" and self.ahead is not None:  # the walk goes back before it
            self._drop(self.ahead[0], f"re-planning after {final.status}")
            self.ahead = None
        if final.status == "cancelled" and self.stop.cancel:
            self.outcome.result = "stopped"
            return False
        return self._decide(entry, final)

    def _decide(self, entry: dict, final: OperationStatus | None) -> bool:
        verdict = self.source.on_finished(entry, final)
        if final is not None:
            self.log.update(entry, seen=True)
        if verdict == NEXT:
            return True
        self.outcome.result = "failed"
        self.outcome.error = outcome_error(final) if final is not None else None
        return False

    def _ended(self, entry: dict, final: OperationStatus) -> None:
        phase = "done" if final.status == "applied" else "failed"
        self.log.update(entry, phase=phase, status=final.wire(), result=final.status)
        positions = self._count(entry, final)
        self.event(
            "finished",
            {"status": final.status, "written": final.written, "total": final.total_changes,
             "processed": final.processed, "operation_id": final.operation_id, "positions": positions,
             "message": final.message or ""},
        )  # fmt: skip

    def _count(self, entry: dict, final: OperationStatus) -> int:
        """Count an ended plan: in this run's outcome an applied plan's positions all, another's only those written
        (the source plans the rest again, counted then); an earlier run's operation settled now apart."""
        positions = entry_positions(entry)
        outcome = self.outcome
        outcome.last = final
        counted = counted_positions(entry, final.status, final.written)
        if self.settling:
            outcome.settled.append(final.operation_id)
            outcome.settled_written += final.written
            self.settled_positions += counted
            return positions
        outcome.plans += 1
        outcome.written += final.written
        outcome.positions += counted
        outcome.operations.append(final.operation_id)
        return positions

    # -- build_apply with the recorded key ------------------------------------------------------------------------
    def start(self, entry: dict) -> OperationStatus | None:
        """``build_apply`` for a recorded plan with its recorded key (chosen and saved first): the operation's first
        status (the existing one when the key was used before), or None when the server proves no operation started
        or can start for the plan. A world busy with another operation is asked again until the wait's timeout."""
        plan = PlanSummary.model_validate(entry["plan"])
        key = entry.get("idempotency_key")
        if key is None:
            key = default_idempotency_key(plan.plan_id)
            self.log.update(entry, phase="applying", idempotency_key=key)
            self.event("applying", {"idempotency_key": key})
        try:
            # A world busy with another operation is asked again for as long as an operation is waited for (a
            # --timeout the user set stays the budget of every call).
            configured = getattr(getattr(self.client, "transport", None), "timeout", None)
            budget = None if configured else max(self.wait.timeout, DEFAULT_TIMEOUT)
            status = self.client.build_apply(plan.plan_id, plan.plan_hash, key, timeout=budget)
        except McbError as error:
            if never_started(error):
                self._drop(entry, error.details.get("reason") or error.code)
                return None
            if isinstance(error, NetworkError):
                error.hint = resume_hint("run the same command again", plan.plan_id, key, error)
                error.details.update(plan_id=plan.plan_id, idempotency_key=key)
            recovery_hint(self.client, error)
            raise
        self.log.update(entry, phase="started", operation_id=status.operation_id)
        return status

    def _drop(self, entry: dict, reason: str) -> None:
        if entry.get("phase") in ("prepared", "applying"):
            self.log.update(entry, phase="dropped", reason=reason)

    # -- following ------------------------------------------------------------------------------------------------
    def _on_status(self, status: OperationStatus) -> None:
        entry, tracker = self.current
        self._cancel_if_asked(status)
        self._show(status, entry, tracker)
        if status.terminal or self.ahead is not None or self.deferred is not None or self.stop.stop:
            return
        if not self.source.ahead:
            return
        try:
            ahead = self._prepare(beside=True)
        except McbError as error:  # raised once the running plan has ended and is recorded
            self.deferred = error
            return
        if ahead is not None:
            self.ahead = (ahead, entry_positions(ahead))

    def _show(self, status: OperationStatus, entry: dict, tracker: OperationTracker, prefix: str = "") -> None:
        if self._view is None or self.source is None:
            return
        fraction = tracker.update(status)
        positions = entry_positions(entry)
        ahead = self.ahead[1] if self.ahead is not None else 0
        left = self.source.remaining()
        # One frame for the whole run: the earlier run's operations it settles first are counted in (written and
        # plans never go back when they end), though its outcome reports them apart.
        ended = self.outcome.positions + self.settled_positions
        done = ended + fraction * positions
        total = ended + positions + ahead + left.positions
        if self.shown_total is not None:  # a total only shrinks: a player's few edits are counted when written
            total = max(math.ceil(done), min(total, self.shown_total))
        self.shown_total = total
        plan = self.outcome.plans + len(self.outcome.settled) + 1
        capacity = max(1, self.source.capacity)
        plans = plan + (1 if ahead else 0) + math.ceil(left.positions / capacity)
        likely = left.positions if left.likely is None else left.likely  # the time left counts on empty land
        tick = self.tick or 0.05
        eta = (
            plan_seconds(positions, tick) * (1 - fraction)
            + (plan_seconds(ahead, tick) if ahead else 0.0)
            + build_seconds(likely, capacity, tick)
        )
        view = self.clock.view(
            done,
            total,
            written=self.outcome.written + self.outcome.settled_written + status.written,
            phase=prefix + tracker.phase,
            plan=plan,
            plans=plans,
            operation_id=status.operation_id,
            estimated=left.estimated,
        )
        view.eta = eta
        self._view(view)

    # -- an earlier run's entries ---------------------------------------------------------------------------------
    def settle(self) -> bool:
        """Finish what an earlier run left in flight before anything new: drop plans never sent, re-send
        ``build_apply`` with the recorded key where it may have been sent, follow every operation that may still
        run, and settle one a restart interrupted. False when the source says the run ends there. What they wrote
        is counted apart from this run's plans (``outcome.settled``)."""
        self.settling = True
        try:
            return self._settle_entries()
        finally:
            self.settling = False

    def _settle_entries(self) -> bool:
        for entry in list(self.log.entries):
            if entry.get("phase") in ("done", "failed") and not entry.get("seen"):
                # It ended, and the run that saw it end counted it, but stopped before its source heard of it.
                final = OperationStatus.model_validate(entry["status"])
                if not self._settled(entry, final):
                    return False
                continue
            if entry.get("phase") not in ("prepared", "applying", "started"):
                continue
            if entry["phase"] == "prepared":
                self._drop(entry, "an earlier run stopped before applying it")
                continue
            status, self.cancel_sent = None, False
            if entry["phase"] == "applying":
                self.event("resend", {"plan_id": entry["plan"]["plan_id"], "idempotency_key": entry["idempotency_key"]})
                status = self.start(entry)
                if status is None:
                    continue
            self.event("resume", {"operation_id": entry["operation_id"], "positions": entry_positions(entry)})
            tracker = OperationTracker()
            self.current = (entry, tracker)
            final = follow_operation(
                self.client,
                entry["operation_id"],
                self.wait,
                first=status,
                on_status=lambda s, entry=entry, tracker=tracker: self._settling(s, entry, tracker),
            )
            self.current = None
            if final.status == "recovery_required":
                final = self.recover(entry, final)
            self._ended(entry, final)
            if not self._settled(entry, final):
                return False
        return True

    def _settled(self, entry: dict, final: OperationStatus) -> bool:
        verdict = NEXT if self.source is None else self.source.on_settled(entry, final)
        self.log.update(entry, seen=True)
        if verdict == FAIL:
            self.outcome.result = "failed"
            self.outcome.error = outcome_error(final)
            return False
        return True

    def _settling(self, status: OperationStatus, entry: dict, tracker: OperationTracker) -> None:
        self._cancel_if_asked(status)
        self._show(status, entry, tracker, prefix="resuming ")

    def _cancel_if_asked(self, status: OperationStatus) -> None:
        """Ctrl-C twice: cancel the running operation (once; again at the next status if that failed)."""
        if self.stop.cancel and not self.cancel_sent and not status.terminal:
            self.cancel_sent = True
            self.event("cancel", {"operation_id": status.operation_id})
            try:
                self.client.operation_cancel(status.operation_id)
                self.outcome.cancelled = status.operation_id
            except McbError:
                self.cancel_sent = False

    def recover(self, entry: dict, final: OperationStatus) -> OperationStatus:
        """An operation of this log that a server restart interrupted (§5.6): with the administrator capability,
        review it and abandon it — the world stays as it is, the source reads it afresh — and go on; without it,
        stop and name the one command that does it."""
        operation_id = final.operation_id
        if not getattr(self.client, "has_admin", False):
            raise ConflictError(
                f"operation {operation_id} was interrupted by a server restart and waits for an administrator's "
                "review (recovery_required); nothing is written until then",
                code="recovery_required",
                hint=f"an administrator runs `mcb recovery abandon {operation_id}` (it reviews the operation and keeps "
                "the world as it is), then run the same command again: it goes on from there",
                details={"operation_id": operation_id, "reason": "recovery_required"},
            )
        review = self.client.recovery_review(operation_id)
        # Settled: it had processed every position of its plan before the restart and each one it wrote still holds
        # what it wrote; only its record was left open, and abandoning closes that (the world is not touched).
        settled = 0 < final.total_changes == final.processed and review.matchesAfter == review.positions
        self.event("recovery", {"operation_id": operation_id, **review.wire(), "settled": settled})
        status = self.client.recovery_abandon(operation_id, review.currentDigest)
        self.event("abandoned", {"operation_id": operation_id, "settled": settled})
        return status
