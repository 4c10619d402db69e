"""Pydantic models of recipe version 1 (protocol §4.1–4.2) and the JSON Schema generated from them.

The models say exactly what the server accepts: strict keys (no ``$schema`` either: the server answers "Unknown
field: $schema"), strict int32 integers, ``count`` 1..1024, ``radius`` ≥ 0, ``height`` ≥ 1, arrays of at most 4096
operations, and at most 8 nested ``repeat``s. The nesting limit is spelt out by one model per level
(``RepeatLevel1`` holds the top-level repeats, whose children sit at depth 1; operations at depth 8 may not be
repeats), so a schema validator enforces it too.

What a schema cannot say is left to the compiler and to ``mcb recipe lint``: the expanded operation count, the scan
and block budgets, min ≤ max, overflow, and that a standard validator treats ``5.0`` as an integer (JSON Schema's
"integer" is a mathematical test; the server's is lexical).
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, create_model
from pydantic.json_schema import GenerateJsonSchema

from mcb.recipes.compile import INT32_MAX, INT32_MIN, MAX_DEPTH, MAX_EXPANDED_OPERATIONS, MAX_REPEAT_COUNT

# Same scheme as the terrain schemas; .invalid is reserved, so nobody mistakes the id for a download address.
SCHEMA_ID = "https://mcb.invalid/schemas/recipe.schema.json"
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
# ``(?![\s\S])`` is "end of input" in ECMA-262 and in Python alike; ``$`` would let Python validators (jsonschema,
# check-jsonschema) accept a trailing newline that the server refuses.
BLOCK_REGEX = r"^minecraft:[a-z0-9_]+(?:\[[a-z0-9_=,]+\])?(?![\s\S])"

Int32 = Annotated[StrictInt, Field(ge=INT32_MIN, le=INT32_MAX)]
BlockStateText = Annotated[
    StrictStr,
    Field(
        max_length=1024,
        pattern=BLOCK_REGEX,
        description="Block state: minecraft:<id> or minecraft:<id>[k=v,...] (lowercase, no spaces, no NBT). "
        "Omitted properties take the block's defaults.",
        examples=["minecraft:stone_bricks", "minecraft:oak_stairs[facing=east,half=bottom]"],
    ),
]
Hollow = Annotated[
    StrictBool, Field(description="Keep only the outer shell (boxes: the six faces; cylinders: the side wall).")
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, regex_engine="python-re")


class Position(_Strict):
    """Absolute world block coordinates (int32). Only repeat adds displacement."""

    x: Int32
    y: Int32
    z: Int32


class Box(_Strict):
    """Every cell with min ≤ p ≤ max on all three axes (inclusive; corners are not reordered)."""

    type: Literal["box"]
    min: Position
    max: Position
    block: BlockStateText
    hollow: Hollow = False


class Line(_Strict):
    """Cells along a 26-connected line, both ends included: round(delta·s/steps), halves toward +∞."""

    type: Literal["line"]
    from_: Position = Field(alias="from")
    to: Position
    block: BlockStateText


class Cylinder(_Strict):
    """Vertical cylinder standing on its bottom centre; cells with x²+z² ≤ r² in each of ``height`` layers."""

    type: Literal["cylinder"]
    center: Position = Field(description="Bottom centre of the cylinder.")
    radius: Annotated[StrictInt, Field(ge=0, le=INT32_MAX)]
    height: Annotated[StrictInt, Field(ge=1, le=INT32_MAX)]
    block: BlockStateText
    hollow: Hollow = False


SHAPES = (Box, Line, Cylinder)
# Canonical key order of each object type (used by `mcb recipe fmt`).
KEY_ORDER = {
    "recipe": ("version", "operations"),
    "box": ("type", "min", "max", "block", "hollow"),
    "line": ("type", "from", "to", "block"),
    "cylinder": ("type", "center", "radius", "height", "block", "hollow"),
    "repeat": ("type", "count", "offset", "operations"),
    "position": ("x", "y", "z"),
}


def _operations_type(level: int):
    """The list type of operations at nesting depth ``level`` (0 = the recipe's own list)."""
    choices: tuple = SHAPES if level >= MAX_DEPTH else (*SHAPES, _repeat_model(level + 1))
    union = Annotated[Union[choices], Field(discriminator="type")]  # noqa: UP007 - a runtime-built union
    return Annotated[list[union], Field(max_length=MAX_EXPANDED_OPERATIONS)]


_REPEATS: dict[int, type[BaseModel]] = {}


def _repeat_model(level: int) -> type[BaseModel]:
    """``RepeatLevel<n>``: a repeat whose children are expanded at nesting depth n (1..8)."""
    if level not in _REPEATS:
        _REPEATS[level] = create_model(
            f"RepeatLevel{level}",
            __base__=_Strict,
            __doc__=f"Expand ``operations`` count times, iteration i displaced by i × offset (nesting level {level} of "
            f"{MAX_DEPTH}).",
            type=(Literal["repeat"], ...),
            count=(Annotated[StrictInt, Field(ge=1, le=MAX_REPEAT_COUNT)], ...),
            offset=(Position, Field(description="Displacement added per iteration; the first iteration has none.")),
            operations=(_operations_type(level), ...),
        )
    return _REPEATS[level]


class Recipe(_Strict):
    """A build_prepare recipe, version 1. Later operations win where they overlap."""

    version: Literal[1] = Field(description="Always the integer 1.")
    operations: _operations_type(0)


class _TaggedUnionAsIfThen(GenerateJsonSchema):
    """Discriminated unions become ``if type == X then $ref X``.

    A plain ``oneOf`` makes validators report "not valid under any of the given schemas"; with if/then a validator
    reports the problem inside the operation that was meant, e.g. the unknown key of a box.
    """

    def tagged_union_schema(self, schema):
        branches, tags = [], []
        for tag, choice in schema["choices"].items():
            tags.append(tag)
            branches.append(
                {
                    "if": {"properties": {"type": {"const": tag}}, "required": ["type"]},
                    "then": self.generate_inner(choice),
                }
            )
        return {
            "type": "object",
            "required": ["type"],
            "properties": {"type": {"enum": tags}},
            "allOf": branches,
        }

    def generate(self, schema, mode="validation"):
        result = super().generate(schema, mode=mode)
        return {"$schema": SCHEMA_DIALECT, "$id": SCHEMA_ID, **result}


def recipe_json_schema() -> dict:
    """The published JSON Schema (draft 2020-12) of recipe version 1."""
    schema = Recipe.model_json_schema(by_alias=True, schema_generator=_TaggedUnionAsIfThen)
    schema["title"] = "mcb build recipe (minecraft-builder build_prepare.recipe, version 1)"
    schema["$comment"] = (
        "Generated by scripts/gen_schemas.py from mcb.recipes.model; do not edit. The server's integers are lexical: "
        "5.0 and 5e0 are refused although JSON Schema calls them integers; `mcb recipe lint` checks that, and the "
        "scan/block/expanded-operation budgets a schema cannot express. The server refuses every unknown key, "
        "including $schema: associate this schema through editor settings instead."
    )
    return schema


def schema_text() -> str:
    """The schema exactly as committed in recipes/recipe.schema.json."""
    import json

    return json.dumps(recipe_json_schema(), indent=2, ensure_ascii=False) + "\n"
