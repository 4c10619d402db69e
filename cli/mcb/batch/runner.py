"""Run a batch in order, resumably: each step is a plan log run by the one engine (:mod:`mcb.batch.engine`).

A step's record holds its definition (the step's JSON and, for a file, its content), its phase (``running``,
``done``, ``failed``) and its plan entries; every entry's phase is on disk before the next request goes out, so a
re-run goes on where the last one stopped and never writes a step twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcb.batch.engine import Engine
from mcb.batch.kinds import STEP_KINDS, BaseStep, StepContext
from mcb.batch.log import PlanLog, counted_positions
from mcb.batch.model import Batch
from mcb.batch.source import StopRequest, stopped_error
from mcb.batch.state import BatchState
from mcb.client.errors import Interrupted
from mcb.client.models import OperationStatus
from mcb.client.operations import outcome_error
from mcb.errors import ConflictError, McbError
from mcb.refusals import code_hint
from mcb.waiting import WaitPolicy

EventSink = Callable[[str, str, dict], None]  # (event, step name, details)
OK_RESULTS = frozenset({"applied", "already_done", "nothing_to_change"})


PLAN_FIELDS = ("plan_id", "plan_hash", "changed_blocks", "idempotency_key", "operation_id", "status", "written",
               "total_changes", "processed", "message")  # fmt: skip


@dataclass
class StepReport:
    name: str
    kind: str
    result: str  # applied | already_done | nothing_to_change | failed | stopped | error | not_run
    record: dict = field(default_factory=dict)
    error: McbError | None = None
    undo: dict | None = None  # an undo step's summary (mcb.batch.undo.undo_summary): what was kept, what was lost

    def to_json(self) -> dict[str, Any]:
        """The step's own fields, over every run: ``plans`` (applied), ``operations``, ``written``, ``positions``
        (of its ended plans); a step of one plan adds that plan's fields (PLAN_FIELDS; the plan prepared again
        when one expired or was abandoned), a step of many its ``last_plan``; an undo step what it kept."""
        entries = [e for e in self.record.get("plans") or [] if e.get("operation_id")]
        ended = [e for e in entries if e.get("status")]
        data: dict[str, Any] = {"name": self.name, "kind": self.kind, "result": self.result}
        plan = self._last_plan(entries)
        if STEP_KINDS[self.kind].many:
            data["last_plan"] = plan if entries else None
        else:
            data.update(plan)
        data.update(
            plans=len(entries),
            operations=[e["operation_id"] for e in entries],
            written=sum(e["status"].get("written", 0) for e in ended),
            positions=sum(counted_positions(e, e["status"].get("status"), e["status"].get("written")) for e in ended),
        )
        if self.undo is not None:
            data.update(self.undo)
        if self.error is not None:
            data["error"] = self.error.to_json()
        return data

    def _last_plan(self, entries: list[dict]) -> dict[str, Any]:
        last = entries[-1] if entries else (self.record.get("plans") or [{}])[-1]
        plan, status = last.get("plan") or self.record.get("unchanged") or {}, last.get("status") or {}
        fields = {**plan, **status, "idempotency_key": last.get("idempotency_key"),
                  "operation_id": last.get("operation_id")}  # fmt: skip
        return {name: fields.get(name) for name in PLAN_FIELDS}


@dataclass
class BatchReport:
    batch: Path
    state_file: Path
    steps: list[StepReport]

    @property
    def ok(self) -> bool:
        return all(s.result in OK_RESULTS for s in self.steps)

    def first_error(self) -> McbError | None:
        return next((s.error for s in self.steps if s.error is not None), None)

    def to_json(self) -> dict[str, Any]:
        return {"batch": str(self.batch), "state_file": str(self.state_file), "ok": self.ok,
                "steps": [s.to_json() for s in self.steps]}  # fmt: skip


class BatchRunner:
    def __init__(self, client, batch: Batch, state: BatchState, *, continue_on_error: bool = False,
                 retry_failed: bool = False, wait: WaitPolicy | None = None, on_event: EventSink | None = None,
                 on_view: Callable[[str, Any], None] | None = None, stop: StopRequest | None = None):  # fmt: skip
        self.client, self.batch, self.state = client, batch, state
        self.continue_on_error = continue_on_error
        self.retry_failed = retry_failed
        self.wait = wait or WaitPolicy()
        self.event = on_event or (lambda event, name, details: None)
        self.on_view = on_view  # (step name, mcb.client.progress.ProgressView)
        self.stop = stop or StopRequest()  # Ctrl-C: stop at the next plan boundary; twice: cancel the operation
        self.context = StepContext(client=client, base_dir=batch.path.parent, state=state)

    def run(self) -> BatchReport:
        reports: list[StepReport] = []
        stopped = False
        for index, step in enumerate(self.batch.steps):
            if not stopped and self.stop.stop:  # Ctrl-C: the step under way finished its plan; start no other
                reports.append(StepReport(step.name, step.kind, "not_run", error=Interrupted(
                    f"stopped before step {step.name!r}", code="batch_stopped",
                    hint=code_hint("batch_stopped"))))  # fmt: skip
                stopped = True
                continue
            if stopped:
                reports.append(StepReport(step.name, step.kind, "not_run"))
                continue
            report = self._run_one(index, step)
            if step.kind == "undo" and self.state.step(step.name) is not None:
                from mcb.batch.undo import undo_summary

                report.undo = undo_summary(PlanLog(self.state, step.name))
            reports.append(report)
            if report.error is not None and not self.continue_on_error:
                stopped = True
        return BatchReport(self.batch.path, self.state.path, reports)

    # -- one step --------------------------------------------------------------------------------------------------
    def _run_one(self, index: int, step: BaseStep) -> StepReport:
        name = step.name
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
                hint="give the changed step a new name, or run with {restart} to begin again",
            )
            return StepReport(name, step.kind, "error", record, error)
        if record is not None and record.get("phase") == "done":
            self.event("skip", name, {"reason": record.get("result", "applied")})
            return StepReport(name, step.kind, "already_done", record)
        if record is not None and record.get("phase") == "failed":
            if not self.retry_failed:
                return StepReport(name, step.kind, "failed", record, _recorded_failure(record))
            if not STEP_KINDS[step.kind].many:  # a step of many plans keeps its history: it goes on
                self.state.reset(name)
        self.event("start", name, {"index": index, "total": len(self.batch.steps), "kind": step.kind,
                                   "description": step.description})  # fmt: skip
        return self.run_step(step, definition)

    def run_step(self, step: BaseStep, definition: str) -> StepReport:
        """The step's log on the engine; a failure leaves every recorded phase on disk for the next run."""
        name = step.name
        log = PlanLog(self.state, name)
        log.set(definition=definition, kind=step.kind, phase="running", result=None)
        source = None
        engine = Engine(self.client, log, wait=self.wait, stop=self.stop, on_event=lambda event, details: self.event(event, name, details),
                        on_view=(lambda view: self.on_view(name, view)) if self.on_view else None)  # fmt: skip
        try:
            source = STEP_KINDS[step.kind].source(self.context, step, log)
            outcome = engine.run(source)
        except McbError as error:
            log.set(last_error=error.to_json())
            self.event("error", name, {"message": error.message})
            return StepReport(name, step.kind, "error", log.record, error)
        finally:
            if hasattr(source, "close"):
                source.close()
        unchanged = getattr(source, "unchanged", None)  # a plan of no change, not applied (mcb.batch.sources.OnePlan)
        log.set(last_run={**outcome.to_json(), **_reads(source)}, unchanged=unchanged.wire() if unchanged else None)
        if outcome.result == "stopped":  # Ctrl-C: at a plan boundary, or its operation cancelled; a re-run goes on
            return StepReport(name, step.kind, "stopped", log.record, stopped_error(outcome, self.state.path))
        if outcome.result == "failed":
            log.set(phase="failed", result=outcome.last.status if outcome.last else "failed")
            return StepReport(name, step.kind, "failed", log.record, outcome.error)
        result = "applied" if outcome.written or outcome.settled_written else "nothing_to_change"
        log.set(phase="done", result=result)
        if result == "nothing_to_change" and not outcome.plans:  # else its plans' ends said so already
            self.event("nothing", name, {"plan_id": unchanged.plan_id} if unchanged else {})
        return StepReport(name, step.kind, result, log.record)

    def _definition(self, index: int, step: BaseStep) -> str:
        definition = self.batch.definition_hash(index)
        identity = STEP_KINDS[step.kind].identity
        if identity is None:
            return definition
        return hashlib.sha256(f"{definition}:{identity(self.context, step)}".encode()).hexdigest()


def _reads(source) -> dict:
    planner = getattr(source, "planner", None)
    if planner is None:
        return {}
    return {"reads": planner.walker.counter.to_json(), "tiles_read": planner.tiles_read}


def _keys_sent(record: dict) -> bool:
    """Whether a ``build_apply`` may have left for this step."""
    return any(e.get("idempotency_key") for e in record.get("plans") or [])


def _recorded_failure(record: dict) -> McbError:
    entries = [e for e in record.get("plans") or [] if e.get("status")]
    if entries:
        error = outcome_error(OperationStatus.model_validate(entries[-1]["status"]))
        if error is not None:
            error.hint = (error.hint_template or "") + "; re-run with {retry_failed} to prepare it again"
            return error
    return McbError("step failed in an earlier run", hint="re-run with {retry_failed} to prepare it again")
