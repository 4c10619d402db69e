"""Reusable "prepare → apply → wait" workflow on top of :class:`McbClient`.

Used by ``mcb apply/undo/build/batch`` and meant for the terrain commands too::

    from mcb.client.workflow import run_plan
    outcome = run_plan(client, lambda: client.terrain_prepare(tid, i).plan(), on_progress=bar)
    raise_for_outcome(outcome.status)   # or inspect outcome.status yourself
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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


def wait_for_operation(
    client: McbClient,
    operation_id: str,
    *,
    timeout: float = DEFAULT_WAIT_TIMEOUT,
    interval: float = DEFAULT_INTERVAL,
    on_progress: Progress | None = None,
    first: OperationStatus | None = None,
) -> OperationStatus:
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
                error.hint = lost_contact_hint(operation_id, status or first)
                error.details.setdefault("operation_id", operation_id)
                raise
        if on_progress is not None:
            on_progress(status)
        if status.terminal:
            return status
        if time.monotonic() >= deadline:
            raise NetworkError(
                f"operation {operation_id} still {status.status} after {timeout:g} s "
                f"({positions_written(status.written, status.total_changes, status.processed)})",
                code="wait_timeout",
                hint=f"keep waiting with `mcb status {operation_id} --wait`",
                details={"operation_id": operation_id, "status": status.status},  # for scripts that resume
            )
        time.sleep(delay)
        delay = min(interval, delay * 2)
        status = None


def lost_contact_hint(operation_id: str, last: OperationStatus | None) -> str:
    """What is known after the server stopped answering mid-wait, and the next safe step (never a guess)."""
    seen = ""
    if last is not None:
        seen = f" (last seen {last.status}, {positions_written(last.written, last.total_changes, last.processed)})"
    return (
        f"operation {operation_id}{seen} may still be running or may have ended; once the server answers, "
        f"`mcb status {operation_id} --wait` shows it; if the server restarted, "
        f"`mcb recovery review {operation_id}` (admin) shows what was written"
    )


def recovery_hint(client: McbClient, error: McbError) -> None:
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

        error.hint = f"{plural(len(stuck), 'interrupted operation')} to review (admin): " + listed(
            (f"`mcb recovery review {op_id}`" for op_id in stuck), 3, "more (`mcb context` lists them)"
        )
        error.details["operations"] = stuck


def apply_plan(
    client: McbClient,
    plan: PlanSummary,
    *,
    idempotency_key: str | None = None,
    wait: bool = True,
    timeout: float = DEFAULT_WAIT_TIMEOUT,
    interval: float = DEFAULT_INTERVAL,
    on_progress: Progress | None = None,
) -> OperationStatus:
    """``build_apply`` with a stable key (default :func:`default_idempotency_key`), then optionally wait."""
    key = idempotency_key or default_idempotency_key(plan.plan_id)
    started = client.build_apply(plan.plan_id, plan.plan_hash, key)
    if not wait:
        return started
    return wait_for_operation(
        client, started.operation_id, timeout=timeout, interval=interval, on_progress=on_progress, first=started
    )


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


def run_plan(
    client: McbClient,
    prepare: Callable[[], PlanSummary | None],
    *,
    dry_run: bool = False,
    idempotency_key: str | None = None,
    timeout: float = DEFAULT_WAIT_TIMEOUT,
    interval: float = DEFAULT_INTERVAL,
    on_progress: Progress | None = None,
    on_prepared: Callable[[PlanSummary, str], None] | None = None,
) -> PlanOutcome:
    """prepare → apply → wait. ``prepare`` returns a plan summary (or None for "nothing to change")."""
    plan = prepare()
    if plan is None:
        return PlanOutcome(plan=None)
    key = idempotency_key or default_idempotency_key(plan.plan_id)
    if on_prepared is not None:
        on_prepared(plan, key)
    if dry_run:
        return PlanOutcome(plan=plan, idempotency_key=key)
    status = apply_plan(client, plan, idempotency_key=key, timeout=timeout, interval=interval, on_progress=on_progress)
    return PlanOutcome(plan=plan, idempotency_key=key, status=status)


def outcome_error(status: OperationStatus) -> McbError | None:
    """The error (and so the exit code) for a terminal status that is not ``applied``; None when applied."""
    if status.status == "applied":
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
            hint="an administrator must review it: `mcb recovery review " + status.operation_id + "`",
        )
    if not status.terminal:
        return None
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


# -- remembering what was sent, so a re-run resumes instead of preparing anew (protocol §3.7, §5.5) -------------
MEMORY_MAX_AGE = 24 * 3600.0  # plans live 10 minutes; a day covers any sensible re-run and keeps the folder small


def apply_memory_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_state_dir("mcb")) / "applies"


def request_fingerprint(server: str, project_id: str | None, player_id: str | None, request: dict) -> str:
    """One name for "this exact request to this server and scope" (the recipe's content, not its file name)."""
    text = json.dumps(
        {"server": server.rstrip("/"), "project_id": project_id, "player_id": player_id, "request": request},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class Remembered:
    plan: PlanSummary
    idempotency_key: str
    operation_id: str | None = None


class ApplyMemory:
    """A small state file per request: the plan id, plan hash and key sent with ``build_apply``.

    Written before ``build_apply`` leaves, removed once the operation is seen terminal (or the server says the plan
    can no longer have started one), so a re-run after a lost answer repeats the same call instead of preparing a
    second plan.
    """

    def __init__(
        self, fingerprint: str, directory: Path | None = None, *, on_unsaved: Callable[[str], None] | None = None
    ):
        self.path = (directory or apply_memory_dir()) / f"{fingerprint}.json"
        self._on_unsaved = on_unsaved  # told once when the state dir cannot be written; the build goes on
        self._unsaved = False

    def recall(self) -> Remembered | None:
        try:
            data = json.loads(self.path.read_text("utf-8"))
            return Remembered(
                PlanSummary.model_validate(data["plan"]), str(data["idempotency_key"]), data.get("operation_id")
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):  # a damaged file: it cannot tell us anything
            return None

    def remember(self, plan: PlanSummary, key: str, operation_id: str | None = None) -> None:
        from mcb.fileio import write_atomic

        data = {"plan": plan.wire(), "idempotency_key": key, "operation_id": operation_id, "saved_at": time.time()}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._prune()
            # No fsync: the record must outlive this process (a kill, Ctrl-C), which the page cache guarantees;
            # after a power loss a missing record only means preparing again. Measured on ext4: two fsyncs ~5 ms,
            # the rest <1 ms.
            write_atomic(self.path, json.dumps(data, indent=2) + "\n", mode=0o600, fsync=False)
        except OSError as error:  # a read-only home must not stop the build; the same key is still used
            if self._on_unsaved is not None and not self._unsaved:
                self._on_unsaved(
                    f"cannot remember plan {plan.plan_id} in {self.path.parent} "
                    f"({error.strerror or error}); after a lost answer, `mcb apply {plan.plan_id} "
                    f"{plan.plan_hash}` repeats it with the same key {key}"
                )
            self._unsaved = True

    def forget(self) -> None:
        try:
            self.path.unlink()
        except OSError:  # not there (or the state dir is unusable): nothing to forget
            pass

    def _prune(self) -> None:
        cutoff = time.time() - MEMORY_MAX_AGE
        for old in self.path.parent.glob("*.json"):
            try:
                if old.stat().st_mtime < cutoff:
                    old.unlink()
            except OSError:
                pass


def never_started(error: McbError) -> bool:
    """The server answered ``build_apply`` in a way that proves this key has no operation (and never will)."""
    reason = error.details.get("reason")
    return reason in {"plan_expired", "idempotency_key_reused", "unknown_plan"} or error.code == "stale_snapshot"


def resume_hint(rerun: str, plan_id: str, key: str, error: Exception | None = None) -> str:
    """``rerun`` is the instruction, e.g. "run `mcb apply plan.json` again"; ``error`` the failure, when known."""
    if getattr(error, "request_started", True) is False:  # connection refused / connect timeout: no byte left
        return f"nothing was sent; start the server or check --server, then {rerun}"
    return (
        f"whether the operation started is unknown; {rerun}: it repeats build_apply for plan {plan_id} with the "
        f"same idempotency key {key}, which returns the existing operation instead of starting a second one"
    )


def apply_once(
    client: McbClient,
    memory: ApplyMemory,
    prepare: Callable[[], PlanSummary],
    *,
    command: str,
    on_prepared: Callable[[PlanSummary, str], None] | None = None,
    on_resume: Callable[[Remembered], None] | None = None,
) -> PlanOutcome:
    """Resume the remembered ``build_apply`` of this request, or prepare and apply it; the first status is returned.

    Call :meth:`ApplyMemory.forget` once the operation is seen terminal. On a lost answer the memory stays and the
    error's hint says what a re-run will do.
    """
    remembered = memory.recall()
    if remembered is not None:
        if on_resume is not None:
            on_resume(remembered)
        try:
            status = _apply_remembered(client, memory, remembered, command)
        except McbError as error:
            if not never_started(error):
                raise
            memory.forget()  # the plan expired before any operation started: prepare it again
        else:
            return PlanOutcome(plan=remembered.plan, idempotency_key=remembered.idempotency_key, status=status)
    plan = prepare()
    remembered = Remembered(plan, default_idempotency_key(plan.plan_id))
    memory.remember(plan, remembered.idempotency_key)
    if on_prepared is not None:
        on_prepared(plan, remembered.idempotency_key)
    try:
        status = _apply_remembered(client, memory, remembered, command)
    except McbError as error:
        if never_started(error):
            memory.forget()
        raise
    return PlanOutcome(plan=plan, idempotency_key=remembered.idempotency_key, status=status)


def _apply_remembered(client: McbClient, memory: ApplyMemory, remembered: Remembered, command: str):
    try:
        status = client.build_apply(remembered.plan.plan_id, remembered.plan.plan_hash, remembered.idempotency_key)
    except NetworkError as error:
        error.hint = resume_hint(
            f"run the same `{command}` command again", remembered.plan.plan_id, remembered.idempotency_key, error
        )
        error.details.update(plan_id=remembered.plan.plan_id, idempotency_key=remembered.idempotency_key)
        raise
    memory.remember(remembered.plan, remembered.idempotency_key, status.operation_id)
    return status
