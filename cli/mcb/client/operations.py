"""Following an operation to its end, and what its end means (protocol §3.7-3.8, §5.2-5.5).

    status = follow_operation(client, operation_id, WaitPolicy(timeout=600), on_status=show)
    raise_for_outcome(status)          # or outcome_error(status) for the error without raising

Polls are paced by the plugin's own pace model (formats-and-building §C: a plan of N positions takes
4·⌈N/128⌉+1 ticks): the follower learns the server's seconds per tick from the statuses it sees, asks again when the
operation should have moved on (at least every ``WaitPolicy.progress_every`` seconds, for a bar), and near the
predicted end, so a 4,096-position plan costs a handful of ``operation_status`` calls, not one every 100 ms.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from mcb.client.models import OperationStatus
from mcb.client.progress import PREFLIGHT
from mcb.errors import ConflictError, McbError, NetworkError
from mcb.refusals import failure_reason
from mcb.waiting import DEFAULT as DEFAULT_WAIT
from mcb.waiting import WaitPolicy
from mcb.wording import positions_written

Progress = Callable[[OperationStatus], None]
SLICE = 128  # positions a tick preflights, stages, commits or audits (protocol §5.2)
ASSUMED_TICK = 0.05  # seconds per tick before the statuses say otherwise (20 TPS)


def default_idempotency_key(plan_id: str) -> str:
    """One key per plan: re-sending an apply for the same plan can only ever replay, never duplicate."""
    return f"mcb-{plan_id}"


def plan_ticks(positions: int) -> int:
    """The plugin's ticks for one plan of ``positions``: preflight, stage, commit and audit of 128 per tick, plus
    one flush (formats-and-building §C)."""
    return 4 * math.ceil(max(0, positions) / SLICE) + 1


def plan_seconds(positions: int, tick_seconds: float = ASSUMED_TICK) -> float:
    """The plugin's time for one plan at 20 TPS (4,096 positions ≈ 6.5 s)."""
    return plan_ticks(positions) * tick_seconds


def build_seconds(positions: int, capacity: int, tick_seconds: float = ASSUMED_TICK) -> float:
    """The plugin's time for ``positions`` packed into plans of ``capacity`` (the dry run's figure)."""
    full, rest = divmod(max(0, positions), max(1, capacity))
    return full * plan_seconds(capacity, tick_seconds) + (plan_seconds(rest, tick_seconds) if rest else 0.0)


def ticks_done(status: OperationStatus) -> int:
    """How many of the plan's ticks the status shows are behind it (the model's reading of §5.3's messages)."""
    total = status.total_changes or 0
    slices = math.ceil(total / SLICE)
    if status.status == "queued":
        match = PREFLIGHT.search(status.message or "")
        return math.ceil(int(match.group(1)) / SLICE) if match else 0
    if status.status == "applying":
        return slices + 2 * math.ceil((status.processed or 0) / SLICE)
    return plan_ticks(total)


class _Pacer:
    """When to ask next: probes quickly until the statuses show the server's tick, then looks at least every
    ``progress_every`` for a bar, and times the last looks so that an answer arrives as the operation ends (a status
    call itself takes a tick or two on Paper: its round trip is measured)."""

    def __init__(self, policy: WaitPolicy, clock=time.monotonic):
        self.policy, self.clock = policy, clock
        self.began = clock()
        self.first_ticks: int | None = None
        self.probes = 0
        self.overdue = 0
        self.round_trip = 0.0  # the last status call's time

    def next_pause(self, status: OperationStatus) -> float:
        policy = self.policy
        done = ticks_done(status)
        if self.first_ticks is None:
            self.first_ticks = done
        moved = done - self.first_ticks
        if moved < 2:  # the pace is not known yet: look again soon, a little later each time
            self.probes += 1
            return min(policy.progress_every, max(policy.interval, ASSUMED_TICK * 2 ** (self.probes - 2)))
        tick = (self.clock() - self.began) / moved
        left = (plan_ticks(status.total_changes or 0) - done) * tick - self.round_trip
        if left > policy.interval:
            self.overdue = 0
            return min(policy.progress_every, left)
        # The answer to a call sent now comes as it ends: ask back to back for a few ticks, then less often.
        self.overdue += 1
        return policy.interval if self.overdue <= 8 else min(policy.progress_every, tick * 1.5 ** (self.overdue - 8))


