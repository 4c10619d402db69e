"""`mcb build`: prepare → apply → wait → summary for one recipe or one library schematic."""

from __future__ import annotations

from typing import Annotated

import typer

from mcb.commands.rpc_support import (
    EXIT_CODES_HELP, json_terminal, open_client, parse_position, read_json_source, show_plan, show_status,
    spinner_after, wait_with_progress,
)
from mcb.errors import InputError, UsageError
from mcb.options import JsonOpt, complete_rotation
from mcb.wording import plural


def build(
    ctx: typer.Context,
    recipe_file: Annotated[str | None, typer.Argument(metavar="RECIPE", help="Recipe JSON file, or - for stdin.")] = None,
    asset: Annotated[str | None, typer.Option("--asset", help="Library schematic to place instead of a recipe.")] = None,
    target: Annotated[str | None, typer.Option("--target", metavar="X,Y,Z", help="Anchor x,y,z: where --asset goes, or the recipe's min corner.")] = None,
    rotation: Annotated[int, typer.Option("--rotation", autocompletion=complete_rotation, help="Clockwise degrees (seen from above): 0, 90, 180, 270.")] = 0,
    dependency: Annotated[list[str] | None, typer.Option("--dependency", "-d", metavar="X,Y,Z", help="Read dependency x,y,z (repeatable).")] = None,
    part: Annotated[str | None, typer.Option("--part", help="Restrict writes to this part's exact mask.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Stop after prepare: show the plan, write nothing.")] = False,
    timeout: Annotated[float, typer.Option("--wait-timeout", help="Seconds to wait for the operation.", min=0.1)] = 600.0,
    json_: JsonOpt = False,
) -> None:
    """Build a recipe or place a library schematic: prepare, apply, wait, and summarise.

    The idempotency key is mcb-<plan id>. What was sent is remembered until the operation is seen to end, so
    running the same command again after a lost answer or Ctrl-C resumes that operation instead of building
    twice. --target moves a recipe so its lowest corner lands there; --rotation turns it clockwise (seen from
    above) first. --json prints {"plan", "idempotency_key", "operation"} (both null with --dry-run).
    Exit 0 when applied; 7 on conflict; 1 when the operation failed or was cancelled.

    Examples:

        mcb build recipes/tower.json

        mcb build --asset 5d0c...-uuid --target 10,64,10 --rotation 90

        mcb build recipes/tower.json --dry-run --json
    """
    from mcb.client.errors import Interrupted
    from mcb.client.workflow import ApplyMemory, PlanOutcome, apply_once, raise_for_outcome, request_fingerprint

    term = json_terminal(ctx, json_)
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

            recipe = place_recipe(recipe, rotation=rotation,
                                  target=parse_position(target, "--target") if target is not None else None)
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
            memory = ApplyMemory(request_fingerprint(client.server, client.project_id, client.player_id,
                                                     {"build": request}), on_unsaved=term.warn)

            def on_prepared(plan, key) -> None:
                term.info(f"prepared plan {plan.plan_id}: {plural(plan.changed_blocks, 'block')} to change; "
                          f"idempotency key {key}")

            def on_resume(remembered) -> None:
                term.info(f"an earlier run sent plan {remembered.plan.plan_id} without seeing the end; repeating "
                          f"build_apply with the same idempotency key {remembered.idempotency_key} instead of "
                          f"preparing again")

            try:
                with spinner_after(term, "waiting for the server (prepare, apply)"):
                    outcome = apply_once(client, memory, prepare, command="mcb build", on_prepared=on_prepared,
                                         on_resume=on_resume)
            except KeyboardInterrupt:
                raise Interrupted("interrupted before the operation's first status arrived",
                                  hint="run the same `mcb build` command again: it repeats build_apply for the plan "
                                  "it sent, if any, with the same idempotency key, never preparing a second "
                                  "operation") from None
            outcome.status = wait_with_progress(term, client, outcome.status.operation_id, timeout=timeout,
                                                interval=0.1, first=outcome.status,
                                                rerun="the same `mcb build` command")
            memory.forget()  # seen terminal: a later run is a new build

    def human() -> None:
        show_plan(term, outcome.plan)
        if outcome.status is not None:
            show_status(term, outcome.status)

    term.emit(outcome.to_json(), human)
    raise_for_outcome(outcome.status)


def register(app: typer.Typer) -> None:
    app.command("build", epilog=EXIT_CODES_HELP)(build)
