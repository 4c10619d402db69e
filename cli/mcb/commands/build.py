"""`mcb build`: prepare → apply → wait → summary for one recipe or one library schematic; a schematic file of any
size goes through :mod:`mcb.commands.build_schematic`."""

from __future__ import annotations

from typing import Annotated

import typer

from mcb.commands.build_schematic import is_schematic_file, run_schematic_build
from mcb.commands.rpc_support import (
    EXIT_CODES_HELP,
    json_terminal,
    open_client,
    parse_position,
    read_json_source,
    show_plan,
    show_status,
    spinner_after,
    wait_with_progress,
)
from mcb.errors import InputError, UsageError
from mcb.options import JsonOpt, ReplaceUnknownOpt, complete_axis, complete_rotation
from mcb.wording import plural


def build(
    ctx: typer.Context,
    recipe_file: Annotated[
        str | None,
        typer.Argument(
            metavar="FILE",
            help="Recipe JSON file (or - for stdin), or a schematic file (.schem, .litematic, .nbt, .schematic): the content decides.",
        ),
    ] = None,
    asset: Annotated[str | None, typer.Option("--asset", help="Library schematic to place instead of a file.")] = None,
    target: Annotated[
        str | None,
        typer.Option(
            "--target",
            metavar="X,Y,Z",
            help="Where a schematic's anchor (or --asset's) goes, or a recipe's min corner.",
        ),
    ] = None,
    rotation: Annotated[
        int,
        typer.Option(
            "--rotation", autocompletion=complete_rotation, help="Clockwise degrees (seen from above): 0, 90, 180, 270."
        ),
    ] = 0,
    mirror: Annotated[
        str | None,
        typer.Option(
            "--mirror",
            metavar="AXIS",
            autocompletion=complete_axis,
            help="Schematic: mirror x (east-west) or z (north-south) before turning.",
        ),
    ] = None,
    skip_air: Annotated[
        bool, typer.Option("--skip-air", help="Schematic: leave the world as it is where the file has air.")
    ] = False,
    keep_existing: Annotated[
        bool, typer.Option("--keep-existing", help="Schematic: place only where the world is air now.")
    ] = False,
    drop_extras: Annotated[
        bool,
        typer.Option("--drop-extras", help="Schematic: build block states without block-entity data and entities."),
    ] = False,
    replace_unknown: ReplaceUnknownOpt = None,
    undo: Annotated[bool, typer.Option("--undo", help="Schematic: undo the build's operations, newest first.")] = False,
    build_id: Annotated[
        str | None,
        typer.Option(
            "--build-id",
            metavar="ID",
            help="With --undo: the build id a build printed (instead of FILE and its options).",
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
    timeout: Annotated[
        float, typer.Option("--wait-timeout", help="Seconds to wait for each operation.", min=0.1)
    ] = 600.0,
    json_: JsonOpt = False,
) -> None:
    """Build a recipe, a library schematic or a schematic file of any size: prepare, apply, wait, summarise.

    A schematic FILE (Sponge, Litematica, structure .nbt, legacy .schematic) goes to --target as WorldEdit
    pastes it, after --mirror and then --rotation. mcb reads the world tile by tile, plans only the positions
    that differ (checked against what it read), packs them into as few plans as the server allows and prepares
    the next plan while one applies. Progress goes to stderr. Ctrl-C stops after the plan under way (twice:
    cancels it); the same command resumes, never writing a position twice. --dry-run reads and estimates
    (positions to change, blocks replaced, plans, time at 20 TPS, journal size) and writes nothing; --undo
    reverts the build's operations newest first. Each build has an id (printed; state in mcb's state dir).
    --json prints {"build_id", "result", "plans", "operations", "written", ...}.

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
    from mcb.client.errors import Interrupted
    from mcb.client.workflow import ApplyMemory, PlanOutcome, apply_once, raise_for_outcome, request_fingerprint

    term = json_terminal(ctx, json_)
    schematic = recipe_file is not None and is_schematic_file(recipe_file)
    if schematic or undo or build_id:
        if asset is not None or dependency or part:
            raise UsageError("--asset, --dependency and --part are for recipes and library schematics, not files")
        if build_id and not undo:
            raise UsageError("--build-id goes with --undo")
        return run_schematic_build(
            ctx,
            term,
            recipe_file,
            target=target,
            rotation=rotation,
            mirror=mirror,
            skip_air=skip_air,
            keep_existing=keep_existing,
            drop_extras=drop_extras,
            replace_unknown=replace_unknown,
            dry_run=dry_run,
            undo=undo,
            build_id=build_id,
            yes=yes,
            wait_timeout=timeout,
        )
    if mirror or skip_air or keep_existing or drop_extras or replace_unknown or yes:
        raise UsageError(
            "--mirror, --skip-air, --keep-existing, --drop-extras, --replace-unknown and --yes are for schematic files"
        )
    if (recipe_file is None) == (asset is None):
        raise UsageError("give either RECIPE or --asset ID --target x,y,z")
    if rotation not in (0, 90, 180, 270):
        raise UsageError("--rotation must be 0, 90, 180 or 270")
    if asset is not None:
        if target is None:
            raise UsageError("--asset needs --target x,y,z")
        anchor = parse_position(target, "--target")
        request = {"asset_id": asset, "target": anchor, "rotation": rotation}
    else:
        recipe = read_json_source(recipe_file, "recipe")
        if not isinstance(recipe, dict):
            raise InputError("a recipe must be a JSON object {version, operations}")
        deps = [parse_position(d, "--dependency") for d in dependency or []]
        if target is not None or rotation:
            from mcb.recipes.placement import place_recipe

            recipe = place_recipe(
                recipe, rotation=rotation, target=parse_position(target, "--target") if target is not None else None
            )
        request = {"recipe": recipe, "dependencies": deps, "part_id": part}

    with open_client(ctx, term) as client:

        def prepare():
            if asset is not None:
                return client.schematic_import_prepare(asset, anchor, rotation)
            return client.build_prepare(recipe, dependencies=deps, part_id=part)

        if dry_run:  # nothing will be applied: no key, nothing remembered
            with spinner_after(term, "waiting for the server to prepare the plan"):
                plan = prepare()
            term.info(f"prepared plan {plan.plan_id}: {plural(plan.changed_blocks, 'block')} to change (dry run)")
            outcome = PlanOutcome(plan=plan)
        else:
            memory = ApplyMemory(
                request_fingerprint(client.server, client.project_id, client.player_id, {"build": request}),
                on_unsaved=term.warn,
            )

            def on_prepared(plan, key) -> None:
                term.info(
                    f"prepared plan {plan.plan_id}: {plural(plan.changed_blocks, 'block')} to change; "
                    f"idempotency key {key}"
                )

            def on_resume(remembered) -> None:
                term.info(
                    f"an earlier run sent plan {remembered.plan.plan_id} without seeing the end; repeating "
                    f"build_apply with the same idempotency key {remembered.idempotency_key} instead of "
                    f"preparing again"
                )

            try:
                with spinner_after(term, "waiting for the server (prepare, apply)"):
                    outcome = apply_once(
                        client, memory, prepare, command="mcb build", on_prepared=on_prepared, on_resume=on_resume
                    )
            except KeyboardInterrupt:
                raise Interrupted(
                    "interrupted before the operation's first status arrived",
                    hint="run the same `mcb build` command again: it repeats build_apply for the plan "
                    "it sent, if any, with the same idempotency key, never preparing a second "
                    "operation",
                ) from None
            outcome.status = wait_with_progress(
                term,
                client,
                outcome.status.operation_id,
                timeout=timeout,
                interval=0.1,
                first=outcome.status,
                rerun="the same `mcb build` command",
            )
            memory.forget()  # seen terminal: a later run is a new build

    def human() -> None:
        show_plan(term, outcome.plan)
        if outcome.status is not None:
            show_status(term, outcome.status)

    term.emit(outcome.to_json(), human)
    raise_for_outcome(outcome.status)


def register(app: typer.Typer) -> None:
    app.command("build", epilog=EXIT_CODES_HELP)(build)
