"""The placement of a schematic file as one model (:class:`PlacementOptions`): every face parses into it.

Pydantic and plain data only, so a face can declare its arguments from it without loading numpy.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from mcb.summaries import PLACEMENT_FIELDS as FIELDS

Rotation = Literal[0, 90, 180, 270]  # clockwise degrees seen from above (every face takes these, from here)
Mirror = Literal["x", "z"]


def _vec3(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"x", "y", "z"}:
        return (value["x"], value["y"], value["z"])
    return value


# A position is written {"x":..,"y":..,"z":..} or [x, y, z] (batch files take both).
Vec3Input = Annotated[
    tuple[int, int, int],
    BeforeValidator(_vec3),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "object", "additionalProperties": False, "required": ["x", "y", "z"],
                 "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}, "z": {"type": "integer"}}},
                {"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "integer"}},
            ]
        }
    ),
]  # fmt: skip


class PlacementOptions(BaseModel):
    """Where and how a schematic file is placed: one model for every face (``mcb build``/``verify``, a batch
    ``schematic`` step, the MCP tools), its words in :data:`mcb.summaries.PLACEMENT_FIELDS`."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    target: Vec3Input = Field(description=FIELDS["target"])
    rotation: Rotation = Field(0, description=FIELDS["rotation"])
    mirror: Mirror = Field(None, description=FIELDS["mirror"])
    skip_air: bool = Field(False, description=FIELDS["skip_air"])
    keep_existing: bool = Field(False, description=FIELDS["keep_existing"])
    drop_extras: bool = Field(False, description=FIELDS["drop_extras"])
    replace_unknown: str = Field(None, min_length=1, max_length=1024, description=FIELDS["replace_unknown"])

    @classmethod
    def of(cls, model: BaseModel) -> PlacementOptions:
        """The placement fields of another model that declares them (a batch step, a tool's arguments)."""
        values = {name: getattr(model, name) for name in cls.model_fields}
        values = {name: value for name, value in values.items() if value is not None}  # None: not given
        return cls.model_validate({**values, "target": _vec3(_plain(values["target"]))})

    def to_json(self) -> dict:
        x, y, z = self.target
        return {
            "target": {"x": x, "y": y, "z": z},
            "rotation": self.rotation,
            "mirror": self.mirror,
            "skip_air": self.skip_air,
            "keep_existing": self.keep_existing,
            "drop_extras": self.drop_extras,
            "replace_unknown": self.replace_unknown,
        }


def _plain(value: Any) -> Any:
    """A position model (``.x .y .z``) as a dict; anything else as it is."""
    if all(hasattr(value, axis) for axis in "xyz"):
        return {"x": value.x, "y": value.y, "z": value.z}
    return value
