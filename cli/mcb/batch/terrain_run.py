"""``mcb terrain prepare --all --apply``: every tile of a terrain as one plan log on the one engine.

Tiles run in order (:class:`mcb.batch.sources.TerrainTiles`); an ``empty`` tile is "nothing to change". The state file
(``--state``) records each plan before its request leaves, so the same command resumes where it stopped without
writing any tile twice.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcb.batch.engine import Engine
from mcb.batch.kinds import register_recipe
from mcb.batch.log import PlanLog
from mcb.batch.source import StopRequest, stopped_error
from mcb.batch.sources import TerrainTiles, is_past_last_tile
from mcb.batch.state import BatchState, exclusive_run
from mcb.client.models import Region
from mcb.errors import ConflictError, InputError, McbError, ServerError
from mcb.waiting import WaitPolicy

TILES = "terrain"
DONE = ("applied", "nothing_to_change")  # a tile a run may leave behind it


def run_all_tiles(client, terrain_id: str, state_path: Path, *, recipe: dict | None = None,
                  tile_count: int | None = None, start: int = 0, dry_run: bool = False,
                  on_tile: Callable[[int, str, dict], None] | None = None, wait: WaitPolicy | None = None,
                  stop: StopRequest | None = None, on_view=None) -> dict:  # fmt: skip
    """Every tile from ``start`` in order: prepare + apply + wait, resumable through ``state_path``.

    Stops at the first failure (conflict, error) or after the last tile (known from ``tile_count``, or found by the
    server answering "Tile index outside terrain"). Returns a summary with one entry per tile visited.
    """
    context = client.project_context()
    if recipe is not None:
        preview = register_recipe(client, recipe, terrain_id)
        tile_count = preview.tile_count if preview.tile_count is not None else tile_count
        if not dry_run:
            _check_envelope(preview.bounds, context.region)
    if dry_run:
        return _dry_run(client, terrain_id, start, tile_count)
    with exclusive_run(state_path, "this terrain run"):
        state = BatchState.load(state_path, server=client.server, project_id=client.project_id)
        state.data.setdefault("terrain_id", terrain_id)
        if state.data["terrain_id"] != terrain_id:
            raise InputError(
                f"{state_path} belongs to terrain {state.data['terrain_id']}",
                hint="use another {state} file for another recipe",
                details={"field": "state"},
            )
        _check_budget(state, context.max_plan_blocks)
        log = PlanLog(state, TILES)
        source = TerrainTiles(client, terrain_id, log, start=start, tile_count=tile_count, on_tile=on_tile)
        engine = Engine(client, log, wait=wait, stop=stop, on_view=on_view)
        error = None
        try:
            outcome = engine.run(source)
            if outcome.result == "failed":
                error = outcome.error
            elif outcome.result == "stopped":
                error = stopped_error(outcome, state_path)
        except McbError as failure:
            error = failure
            if error.code == "not_found" and recipe is None:
                error.hint = "the server forgot the recipe (restart or 32 newer previews): pass {recipe=FILE}"
    tiles = [t if t["tile"] in source.visited or t["result"] not in DONE else {**t, "result": "already_done"}
             for t in sorted(log.record.get("tiles", []), key=lambda t: t["tile"])]  # fmt: skip
    return {"status": "stopped" if error is not None else "completed", "terrain_id": terrain_id,
            "state_file": str(state_path), "tiles": tiles, "error": error}  # fmt: skip


def _check_budget(state: BatchState, budget: int | None) -> None:
    """Tile numbering depends on the server's plan budget: never resume under another one (§1.8)."""
    saved = state.data.get("tile_budget")
    if saved is not None and budget is not None and saved != budget:
        raise ConflictError(
            f"{state.path} was started with tile budget {saved}; the server now uses {budget}, "
            "which numbers the tiles differently",
            code="tile_budget_changed",
            hint="restore the server's max-plan-blocks, or start a new {state} file",
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


def _dry_run(client, terrain_id: str, start: int, tile_count: int | None) -> dict:
    tiles = []
    index = start
    while tile_count is None or index < tile_count:
        try:
            result = client.terrain_prepare(terrain_id, index)
        except ServerError as error:
            if is_past_last_tile(error):
                break
            raise
        tiles.append({"tile": index, "result": "empty" if result.status == "empty" else "prepared",
                      "changed_blocks": result.changed_blocks, "plan_id": result.plan_id,
                      "plan_hash": result.plan_hash})  # fmt: skip
        index += 1
    return {"status": "completed", "terrain_id": terrain_id, "state_file": None, "tiles": tiles, "error": None}
