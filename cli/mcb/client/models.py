"""Pydantic models of every RPC result (protocol §3), with the wire names kept as they are.

The protocol mixes snake_case (hand-built maps) and camelCase (Java records); both are kept verbatim so a model
dumps back to the same JSON. Every model tolerates extra fields (newer servers add keys) and most fields are
optional where older plugin builds omit them (§14). ``wire()`` returns what the server sent.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

TERMINAL_STATUSES = frozenset({"applied", "conflict", "failed", "cancelled", "recovery_required"})


class WireModel(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=(), defer_build=True)

    def wire(self) -> dict[str, Any]:
        """The JSON object as received (fields the server did not send stay absent)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class Position(WireModel):
    x: int
    y: int
    z: int

    def text(self) -> str:
        return f"{self.x},{self.y},{self.z}"


class Region(WireModel):
    worldId: str | None = None
    min: Position
    max: Position

    def text(self) -> str:
        return f"{self.min.text()} .. {self.max.text()}"


# -- health / context ------------------------------------------------------------------
class Health(WireModel):
    service: str | None = None
    version: str | None = None
    status: str | None = None


class PartSummary(WireModel):
    part_id: str
    name: str
    protected: bool = False
    block_count: int = 0


class OperationSummary(WireModel):
    operation_id: str
    plan_id: str | None = None
    status: str
    written: int = 0
    total_changes: int = 0


class CatalogSummary(WireModel):
    version: str | None = None
    materials: int | None = None
    blocks: int | None = None
    items: int | None = None
    search_default_limit: int | None = None
    search_max_limit: int | None = None


class ProjectContext(WireModel):
    schema_version: int | None = None
    project_id: str | None = None
    world_id: str | None = None
    world_epoch: str | None = None
    region: Region | None = None
    max_plan_blocks: int | None = None
    checked_expected_blocks: bool | None = None
    parts: list[PartSummary] = Field(default_factory=list)
    parts_total: int | None = None
    operations: list[OperationSummary] = Field(default_factory=list)
    operations_total: int | None = None
    truncated: bool | None = None
    terrain: dict[str, Any] | None = None
    material_catalog: CatalogSummary | None = None
    recipe: dict[str, Any] | None = None
    capabilities: list[str] = Field(default_factory=list)
    block_data: dict[str, Any] | None = None
    limitations: list[str] = Field(default_factory=list)
    supported_materials: list[str] | None = None  # older plugin builds (§14)


# -- materials ---------------------------------------------------------------------------
class MaterialEntry(WireModel):
    id: str
    block: bool
    item: bool


class MaterialSearch(WireModel):
    catalog_version: str | None = None
    query: str = ""
    kind: str = "block"
    total: int = 0
    results: list[MaterialEntry] = Field(default_factory=list)
    next_cursor: str | None = None


class MaterialDescription(WireModel):
    id: str
    block: bool
    item: bool
    catalog_version: str | None = None
    placeable: bool | None = None
    default_state: str | None = None
    properties: dict[str, list[str]] | None = None
    behavior: list[str] | None = None


# -- region -------------------------------------------------------------------------------
class InspectedBlock(WireModel):
    state: str
    snapshot_id: str | None = None
    pos: Position


class RegionInspection(WireModel):
    region: Region
    palette: dict[str, int] = Field(default_factory=dict)
    blocks: list[InspectedBlock] = Field(default_factory=list)
    sampled_at: int | None = None
    world_epoch: str | None = None
    truncated: bool | None = None


class RegionChanges(WireModel):
    status: str
    reason: str | None = None


# -- plans and operations -------------------------------------------------------------------
class PlanSummary(WireModel):
    plan_id: str
    plan_hash: str
    changed_blocks: int = 0
    region: Region | None = None
    expires_at: int | None = None


class Conflict(WireModel):
    pos: Position
    reason: str
    expected: str | None = None
    current: str | None = None
    desired: str | None = None
    expected_snapshot_id: str | None = None
    current_snapshot_id: str | None = None
    desired_snapshot_id: str | None = None


