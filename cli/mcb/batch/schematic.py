"""The ``schematic`` step kind on the batch machinery: ``mcb build FILE`` and batch files, and undo as one.

``mcb build FILE --target ...`` is a one-step batch whose state lives in the user state directory under its build
id (:func:`build_identity`: server, scope, file content and placement); a batch file's ``schematic`` step lives in
the batch's own state file. Either way the record holds every plan of the build (:mod:`mcb.batch.plans`), the
walk's cursor and, after an undo, the undone operations.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from mcb.batch.build_loop import BuildLoop
from mcb.batch.plans import PlanLog, finish_entry, settle_in_flight, start_operation
from mcb.client.progress import OperationTracker, RateClock
from mcb.client.workflow import outcome_error, wait_for_operation
from mcb.errors import InputError, McbError
from mcb.wording import plural

BUILD_STEP = "build"


def file_identity(path: Path) -> str:
    """sha256 of a schematic file (what makes a step "the same" besides its fields)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as error:
        raise InputError(f"{path}: {error.strerror or error}", code="unreadable_file") from None


def build_identity(
    server: str, project_id: str | None, player_id: str | None, file_sha256: str, options_json: dict
) -> str:
    """The build id of ``mcb build FILE``: 12 hex digits naming this file placed this way on this server."""
    text = json.dumps(
        {
            "server": server.rstrip("/"),
            "project_id": project_id,
            "player_id": player_id,
            "file": file_sha256,
            "placement": options_json,
        },
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def builds_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_state_dir("mcb")) / "builds"


def build_state_path(build_id: str) -> Path:
    return builds_dir() / f"{build_id}.state.json"


def one_step_batch(file: Path, step_fields: dict, state_path: Path):
    """The batch ``mcb build FILE`` runs: one ``schematic`` step named "build"."""
    from mcb.batch.kinds import SchematicStep
    from mcb.batch.model import Batch

    raw = {"name": BUILD_STEP, "kind": "schematic", "file": str(Path(file).resolve()), **step_fields}
    return Batch(
        path=state_path.with_name(state_path.name.replace(".state.json", ".json")),
        steps=[SchematicStep.model_validate(raw)],
        raw_steps=[raw],
    )


def restart_finished(state, name: str = BUILD_STEP) -> None:
    """Make a finished build walk again (re-reading everything); its operations stay in the record for undo."""
    record = state.step(name)
    if record and record.get("phase") in ("done", "undone"):
        state.update(name, phase="running", cursor=None, result=None)


# -- the build --------------------------------------------------------------------------------------------------
def run_schematic_step(runner, step, definition: str, record: dict | None):
    from mcb.batch.runner import StepReport
    from mcb.building.placement import check_fits, load_placement
    from mcb.building.planner import BuildPlanner

    name = step.name
    client = runner.client
    log = PlanLog(runner.state, name)
    path = (runner.context.base_dir / step.file).resolve()
    placement = runner.context.placements.get((str(path), step.placement_options()))
    if placement is None:
        placement = load_placement(path, step.placement_options())
    context = client.project_context()
    check_fits(placement, context.region)
    log.set(
        definition=definition,
        phase="running",
        result=None,
        file=str(step.file),
        placement=step.placement_options().to_json(),
        dropped=placement.dropped or None,
    )
    planner = BuildPlanner(client, placement, capacity=context.max_plan_blocks or 4096)
    loop = BuildLoop(
        client,
        log,
        planner,
        wait_timeout=runner.wait_timeout,
        interval=runner.interval,
        stop=runner.stop,
        on_event=lambda event, details: runner._event(event, name, details),
        on_view=(lambda view: runner.on_view(name, view)) if runner.on_view else None,
    )
    try:
        outcome = loop.run()
    except McbError as error:
        log.set(last_error=error.to_json())  # the phase stays "running": the same command resumes
        raise
    finally:
        outcome = loop.outcome
        log.set(
            last_run={
                "plans": outcome.plans,
                "written": outcome.written,
                "positions": outcome.positions,
                "operations": outcome.operations,
                "reads": planner.walker.counter.to_json(),
                "tiles_read": planner.tiles_read,
            }
        )
    if outcome.result == "stopped":
        from mcb.client.errors import Interrupted

        raise Interrupted(
            f"stopped at a plan boundary after {plural(outcome.plans, 'plan')} "
            f"({outcome.written:,} positions written in this run)",
            code="build_stopped",
            hint="run the same command again: it reads the world afresh and goes on from where it stopped",
            details={"state_file": str(runner.state.path)},
        )
    if outcome.result == "failed":
        log.set(phase="failed", result="failed", status=None)
        return StepReport(name, step.kind, "failed", log.record, outcome.error)
    log.set(phase="done", result=outcome.result)
    return StepReport(name, step.kind, "applied" if outcome.result == "applied" else "nothing_to_change", log.record)


