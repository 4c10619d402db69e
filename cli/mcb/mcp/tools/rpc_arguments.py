"""The arguments of the 19 RPC tools: the plugin bridge's zod rules (protocol §8.2, mcp-conventions §2.2).

Arguments are checked in pydantic's strict JSON mode (mcb.mcp.arguments), which is the JSON type check itself:
``"5"``, ``true`` and ``5.5`` are not integers (an integral ``5.0`` has become ``5`` before, MCP-30). An optional
argument is left out, never null: ``limit: int = None`` publishes ``"type": "integer"`` (MCP clients such as
Inspector read a property's top-level type to send numbers and objects) and refuses an explicit null, as its schema
says. Scope (player and project ids) is never an argument: the client injects it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    StringConstraints,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError

from mcb.client.models import POSE_LIMITS
from mcb.recipes.bridge_rules import HORIZONTAL_LIMIT, MAX_COUNT, MAX_OPERATIONS, VERTICAL_LIMIT, bridge_findings
from mcb.recipes.model import Box, Cylinder, Line
from mcb.recipes.model import Position as RecipePosition
from mcb.terrain.model import BrushModel, TerrainRecipeModel

MAX_APPLY_WAIT = 25  # seconds build_apply may wait, inside the 30 s tool deadline (MCP-51)


def ranged(kind: type, low: float, high: float) -> Any:
    """An integer or finite number in low..high, published as minimum/maximum."""
    return Annotated[kind, Field(ge=low, le=high, allow_inf_nan=False)]


Id = Annotated[str, StringConstraints(strict=True, min_length=1, max_length=200)]
MaterialId = Annotated[
    str, StringConstraints(strict=True, min_length=11, max_length=128, pattern=r"^minecraft:[a-z0-9_]+$")
]
BlockState = Annotated[
    str,
    StringConstraints(
        strict=True, min_length=11, max_length=1024, pattern=r"^minecraft:[a-z0-9_]+(?:\[[a-z0-9_=,]+\])?$"
    ),
]
Number = Annotated[float, Field(allow_inf_nan=False)]


class _Args(BaseModel):
    """Closed argument objects; the arguments as sent are kept, so recipes go out exactly as the caller wrote them
    and a retry_with can name the identical call."""

    model_config = ConfigDict(extra="forbid", regex_engine="python-re")
    _raw: dict = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _keep_raw(self, info: ValidationInfo):
        if isinstance(info.context, dict) and isinstance(info.context.get("arguments"), dict):
            self._raw = info.context["arguments"]
        return self

    def arguments(self) -> dict:
        """The arguments as the caller sent them (for ``retry_with``: the identical call)."""
        return dict(self._raw) if self._raw else self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class Position(BaseModel):
    """Integer block coordinates."""

    model_config = ConfigDict(extra="forbid")
    x: Annotated[ranged(int, -HORIZONTAL_LIMIT, HORIZONTAL_LIMIT), Field(description="East (+) / west (-).")]
    y: Annotated[ranged(int, -VERTICAL_LIMIT, VERTICAL_LIMIT), Field(description="Height.")]
    z: Annotated[ranged(int, -HORIZONTAL_LIMIT, HORIZONTAL_LIMIT), Field(description="South (+) / north (-).")]

    def wire(self) -> dict[str, int]:
        return {"x": self.x, "y": self.y, "z": self.z}


# -- 1. project_context -----------------------------------------------------------------------------------------
class ProjectContextArgs(_Args):
    """No arguments: the scope comes from mcb's configuration."""


# -- 2. material_search -----------------------------------------------------------------------------------------
class MaterialSearchArgs(_Args):
    query: Annotated[
        str,
        StringConstraints(strict=True, max_length=96),
        Field(description="Space-separated words that must all occur in the id, e.g. 'oak stairs'; empty lists all."),
    ] = ""
    kind: Annotated[Literal["block", "item", "all"], Field(description="Which materials to search.")] = "block"
    limit: Annotated[ranged(int, 1, 32), Field(description="Results per page, 1..32 (server default 16).")] = None
    cursor: Annotated[
        str,
        StringConstraints(strict=True, max_length=100),
        Field(description="next_cursor of the previous page; empty or absent for the first page."),
    ] = None


# -- 3. material_describe ---------------------------------------------------------------------------------------
class MaterialDescribeArgs(_Args):
    id: Annotated[
        MaterialId,
        Field(description="One exact material id with its namespace, e.g. minecraft:oak_stairs (no properties)."),
    ]


