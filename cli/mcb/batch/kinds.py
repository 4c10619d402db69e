"""Batch step kinds: a registry where a new kind is one pydantic model plus one prepare function.

A prepare function gets a :class:`StepContext` and the validated step, and returns the server's plan summary (or
``None`` when there is nothing to change). The runner does everything else: recording, applying with a stable
idempotency key, waiting, resuming. To add a kind (e.g. terrain tiles)::

    from mcb.batch.kinds import BaseStep, register_step_kind

    class TerrainTileStep(BaseStep):
        kind: Literal["terrain_tile"]
        recipe: str | dict
        tile_index: int

    @register_step_kind(TerrainTileStep)
    def prepare_terrain_tile(ctx, step):
        preview = ctx.client.terrain_preview(ctx.load_json(step.recipe))
        return ctx.client.terrain_prepare(preview.terrain_id, step.tile_index).plan()

Every kind is defined in this module, so loading a batch knows them all; the terrain tile loop that reuses the
``terrain_tile`` kind is :mod:`mcb.batch.tiles`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator

from mcb.client.methods import McbClient
from mcb.client.models import PlanSummary, TerrainPreview
from mcb.errors import InputError
from mcb.terrain.limits import TERRAIN_ID_PATTERN

STEP_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"


class Position(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x: int
    y: int
    z: int


def _position(value: Any) -> Any:
    if isinstance(value, (list, tuple)) and len(value) == 3:
        return {"x": value[0], "y": value[1], "z": value[2]}
    return value


# A position is written {"x":..,"y":..,"z":..} or [x, y, z] in batch files.
PositionInput = Annotated[
    Position,
    BeforeValidator(_position),
    WithJsonSchema(
        {
            "anyOf": [
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["x", "y", "z"],
                    "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}, "z": {"type": "integer"}},
                },
                {"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "integer"}},
            ],
        }
    ),
]


class BaseStep(BaseModel):
    """Fields every step has."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=STEP_NAME_PATTERN, description="Unique step name; used by undo steps and the state file.")
    description: str | None = Field(default=None, description="Free text shown in progress output.")


class RecipeStep(BaseStep):
    """Build a recipe (`build_prepare`)."""

    kind: Literal["recipe"]
    recipe: str | dict = Field(description="Recipe file (relative to the batch file) or an inline recipe object.")
    dependencies: list[PositionInput] = Field(default_factory=list, description="Read dependencies [x,y,z] or {x,y,z}.")
    part: str | None = Field(default=None, description="Restrict writes to this part id's exact mask.")


class ImportStep(BaseStep):
    """Place a schematic from the server's library (`schematic_import_prepare`)."""

    kind: Literal["import"]
    asset: str = Field(description="Asset id (from `mcb asset list`).")
    target: PositionInput = Field(description="Anchor position [x,y,z] or {x,y,z}.")
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


class SchematicStep(BaseStep):
    """Build a schematic file of any size: tile by tile, only what differs, in as few plans as the server allows."""

    kind: Literal["schematic"]
    file: str = Field(
        description="Schematic file (relative to the batch file): Sponge .schem, Litematica "
        ".litematic, structure .nbt or legacy .schematic."
    )
    target: PositionInput = Field(description="Where the file's anchor goes [x,y,z] or {x,y,z}.")
    rotation: Literal[0, 90, 180, 270] = Field(default=0, description="Clockwise degrees seen from above.")
    mirror: Literal["x", "z"] | None = Field(
        default=None, description="Mirror east-west (x) or north-south (z) before turning."
    )
    skip_air: bool = Field(default=False, description="Leave the world as it is where the file has air.")
    keep_existing: bool = Field(default=False, description="Place only where the world is air now.")
    drop_extras: bool = Field(
        default=False,
        description="Build block states without block-entity data and "
        "entities (a file with either is refused otherwise).",
    )
    replace_unknown: str | None = Field(
        default=None,
        description="A block state to put where the file has a "
        "block the target release does not know (refused otherwise).",
    )

    def placement_options(self):
        from mcb.building.placement import PlacementOptions

        return PlacementOptions(
            target=(self.target.x, self.target.y, self.target.z),
            rotation=self.rotation,
            mirror=self.mirror,
            skip_air=self.skip_air,
            keep_existing=self.keep_existing,
            drop_extras=self.drop_extras,
            replace_unknown=self.replace_unknown,
        )


