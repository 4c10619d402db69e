"""The MCP bridge's stricter build_prepare schema (protocol §8.2), checked by `mcb recipe lint --mcp-bridge`.

The bridge validates a recipe with zod before it reaches the server, so a recipe an agent sends through MCP must
also fit: 1..256 top-level operations; x and z within ±30,000,000 and y within ±4096; radius 0..128; height
1..256; repeat count 1..128 with 1..256 children that are shapes only (no nested repeat).
"""

from __future__ import annotations

from collections.abc import Iterator

from mcb.wording import plural

MAX_OPERATIONS = 256
MAX_RADIUS = 128
MAX_HEIGHT = 256
MAX_COUNT = 128
HORIZONTAL_LIMIT = 30_000_000
VERTICAL_LIMIT = 4096


def bridge_findings(recipe: dict) -> Iterator[tuple[str, str, str]]:
    """(pointer, message, hint) for every place the bridge would refuse; the recipe is assumed server-valid."""
    operations = recipe.get("operations")
    if not isinstance(operations, list):
        return
    if not operations:
        yield "/operations", "the MCP bridge requires at least one operation", "add an operation"
    yield from _operations(operations, "/operations", nested=False)


def _operations(operations: list, pointer: str, *, nested: bool) -> Iterator[tuple[str, str, str]]:
    if len(operations) > MAX_OPERATIONS:
        yield (
            pointer,
            f"{plural(len(operations), 'operation')}; the MCP bridge accepts at most {MAX_OPERATIONS:,} per array",
            "split the recipe into several build_prepare calls",
        )
    for index, operation in enumerate(operations):
        if not isinstance(operation, dict):
            continue
        here = f"{pointer}/{index}"
        kind = operation.get("type")
        for key in ("min", "max", "from", "to", "center", "offset"):
            if isinstance(operation.get(key), dict) and key != "offset":
                yield from _position(operation[key], f"{here}/{key}")
        if kind == "cylinder":
            yield from _at_most(operation, "radius", MAX_RADIUS, here)
            yield from _at_most(operation, "height", MAX_HEIGHT, here)
        if kind == "repeat":
            if nested:
                yield (
                    here,
                    "the MCP bridge does not accept a repeat inside a repeat",
                    "unroll the inner repeat, or send the recipe with mcb build directly",
                )
            yield from _at_most(operation, "count", MAX_COUNT, here)
            children = operation.get("operations")
            if isinstance(children, list):
                if not children:
                    yield (
                        f"{here}/operations",
                        "the MCP bridge requires at least one operation in a repeat",
                        "remove the empty repeat",
                    )
                yield from _operations(children, f"{here}/operations", nested=True)


def _position(position: dict, pointer: str) -> Iterator[tuple[str, str, str]]:
    for axis, limit in (("x", HORIZONTAL_LIMIT), ("y", VERTICAL_LIMIT), ("z", HORIZONTAL_LIMIT)):
        value = position.get(axis)
        if type(value) is int and abs(value) > limit:
            yield (
                f"{pointer}/{axis}",
                f"{axis} = {value} is outside the MCP bridge's range ±{limit:,}",
                "the world border makes such positions unusable anyway",
            )


def _at_most(operation: dict, key: str, limit: int, pointer: str) -> Iterator[tuple[str, str, str]]:
    value = operation.get(key)
    if type(value) is int and value > limit:
        yield (
            f"{pointer}/{key}",
            f"{key} {value} is above the MCP bridge's limit of {limit}",
            f"use at most {limit}, or repeat the operation",
        )
