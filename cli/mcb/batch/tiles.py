"""The tile loop behind ``mcb terrain prepare --all --apply``: every tile of a terrain as a one-step batch.

Each tile is a ``terrain_tile`` step (:mod:`mcb.batch.kinds`); an ``empty`` tile is "nothing to change". The
batch runner does the rest — recording, applying with a stable idempotency key, waiting and resuming from the
state file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcb.batch.kinds import TerrainTileStep, register_recipe
from mcb.batch.model import Batch
from mcb.batch.runner import BatchRunner, StepReport
from mcb.batch.state import BatchState
from mcb.client.models import Region
from mcb.errors import ConflictError, InputError, McbError, ServerError

OUTSIDE = "Tile index outside terrain"


def is_past_last_tile(error: McbError | None) -> bool:
    return (
        isinstance(error, ServerError)
        and error.code == "invalid_request"
        and error.details.get("server_message") == OUTSIDE
    )


def run_all_tiles(
    client,
    terrain_id: str,
    state_path: Path,
    *,
    recipe: dict | None = None,
    tile_count: int | None = None,
    start: int = 0,
    dry_run: bool = False,
    on_tile: Callable[[int, StepReport], None] | None = None,
    **runner_options,
) -> dict:
    """Every tile from ``start`` in order: prepare + apply + wait, resumable through ``state_path``.

    Stops at the first failure (conflict, error) or after the last tile (known from ``tile_count``, or found by the
    server answering "Tile index outside terrain"). Returns a summary with one entry per tile visited.
    """
    state = BatchState.load(state_path, server=client.server, project_id=client.project_id)
    state.data.setdefault("terrain_id", terrain_id)
    if state.data["terrain_id"] != terrain_id:
        raise InputError(
            f"{state_path} belongs to terrain {state.data['terrain_id']}",
            hint="use another --state file for another recipe",
        )
    context = client.project_context()
    if not dry_run:
        _check_budget(state, context.max_plan_blocks)
    if recipe is not None:
        preview = register_recipe(client, recipe, terrain_id)
        tile_count = preview.tile_count if preview.tile_count is not None else tile_count
        if not dry_run:
            _check_envelope(preview.bounds, context.region)
    tiles: list[dict] = []
    index = start
    while tile_count is None or index < tile_count:
        raw = {"name": f"tile-{index}", "kind": "terrain_tile", "terrain_id": terrain_id, "tile_index": index}
        if dry_run:
            plan = _dry_run_tile(client, terrain_id, index)
            if plan == "past":
                break
            tiles.append(plan)
            index += 1
            continue
        batch = Batch(path=state_path, steps=[TerrainTileStep.model_validate(raw)], raw_steps=[raw])
        report = BatchRunner(client, batch, state, **runner_options).run().steps[0]
        if is_past_last_tile(report.error):
            break
        entry = {"tile": index, "result": report.result, **_tile_fields(report)}
        tiles.append(entry)
        if on_tile is not None:
            on_tile(index, report)
        if report.error is not None:
            if report.error.code == "not_found" and recipe is None:
                report.error.hint = "the server forgot the recipe (restart or 32 newer previews): pass --recipe FILE"
            return {
                "status": "stopped",
                "terrain_id": terrain_id,
                "state_file": str(state_path),
                "tiles": tiles,
                "error": report.error,
            }
        index += 1
    return {
        "status": "completed",
        "terrain_id": terrain_id,
        "state_file": str(state_path),
        "tiles": tiles,
        "error": None,
    }


def _check_budget(state: BatchState, budget: int | None) -> None:
    """Tile numbering depends on the server's plan budget: never resume under another one (§1.8)."""
    saved = state.data.get("tile_budget")
    if saved is not None and budget is not None and saved != budget:
        raise ConflictError(
            f"{state.path} was started with tile budget {saved}; the server now uses {budget}, "
            "which numbers the tiles differently",
            code="tile_budget_changed",
            hint="restore the server's max-plan-blocks, or start a new --state file",
        )
    if saved is None and budget is not None:
        state.data["tile_budget"] = budget
        state.save()


def _check_envelope(bounds: Region, region: Region | None) -> None:
    """Refuse up front when the recipe's envelope leaves the project area (no tile would be half written)."""
    if region is None:
        return
    low, high = region.min, region.max
    inside = all(
        getattr(low, a) <= getattr(bounds.min, a) and getattr(bounds.max, a) <= getattr(high, a) for a in "xyz"
    )
    if not inside:
        raise InputError(
            f"the recipe envelope {bounds.text()} is not inside the project area {region.text()}",
            code="out_of_bounds",
            hint="move the envelope or ask the owner to enlarge the area (/ai area)",
        )


def _tile_fields(report: StepReport) -> dict:
    data = report.to_json()
    return {k: data.get(k) for k in ("changed_blocks", "operation_id", "status", "written")}


def _dry_run_tile(client, terrain_id: str, index: int):
    try:
        result = client.terrain_prepare(terrain_id, index)
    except ServerError as error:
        if is_past_last_tile(error):
            return "past"
        raise
    return {
        "tile": index,
        "result": "empty" if result.status == "empty" else "prepared",
        "changed_blocks": result.changed_blocks,
        "plan_id": result.plan_id,
        "plan_hash": result.plan_hash,
    }
