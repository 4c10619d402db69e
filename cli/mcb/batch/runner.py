"""Run a batch in order, resumably: every phase of every step is recorded before the next request goes out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcb.batch.kinds import STEP_KINDS, BaseStep, StepContext
from mcb.batch.model import Batch
from mcb.batch.state import BatchState
from mcb.client.methods import McbClient
from mcb.client.models import OperationStatus, PlanSummary
from mcb.client.workflow import default_idempotency_key, outcome_error, wait_for_operation
from mcb.errors import ConflictError, McbError

EventSink = Callable[[str, str, dict], None]  # (event, step name, details)


@dataclass
class StepReport:
    name: str
    kind: str
    result: str  # applied | already_done | nothing_to_change | failed | error | not_run
    record: dict = field(default_factory=dict)
    error: McbError | None = None

    def to_json(self) -> dict[str, Any]:
        plan = self.record.get("plan") or {}
        status = self.record.get("status") or {}
        data = {
            "name": self.name,
            "kind": self.kind,
            "result": self.result,
            "plan_id": plan.get("plan_id"),
            "plan_hash": plan.get("plan_hash"),
            "changed_blocks": plan.get("changed_blocks"),
            "idempotency_key": self.record.get("idempotency_key"),
            "operation_id": self.record.get("operation_id"),
            "status": status.get("status"),
            "written": status.get("written"),
            "total_changes": status.get("total_changes"),
            "message": status.get("message"),
        }
        if self.record.get("plans") is not None:  # a step of many plans
            entries = [e for e in self.record["plans"] if e.get("operation_id")]
            data.update(
                plans=len(entries),
                operations=[e["operation_id"] for e in entries],
                written=sum((e.get("status") or {}).get("written", 0) for e in entries),
                build_id=self.record.get("build_id"),
            )
        if self.error is not None:
            data["error"] = self.error.to_json()
        return data


@dataclass
class BatchReport:
    batch: Path
    state_file: Path
    steps: list[StepReport]

    @property
    def ok(self) -> bool:
        return all(s.result in {"applied", "already_done", "nothing_to_change"} for s in self.steps)

    def first_error(self) -> McbError | None:
        return next((s.error for s in self.steps if s.error is not None), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "batch": str(self.batch),
            "state_file": str(self.state_file),
            "ok": self.ok,
            "steps": [s.to_json() for s in self.steps],
        }


class BatchRunner:
    def __init__(
        self,
        client: McbClient,
        batch: Batch,
        state: BatchState,
        *,
        continue_on_error: bool = False,
        retry_failed: bool = False,
        wait_timeout: float = 600.0,
        interval: float = 0.1,
        on_event: EventSink | None = None,
        on_progress: Callable[[str, OperationStatus], None] | None = None,
        on_view: Callable[[str, Any], None] | None = None,
        stop=None,
    ):
        self.client = client
        self.batch = batch
        self.state = state
        self.continue_on_error = continue_on_error
        self.retry_failed = retry_failed
        self.wait_timeout = wait_timeout
        self.interval = interval
        self._event = on_event or (lambda event, name, details: None)
        self._progress = on_progress
        self.on_view = on_view  # (step name, mcb.client.progress.ProgressView) for steps of many plans
        from mcb.batch.plans import StopRequest

        self.stop = stop or StopRequest()  # Ctrl-C: stop at the next plan boundary; twice: cancel the operation
        self.context = StepContext(client=client, base_dir=batch.path.parent, operation_of=state.operation_of)

    def run(self) -> BatchReport:
        reports: list[StepReport] = []
        stopped = False
        for index, step in enumerate(self.batch.steps):
            if not stopped and self.stop.stop:  # Ctrl-C: the step under way finished; start no other
                from mcb.client.errors import Interrupted

                reports.append(
                    StepReport(
                        step.name,
                        step.kind,
                        "not_run",
                        error=Interrupted(
                            f"stopped before step {step.name!r}",
                            code="batch_stopped",
                            hint="run the same command again: it goes on from this step",
                        ),
                    )
                )
                stopped = True
                continue
            if stopped:
                reports.append(StepReport(step.name, step.kind, "not_run"))
                continue
            report = self._run_one(index, step)
            reports.append(report)
            if report.error is not None and not self.continue_on_error:
                stopped = True
        return BatchReport(self.batch.path, self.state.path, reports)

    # -- one step --------------------------------------------------------------------------
    def _run_one(self, index: int, step: BaseStep) -> StepReport:
        name = step.name
        kind = STEP_KINDS[step.kind]
        try:
            definition = self._definition(index, step)
        except McbError as error:
            return StepReport(name, step.kind, "error", self.state.step(name) or {}, error)
        record = self.state.step(name)
        if record is not None and record.get("definition") != definition and not _keys_sent(record):
            self.state.reset(name)  # only a plan was made: nothing reached the world, so start the step afresh
            record = None
        if record is not None and record.get("definition") != definition:
            error = ConflictError(
                f"step {name!r} changed since it was started or applied",
                hint="give the changed step a new name, or run with --restart to begin again",
            )
            return StepReport(name, step.kind, "error", record, error)
        if record is not None and record.get("phase") == "failed" and record.get("result") == "recovery_required":
            record = self._current(name, record)  # an administrator may have reviewed or abandoned it since
        if record is not None and record.get("phase") == "done":
            self._event("skip", name, {"reason": record.get("result", "applied")})
            return StepReport(name, step.kind, "already_done", record)
        if record is not None and record.get("phase") == "failed":
            if not self.retry_failed:
                return StepReport(name, step.kind, "failed", record, self._recorded_failure(record))
            if kind.run is None and not _multi_plan_undo(self.state, step):
                self.state.reset(name)  # a step of many plans keeps its history: its operations undo as one
                record = None
        self._event(
            "start",
            name,
            {"index": index, "total": len(self.batch.steps), "kind": step.kind, "description": step.description},
        )
        try:
            if kind.run is not None:
                return kind.run(self, step, definition, record)
            if _multi_plan_undo(self.state, step):
                from mcb.batch.schematic import run_undo_step

                return run_undo_step(self, step, definition, record)
            return self._advance(step, definition, record or {})
        except McbError as error:
            # Nothing recorded is lost: a re-run resumes from the last phase on disk.
            record = self.state.step(name) or {}
            if record:
                self.state.update(name, last_error=error.to_json())
            self._event("error", name, {"message": error.message})
            return StepReport(name, step.kind, "error", record, error)

    def _definition(self, index: int, step: BaseStep) -> str:
        definition = self.batch.definition_hash(index)
        identity = STEP_KINDS[step.kind].identity
        if identity is None:
            return definition
        import hashlib

        return hashlib.sha256(f"{definition}:{identity(self.context, step)}".encode()).hexdigest()

    def _advance(self, step: BaseStep, definition: str, record: dict) -> StepReport:
        name = step.name
        if not record.get("operation_id"):
            started = self._apply(step, definition, record)
            if started is None:
                record = self.state.update(name, definition=definition, phase="done", result="nothing_to_change")
                self._event("nothing", name, {})
                return StepReport(name, step.kind, "nothing_to_change", record)
            record = self.state.update(name, phase="started", operation_id=started.operation_id)
            self._event("started", name, {"operation_id": started.operation_id})
        else:
            started = None
            self._event("resume", name, {"operation_id": record["operation_id"]})
        cancel_sent = []

        def on_status(status) -> None:
            if self.stop.cancel and not cancel_sent and not status.terminal:  # Ctrl-C twice: stop this one too
                cancel_sent.append(self.client.operation_cancel(status.operation_id))
            if self._progress:
                self._progress(name, status)

        final = wait_for_operation(
            self.client,
            record["operation_id"],
            timeout=self.wait_timeout,
            interval=self.interval,
            first=started,
            on_progress=on_status,
        )
        phase = "done" if final.status == "applied" else "failed"
        # An applied operation that wrote nothing (every position already matched) changed nothing: say so.
        result = "nothing_to_change" if phase == "done" and final.written == 0 else final.status
        record = self.state.update(name, phase=phase, status=final.wire(), result=result)
        self._event(
            "finished",
            name,
            {
                "status": final.status,
                "result": result,
                "written": final.written,
                "total": final.total_changes,
                "processed": final.processed,
            },
        )
        if phase == "done":
            return StepReport(name, step.kind, "applied" if result == "applied" else result, record)
        return StepReport(name, step.kind, "failed", record, outcome_error(final))

    def _apply(self, step: BaseStep, definition: str, record: dict) -> OperationStatus | None:
        name = step.name
        for attempt in range(2):
            plan_data = record.get("plan")
            if plan_data is None:
                plan = STEP_KINDS[step.kind].prepare(self.context, step)
                if plan is None:
                    return None
                record = self.state.update(name, definition=definition, phase="prepared", plan=plan.wire())
                self._event("prepared", name, {"plan_id": plan.plan_id, "changed_blocks": plan.changed_blocks})
            else:
                plan = PlanSummary.model_validate(plan_data)
            key = record.get("idempotency_key")
            if key is None:
                key = default_idempotency_key(plan.plan_id)
                record = self.state.update(name, phase="applying", idempotency_key=key)
                self._event("applying", name, {"idempotency_key": key})
            try:
                return self.client.build_apply(plan.plan_id, plan.plan_hash, key)
            except ConflictError as error:
                # The server checks expiry only after looking the key up, so "expired" proves the key was never
                # used: preparing afresh cannot duplicate a write.
                if error.details.get("reason") != "plan_expired" or attempt == 1:
                    raise
                self._event("expired", name, {"plan_id": plan.plan_id})
                record = self.state.update(name, phase="expired", plan=None, idempotency_key=None)
        raise AssertionError("unreachable")

    def _current(self, name: str, record: dict) -> dict:
        """The record of a step whose operation ended ``recovery_required``, with the operation's status now (a
        read, so asking again can change nothing); as it was when the server cannot say."""
        try:
            now = self.client.operation_status(record["operation_id"])
        except McbError:
            return record
        if now.status == record.get("result"):
            return record
        return self.state.update(
            name, phase="done" if now.status == "applied" else "failed", status=now.wire(), result=now.status
        )

    @staticmethod
    def _recorded_failure(record: dict) -> McbError:
        status = record.get("status")
        if status:
            error = outcome_error(OperationStatus.model_validate(status))
            if error is not None:
                error.hint = (error.hint or "") + "; re-run with --retry-failed to prepare it again"
                return error
        return McbError("step failed in an earlier run", hint="re-run with --retry-failed to prepare it again")


def _keys_sent(record: dict) -> bool:
    """Whether an ``build_apply`` may have left for this step (one plan, or any plan of a step of many)."""
    return bool(record.get("idempotency_key")) or any(e.get("idempotency_key") for e in record.get("plans") or [])


def _multi_plan_undo(state: BatchState, step: BaseStep) -> bool:
    """An undo step whose target is a step of many plans (undone as one, newest first)."""
    from mcb.batch.kinds import UndoStep

    if not isinstance(step, UndoStep):
        return False
    target = state.step(step.step)
    return bool(target and target.get("plans") is not None)
