"""Place a recipe: turn it clockwise (seen from above) about the vertical axis, then move it so the lowest corner
of its bounding box lands on a target. Used by ``mcb build RECIPE --rotation R --target x,y,z``.

The result is again a plain recipe (protocol §4) that compiles to exactly the turned and moved cells of the
original, with every block state turned by the same rules as schematics (:mod:`mcb.blocks.transform`):

- a quarter turn maps (x, y, z) to (-z, y, x): north -> east -> south -> west, as ``schematic_import_prepare``;
- ``box`` corners are turned and re-sorted (min <= max); ``cylinder`` centres turn (the ring is symmetric);
  ``repeat`` offsets turn as vectors; ``line`` end points turn, except that the server rounds a half step toward
  +infinity, which a turn can mirror: such a line is written out cell by cell so that no block moves.
"""

from __future__ import annotations

from collections.abc import Callable

from mcb.errors import InputError, UsageError
from mcb.recipes.compile import SCAN_BUDGET_CAP, RecipeRejected, compile_geometry

Position = tuple[int, int, int]


def turn_position(position: Position, quarter_turns: int) -> Position:
    x, y, z = position
    for _ in range(quarter_turns % 4):
        x, z = -z, x
    return x, y, z


def recipe_bounds(recipe: dict) -> tuple[Position, Position] | None:
    """(min, max) corners of the cells the recipe writes, or None when it writes none."""
    try:
        return compile_geometry(recipe, max_blocks=SCAN_BUDGET_CAP).bounds
    except RecipeRejected as error:
        where = f" at {error.pointer}" if error.pointer else ""
        raise InputError(f"cannot place the recipe: {error.message}{where}", hint="{recipe_lint} explains it") from None


def place_recipe(recipe: dict, *, rotation: int = 0, target: dict | None = None, registry=None) -> dict:
    """``recipe`` turned ``rotation`` degrees clockwise, then moved so its bounding box's min corner is ``target``.

    ``target`` None keeps the turned recipe's min corner where the original's was.
    """
    if rotation not in (0, 90, 180, 270):
        raise UsageError("{rotation} must be 0, 90, 180 or 270", details={"field": "rotation"})
    bounds = recipe_bounds(recipe)
    if bounds is None:  # writes nothing: nothing to move
        return recipe
    turns = rotation // 90
    low, high = bounds
    corners = [turn_position(c, turns) for c in (low, high)]
    turned_min = tuple(min(corners[0][i], corners[1][i]) for i in range(3))
    anchor = (target["x"], target["y"], target["z"]) if target is not None else low
    shift = tuple(anchor[i] - turned_min[i] for i in range(3))
    if turns:
        from mcb.blocks.transform import StateTransformer

        transformer = StateTransformer(registry)
        turn_state = lambda state: transformer.rotate(state, turns)  # noqa: E731
    else:
        turn_state = lambda state: state  # noqa: E731 - a pure move keeps every state as written

    def place(position: dict) -> dict:
        x, y, z = turn_position((position["x"], position["y"], position["z"]), turns)
        return {"x": x + shift[0], "y": y + shift[1], "z": z + shift[2]}

    return {**recipe, "operations": _operations(recipe["operations"], turns, place, turn_state)}


def _operations(operations: list, turns: int, place: Callable[[dict], dict], turn_state) -> list:
    out = []
    for operation in operations:
        kind = operation["type"]
        moved = dict(operation)
        if kind == "box":
            a, b = place(operation["min"]), place(operation["max"])
            moved["min"] = {k: min(a[k], b[k]) for k in "xyz"}
            moved["max"] = {k: max(a[k], b[k]) for k in "xyz"}
        elif kind == "cylinder":
            moved["center"] = place(operation["center"])
        elif kind == "repeat":
            step = operation["offset"]
            x, y, z = turn_position((step["x"], step["y"], step["z"]), turns)
            moved["offset"] = {"x": x, "y": y, "z": z}
            moved["operations"] = _operations(operation["operations"], turns, place, turn_state)
            out.append(moved)
            continue
        elif kind == "line":
            out.extend(_line(operation, place, turn_state))
            continue
        moved["block"] = turn_state(operation["block"])
        out.append(moved)
    return out


def _line(operation: dict, place: Callable[[dict], dict], turn_state) -> list[dict]:
    block = turn_state(operation["block"])
    start, end = place(operation["from"]), place(operation["to"])
    wanted = {tuple(place(dict(zip("xyz", cell))).values()) for cell in _line_cells(operation["from"], operation["to"])}
    for a, b in ((start, end), (end, start)):
        if _line_cells(a, b) == wanted:
            return [{**operation, "from": a, "to": b, "block": block}]
    # Ties in the server's rounding fall the other way once turned: write the original cells one by one.
    return [
        {"type": "box", "min": dict(zip("xyz", cell)), "max": dict(zip("xyz", cell)), "block": block}
        for cell in sorted(wanted)
    ]


def _line_cells(start: dict, end: dict) -> set[Position]:
    probe = {"version": 1, "operations": [{"type": "line", "from": start, "to": end, "block": "minecraft:stone"}]}
    return set(compile_geometry(probe, max_blocks=SCAN_BUDGET_CAP).positions)
