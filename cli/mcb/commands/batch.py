"""`mcb batch FILE`: run a documented batch of builds in order, resumably (docs/batch.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcb.commands.rpc_support import EXIT_CODES_HELP, id_table, json_terminal, open_client
from mcb.options import JsonOpt


def batch(
    ctx: typer.Context,
    file: Annotated[
        Path,
        typer.Argument(metavar="FILE", readable=False, help="Batch file (JSON; schema recipes/batch.schema.json)."),
    ],
    continue_on_error: Annotated[
        bool, typer.Option("--continue", help="Go on with later steps after a failure.")
    ] = False,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Prepare steps whose operation ended badly again.")
    ] = False,
    restart: Annotated[
        bool, typer.Option("--restart", help="Ignore the state file (kept as .bak) and run every step again.")
    ] = False,
    check: Annotated[bool, typer.Option("--check", help="Only validate the batch file and list its steps.")] = False,
    wait_timeout: Annotated[
        float, typer.Option("--wait-timeout", help="Seconds to wait for each operation.", min=0.1)
    ] = 600.0,
    json_: JsonOpt = False,
) -> None:
    """Run the steps of a batch file in order: recipe builds, schematic imports, undo of earlier steps.

    Progress goes to stderr. Every step's plan id, hash, idempotency key and operation id are recorded in
    FILE's .state.json (beside it) before each request, so re-running after a crash, Ctrl-C or a lost connection
    resumes where it stopped and never writes a step twice. Stops at the first failing step unless --continue.
    --json prints {"batch", "state_file", "ok", "steps": [...]}. The exit code is the first failing step's
    (7 conflict, 6 network, 1 failed/cancelled, ...), 0 when every step applied.

    Examples:

        mcb batch castle.batch.json

        mcb batch castle.batch.json --continue --json > report.json

        mcb batch castle.batch.json --check
    """
    from mcb.batch import BatchRunner, BatchState, exclusive_run, load_batch, state_path_for

    term = json_terminal(ctx, json_)
    plan = load_batch(file)
    if check:
        rows = [{"name": s.name, "kind": s.kind, "description": s.description} for s in plan.steps]
        term.emit(
            {"batch": str(file), "steps": rows},
            lambda: id_table(
                term,
                ["#", "step", "kind", "description"],
                [(i + 1, r["name"], r["kind"], r["description"] or "") for i, r in enumerate(rows)],
            ),
        )
        return
    state_path = state_path_for(plan.path)
    total = len(plan.steps)
    positions = {s.name: i + 1 for i, s in enumerate(plan.steps)}

    current: dict = {}  # the step under way and its operation, for a Ctrl-C

    def on_event(event: str, name: str, details: dict) -> None:
        if event == "start" or current.get("step") != name:
            current.clear()
            current["step"] = name
        if details.get("operation_id"):
            current["operation_id"] = details["operation_id"]
        line = f"[{positions[name]}/{total}] {name}: {describe_event(event, details)}"
        if "positions" in details or event == "replan":  # one plan of a step of many: the bar says it
            (term.warn if event == "replan" else term.debug)(line)
        else:
            term.info(line)

    with exclusive_run(state_path), open_client(ctx, term) as client:
        if restart and state_path.exists():
            backup = state_path.with_name(state_path.name + ".bak")
            state_path.replace(backup)
            term.warn(f"previous state moved to {backup}; every step runs again")
        state = BatchState.load(state_path, server=client.server, project_id=client.project_id)
        from mcb.client.progress import OperationViews

        views = OperationViews()
        with term.operation_progress("batch") as bar:

            def on_progress(name: str, status) -> None:
                bar.show(views(status))

            runner = BatchRunner(
                client,
                plan,
                state,
                continue_on_error=continue_on_error,
                retry_failed=retry_failed,
                wait_timeout=wait_timeout,
                on_event=on_event,
                on_progress=on_progress,
                on_view=lambda name, view: bar.show(view),
            )
            try:
                report = runner.run()
            except KeyboardInterrupt:
                raise _interrupted(file, state_path, current) from None

    def human() -> None:
        id_table(
            term,
            ["step", "kind", "result", "operation", "written"],
            [(s.name, s.kind, s.result, *_operation_and_written(s)) for s in report.steps],
        )
        term.info(f"state: {report.state_file}")

    term.emit(report.to_json(), human)
    error = report.first_error()
    if error is not None:
        from mcb.wording import plural

        failed = sum(1 for s in report.steps if s.error is not None)
        raise type(error)(
            f"{failed} of {plural(total, 'step')} did not complete: {error.message}",
            hint=error.hint,
            code=error.code,
            details=error.details,
        )


def _interrupted(file: Path, state_path: Path, current: dict):
    """Ctrl-C stops mcb, not the operation under way: name it and say how to pick the batch up again."""
    from mcb.client.errors import Interrupted

    resume = f"`mcb batch {file}` resumes (progress is saved in {state_path})"
    operation_id, step = current.get("operation_id"), current.get("step")
    if operation_id:
        return Interrupted(
            f"interrupted: stopped waiting for operation {operation_id} (step {step!r}); Ctrl-C does not cancel it",
            hint=f"{resume}; `mcb status {operation_id}` shows it, `mcb cancel {operation_id}` stops it",
            details={"operation_id": operation_id, "step": step, "state_file": str(state_path)},
        )
    where = f" during step {step!r}" if step else ""
    return Interrupted(f"interrupted{where}", hint=resume, details={"step": step, "state_file": str(state_path)})


def describe_event(event: str, details: dict) -> str:
    """One progress line (after the ``[i/n] step:`` prefix) for a runner event."""
    if event == "start":
        return details["kind"] + (f": {details['description']}" if details.get("description") else "")
    templates = {
        "skip": "already done ({reason}), skipped",
        "prepared": "plan {plan_id} ({blocks} to change)",
        "expired": "plan {plan_id} expired before it was applied; preparing again",
        "applying": "applying with idempotency key {idempotency_key}",
        "started": "operation {operation_id}",
        "resume": "resuming operation {operation_id}",
        "finished": "{status} ({progress})",
        "nothing": "nothing to change",
        "replan": "re-reading near {tile} ({why})",
        "cancel": "cancelling operation {operation_id}",
        "error": "error: {message}",
    }
    from mcb.wording import plural, positions_written

    if event == "finished":
        details = {
            **details,
            "progress": positions_written(details.get("written"), details.get("total"), details.get("processed")),
        }
        if details.get("result") == "nothing_to_change":
            details["status"] = "nothing to change"
    elif event == "skip":
        details = {**details, "reason": str(details.get("reason")).replace("_", " ")}
    elif event == "prepared":
        details = {**details, "blocks": plural(details["changed_blocks"], "block")}
    return templates.get(event, event).format(**details)


def _operation_and_written(step) -> tuple[str, str]:
    """A step's operation and what it wrote; a schematic step has one operation per plan: counted, with its build."""
    if step.record.get("plans") is None:
        return step.record.get("operation_id") or "", _written(step.record)
    from mcb.wording import plural

    data = step.to_json()
    if not data["plans"]:
        return "", ""
    return (
        f"{plural(data['plans'], 'operation')} (build {data['build_id']})",
        f"{plural(data['written'], 'position')} written",
    )


def _written(record: dict) -> str:
    status = record.get("status") or {}
    if not status:
        return ""
    from mcb.wording import positions_written

    return positions_written(status.get("written"), status.get("total_changes"), status.get("processed"))


def register(app: typer.Typer) -> None:
    app.command("batch", epilog=EXIT_CODES_HELP)(batch)