def follow_operation(
    client,
    operation_id: str,
    policy: WaitPolicy = DEFAULT_WAIT,
    *,
    on_status: Progress | None = None,
    first: OperationStatus | None = None,
) -> OperationStatus:
    """Poll ``operation_status`` until a terminal status; :class:`NetworkError` (code ``wait_timeout``) when
    ``policy.timeout`` runs out first. ``on_status`` sees every status, ``first`` included."""
    deadline = time.monotonic() + policy.timeout
    pacer = _Pacer(policy)
    status = first
    while True:
        if status is None:
            try:
                asked = time.monotonic()
                status = client.operation_status(operation_id)
                pacer.round_trip = time.monotonic() - asked
            except NetworkError as error:
                error.hint = lost_contact_hint(operation_id, first)
                error.details.setdefault("operation_id", operation_id)
                raise
        first = status
        if on_status is not None:
            on_status(status)
        if status.terminal:
            return status
        now = time.monotonic()
        if now >= deadline:
            raise NetworkError(
                f"operation {operation_id} still {status.status} after {policy.timeout:g} s "
                f"({positions_written(status.written, status.total_changes, status.processed)})",
                code="wait_timeout",
                hint=f"keep waiting with `mcb status {operation_id} --wait`",
                details={"operation_id": operation_id, "status": status.status},  # for scripts that resume
            )
        time.sleep(min(pacer.next_pause(status), max(0.0, deadline - now)))
        status = None


def lost_contact_hint(operation_id: str, last: OperationStatus | None) -> str:
    """What is known after the server stopped answering mid-wait, and the next safe step (never a guess)."""
    seen = ""
    if last is not None:
        seen = f" (last seen {last.status}, {positions_written(last.written, last.total_changes, last.processed)})"
    return (
        f"operation {operation_id}{seen} may still be running or may have ended; once the server answers, "
        f"`mcb status {operation_id} --wait` shows it; if the server restarted, the same command that started it "
        f"settles it (or `mcb recovery review {operation_id}`, admin, shows what was written)"
    )


def recovery_hint(client, error: McbError) -> None:
    """Name the real operation(s) in a ``recovery_required`` refusal's hint (the server's message names none)."""
    if error.code != "recovery_required" and error.details.get("reason") != "recovery_required":
        return
    try:
        operations = client.project_context().operations
    except McbError:
        return  # keep the generic hint: looking it up failed too
    stuck = [op.operation_id for op in operations if op.status == "recovery_required"]
    if stuck:
        from mcb.wording import listed, plural

        error.hint = f"{plural(len(stuck), 'interrupted operation')} for an administrator to settle: " + listed(
            (f"`mcb recovery abandon {op_id}`" for op_id in stuck), 3, "more (`mcb context` lists them)"
        )
        error.details["operations"] = stuck


def outcome_error(status: OperationStatus) -> McbError | None:
    """The error (and so the exit code) for a terminal status that is not ``applied``; None when applied."""
    if status.status == "applied" or not status.terminal:
        return None
    text = f"operation {status.operation_id} ended {status.status}: {status.message}"
    partial = (
        f"{positions_written(status.written, status.total_changes, status.processed)}; "
        "the written blocks stay in the world"
    )
    if status.status == "conflict":
        where = ""
        if status.conflicts:
            c = status.conflicts[0]
            where = f" at {c.pos.text()} (expected {c.expected}, found {c.current})"
        return ConflictError(
            text + where, code="operation_conflict", hint=partial + "; inspect and prepare a new plan from fresh reads"
        )
    if status.status == "recovery_required":
        return ConflictError(
            text,
            code="recovery_required",
            hint=f"an administrator settles it: `mcb recovery abandon {status.operation_id}` reviews it and keeps "
            "the world as it is",
            details={"operation_id": status.operation_id},
        )
    hint = partial + "; `mcb undo` can revert them"
    if status.status == "cancelled":
        # §1.7/§3.14: besides `mcb cancel` and /ai stop, a chat bridge that stopped polling cancels every operation.
        hint += (
            "; cancellations come from `mcb cancel`, in-game /ai stop, or a chat bridge that stopped polling for 15 s"
        )
    return McbError(text, code=f"operation_{status.status}", hint=hint)


def raise_for_outcome(status: OperationStatus | None) -> None:
    if status is not None:
        error = outcome_error(status)
        if error is not None:
            raise error


def never_started(error: McbError) -> bool:
    """The server answered ``build_apply`` in a way that proves this key has no operation (and never will)."""
    reason = error.details.get("reason")
    return reason in {"plan_expired", "idempotency_key_reused", "unknown_plan"} or error.code == "stale_snapshot"


def abandoned(status: OperationStatus) -> bool:
    """An operation an administrator abandoned after a restart: failed, its writes kept, never undoable (§5.6)."""
    return failure_reason(status.status, status.message) == "abandoned"


def resume_hint(rerun: str, plan_id: str, key: str, error: Exception | None = None) -> str:
    """``rerun`` is the instruction, e.g. "run `mcb apply plan.json` again"; ``error`` the failure, when known."""
    if getattr(error, "request_started", True) is False:  # connection refused / connect timeout: no byte left
        return f"nothing was sent; start the server or check {{server}}, then {rerun}"
    return (
        f"whether the operation started is unknown; {rerun}: it repeats build_apply for plan {plan_id} with the "
        f"same idempotency key {key}, which returns the existing operation instead of starting a second one"
    )
