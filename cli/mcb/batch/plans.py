"""Steps made of many plans (a schematic build and its undo): each plan is an entry in the step's record.

An entry moves through the same phases as a one-plan step, each on disk before the next request leaves:
``prepared`` (plan id + hash) → ``applying`` (key chosen; ``build_apply`` may have been sent) → ``started``
(operation id) → ``done`` / ``failed``; or ``dropped`` when the plan provably never started an operation (it
expired, a run stopped before applying it). A re-run first settles entries left ``applying`` or ``started`` —
``build_apply`` again with the recorded key returns the existing operation, never a second one — then goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from mcb.batch.state import BatchState
from mcb.client.models import OperationStatus, PlanSummary
from mcb.client.workflow import default_idempotency_key, never_started, wait_for_operation
from mcb.errors import ConflictError, McbError

BUSY_PAUSE = 0.5  # seconds between build_apply attempts while another operation holds the world


class StopRequest:
    """Ctrl-C as a request: once, stop at the next plan boundary; twice, cancel the running operation too."""

    def __init__(self):
        self.presses = 0

    def press(self) -> None:
        self.presses += 1

    @property
    def stop(self) -> bool:
        return self.presses >= 1

    @property
    def cancel(self) -> bool:
        return self.presses >= 2


class PlanLog:
    """The plan entries of one step (``record[field]``), saved with the batch state at every change."""

    def __init__(self, state: BatchState, name: str, field: str = "plans"):
        self.state, self.name, self.field = state, name, field

    @property
    def record(self) -> dict:
        return self.state.data["steps"].setdefault(self.name, {})

    @property
    def entries(self) -> list[dict]:
        return self.record.setdefault(self.field, [])

    def add(self, plan: PlanSummary, **fields) -> dict:
        entry = {"phase": "prepared", "plan": plan.wire(), **fields}
        self.entries.append(entry)
        self.save()
        return entry

    def update(self, entry: dict, **fields) -> dict:
        entry.update(fields)
        self.save()
        return entry

    def set(self, **fields) -> None:
        self.record.update(fields)
        self.save()

    def save(self) -> None:
        self.record["updated_at"] = int(time.time() * 1000)
        self.state.save()

    def in_flight(self) -> list[dict]:
        return [e for e in self.entries if e.get("phase") in ("prepared", "applying", "started")]


def start_operation(client, log: PlanLog, entry: dict, *, deadline: float) -> OperationStatus | None:
    """``build_apply`` for a recorded plan with its recorded key (chosen and saved first).

    Returns the operation's first status (the existing one when the key was used before), or None when the server
    proves no operation started or can start for the plan (expired, unknown, stale); a busy world is waited for
    until ``deadline``.
    """
    plan = PlanSummary.model_validate(entry["plan"])
    key = entry.get("idempotency_key")
    if key is None:
        key = default_idempotency_key(plan.plan_id)
        log.update(entry, phase="applying", idempotency_key=key)
    while True:
        try:
            status = client.build_apply(plan.plan_id, plan.plan_hash, key)
        except McbError as error:
            if never_started(error):
                log.update(entry, phase="dropped", reason=error.details.get("reason") or error.code)
                return None
            busy = isinstance(error, ConflictError) and (
                error.code == "busy" or error.details.get("reason") == "operation_active"
            )
            if busy and time.monotonic() + BUSY_PAUSE < deadline:
                time.sleep(BUSY_PAUSE)
                continue
            raise
        log.update(entry, phase="started", operation_id=status.operation_id)
        return status


def finish_entry(log: PlanLog, entry: dict, final: OperationStatus) -> None:
    log.update(entry, phase="done" if final.status == "applied" else "failed", status=final.wire(), result=final.status)


def drop_entry(log: PlanLog, entry: dict, reason: str) -> None:
    """A prepared plan this run will not apply (no key was ever sent for it)."""
    if entry.get("phase") == "prepared":
        log.update(entry, phase="dropped", reason=reason)


def settle_in_flight(
    client,
    log: PlanLog,
    *,
    wait_timeout: float,
    interval: float,
    on_status: Callable[[dict, object], None] | None = None,
    on_event: Callable[[str, dict], None] | None = None,
) -> list[tuple[dict, OperationStatus]]:
    """Finish what an earlier run left in flight: drop plans never sent, re-send ``build_apply`` with the recorded
    key where it may have been sent, and wait for every operation that may still run. Returns (entry, final)."""
    settled = []
    for entry in list(log.in_flight()):
        if entry["phase"] == "prepared":
            drop_entry(log, entry, "an earlier run stopped before applying it")
            continue
        status = None
        if entry["phase"] == "applying":
            status = start_operation(client, log, entry, deadline=time.monotonic() + wait_timeout)
            if status is None:
                continue
        if on_event is not None:
            on_event("resume", {"operation_id": entry["operation_id"]})
        final = wait_for_operation(
            client,
            entry["operation_id"],
            timeout=wait_timeout,
            interval=interval,
            first=status,
            on_progress=(lambda s, entry=entry: on_status(entry, s)) if on_status is not None else None,
        )
        finish_entry(log, entry, final)
        settled.append((entry, final))
    return settled