class UndoStep(BaseStep):
    """Revert an earlier step of this batch (`operation_undo_prepare`)."""

    kind: Literal["undo"]
    step: str = Field(description="Name of an earlier step whose operation is reverted.")


@dataclass
class StepContext:
    client: McbClient
    base_dir: Path
    operation_of: Callable[[str], str | None]  # step name -> recorded operation id
    placements: dict = field(default_factory=dict)  # (file, options) -> a placement the caller loaded already

    def load_json(self, value: str | dict) -> Any:
        if isinstance(value, dict):
            return value
        from mcb.fileio import parse_json_input, read_input_text

        path = self.base_dir / value
        return parse_json_input(read_input_text(path, "step file"), "step file", str(path))


PrepareFunction = Callable[[StepContext, Any], PlanSummary | None]
# A kind of many plans runs itself: (runner, step, definition, record) -> StepReport (mcb.batch.runner).
RunFunction = Callable[[Any, Any, str, dict | None], Any]


@dataclass
class StepKind:
    name: str
    model: type[BaseStep]
    prepare: PrepareFunction | None = None
    run: RunFunction | None = None
    identity: Callable[[StepContext, Any], str] | None = None  # what else makes a step "the same" (file content)


STEP_KINDS: dict[str, StepKind] = {}


def _kind_name(model: type[BaseStep]) -> str:
    return model.model_fields["kind"].annotation.__args__[0]


def register_step_kind(model: type[BaseStep]) -> Callable[[PrepareFunction], PrepareFunction]:
    def decorator(prepare: PrepareFunction) -> PrepareFunction:
        STEP_KINDS[_kind_name(model)] = StepKind(_kind_name(model), model, prepare)
        return prepare

    return decorator


def register_multi_plan_kind(model: type[BaseStep], run: RunFunction, identity=None) -> None:
    STEP_KINDS[_kind_name(model)] = StepKind(_kind_name(model), model, run=run, identity=identity)


@register_step_kind(RecipeStep)
def prepare_recipe(ctx: StepContext, step: RecipeStep) -> PlanSummary:
    recipe = ctx.load_json(step.recipe)
    deps = [p.model_dump() for p in step.dependencies]
    return ctx.client.build_prepare(recipe, dependencies=deps, part_id=step.part)


@register_step_kind(ImportStep)
def prepare_import(ctx: StepContext, step: ImportStep) -> PlanSummary:
    return ctx.client.schematic_import_prepare(step.asset, step.target.model_dump(), step.rotation)


@register_step_kind(UndoStep)
def prepare_undo(ctx: StepContext, step: UndoStep) -> PlanSummary:
    operation_id = ctx.operation_of(step.step)
    if operation_id is None:
        raise InputError(f"step {step.step!r} has no finished operation to undo (it did not run or is still running)")
    return ctx.client.operation_undo_prepare(operation_id)


def register_recipe(client: McbClient, recipe: dict, expected_id: str | None = None) -> TerrainPreview:
    """``terrain_preview`` at the smallest resolution (it caches the recipe under its ID on the server); refuses a
    recipe whose ID is not the expected one."""
    preview = client.terrain_preview(recipe, resolution=32)
    if expected_id is not None and preview.terrain_id != expected_id:
        raise InputError(
            f"the recipe has terrain_id {preview.terrain_id}, not {expected_id}",
            hint="pass the recipe that `mcb terrain preview` showed this ID for",
        )
    return preview


def prepare_tile(client: McbClient, terrain_id: str, tile_index: int) -> PlanSummary | None:
    result = client.terrain_prepare(terrain_id, tile_index)
    if result.status == "empty":
        return None
    return result.plan()


@register_step_kind(TerrainTileStep)
def prepare_terrain_tile(ctx: StepContext, step: TerrainTileStep) -> PlanSummary | None:
    terrain_id = step.terrain_id
    if step.recipe is not None:
        terrain_id = register_recipe(ctx.client, ctx.load_json(step.recipe), step.terrain_id).terrain_id
    return prepare_tile(ctx.client, terrain_id, step.tile_index)


def _run_schematic(runner, step, definition, record):
    from mcb.batch.schematic import run_schematic_step

    return run_schematic_step(runner, step, definition, record)


def _schematic_identity(ctx: StepContext, step: SchematicStep) -> str:
    from mcb.batch.schematic import file_identity

    return file_identity(ctx.base_dir / step.file)


register_multi_plan_kind(SchematicStep, _run_schematic, _schematic_identity)
