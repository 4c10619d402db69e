"""Reusable "prepare → apply → wait" workflow on top of :class:`McbClient`.

Used by ``mcb apply/undo/build/batch`` and meant for the terrain commands too::

    from mcb.client.workflow import run_plan
    outcome = run_plan(client, lambda: client.terrain_prepare(tid, i).plan(), on_progress=bar)
    raise_for_outcome(outcome.status)   # or inspect outcome.status yourself
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from mcb.client.methods import McbClient
from mcb.client.models import OperationStatus, PlanSummary
from mcb.errors import ConflictError, McbError, NetworkError
from mcb.wording import positions_written

Progress = Callable[[OperationStatus], None]
DEFAULT_WAIT_TIMEOUT = 600.0
DEFAULT_INTERVAL = 0.1


def default_idempotency_key(plan_id: str) -> str:
    """One key per plan: re-sending an apply for the same plan can only ever replay, never duplicate."""
    return f"mcb-{plan_id}"


def wait_for_operation(client: McbClient, operation_id: str, *, timeout: float = DEFAULT_WAIT_TIMEOUT,
                       interval: float = DEFAULT_INTERVAL, on_progress: Progress | None = None,
                       first: OperationStatus | None = None) -> OperationStatus:
    """Poll ``operation_status`` until a terminal status; :class:`NetworkError` when ``timeout`` runs out."""
    deadline = time.monotonic() + timeout
    status = first
    # Small operations finish within a few ticks: poll quickly at first, then settle at `interval` (§13: 50-100 ms).
    delay = min(interval, 0.02)
    while True:
        if status is None or not status.terminal:
            try:
                status = client.operation_status(operation_id)
            except NetworkError as error:
                error.hint = (f"the operation keeps running on the server; resume with "
                              f"`mcb status {operation_id} --wait`")
                raise
        if on_progress is not None:
            on_progress(status)
        if status.terminal:
            return status
        if time.monotonic() >= deadline:
            raise NetworkError(
                f"operation {operation_id} still {status.status} after {timeout:g} s "
                f"({positions_written(status.written, status.total_changes, status.processed)})",
                code="wait_timeout", hint=f"keep waiting with `mcb status {operation_id} --wait`",
                details={"operation_id": operation_id, "status": status.status},  # for scripts that resume
            )
        time.sleep(delay)
        delay = min(interval, delay * 2)
        status = None


def apply_plan(client: McbClient, plan: PlanSummary, *, idempotency_key: str | None = None, wait: bool = True,
               timeout: float = DEFAULT_WAIT_TIMEOUT, interval: float = DEFAULT_INTERVAL,
               on_progress: Progress | None = None) -> OperationStatus:
    """``build_apply`` with a stable key (default :func:`default_idempotency_key`), then optionally wait."""
    key = idempotency_key or default_idempotency_key(plan.plan_id)
    started = client.build_apply(plan.plan_id, plan.plan_hash, key)
    if not wait:
        return started
    return wait_for_operation(client, started.operation_id, timeout=timeout, interval=interval,
                              on_progress=on_progress, first=started)


@dataclass
class PlanOutcome:
    plan: PlanSummary | None  # None when the prepare step found nothing to do
    idempotency_key: str | None = None
    status: OperationStatus | None = None

    def to_json(self) -> dict:
        return {
            "plan": self.plan.wire() if self.plan else None,
            "idempotency_key": self.idempotency_key,
            "operation": self.status.wire() if self.status else None,
        }


def run_plan(client: McbClient, prepare: Callable[[], PlanSummary | None], *, dry_run: bool = False,
             idempotency_key: str | None = None, timeout: float = DEFAULT_WAIT_TIMEOUT,
             interval: float = DEFAULT_INTERVAL, on_progress: Progress | None = None,
             on_prepared: Callable[[PlanSummary, str], None] | None = None) -> PlanOutcome:
    """prepare → apply → wait. ``prepare`` returns a plan summary (or None for "nothing to change")."""
    plan = prepare()
    if plan is None:
        return PlanOutcome(plan=None)
    key = idempotency_key or default_idempotency_key(plan.plan_id)
    if on_prepared is not None:
        on_prepared(plan, key)
    if dry_run:
        return PlanOutcome(plan=plan, idempotency_key=key)
    status = apply_plan(client, plan, idempotency_key=key, timeout=timeout, interval=interval,
                        on_progress=on_progress)
    return PlanOutcome(plan=plan, idempotency_key=key, status=status)


def outcome_error(status: OperationStatus) -> McbError | None:
    """The error (and so the exit code) for a terminal status that is not ``applied``; None when applied."""
    if status.status == "applied":
        return None
    text = f"operation {status.operation_id} ended {status.status}: {status.message}"
    partial = (f"{positions_written(status.written, status.total_changes, status.processed)}; "
               "the written blocks stay in the world")
    if status.status == "conflict":
        where = ""
        if status.conflicts:
            c = status.conflicts[0]
            where = f" at {c.pos.text()} (expected {c.expected}, found {c.current})"
        return ConflictError(text + where, code="operation_conflict",
                             hint=partial + "; inspect and prepare a new plan from fresh reads")
    if status.status == "recovery_required":
        return ConflictError(text, code="recovery_required",
                             hint="an administrator must review it: `mcb recovery review " + status.operation_id + "`")
    if not status.terminal:
        return None
    hint = partial + "; `mcb undo` can revert them"
    if status.status == "cancelled":
        # §1.7/§3.14: besides `mcb cancel` and /ai stop, a chat bridge that stopped polling cancels every operation.
        hint += ("; cancellations come from `mcb cancel`, in-game /ai stop, or a chat bridge that stopped polling "
                 "for 15 s")
    return McbError(text, code=f"operation_{status.status}", hint=hint)


def raise_for_outcome(status: OperationStatus | None) -> None:
    if status is not None:
        error = outcome_error(status)
        if error is not None:
            raise error
