"""Plan lifecycle commands: `mcb prepare`, `apply`, `status`, `cancel`, `undo`."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Annotated

import typer

from mcb.commands.rpc_support import (
    EXIT_CODES_HELP,
    check_output,
    finish_status,
    json_terminal,
    open_client,
    parse_position,
    read_json_source,
    show_plan,
    show_status,
    spinner_after,
    wait_with_progress,
    write_json_atomic,
)
from mcb.errors import InputError, UsageError
from mcb.options import WAIT, WAIT_TIMEOUT, IntervalOpt, JsonOpt, WaitTimeoutOpt, summarised
from mcb.wording import positions_written

OutputPlanOpt = Annotated[
    Path | None, typer.Option("--output", "-o", help="Save the plan summary (for `mcb apply FILE`).")
]


def save_plan(path: Path, plan, client, source: str) -> None:
    """A plan file: the server's plan summary plus where it came from (extra keys are ignored by `mcb apply`)."""
    data = {**plan.wire(), "mcb_plan": 1, "server": client.server, "project_id": client.project_id, "source": source}
    write_json_atomic(path, data)


def expected_blocks(inspection: object, recipe: dict) -> list[dict]:
    """``expected_blocks`` from an `inspect --blocks --json` result, limited to the recipe's positions when known."""
    if not isinstance(inspection, dict) or not isinstance(inspection.get("blocks"), list):
        raise InputError("--expected needs the JSON of `mcb inspect --blocks --json` (with a `blocks` list)")
    entries = []
    for block in inspection["blocks"]:
        if not isinstance(block, dict) or "pos" not in block or "state" not in block:
            raise InputError("--expected: every block needs `pos` and `state`")
        pos = block["pos"]
        if not isinstance(pos, dict) or not all(type(pos.get(axis)) is int for axis in "xyz"):
            raise InputError(f"--expected: `pos` must be {{x, y, z}} integers, not {json.dumps(pos)[:80]}")
        if not isinstance(block["state"], str):
            raise InputError(f"--expected: `state` must be a block state string, not {json.dumps(block['state'])[:80]}")
        entry = {"pos": block["pos"], "state": block["state"]}
        if block.get("snapshot_id"):
            entry["snapshot_id"] = block["snapshot_id"]
        entries.append(entry)
    wanted = recipe_positions(recipe)
    if wanted is not None:
        entries = [e for e in entries if (e["pos"]["x"], e["pos"]["y"], e["pos"]["z"]) in wanted]
    return entries


def recipe_positions(recipe: dict) -> set[tuple[int, int, int]] | None:
    """The recipe's compiled positions via the offline compiler, or None when the compiler refuses the recipe."""
    from mcb.recipes.compile import compile_recipe

    try:
        compiled = compile_recipe(recipe)
    except Exception:  # the server reports recipe errors with its own exact messages
        return None
    positions = getattr(compiled, "positions", compiled)
    try:
        return {tuple(p) if not isinstance(p, dict) else (p["x"], p["y"], p["z"]) for p in positions}
    except (TypeError, KeyError):
        return None