# -- undo as one ---------------------------------------------------------------------------------------------------
def undoable(entries: list[dict]) -> list[dict]:
    """Plan entries whose operation wrote something, newest first."""
    return [
        e
        for e in reversed(entries)
        if e.get("operation_id")
        and e.get("phase") in ("done", "failed")
        and (e.get("status") or {}).get("written", 0) > 0
    ]


def undo_entries(
    client,
    build_log: PlanLog,
    undo_log: PlanLog,
    *,
    wait_timeout: float = 600.0,
    interval: float = 0.1,
    on_event=None,
    on_view=None,
    stop=None,
) -> dict:
    """Undo every operation of a build, newest first, each undo recorded in ``undo_log`` before it is sent."""
    event = on_event or (lambda name, details: None)
    settle_in_flight(client, build_log, wait_timeout=wait_timeout, interval=interval, on_event=event)
    settle_in_flight(client, undo_log, wait_timeout=wait_timeout, interval=interval, on_event=event)
    done = {e.get("source") for e in undo_log.entries if e.get("phase") == "done"}
    todo = [e for e in undoable(build_log.entries) if e["operation_id"] not in done]
    total = sum(e["status"]["written"] for e in todo)
    clock, finished, written = RateClock(), 0, 0
    for index, source in enumerate(todo):
        if stop is not None and stop.stop:
            from mcb.client.errors import Interrupted

            raise Interrupted(
                f"stopped after undoing {index} of {len(todo)} operation(s)",
                code="undo_stopped",
                hint="run the same command again to undo the rest",
            )
        plan = client.operation_undo_prepare(source["operation_id"])
        entry = undo_log.add(plan, source=source["operation_id"], positions=source["status"]["written"])
        event(
            "prepared",
            {"plan_id": plan.plan_id, "changed_blocks": plan.changed_blocks, "positions": entry["positions"]},
        )
        import time

        status = start_operation(client, undo_log, entry, deadline=time.monotonic() + wait_timeout)
        if status is None:
            raise McbError(
                f"the undo plan of operation {source['operation_id']} could not start",
                code="undo_failed",
                hint="run the same command again",
            )
        tracker = OperationTracker()

        def show(
            s, tracker=tracker, positions=entry["positions"], index=index, finished=finished, written=written
        ) -> None:
            if on_view is not None:
                fraction = tracker.update(s)
                on_view(
                    clock.view(
                        finished + fraction * positions,
                        total,
                        written=written + s.written,
                        phase=tracker.phase,
                        plan=index + 1,
                        plans=len(todo),
                        operation_id=s.operation_id,
                    )
                )

        final = wait_for_operation(
            client, status.operation_id, timeout=wait_timeout, interval=interval, first=status, on_progress=show
        )
        finish_entry(undo_log, entry, final)
        event(
            "finished",
            {
                "status": final.status,
                "written": final.written,
                "total": final.total_changes,
                "processed": final.processed,
                "operation_id": final.operation_id,
            },
        )
        if final.status != "applied":
            raise outcome_error(final)
        finished += entry["positions"]
        written += final.written
    return {"undone": len(todo), "written": written}


def undo_build(client, state, name: str = BUILD_STEP, **options) -> dict:
    """``mcb build --undo``: every operation of the build newest first; then the build starts afresh."""
    record = state.step(name)
    if not record or not record.get("plans"):
        return {"undone": 0, "written": 0}
    result = undo_entries(client, PlanLog(state, name), PlanLog(state, name, "undo"), **options)
    history = record.setdefault("undone_plans", [])
    history.extend(record.pop("plans", []))
    history.extend(record.pop("undo", []))
    state.update(name, phase="undone", cursor=None, result="undone")
    return result


def run_undo_step(runner, step, definition: str, record: dict | None):
    """A batch ``undo`` step whose target is a schematic step."""
    from mcb.batch.runner import StepReport

    log = PlanLog(runner.state, step.name)
    log.set(definition=definition, phase="running")
    result = undo_entries(
        runner.client,
        PlanLog(runner.state, step.step),
        log,
        wait_timeout=runner.wait_timeout,
        interval=runner.interval,
        stop=runner.stop,
        on_event=lambda event, details: runner._event(event, step.name, details),
        on_view=(lambda view: runner.on_view(step.name, view)) if runner.on_view else None,
    )
    log.set(phase="done", result="applied" if result["undone"] else "nothing_to_change")
    return StepReport(step.name, step.kind, "applied" if result["undone"] else "nothing_to_change", log.record)
