"""Batch step kinds: a registry where a kind is one pydantic model plus a function that gives its plan source.

Every step runs on the one engine (:mod:`mcb.batch.engine`): a ``recipe``, ``import`` or ``terrain_tile`` step is a
log of one plan (:class:`mcb.batch.sources.OnePlan`), a ``schematic`` step a log of many
(:class:`mcb.batch.schematic.SchematicSource`), an ``undo`` step the undo of another step's log
(:class:`mcb.batch.undo.UndoSource`). To add a kind::

    class WallStep(BaseStep):
        kind: Literal["wall"]
        length: int

    @register_step_kind(WallStep)
    def wall_source(ctx, step, log):
        return OnePlan(lambda: ctx.client.build_prepare(wall_recipe(step.length)))

Every kind is defined in this module, so loading a batch knows them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mcb.batch.log import PlanLog
from mcb.batch.sources import OnePlan
from mcb.building.placement_options import PlacementOptions, Vec3Input
from mcb.client.methods import McbClient
from mcb.client.models import PlanSummary, TerrainPreview
from mcb.errors import InputError
from mcb.terrain.limits import TERRAIN_ID_PATTERN

STEP_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"


class BaseStep(BaseModel):
    """Fields every step has."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=STEP_NAME_PATTERN, description="Unique step name; used by undo steps and the state file.")
    description: str | None = Field(default=None, description="Free text shown in progress output.")


class RecipeStep(BaseStep):
    """Build a recipe (`build_prepare`)."""

    kind: Literal["recipe"]
    recipe: str | dict = Field(description="Recipe file (relative to the batch file) or an inline recipe object.")
    dependencies: list[Vec3Input] = Field(default_factory=list, description="Read dependencies [x,y,z] or {x,y,z}.")
    part: str | None = Field(default=None, description="Restrict writes to this part id's exact mask.")


class ImportStep(BaseStep):
    """Place a schematic from the server's library (`schematic_import_prepare`)."""

    kind: Literal["import"]
    asset: str = Field(description="Asset id (from `mcb asset list`).")
    target: Vec3Input = Field(description="Anchor position [x,y,z] or {x,y,z}.")
    rotation: Literal[0, 90, 180, 270] = 0


class TerrainTileStep(BaseStep):
    """Prepare (and apply) one tile of a terrain recipe (`terrain_preview` + `terrain_prepare`)."""

    kind: Literal["terrain_tile"]
    recipe: str | dict | None = Field(
        default=None,
        description="Terrain recipe file (relative to the batch file) "
        "or inline object; previewed first so the ID survives a server restart.",
    )
    terrain_id: str | None = Field(
        default=None,
        pattern=TERRAIN_ID_PATTERN,
        description="ID from `mcb terrain preview`; checked against the recipe's.",
    )
    tile_index: int = Field(ge=0, le=134_217_727)

    @model_validator(mode="after")
    def _recipe_or_id(self):
        if self.recipe is None and self.terrain_id is None:
            raise ValueError("a terrain_tile step needs `recipe` or `terrain_id`")
        return self


class SchematicStep(PlacementOptions, BaseStep):
    """Build a schematic file of any size: tile by tile, only what differs, in as few plans as the server allows."""

    model_config = ConfigDict(extra="forbid", frozen=False)
    kind: Literal["schematic"]
    file: str = Field(
        description="Schematic file (relative to the batch file): Sponge .schem, Litematica "
        ".litematic, structure .nbt or legacy .schematic."
    )


class UndoStep(BaseStep):
    """Revert an earlier step of this batch: its operations newest first (`operation_undo_prepare`, or a restore
    from what mcb recorded where the plugin refuses)."""

    kind: Literal["undo"]
    step: str = Field(description="Name of an earlier step whose operations are reverted.")


@dataclass
class StepContext:
    client: McbClient
    base_dir: Path
    state: Any  # the batch's BatchState
    _project: Any = None

    def project(self):
        """The server's ``project_context`` (its area, max_plan_blocks), asked once per run."""
        if self._project is None:
            self._project = self.client.project_context()
        return self._project

    @property
    def capacity(self) -> int:
        return self.project().max_plan_blocks or 4096

    def load_json(self, value: str | dict) -> Any:
        if isinstance(value, dict):
            return value
        from mcb.fileio import parse_json_input, read_input_text

        path = self.base_dir / value
        return parse_json_input(read_input_text(path, "step file"), "step file", str(path))


