"""The ``terrain_tile`` batch step kind and the tile loop behind ``mcb terrain prepare --all --apply``.

A tile step prepares one tile (re-previewing its recipe first when the step carries one, which re-registers the ID
after a server restart); an ``empty`` tile is "nothing to change". The batch runner does the rest — recording,
applying with a stable idempotency key, waiting and resuming from the state file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from mcb.batch.kinds import BaseStep, StepContext, register_step_kind
from mcb.batch.model import Batch
from mcb.batch.runner import BatchRunner, StepReport
from mcb.batch.state import BatchState
from mcb.client.models import PlanSummary
from mcb.errors import ConflictError, InputError, McbError, ServerError

OUTSIDE = "Tile index outside terrain"


class TerrainTileStep(BaseStep):
    """Prepare (and apply) one tile of a terrain recipe (`terrain_preview` + `terrain_prepare`)."""

    kind: Literal["terrain_tile"]
    recipe: str | dict | None = Field(default=None, description="Terrain recipe file (relative to the batch file) "
                                      "or inline object; previewed first so the ID survives a server restart.")
    terrain_id: str | None = Field(default=None, pattern=r"^[a-f0-9]{64}$",
                                   description="ID from `mcb terrain preview`; checked against the recipe's.")
    tile_index: int = Field(ge=0, le=134_217_727)

    @model_validator(mode="after")
    def _recipe_or_id(self):
        if self.recipe is None and self.terrain_id is None:
            raise ValueError("a terrain_tile step needs `recipe` or `terrain_id`")
        return self


def register_recipe(client, recipe: dict, expected_id: str | None = None) -> dict:
    """``terrain_preview`` at the smallest resolution; refuses a recipe whose ID is not the expected one."""
    result = client.call("terrain_preview", {"recipe": recipe, "resolution": 32})
    if expected_id is not None and result["terrain_id"] != expected_id:
        raise InputError(f"the recipe has terrain_id {result['terrain_id']}, not {expected_id}",
                         hint="pass the recipe that `mcb terrain preview` showed this ID for")
    return result


def prepare_tile(client, terrain_id: str, tile_index: int) -> PlanSummary | None:
    result = client.terrain_prepare(terrain_id, tile_index)
    if result.status == "empty":
        return None
    return result.plan()


@register_step_kind(TerrainTileStep)
def prepare_terrain_tile(ctx: StepContext, step: TerrainTileStep) -> PlanSummary | None:
    terrain_id = step.terrain_id
    if step.recipe is not None:
        terrain_id = register_recipe(ctx.client, ctx.load_json(step.recipe), step.terrain_id)["terrain_id"]
    return prepare_tile(ctx.client, terrain_id, step.tile_index)


def is_past_last_tile(error: McbError | None) -> bool:
    return (isinstance(error, ServerError) and error.code == "invalid_request"
            and error.message.endswith(f"invalid_request: {OUTSIDE}"))


def run_all_tiles(client, terrain_id: str, state_path: Path, *, recipe: dict | None = None,
                  tile_count: int | None = None, start: int = 0, dry_run: bool = False,
                  on_tile: Callable[[int, StepReport], None] | None = None, **runner_options) -> dict:
    """Every tile from ``start`` in order: prepare + apply + wait, resumable through ``state_path``.

    Stops at the first failure (conflict, error) or after the last tile (known from ``tile_count``, or found by the
    server answering "Tile index outside terrain"). Returns a summary with one entry per tile visited.
    """
    state = BatchState.load(state_path, server=client.server, project_id=client.project_id)
    state.data.setdefault("terrain_id", terrain_id)
    if state.data["terrain_id"] != terrain_id:
        raise InputError(f"{state_path} belongs to terrain {state.data['terrain_id']}",
                         hint="use another --state file for another recipe")
    context = client.project_context()
    if not dry_run:
        _check_budget(state, context.max_plan_blocks)
    if recipe is not None:
        preview = register_recipe(client, recipe, terrain_id)
        tile_count = preview.get("tile_count", tile_count)
        if not dry_run:
            _check_envelope(preview["bounds"], context.region)
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
            return {"status": "stopped", "terrain_id": terrain_id, "state_file": str(state_path), "tiles": tiles,
                    "error": report.error}
        index += 1
    return {"status": "completed", "terrain_id": terrain_id, "state_file": str(state_path), "tiles": tiles,
            "error": None}


def _check_budget(state: BatchState, budget: int | None) -> None:
    """Tile numbering depends on the server's plan budget: never resume under another one (§1.8)."""
    saved = state.data.get("tile_budget")
    if saved is not None and budget is not None and saved != budget:
        raise ConflictError(f"{state.path} was started with tile budget {saved}; the server now uses {budget}, "
                            "which numbers the tiles differently", code="tile_budget_changed",
                            hint="restore the server's max-plan-blocks, or start a new --state file")
    if saved is None and budget is not None:
        state.data["tile_budget"] = budget
        state.save()


def _check_envelope(bounds: dict, region) -> None:
    """Refuse up front when the recipe's envelope leaves the project area (no tile would be half written)."""
    if region is None:
        return
    low, high = region.min, region.max
    inside = all(getattr(low, a) <= bounds["min"][a] and bounds["max"][a] <= getattr(high, a) for a in "xyz")
    if not inside:
        b = bounds
        raise InputError(f"the recipe envelope {b['min']['x']},{b['min']['y']},{b['min']['z']} .. "
                         f"{b['max']['x']},{b['max']['y']},{b['max']['z']} is not inside the project area "
                         f"{region.text()}", code="out_of_bounds",
                         hint="move the envelope or ask the owner to enlarge the area (/ai area)")


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
    return {"tile": index, "result": "empty" if result.status == "empty" else "prepared",
            "changed_blocks": result.changed_blocks, "plan_id": result.plan_id, "plan_hash": result.plan_hash}
