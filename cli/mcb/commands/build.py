"""`mcb build`: a schematic file of any size (:mod:`mcb.commands.build_schematic`), or one recipe or library schematic
as a write of one plan (prepare → apply → wait → summary), both on the one engine (:mod:`mcb.batch`)."""

from __future__ import annotations

from typing import Annotated

import typer

from mcb.commands.build_schematic import checked_build_id, is_schematic_file, run_schematic_build
from mcb.commands.rpc_support import (
    EXIT_CODES_HELP,
    json_terminal,
    open_client,
    parse_position,
    read_json_source,
    show_plan,
    show_status,
    spinner_after,
)
from mcb.errors import InputError, UsageError
from mcb.options import (
    WAIT_TIMEOUT,
    DropExtrasOpt,
    JsonOpt,
    KeepExistingOpt,
    MirrorOpt,
    ReplaceUnknownOpt,
    RotationOpt,
    SkipAirOpt,
    TargetOpt,
    WaitTimeoutOpt,
)
from mcb.wording import plural


def build(
    ctx: typer.Context,
    recipe_file: Annotated[
        str | None,
        typer.Argument(
            metavar="FILE",
            help="Recipe JSON file (or - for stdin), or a schematic file (.schem, .litematic, .nbt, .schematic): the "
            "content decides.",
        ),
    ] = None,
    asset: Annotated[str | None, typer.Option("--asset", help="Library schematic to place instead of a file.")] = None,
    target: TargetOpt = None,
    rotation: RotationOpt = 0,
    mirror: MirrorOpt = None,
    skip_air: SkipAirOpt = False,
    keep_existing: KeepExistingOpt = False,
    drop_extras: DropExtrasOpt = False,
    replace_unknown: ReplaceUnknownOpt = None,
    extras_function: Annotated[
        str | None,
        typer.Option(
            "--extras-function",
            metavar="PATH",
            help="Schematic: write the block entities' and entities' content as a datapack function (.mcfunction) "
            "that puts it back.",
        ),
    ] = None,
    undo: Annotated[bool, typer.Option("--undo", help="Schematic: undo the build's operations, newest first.")] = False,
    build_id: Annotated[
        str | None,
        typer.Option(
            "--build-id",
            metavar="ID",
            help="With --undo: the build id a build printed, 12 hex digits (instead of FILE and its options).",
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Schematic: do not ask before building or undoing.")] = False,
    dependency: Annotated[
        list[str] | None,
        typer.Option("--dependency", "-d", metavar="X,Y,Z", help="Recipe: read dependency x,y,z (repeatable)."),
    ] = None,
    part: Annotated[
        str | None, typer.Option("--part", help="Recipe: restrict writes to this part's exact mask.")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Write nothing: show the plan (recipe) or the estimate (schematic).")
    ] = False,
    timeout: WaitTimeoutOpt = WAIT_TIMEOUT,
    json_: JsonOpt = False,
) -> None:
    """Build a recipe, a library schematic or a schematic file of any size: prepare, apply, wait, summarise.

    A schematic FILE (Sponge, Litematica, structure .nbt, legacy .schematic) goes to --target as WorldEdit
    pastes it, after --mirror and then --rotation. mcb reads the world tile by tile, plans only the positions
    that differ (checked against what it read), packs them into as few plans as the server allows and prepares
    the next plan while one applies. Progress goes to stderr. Ctrl-C stops after the plan under way (twice:
    cancels it); the same command resumes, never writing a position twice, and settles an operation a server
    restart interrupted. --dry-run reads and estimates (positions to change, blocks replaced, plans, time at
    20 TPS, journal size) and writes nothing; --undo reverts the build's operations newest first, restoring
    from what mcb recorded where the plugin refuses (a player's edit is kept and named). Each build has an id
    (printed; state in mcb's state dir). --json prints {"build_id", "result", "plans", "operations",
    "written", ...}; --undo --json {"build_id", "undone_operations", "restored_operations", "restored",
    "kept", "data_not_restorable", ...}.

    A recipe is prepared, applied with the idempotency key mcb-<plan id> and waited for; what was sent is
    remembered until the operation is seen to end, so the same command after a lost answer or Ctrl-C resumes
    it. --target moves a recipe so its lowest corner lands there; --rotation turns it first. --json prints
    {"plan", "idempotency_key", "operation"}.

    Exit 0 when applied (or nothing to change); 7 on conflict; 1 when an operation failed or was cancelled,
    or the file cannot be built; 130 when stopped by Ctrl-C.

    Examples:

        mcb build ship.schem --target 0,64,0 --dry-run

        mcb build ship.schem --target 0,64,0 --rotation 90 --yes

        mcb build ship.schem --target 0,64,0 --rotation 90 --undo --yes

        mcb build recipes/tower.json

        mcb build --asset 5d0c...-uuid --target 10,64,10 --rotation 90
    """
    term = json_terminal(ctx, json_)
    build_id = checked_build_id(build_id)
    schematic = recipe_file is not None and is_schematic_file(recipe_file)
    if schematic or undo or build_id:
        if asset is not None or dependency or part:
            raise UsageError("--asset, --dependency and --part are for recipes and library schematics, not files")
        if build_id and not undo:
            raise UsageError("--build-id goes with --undo")
        return run_schematic_build(
            ctx, term, recipe_file, target=target, rotation=rotation, mirror=mirror, skip_air=skip_air,
            keep_existing=keep_existing, drop_extras=drop_extras, replace_unknown=replace_unknown, dry_run=dry_run,
            undo=undo, build_id=build_id, yes=yes, wait_timeout=timeout, extras_function=extras_function,
        )  # fmt: skip
    if mirror or skip_air or keep_existing or drop_extras or replace_unknown or yes or extras_function:
        raise UsageError(
            "--mirror, --skip-air, --keep-existing, --drop-extras, --replace-unknown, --extras-function and --yes are "
            "for schematic files"
        )
    if (recipe_file is None) == (asset is None):
        raise UsageError("give either RECIPE or --asset ID --target x,y,z")
    if rotation not in (0, 90, 180, 270):
        raise UsageError("--rotation must be 0, 90, 180 or 270")
    request = _request(recipe_file, asset, target, rotation, dependency, part)
    with open_client(ctx, term) as client:

        def prepare():
            if asset is not None:
                return client.schematic_import_prepare(asset, request["target"], rotation)
            return client.build_prepare(request["recipe"], dependencies=request["dependencies"], part_id=part)

        if dry_run:  # nothing will be applied: no key, nothing remembered
            with spinner_after(term, "waiting for the server to prepare the plan"):
                plan = prepare()
            term.info(f"prepared plan {plan.plan_id}: {plural(plan.changed_blocks, 'block')} to change (dry run)")
            data = {"plan": plan.wire(), "idempotency_key": None, "operation": None}
            term.emit(data, lambda: show_plan(term, plan))
            return
        write_one_plan(term, client, {"build": request}, prepare, timeout=timeout, command="mcb build")


def _request(recipe_file, asset, target, rotation, dependency, part) -> dict:
    """What the build asks of the server, which also names it (a re-run of the same request resumes it)."""
    if asset is not None:
        if target is None:
            raise UsageError("--asset needs --target x,y,z")
        return {"asset_id": asset, "target": parse_position(target, "--target"), "rotation": rotation}
    recipe = read_json_source(recipe_file, "recipe")
    if not isinstance(recipe, dict):
        raise InputError("a recipe must be a JSON object {version, operations}")
    deps = [parse_position(d, "--dependency") for d in dependency or []]
    if target is not None or rotation:
        from mcb.recipes.placement import place_recipe

        position = parse_position(target, "--target") if target is not None else None
        recipe = place_recipe(recipe, rotation=rotation, target=position)
    return {"recipe": recipe, "dependencies": deps, "part_id": part}


def write_one_plan(term, client, request: dict, prepare, *, timeout: float, command: str, status_only: bool = False):
    """A write of one plan on the engine (mcb.batch.single), with progress, the one Ctrl-C, and its summary:
    {"plan", "idempotency_key", "operation"} (``status_only``: the operation's status shape, as `mcb apply --wait`
    prints it); the error of an operation that did not apply, raised."""
    from mcb.batch.single import run_single
    from mcb.batch.source import StopRequest, stopped_error
    from mcb.client.models import OperationStatus, PlanSummary
    from mcb.client.operations import raise_for_outcome, resume_hint
    from mcb.commands.events import write_events
    from mcb.commands.rpc_support import ctrl_c, finish_status
    from mcb.errors import NetworkError
    from mcb.waiting import WaitPolicy

    stop = StopRequest()
    events = write_events(term, command)

    def on_event(event: str, details: dict) -> None:
        if event == "prepared":  # the one plan of this write: its id and key, for `mcb status`/`mcb apply`
            term.info(f"prepared plan {details['plan_id']}: {plural(details['changed_blocks'], 'block')} to change; "
                      f"idempotency key mcb-{details['plan_id']}")  # fmt: skip
        else:
            events(event, details)

    try:
        with term.operation_progress(command.removeprefix("mcb ")) as bar, ctrl_c(stop, term):
            outcome, entry = run_single(
                client, request, prepare, wait=WaitPolicy(timeout=timeout), stop=stop, on_view=bar.show,
                on_event=on_event, on_unsaved=term.warn,
            )  # fmt: skip
    except NetworkError as error:
        if "idempotency_key" in error.details:  # build_apply may have left: the same command repeats it
            error.hint = resume_hint(f"run the same `{command}` command again", error.details["plan_id"],
                                     error.details["idempotency_key"], error)  # fmt: skip
        raise
    if outcome.result == "stopped":
        raise stopped_error(outcome)
    plan = PlanSummary.model_validate(entry["plan"]) if entry else None
    status = OperationStatus.model_validate(entry["status"]) if entry and entry.get("status") else None
    if status_only and status is not None:
        finish_status(term, status)
        return
    data = {"plan": plan.wire() if plan else None, "idempotency_key": entry.get("idempotency_key") if entry else None,
            "operation": status.wire() if status else None}  # fmt: skip

    def human() -> None:
        if plan is None:
            term.line("nothing to change")
            return
        show_plan(term, plan)
        if status is not None:
            show_status(term, status)

    term.emit(data, human)
    if outcome.error is not None:
        raise outcome.error
    raise_for_outcome(status)


def register(app: typer.Typer) -> None:
    app.command("build", epilog=EXIT_CODES_HELP)(build)
