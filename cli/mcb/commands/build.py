"""`mcb build`: prepare → apply → wait → summary for one recipe or one library schematic."""

from __future__ import annotations

from typing import Annotated

import typer

from mcb.commands.rpc_support import (
    EXIT_CODES_HELP, json_terminal, open_client, parse_position, read_json_source, show_plan, show_status,
    wait_with_progress,
)
from mcb.errors import InputError, UsageError
from mcb.options import JsonOpt


def build(
    ctx: typer.Context,
    recipe_file: Annotated[str | None, typer.Argument(metavar="RECIPE", help="Recipe JSON file, or - for stdin.")] = None,
    asset: Annotated[str | None, typer.Option("--asset", help="Library schematic to place instead of a recipe.")] = None,
    target: Annotated[str | None, typer.Option("--target", help="Anchor x,y,z for --asset.")] = None,
    rotation: Annotated[int, typer.Option("--rotation", help="Clockwise degrees for --asset: 0, 90, 180, 270.")] = 0,
    dependency: Annotated[list[str] | None, typer.Option("--dependency", "-d", help="Read dependency x,y,z (repeatable).")] = None,
    part: Annotated[str | None, typer.Option("--part", help="Restrict writes to this part's exact mask.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Stop after prepare: show the plan, write nothing.")] = False,
    timeout: Annotated[float, typer.Option("--wait-timeout", help="Seconds to wait for the operation.", min=0.1)] = 600.0,
    json_: JsonOpt = False,
) -> None:
    """Build a recipe or place a library schematic: prepare, apply, wait, and summarise.

    The idempotency key is mcb-<plan id>. --json prints {"plan", "idempotency_key", "operation"} (operation is
    null with --dry-run). Exit 0 when applied; 7 on conflict; 1 when the operation failed or was cancelled.

    Examples:

        mcb build recipes/tower.json

        mcb build --asset 5d0c...-uuid --target 10,64,10 --rotation 90

        mcb build recipes/tower.json --dry-run --json
    """
    from mcb.client.workflow import raise_for_outcome, run_plan

    term = json_terminal(ctx, json_)
    if (recipe_file is None) == (asset is None):
        raise UsageError("give either RECIPE or --asset ID --target x,y,z")
    if asset is not None:
        if target is None:
            raise UsageError("--asset needs --target x,y,z")
        if rotation not in (0, 90, 180, 270):
            raise UsageError("--rotation must be 0, 90, 180 or 270")
        anchor = parse_position(target, "--target")
    else:
        recipe = read_json_source(recipe_file, "recipe")
        if not isinstance(recipe, dict):
            raise InputError("a recipe must be a JSON object {version, operations}")
        deps = [parse_position(d, "--dependency") for d in dependency or []]

    with open_client(ctx, term) as client:
        def prepare():
            if asset is not None:
                return client.schematic_import_prepare(asset, anchor, rotation)
            return client.build_prepare(recipe, dependencies=deps, part_id=part)

        def on_prepared(plan, key) -> None:
            term.info(f"prepared plan {plan.plan_id}: {plan.changed_blocks} blocks to change; idempotency key {key}")

        outcome = run_plan(client, prepare, dry_run=True, on_prepared=on_prepared)
        if not dry_run:
            first = client.build_apply(outcome.plan.plan_id, outcome.plan.plan_hash, outcome.idempotency_key)
            outcome.status = wait_with_progress(term, client, first.operation_id, timeout=timeout, interval=0.1,
                                                first=first)

    def human() -> None:
        show_plan(term, outcome.plan)
        if outcome.status is not None:
            show_status(term, outcome.status)

    term.emit(outcome.to_json(), human)
    raise_for_outcome(outcome.status)


def register(app: typer.Typer) -> None:
    app.command("build", epilog=EXIT_CODES_HELP)(build)
