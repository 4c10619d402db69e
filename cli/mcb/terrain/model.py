"""Pydantic models of terrain recipes and brushes; the source of the published JSON Schemas.

The schemas describe shape and ranges for editors and CI. The server-exact rules that a schema cannot say (integer
*literals*, check order and messages, envelope limits, preserve boxes inside the envelope) live in
:mod:`mcb.terrain.recipe` and :mod:`mcb.terrain.brush`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
MaterialId = Literal[
    "minecraft:stone",
    "minecraft:andesite",
    "minecraft:granite",
    "minecraft:diorite",
    "minecraft:deepslate",
    "minecraft:cobbled_deepslate",
    "minecraft:dirt",
    "minecraft:grass_block",
    "minecraft:moss_block",
    "minecraft:sandstone",
    "minecraft:terracotta",
]
CoordXZ = Annotated[int, Field(ge=-30_000_000, le=30_000_000, strict=True)]
CoordY = Annotated[int, Field(ge=-4096, le=4096, strict=True)]
Height = Annotated[float, Field(ge=-4096, le=4096)]
Falloff = Annotated[float, Field(ge=1, le=2048, description="Transition distance outside the core, in blocks.")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Position(_Strict):
    """Integer block position."""

    x: CoordXZ
    y: CoordY
    z: CoordXZ


class PointXZ(_Strict):
    """Integer column position."""

    x: CoordXZ
    z: CoordXZ


class Noise(_Strict):
    amplitude: Annotated[float, Field(ge=0, le=256, description="Peak noise height in blocks (0 = flat).")]
    scale: Annotated[float, Field(ge=1, le=4096, description="Noise wavelength in blocks.")]


class Palette(_Strict):
    rock: MaterialId
    soil: MaterialId
    surface: MaterialId
    soil_depth: Annotated[int, Field(ge=0, le=16, strict=True, description="Soil blocks under the surface.")]


class Hill(_Strict):
    """Adds ``height`` around ``center`` (core ``radius``, smooth edge ``falloff``)."""

    type: Literal["hill"]
    center: PointXZ
    radius: Annotated[float, Field(ge=1, le=2048)]
    height: Height
    falloff: Falloff


class Basin(_Strict):
    """Lowers the field towards the absolute ``height`` around ``center``; never raises."""

    type: Literal["basin"]
    center: PointXZ
    radius: Annotated[float, Field(ge=1, le=2048)]
    height: Height
    falloff: Falloff


class Plateau(_Strict):
    """Blends to the absolute ``height`` inside the rectangle (min ≤ max on x and z)."""

    type: Literal["plateau"]
    min: PointXZ
    max: PointXZ
    height: Height
    falloff: Falloff


class Ridge(_Strict):
    """Adds ``height`` along a polyline of 2..32 points."""

    type: Literal["ridge"]
    points: Annotated[list[PointXZ], Field(min_length=2, max_length=32)]
    width: Annotated[float, Field(ge=1, le=1024)]
    height: Height
    falloff: Falloff


class Channel(_Strict):
    """Lowers the field towards the absolute ``height`` along a polyline; never raises."""

    type: Literal["channel"]
    points: Annotated[list[PointXZ], Field(min_length=2, max_length=32)]
    width: Annotated[float, Field(ge=1, le=1024)]
    height: Height
    falloff: Falloff


class Terrace(_Strict):
    """Steps the whole field: ``h = lerp(h, floor(h/step)·step, strength)``."""

    type: Literal["terrace"]
    step: Annotated[float, Field(ge=1, le=128)]
    strength: Annotated[float, Field(ge=0, le=1)]


TerrainFeature = Annotated[Hill | Basin | Plateau | Ridge | Channel | Terrace, Field(discriminator="type")]


class PreserveBox(_Strict):
    """Inclusive box whose cells are never written."""

    min: Position
    max: Position


class TerrainRecipeModel(_Strict):
    """A terrain recipe (version 1): a 2.5-D height field written into an inclusive envelope."""

    model_config = ConfigDict(extra="forbid", title="mcb terrain recipe")

    version: Literal[1]
    min: Position
    max: Position
    base_height: CoordY
    seed: Annotated[int, Field(ge=-(2**31), le=2**31 - 1, strict=True)]
    mode: Literal["sculpt", "fill", "cut"]
    noise: Noise
    palette: Palette
    features: Annotated[list[TerrainFeature], Field(max_length=64)]
    preserve: Annotated[list[PreserveBox], Field(max_length=64)]


class BrushModel(_Strict):
    """A relative terrain brush applied to the live surface inside the scan window ``min``..``max``."""

    model_config = ConfigDict(extra="forbid", title="mcb terrain brush")

    min: Position
    max: Position
    center: PointXZ
    radius: Annotated[int, Field(ge=1, le=16)]
    action: Literal["raise", "lower", "flatten", "smooth"]
    # amount, height and smooth_radius are left out when they do not apply, never null (the server refuses
    # "amount": null): typed int with no null branch, so the schemas say "type": "integer" at the top (MCP-22)
    amount: Annotated[int, Field(ge=1, le=32, description="Only and required for raise/lower.")] = None
    height: Annotated[int, Field(ge=-4096, le=4096, description="Only and required for flatten.")] = None
    strength: Annotated[float, Field(ge=0, le=1)] = 1.0
    falloff: Annotated[float, Field(ge=0, le=1, description="Fraction of the radius used for the soft edge.")] = 0.5
    smooth_radius: Annotated[int, Field(ge=1, le=3, description="Only for smooth (default 1).")] = None
    preserve: Annotated[list[PreserveBox], Field(max_length=64)] = []


def _publish(model: type[BaseModel], schema_id: str) -> dict:
    schema = model.model_json_schema()
    return {"$schema": SCHEMA_DIALECT, "$id": schema_id, **schema}


def terrain_recipe_schema() -> dict:
    """JSON Schema (draft 2020-12) published as ``recipes/terrain.schema.json``."""
    schema = _publish(TerrainRecipeModel, "https://mcb.invalid/schemas/terrain.schema.json")
    return schema


def brush_schema() -> dict:
    """JSON Schema (draft 2020-12) published as ``recipes/brush.schema.json``."""
    schema = _publish(BrushModel, "https://mcb.invalid/schemas/brush.schema.json")
    for key in ("amount", "height", "smooth_radius"):  # left out when they do not apply: no null default
        schema["properties"][key].pop("default", None)

    def forbid(*keys):
        return {"not": {"anyOf": [{"required": [k]} for k in keys]}}

    schema["allOf"] = [
        {
            "if": {"properties": {"action": {"enum": ["raise", "lower"]}}},
            "then": {"required": ["amount"], **forbid("height", "smooth_radius")},
        },
        {
            "if": {"properties": {"action": {"const": "flatten"}}},
            "then": {"required": ["height"], **forbid("amount", "smooth_radius")},
        },
        {"if": {"properties": {"action": {"const": "smooth"}}}, "then": forbid("amount", "height")},
    ]
    return schema


SCHEMAS = {"terrain.schema.json": terrain_recipe_schema, "brush.schema.json": brush_schema}


def schema_text(name: str) -> str:
    """The exact published text of one schema file (2-space JSON, trailing newline)."""
    import json

    return json.dumps(SCHEMAS[name](), indent=2, ensure_ascii=False) + "\n"
