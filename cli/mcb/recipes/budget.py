"""Whole-recipe totals of the §4.1 budgets, computed without expanding repeats (for messages and `compile`), and
the one formula of a shape's scan charge, which the compiler charges as it goes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Totals:
    scan: int  # sum of shape charges, each repeat iteration counted
    expanded: int  # operation elements visited while expanding
    depth: int  # deepest nesting level reached (top level = 0)


def measure(recipe: dict) -> Totals:
    """Exact totals for a recipe that passes the schema (integers are ints); oddities count as zero."""
    return _measure(recipe.get("operations"), 0)


def _measure(operations, depth: int) -> Totals:
    scan = expanded = 0
    deepest = depth
    if not isinstance(operations, list):
        return Totals(0, 0, depth)
    for operation in operations:
        expanded += 1
        if not isinstance(operation, dict):
            continue
        kind = operation.get("type")
        if kind == "repeat":
            count = operation.get("count")
            inner = _measure(operation.get("operations"), depth + 1)
            count = count if type(count) is int and count > 0 else 0
            scan += count * inner.scan
            expanded += count * inner.expanded
            deepest = max(deepest, inner.depth)
        else:
            scan += shape_charge(operation)
    return Totals(scan, expanded, deepest)


def shape_charge(operation: dict) -> int:
    """The scan charge of one box, line or cylinder (0 when its fields are not usable)."""
    try:
        kind = operation["type"]
        if kind == "box":
            low, high = operation["min"], operation["max"]
            extents = [high[a] - low[a] + 1 for a in "xyz"]
            return extents[0] * extents[1] * extents[2] if min(extents) > 0 else 0
        if kind == "line":
            start, end = operation["from"], operation["to"]
            return max(abs(end[a] - start[a]) for a in "xyz") + 1
        if kind == "cylinder":
            return (2 * operation["radius"] + 1) ** 2 * operation["height"]
    except (KeyError, TypeError):
        return 0
    return 0