# -- 4. region_inspect ------------------------------------------------------------------------------------------
class RegionInspectArgs(_Args):
    min: Annotated[Position, Field(description="One corner of the box (inclusive).")]
    max: Annotated[Position, Field(description="The opposite corner (inclusive); min <= max on every axis.")]
    detail: Annotated[
        Literal["summary", "blocks"],
        Field(description="summary: the palette with counts; blocks: every position with its state."),
    ] = "summary"


# -- 5. build_prepare -------------------------------------------------------------------------------------------
def _bridge_recipe(value: Any) -> Any:
    """The bridge's stricter limits on top of the server's recipe rules, checked by the one checker of them that
    `mcb recipe lint --mcp-bridge` uses too; the schema publishes the same numbers (json_schema_extra)."""
    if isinstance(value, dict):
        for pointer, message, hint in bridge_findings(value):
            raise PydanticCustomError(
                "mcp_bridge", "{pointer}: {message} ({hint})", {"pointer": pointer, "message": message, "hint": hint}
            )
    return value


_Shape = Annotated[Union[Box, Line, Cylinder], Field(discriminator="type")]  # noqa: UP007


class BridgeRepeat(BaseModel):
    """Expand ``operations`` count times, iteration i displaced by i x offset (shapes only through MCP)."""

    model_config = ConfigDict(extra="forbid", regex_engine="python-re")
    type: Literal["repeat"]
    count: Annotated[
        int,
        Field(ge=1, json_schema_extra={"maximum": MAX_COUNT}, description=f"How many copies (1..{MAX_COUNT} via MCP)."),
    ]
    offset: Annotated[RecipePosition, Field(description="Displacement added per copy; the first copy has none.")]
    operations: Annotated[list[_Shape], Field(min_length=1, json_schema_extra={"maxItems": MAX_OPERATIONS})]


_Operation = Annotated[Union[Box, Line, Cylinder, BridgeRepeat], Field(discriminator="type")]  # noqa: UP007


class BridgeRecipe(BaseModel):
    """A build_prepare recipe, version 1, within the MCP bridge's limits (protocol §8.2). Later operations win."""

    model_config = ConfigDict(extra="forbid", regex_engine="python-re")
    version: Annotated[int, Field(ge=1, le=1, description="Always the integer 1.")]
    operations: Annotated[list[_Operation], Field(min_length=1, json_schema_extra={"maxItems": MAX_OPERATIONS})]


class ExpectedBlock(BaseModel):
    """A block the plan may only overwrite if it is still exactly this."""

    model_config = ConfigDict(extra="forbid", regex_engine="python-re")
    pos: Annotated[Position, Field(description="Where the block is.")]
    state: Annotated[BlockState, Field(description="Its full state, as region_inspect reports it.")]
    snapshot_id: Annotated[
        str,
        StringConstraints(strict=True, pattern=r"^[a-f0-9]{64}$"),
        Field(description="The block entity's snapshot_id from region_inspect (blocks detail), when it has one."),
    ] = None


class BuildPrepareArgs(_Args):
    recipe: Annotated[
        BridgeRecipe,
        BeforeValidator(_bridge_recipe),
        Field(
            description="Recipe version 1 (box, line, cylinder, repeat); through MCP at most 256 operations per array, "
            "repeat count <= 128 with shapes only inside, cylinder radius <= 128 and height <= 256."
        ),
    ]
    part_id: Annotated[Id, Field(description="Restrict the writes to this part's exact mask.")] = None
    dependencies: Annotated[
        list[Position],
        Field(max_length=512, description="Extra positions that must not change before apply (read dependencies)."),
    ] = None
    expected_blocks: Annotated[
        list[ExpectedBlock],
        Field(
            min_length=1, max_length=4096, description="Blocks the plan expects to find; a mismatch is stale_snapshot."
        ),
    ] = None


# -- 6. build_apply ---------------------------------------------------------------------------------------------
class BuildApplyArgs(_Args):
    plan_id: Annotated[Id, Field(description="plan_id from the prepare step.")]
    plan_hash: Annotated[Id, Field(description="plan_hash from the same prepare step (binds the apply to that plan).")]
    idempotency_key: Annotated[
        Id,
        Field(
            description="A key you choose once per plan and keep: sending the same call again returns the same "
            "operation instead of starting a second one."
        ),
    ]
    wait: Annotated[
        bool,
        Field(
            description="Wait until the operation ends (progress is reported), at most wait_seconds; otherwise return "
            "at once and poll operation_status."
        ),
    ] = False
    wait_seconds: Annotated[
        ranged(int, 1, MAX_APPLY_WAIT), Field(description="How long wait may take, in seconds.")
    ] = MAX_APPLY_WAIT


# -- 7-9. operation_status, operation_cancel, operation_undo_prepare -------------------------------------------
class OperationArgs(_Args):
    operation_id: Annotated[Id, Field(description="operation_id from build_apply or project_context.")]