SourceFunction = Callable[[StepContext, Any, PlanLog], Any]  # -> a PlanSource (mcb.batch.engine)


@dataclass
class StepKind:
    name: str
    model: type[BaseStep]
    source: SourceFunction
    identity: Callable[[StepContext, Any], str] | None = None  # what else makes a step "the same" (file content)
    many: bool = False  # a log of many plans (its report gives totals and its last plan), not of one


STEP_KINDS: dict[str, StepKind] = {}


def _kind_name(model: type[BaseStep]) -> str:
    return model.model_fields["kind"].annotation.__args__[0]


def register_step_kind(
    model: type[BaseStep], identity=None, *, many: bool = False
) -> Callable[[SourceFunction], SourceFunction]:
    def decorator(source: SourceFunction) -> SourceFunction:
        STEP_KINDS[_kind_name(model)] = StepKind(_kind_name(model), model, source, identity, many)
        return source

    return decorator


def _xyz(position) -> dict:
    x, y, z = position
    return {"x": x, "y": y, "z": z}


@register_step_kind(RecipeStep)
def recipe_source(ctx: StepContext, step: RecipeStep, log: PlanLog) -> OnePlan:
    def prepare() -> PlanSummary:
        recipe = ctx.load_json(step.recipe)
        return ctx.client.build_prepare(recipe, dependencies=[_xyz(p) for p in step.dependencies], part_id=step.part)

    return OnePlan(prepare)


@register_step_kind(ImportStep)
def import_source(ctx: StepContext, step: ImportStep, log: PlanLog) -> OnePlan:
    return OnePlan(lambda: ctx.client.schematic_import_prepare(step.asset, _xyz(step.target), step.rotation))


def register_recipe(client: McbClient, recipe: dict, expected_id: str | None = None) -> TerrainPreview:
    """``terrain_preview`` at the smallest resolution (it caches the recipe under its ID on the server); refuses a
    recipe whose ID is not the expected one."""
    preview = client.terrain_preview(recipe, resolution=32)
    if expected_id is not None and preview.terrain_id != expected_id:
        raise InputError(
            f"the recipe has terrain_id {preview.terrain_id}, not {expected_id}",
            hint="pass the recipe that {terrain_preview} showed this ID for",
        )
    return preview


def prepare_tile(client: McbClient, terrain_id: str, tile_index: int) -> PlanSummary | None:
    result = client.terrain_prepare(terrain_id, tile_index)
    if result.status == "empty":
        return None
    return result.plan()


@register_step_kind(TerrainTileStep)
def terrain_tile_source(ctx: StepContext, step: TerrainTileStep, log: PlanLog) -> OnePlan:
    def prepare() -> PlanSummary | None:
        terrain_id = step.terrain_id
        if step.recipe is not None:
            terrain_id = register_recipe(ctx.client, ctx.load_json(step.recipe), step.terrain_id).terrain_id
        return prepare_tile(ctx.client, terrain_id, step.tile_index)

    return OnePlan(prepare)


def _schematic_identity(ctx: StepContext, step: SchematicStep) -> str:
    from mcb.batch.schematic import file_identity

    return file_identity(ctx.base_dir / step.file)


@register_step_kind(SchematicStep, identity=_schematic_identity, many=True)
def schematic_source(ctx: StepContext, step: SchematicStep, log: PlanLog):
    from mcb.batch.schematic import SchematicSource
    from mcb.building.placement import check_fits, load_placement

    options = PlacementOptions.of(step)
    placement = load_placement((ctx.base_dir / step.file).resolve(), options)
    check_fits(placement, ctx.project().region)
    log.set(file=str(step.file), placement=options.to_json(), dropped=placement.dropped or None)
    return SchematicSource(ctx.client, placement, log, capacity=ctx.capacity)


@register_step_kind(UndoStep, many=True)
def undo_source(ctx: StepContext, step: UndoStep, log: PlanLog):
    from mcb.batch.undo import UndoSource

    target = PlanLog(ctx.state, step.step)
    if not any(e.get("operation_id") and e.get("phase") in ("done", "failed") for e in target.entries):
        raise InputError(
            f"step {step.step!r} has no finished operation to undo (it did not run or is still running)",
            code="nothing_to_undo",
        )
    return UndoSource(ctx.client, target, PlanLog(ctx.state, step.name), capacity=ctx.capacity)