@summarised("build_prepare")
def prepare(
    ctx: typer.Context,
    recipe_file: Annotated[str, typer.Argument(metavar="RECIPE", help="Recipe JSON file, or - for stdin.")],
    dependency: Annotated[
        list[str] | None,
        typer.Option("--dependency", "-d", metavar="X,Y,Z", help="Read dependency x,y,z (repeatable)."),
    ] = None,
    part: Annotated[str | None, typer.Option("--part", help="Restrict writes to this part's exact mask.")] = None,
    expected: Annotated[
        Path | None,
        typer.Option(
            "--expected", readable=False, help="Saved `mcb inspect --blocks --json`: refuse if the world changed."
        ),
    ] = None,
    output: OutputPlanOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Prints the plan id, plan hash and the number of blocks that would change. Apply it with `mcb apply`.

    Examples:

        mcb prepare recipes/tower.json -o plan.json

        cat tower.json | mcb prepare - --json

        mcb prepare wall.json --expected before.json --dependency 0,63,0
    """
    term = json_terminal(ctx, json_)
    check_output(output, recipe_file)
    recipe = read_json_source(recipe_file, "recipe")
    if not isinstance(recipe, dict):
        raise InputError("a recipe must be a JSON object {version, operations}")
    deps = [parse_position(d, "--dependency") for d in dependency or []]
    expected_list = expected_blocks(read_json_source(str(expected), "--expected file"), recipe) if expected else None
    with open_client(ctx, term) as client:
        with spinner_after(term, "waiting for the server to prepare the plan"):
            plan = client.build_prepare(recipe, dependencies=deps, part_id=part, expected_blocks=expected_list)
        if output is not None:
            save_plan(output, plan, client, recipe_file)
    term.emit(plan.wire(), lambda: show_plan(term, plan))
    if output is not None:
        term.info(f"plan saved to {output}; apply with `mcb apply {output}`")


def load_plan_reference(plan: str, plan_hash: str | None) -> tuple[str, str, str | None]:
    """(plan id, plan hash, server the plan file was prepared on)."""
    if plan_hash is not None:
        return plan, plan_hash, None
    path = Path(plan)
    if not path.exists():  # a directory or other non-file is read below, and said to be what it is
        if "/" in plan or os.sep in plan or path.suffix:  # a plan id (a UUID) has neither
            raise InputError(
                f"plan file {plan} does not exist",
                hint="save one with `mcb prepare RECIPE -o FILE`, or give PLAN_ID PLAN_HASH (both "
                "printed by `mcb prepare`)",
            )
        raise UsageError(
            f"no plan file named {plan} here, and a plan id needs its PLAN_HASH",
            hint="give `mcb apply PLAN_ID PLAN_HASH` (both printed by `mcb prepare`), or a plan file "
            "saved with `mcb prepare RECIPE -o plan.json`",
        )
    data = read_json_source(plan, "plan file")
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("plan_id"), str)
        or not isinstance(data.get("plan_hash"), str)
    ):
        raise InputError(f"{plan} is not a plan file (needs plan_id and plan_hash)")
    return data["plan_id"], data["plan_hash"], data.get("server")


@summarised("build_apply")
def apply(
    ctx: typer.Context,
    plan: Annotated[str, typer.Argument(metavar="PLAN", help="Plan id, or a plan file from `mcb prepare -o`.")],
    plan_hash: Annotated[str | None, typer.Argument(metavar="PLAN_HASH", help="Plan hash (with a plan id).")] = None,
    idempotency_key: Annotated[
        str | None, typer.Option("--idempotency-key", help="Key to (re)use; default mcb-<plan id>.")
    ] = None,
    wait: Annotated[
        bool, typer.Option("--wait", help="Wait until the operation is terminal (progress on stderr).")
    ] = False,
    timeout: WaitTimeoutOpt = WAIT_TIMEOUT,
    interval: IntervalOpt = WAIT.interval,
    json_: JsonOpt = False,
) -> None:
    """Prints the operation status. The idempotency key defaults to `mcb-<plan id>` and is printed on stderr: running the same command again
    after a crash or a lost answer returns the same operation instead of writing twice.

    Examples:

        mcb apply plan.json --wait

        mcb apply 3f1c...-uuid 9ab2...hash --idempotency-key my-key-1 --json
    """
    from mcb.client.errors import Interrupted
    from mcb.client.operations import default_idempotency_key, resume_hint
    from mcb.errors import NetworkError
    from mcb.redact import redact_url

    term = json_terminal(ctx, json_)
    plan_id, hash_value, prepared_on = load_plan_reference(plan, plan_hash)
    key = idempotency_key or default_idempotency_key(plan_id)
    term.info(f"idempotency key: {key}")
    with open_client(ctx, term) as client:
        if prepared_on and prepared_on.rstrip("/") != client.server.rstrip("/"):
            term.warn(
                f"{plan} was prepared on {redact_url(prepared_on)}, but this run talks to {redact_url(client.server)}"
            )
        again = ["mcb", "apply", plan] + ([hash_value] if plan_hash else [])
        if idempotency_key:
            again += ["--idempotency-key", key]
        rerun = f"`{shlex.join(again + (['--wait'] if wait else []))}`"
        try:
            with spinner_after(term, "waiting for the server to start the operation"):
                status = client.build_apply(plan_id, hash_value, key)
        except NetworkError as error:
            error.hint = resume_hint(f"run {rerun} again", plan_id, key, error)
            raise
        except KeyboardInterrupt:
            raise Interrupted(
                f"interrupted while sending build_apply for plan {plan_id}",
                hint=resume_hint(f"run {rerun} again", plan_id, key),
                details={"plan_id": plan_id, "idempotency_key": key},
            ) from None
        if wait:
            status = wait_with_progress(
                term, client, status.operation_id, timeout=timeout, interval=interval, first=status, rerun=rerun
            )
    if wait:
        finish_status(term, status)
    else:
        term.emit(status.wire(), lambda: show_status(term, status))


@summarised("operation_status")
def status(
    ctx: typer.Context,
    operation_id: Annotated[str, typer.Argument(help="Operation id (from `mcb apply` or `mcb context`).")],
    wait: Annotated[bool, typer.Option("--wait", help="Poll until the status is terminal.")] = False,
    timeout: WaitTimeoutOpt = WAIT_TIMEOUT,
    interval: IntervalOpt = WAIT.interval,
    json_: JsonOpt = False,
) -> None:
    """--wait polls until the operation is terminal. With --wait the exit code says how it ended: 0 applied, 7 conflict or recovery_required, 1 failed or
    cancelled, 6 when --wait-timeout runs out.

    Examples:

        mcb status 0b6d...-uuid

        mcb status 0b6d...-uuid --wait --wait-timeout 120 --json
    """
    term = json_terminal(ctx, json_)
    with open_client(ctx, term) as client:
        if wait:
            result = wait_with_progress(term, client, operation_id, timeout=timeout, interval=interval)
        else:
            result = client.operation_status(operation_id)
    if wait:
        finish_status(term, result)
    else:
        term.emit(result.wire(), lambda: show_status(term, result))


@summarised("operation_cancel")
def cancel(
    ctx: typer.Context,
    operation_id: Annotated[str, typer.Argument(help="Operation id (from `mcb apply` or `mcb context`).")],
    timeout: WaitTimeoutOpt = WAIT_TIMEOUT,
    json_: JsonOpt = False,
) -> None:
    """mcb waits until it has stopped, then says how it ended, what it wrote and the `mcb undo` that reverts it.
    Prints the final status (--json: the status shape); exit 6 when it has not stopped within --wait-timeout.

    Examples:

        mcb cancel 0b6d...-uuid

        mcb cancel 0b6d...-uuid --json && mcb undo 0b6d...-uuid --apply
    """
    from mcb.client.operations import follow_operation
    from mcb.errors import NetworkError
    from mcb.waiting import WaitPolicy

    term = json_terminal(ctx, json_)
    with open_client(ctx, term) as client:
        with spinner_after(term, "waiting for the server to cancel"):
            first = client.operation_cancel(operation_id)
            try:
                result = follow_operation(client, operation_id, WaitPolicy(timeout=timeout), first=first)
            except NetworkError as error:
                if error.code == "wait_timeout":
                    error.message = f"cancel requested, but {error.message}"
                    error.args = (error.message,)
                raise
    term.emit(result.wire(), lambda: show_status(term, result))
    term.info(cancel_report(first, result))


def cancel_report(first, final) -> str:
    """What `mcb cancel` did, in words, and the next step: ``first`` is the status the cancel request returned
    (still running, or already ended), ``final`` the status once the operation stopped."""
    op = final.operation_id
    done = positions_written(final.written, final.total_changes, final.processed)
    if first.terminal:
        said = f"operation {op} had already ended ({final.status}); nothing to cancel: {done}"
    elif final.status == "cancelled":
        said = f"cancelled operation {op}: {done}"
    else:
        said = f"operation {op} ended {final.status} before the cancel took effect: {done}"
    if final.status == "recovery_required":
        return f"{said}\nnext: `mcb recovery review {op}` (admin) shows what it left"
    if final.written:
        return f"{said}\nnext: the written blocks stay; `mcb undo {op} --apply` reverts them"
    return f"{said}; nothing to undo"


@summarised("operation_undo_prepare")
def undo(
    ctx: typer.Context,
    operation_id: Annotated[str, typer.Argument(help="Operation to revert.")],
    apply_: Annotated[bool, typer.Option("--apply", help="Also apply the undo plan and wait for it.")] = False,
    output: OutputPlanOpt = None,
    timeout: WaitTimeoutOpt = WAIT_TIMEOUT,
    json_: JsonOpt = False,
) -> None:
    """Without --apply this prints the undo plan (apply it with `mcb apply`). With --apply it applies the plan with
    key mcb-<plan id> and waits; --json then prints {"plan", "idempotency_key", "operation"}.

    Examples:

        mcb undo 0b6d...-uuid -o undo-plan.json

        mcb undo 0b6d...-uuid --apply
    """
    from mcb.commands.build import write_one_plan

    term = json_terminal(ctx, json_)
    check_output(output)
    with open_client(ctx, term) as client:

        def prepare():
            plan = client.operation_undo_prepare(operation_id)
            if output is not None:
                save_plan(output, plan, client, f"undo of {operation_id}")
            return plan

        if not apply_:
            with spinner_after(term, "waiting for the server to prepare the undo"):
                plan = prepare()
            term.emit(plan.wire(), lambda: show_plan(term, plan))
            return
        # Like `mcb build`: a re-run after a lost answer resumes the undo it sent instead of preparing another.
        write_one_plan(term, client, {"undo": operation_id}, prepare, timeout=timeout,
                       command=f"mcb undo {operation_id} --apply")  # fmt: skip


def register(app: typer.Typer) -> None:
    for name, function in (
        ("prepare", prepare),
        ("apply", apply),
        ("status", status),
        ("cancel", cancel),
        ("undo", undo),
    ):
        app.command(name, epilog=EXIT_CODES_HELP)(function)