# -- 10-11. part_define, part_get -------------------------------------------------------------------------------
class PartDefineArgs(_Args):
    name: Annotated[
        str,
        StringConstraints(strict=True, min_length=1, max_length=64),
        Field(description="A name for the part (1..64 characters)."),
    ]
    operation_id: Annotated[Id, Field(description="An applied operation whose written blocks become the part.")]


class PartGetArgs(_Args):
    part_id: Annotated[Id, Field(description="part_id from part_define or project_context.")]


# -- 12-13. camera_list, camera_capture -------------------------------------------------------------------------
class CameraListArgs(_Args):
    """No arguments."""


def _pose(key: str, kind: type) -> Any:
    return ranged(kind, *POSE_LIMITS[key])


class Pose(BaseModel):
    """Where the spectator camera looks from (the limits are the plugin's, mcb.client.models.POSE_LIMITS)."""

    model_config = ConfigDict(extra="forbid")
    x: Annotated[Number, Field(description="Camera x (its block must lie inside the project area).")]
    y: Annotated[Number, Field(description="Camera y.")]
    z: Annotated[Number, Field(description="Camera z.")]
    yaw: Annotated[_pose("yaw", float), Field(description="Degrees; 0 looks south (+z), 90 west.")]
    pitch: Annotated[_pose("pitch", float), Field(description="Degrees; positive looks down.")]
    fov: Annotated[_pose("fov", int), Field(description="Field of view in degrees.")] = None
    width: Annotated[_pose("width", int), Field(description="Image width in pixels.")] = None
    height: Annotated[_pose("height", int), Field(description="Image height in pixels.")] = None


class CameraCaptureArgs(_Args):
    camera_id: Annotated[Id, Field(description="A saved camera from camera_list.")] = None
    pose: Annotated[Pose, Field(description="An explicit pose (wins over camera_id).")] = None
    after_operation_id: Annotated[
        Id, Field(description="Only capture once this operation is applied (else capture_not_ready).")
    ] = None
    capture_id: Annotated[
        Id, Field(description="Poll a pending capture (alone; from the previous camera_capture answer).")
    ] = None

    @model_validator(mode="after")
    def _one_mode(self):
        if self.camera_id is None and self.pose is None and self.capture_id is None:
            raise PydanticCustomError(
                "missing_mode",
                "give camera_id or pose to take a picture, or capture_id to poll one",
                {"field": "camera_id"},
            )
        return self


# -- 14-16. asset_list, schematic_export, schematic_import_prepare ---------------------------------------------
class AssetListArgs(_Args):
    query: Annotated[
        str,
        StringConstraints(strict=True, max_length=64),
        Field(description="Keep assets whose name contains this (case-insensitive)."),
    ] = None


class SchematicExportArgs(_Args):
    name: Annotated[
        str,
        StringConstraints(strict=True, min_length=1, max_length=64, pattern=r"^[^\u0000-\u001f\u007f]+$"),
        Field(description="The asset's name (1..64 printable characters)."),
    ]
    min: Annotated[Position, Field(description="One corner of the box (inclusive).")]
    max: Annotated[Position, Field(description="The opposite corner (inclusive).")]
    origin: Annotated[Position, Field(description="The anchor the offset is measured from (default min).")] = None


class SchematicImportPrepareArgs(_Args):
    asset_id: Annotated[
        str,
        StringConstraints(strict=True, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"),
        Field(description="assetId from asset_list or schematic_export."),
    ]
    target: Annotated[Position, Field(description="Where the schematic's anchor lands.")]
    rotation: Annotated[Literal[0, 90, 180, 270], Field(description="Clockwise turn seen from above, in degrees.")] = 0


# -- 17-19. terrain_preview, terrain_prepare, terrain_brush_prepare ---------------------------------------------
class TerrainPreviewArgs(_Args):
    recipe: Annotated[TerrainRecipeModel, Field(description="A terrain recipe, version 1.")]
    resolution: Annotated[
        ranged(int, 32, 256), Field(description="Preview image side in pixels (server default 128).")
    ] = None


class TerrainPrepareArgs(_Args):
    terrain_id: Annotated[
        str,
        StringConstraints(strict=True, min_length=64, max_length=64, pattern=r"^[a-f0-9]{64}$"),
        Field(description="terrain_id from terrain_preview (the server caches 32 recipes until it restarts)."),
    ]
    tile_index: Annotated[
        ranged(int, 0, 134_217_727), Field(description="Which tile, 0..tile_count-1 (x fastest, then z, then y).")
    ]


class TerrainBrushPrepareArgs(_Args):
    brush: Annotated[BrushModel, Field(description="A terrain brush (raise, lower, flatten or smooth).")]
