"""`mcb batch FILE`: run a documented batch of builds in order, resumably (docs/batch.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcb.commands.rpc_support import EXIT_CODES_HELP, id_table, json_terminal, open_client
from mcb.options import WAIT_TIMEOUT, JsonOpt, WaitTimeoutOpt


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
    wait_timeout: WaitTimeoutOpt = WAIT_TIMEOUT,
    json_: JsonOpt = False,
) -> None:
    """Run the steps of a batch file in order, resumably: STEP_KINDS steps.

    Progress goes to stderr. Every step's plan id, hash, idempotency key and operation id are recorded in
    FILE's .state.json (beside it) before each request, so re-running after a crash, Ctrl-C or a lost connection
    resumes where it stopped and never writes a step twice. Stops at the first failing step unless --continue.
    The exit code is the first failing step's (7 conflict, 6 network, 1 failed/cancelled, ...), 0 when every step
    applied.

    --json prints {"batch", "state_file", "ok", "steps": [...]}; each step {"name", "kind", "result", "plans",
    "operations", "written", "positions"} over every run, with its plan's fields ("plan_id", "operation_id",
    "status", "total_changes", ...) for a step of one plan (ONE_PLAN), or "last_plan" for a step of many
    (MANY_PLANS); an undo step adds "kept", "data_not_restorable" and "not_recorded", what it could not bring
    back, which the table lists too (docs/batch.md).

    Examples:

        mcb batch castle.batch.json

        mcb batch castle.batch.json --continue --json > report.json

        mcb batch castle.batch.json --check
    """
    from mcb.batch.model import load_batch
    from mcb.batch.runner import BatchRunner
    from mcb.batch.source import StopRequest
    from mcb.batch.state import BatchState, exclusive_run, state_path_for
    from mcb.commands.events import _TEMPLATES, describe_event, event_line
    from mcb.commands.rpc_support import ctrl_c
    from mcb.waiting import WaitPolicy

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
    many = {s.name for s in plan.steps if s.kind == "schematic"}  # steps of many plans: the bar shows their plans

    def step_label(name: str) -> str:  # every line of a step, its progress too, starts with it
        return f"[{positions[name]}/{total}] {name}"

    def on_event(event: str, name: str, details: dict) -> None:
        prefix = f"{step_label(name)}: "
        line = event_line(event, details, f"`mcb batch {file}`")
        if line is not None and line[0] != "debug":  # re-reads, resumed and settled operations, restores
            getattr(term, line[0])(prefix + line[1])
        elif event in _TEMPLATES:
            many_plans = name in many and event in ("prepared", "applying", "started", "finished")
            (term.debug if many_plans else term.info)(prefix + describe_event(event, details))

    stop = StopRequest()
    with exclusive_run(state_path), open_client(ctx, term) as client:
        if restart and state_path.exists():
            backup = state_path.with_name(state_path.name + ".bak")
            state_path.replace(backup)
            term.warn(f"previous state moved to {backup}; every step runs again")
        state = BatchState.load(state_path, server=client.server, project_id=client.project_id)
        with term.operation_progress("batch") as bar, ctrl_c(stop, term):
            runner = BatchRunner(client, plan, state, continue_on_error=continue_on_error, retry_failed=retry_failed,
                                 wait=WaitPolicy(timeout=wait_timeout), on_event=on_event, stop=stop,
                                 on_view=lambda name, view: bar.show(view, label=step_label(name)))  # fmt: skip
            report = runner.run()

    def human() -> None:
        from mcb.commands.build_schematic import show_undo_tables, undo_leftovers

        steps = [s.to_json() for s in report.steps]
        id_table(
            term,
            ["step", "kind", "result", "operation", "written"],
            [(s["name"], s["kind"], s["result"], *_operation_and_written(s)) for s in steps],
        )
        for step in steps:  # what an undo step could not bring back, as `mcb build --undo` shows it
            if "kept" in step and undo_leftovers(step):
                term.line("")
                term.kv([("undo step", step["name"]), *undo_leftovers(step)])
                show_undo_tables(term, step)
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


def _operation_and_written(step: dict) -> tuple[str, str]:
    """A step's operation and what it wrote (its --json fields); a step of many plans (a schematic, an undo) or one
    whose plan was prepared again counts its operations."""
    from mcb.wording import plural, positions_written

    if not step["plans"]:
        return "", ""
    if step["plans"] == 1 and "operation_id" in step:
        return step["operation_id"], positions_written(step["written"], step["total_changes"], step.get("processed"))
    written = f"{plural(step['written'], 'position')} written"
    if step.get("kept"):
        written += f", {len(step['kept']):,} kept"
    return plural(step["plans"], "operation"), written


def _help() -> str:
    """The command's help with the registered step kinds (mcb.batch.kinds.STEP_KINDS) named where it lists them."""
    from mcb.batch.kinds import STEP_KINDS

    def listed(names: list[str]) -> str:
        return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)

    kinds = {"STEP_KINDS": list(STEP_KINDS), "ONE_PLAN": [k for k in STEP_KINDS if not STEP_KINDS[k].many],
             "MANY_PLANS": [k for k in STEP_KINDS if STEP_KINDS[k].many]}  # fmt: skip
    text = batch.__doc__
    for token, names in kinds.items():
        text = text.replace(token, listed(names))
    return text


def register(app: typer.Typer) -> None:
    app.command("batch", epilog=EXIT_CODES_HELP, help=_help())(batch)