class OperationStatus(WireModel):
    operation_id: str
    plan_id: str | None = None
    status: str
    written: int = 0
    total_changes: int = 0
    processed: int = 0
    conflicts: list[Conflict] = Field(default_factory=list)
    message: str = ""

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES


# -- parts --------------------------------------------------------------------------------------
class PartDefined(WireModel):
    part_id: str
    name: str
    block_count: int


class Part(WireModel):
    part_id: str
    name: str
    block_count: int
    protected: bool = False
    operation_id: str | None = None
    bounds: Region | None = None


# -- camera -----------------------------------------------------------------------------------------
class Camera(WireModel):
    camera_id: str
    x: float
    y: float
    z: float
    yaw: float
    pitch: float


# The plugin's camera pose limits (protocol §3.11): both faces check them before a request goes out.
POSE_LIMITS: dict[str, tuple[int, int]] = {
    "yaw": (-360, 360),
    "pitch": (-90, 90),
    "fov": (30, 110),
    "width": (320, 1920),
    "height": (180, 1080),
}


class CameraList(WireModel):
    cameras: list[Camera] = Field(default_factory=list)
    configured: bool = False


class CaptureResult(WireModel):
    status: str
    captureId: str | None = None
    mimeType: str | None = None
    imageBase64: str | None = None
    width: int | None = None
    height: int | None = None
    error: str | None = None
    message: str | None = None


# -- schematics -----------------------------------------------------------------------------------------
class Asset(WireModel):
    assetId: str
    name: str
    width: int
    height: int
    length: int
    blockCount: int
    dataVersion: int
    offset: Position | None = None
    sha256: str
    size_bytes: int = Field(alias="bytes")


class AssetList(WireModel):
    assets: list[Asset] = Field(default_factory=list)


# -- terrain (the terrain engineer owns the commands; these keep the shapes typed) ----------------------------------
class SampleGrid(WireModel):
    width: int
    height: int


class TerrainPreview(WireModel):
    """terrain_preview (§3.13): what the report prints is required; the image is decoded by :meth:`png`."""

    status: str
    kind: str | None = None
    terrain_id: str
    bounds: Region
    mode: str
    tile_edge: int
    tile_count: int
    tile_order: str
    tile_budget: int
    sampled_height_min: int
    sampled_height_max: int
    clipped_samples: int
    sample_grid: SampleGrid
    orientation: str | None = None
    legend: str | None = None
    world_verified: bool | None = None
    note: str | None = None
    mimeType: str | None = None
    imageBase64: str | None = None

    def png(self) -> bytes:
        """The image bytes (empty when the server sent none); a broken picture is the server's fault."""
        from mcb.images import png_from_base64

        return png_from_base64("terrain_preview", self.imageBase64, self.mimeType, allow_empty=True)


class TerrainPlan(WireModel):
    """terrain_prepare / terrain_brush_prepare: a plan summary, or an empty result without plan fields."""

    plan_id: str | None = None
    plan_hash: str | None = None
    changed_blocks: int = 0
    region: Region | None = None
    expires_at: int | None = None
    status: str | None = None
    plan_state: str | None = None
    terrain_id: str | None = None
    tile_index: int | None = None
    tile_bounds: Region | None = None
    reason: str | None = None

    def plan(self) -> PlanSummary | None:
        if self.plan_id and self.plan_hash:
            return PlanSummary.model_validate(self.wire())
        return None


# -- admin: recovery and chat ------------------------------------------------------------------------------------
class RecoveryReview(WireModel):
    operationId: str
    planId: str
    positions: int
    matchesBefore: int
    matchesAfter: int
    foreignStates: int
    currentDigest: str
    sampledAtMillis: int | None = None


class ChatMessage(WireModel):
    id: str
    playerId: str
    projectId: str | None = None
    text: str = ""
    type: str = "prompt"
    playerPosition: dict[str, Any] | None = None
    worldId: str | None = None
    lookTarget: Position | None = None


class ChatPoll(WireModel):
    messages: list[ChatMessage] = Field(default_factory=list)


class ChatReply(WireModel):
    delivered: bool
