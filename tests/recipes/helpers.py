"""Small builders for recipe JSON in tests (values only; no expectations are computed here)."""

from __future__ import annotations


def pos(x: int, y: int, z: int) -> dict:
    return {"x": x, "y": y, "z": z}


def box(low, high, block="minecraft:stone", **extra) -> dict:
    return {"type": "box", "min": pos(*low), "max": pos(*high), "block": block, **extra}


def line(start, end, block="minecraft:stone") -> dict:
    return {"type": "line", "from": pos(*start), "to": pos(*end), "block": block}


def cylinder(center, radius, height, block="minecraft:stone", **extra) -> dict:
    return {"type": "cylinder", "center": pos(*center), "radius": radius, "height": height, "block": block, **extra}


def repeat(count, offset, operations) -> dict:
    return {"type": "repeat", "count": count, "offset": pos(*offset), "operations": operations}


def recipe(*operations) -> dict:
    return {"version": 1, "operations": list(operations)}
