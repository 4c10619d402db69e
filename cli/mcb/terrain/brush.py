"""Relative terrain brushes: parsing, compile over a window snapshot, and the before/after image (§4).

``compile_brush`` works on a snapshot ``{(x, y, z): state}`` of the whole scan window and never touches a world;
the local server reads the snapshot and turns the result into a plan.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from mcb.blocks.state import AIR_STATES
from mcb.terrain.fdlibm import integer_hypot
from mcb.terrain.jsontext import number_text, number_value
from mcb.terrain.recipe import Box, TerrainRecipeError, replaceable

BRUSH_KEYS = (
    "min",
    "max",
    "center",
    "radius",
    "action",
    "amount",
    "height",
    "strength",
    "falloff",
    "smooth_radius",
    "preserve",
)
ACTIONS = ("raise", "lower", "flatten", "smooth")


class BrushError(TerrainRecipeError):
    """A brush the server refuses with ``invalid_request``; the hint is the one refusal table's next step."""

    def __init__(self, message: str, pointer: str = ""):
        from mcb.refusals import local_hint

        super().__init__(message, pointer)
        self.hint = local_hint("terrain_brush_prepare", "invalid_request", message)


@dataclass(frozen=True)
class BrushSpec:
    bounds: Box
    center_x: int
    center_z: int
    radius: int
    action: str
    amount: int = 1
    target_height: int = 0
    strength: float = 1.0
    falloff: float = 0.5
    smooth_radius: int = 1
    preserve: tuple[Box, ...] = ()

    @property
    def halo(self) -> int:
        return self.smooth_radius if self.action == "smooth" else 0


@dataclass
class BrushResult:
    desired: dict[tuple[int, int, int], str]
    bounds: Box
    before: list[list[int]]  # [z][x] surface heights
    after: list[list[int]]
    changed_columns: int = 0
    raised: int = 0
    lowered: int = 0
    dependencies: int = 0
    extra: dict = field(default_factory=dict)


# -- parsing (server's TerrainBrush.parse: looser integers, its own messages) ---------------------------


def _fields(obj, allowed) -> None:
    if not isinstance(obj, dict):
        raise BrushError("Expected brush object")
    for key in obj:
        if key not in allowed:
            raise BrushError(f"Unknown brush field: {key}", f"/{key}")


def _obj(parent: dict, key: str) -> dict:
    if not isinstance(parent, dict) or key not in parent or not isinstance(parent[key], dict):
        raise BrushError(f"Expected object: {key}", f"/{key}")
    return parent[key]


def _number(obj: dict, key: str) -> float:
    value = number_value(obj.get(key)) if key in obj else None
    if value is None:
        raise BrushError(f"Expected number: {key}", f"/{key}")
    if not math.isfinite(value):
        raise BrushError("Nonfinite number", f"/{key}")
    return value


def _integer(obj: dict, key: str) -> int:
    """Any JSON number with an exact int32 value (``3.0`` and ``1e3`` pass, ``3.5`` does not)."""
    _number(obj, key)
    try:
        exact = Decimal(number_text(obj[key]))
        if exact != exact.to_integral_value():
            raise InvalidOperation
        value = int(exact)
    except (InvalidOperation, ValueError):
        raise BrushError(f"Expected 32-bit integer: {key}", f"/{key}") from None
    if value < -(2**31) or value > 2**31 - 1:
        raise BrushError(f"Expected 32-bit integer: {key}", f"/{key}")
    return value


def _pos(obj: dict) -> tuple[int, int, int]:
    _fields(obj, ("x", "y", "z"))
    x, y, z = _integer(obj, "x"), _integer(obj, "y"), _integer(obj, "z")
    if abs(x) > 30_000_000 or abs(z) > 30_000_000 or y < -4096 or y > 4096:
        raise BrushError("Coordinate out of range")
    return x, y, z


def _box(lo, hi) -> Box:
    if any(lo[i] > hi[i] for i in range(3)):
        raise BrushError("Invalid inclusive region bounds")
    return Box(lo, hi)


def parse_brush(obj) -> BrushSpec:
    """Validate a brush object in the server's order with its messages; defaults as the server applies them."""
    _fields(obj, BRUSH_KEYS)
    bounds = _box(_pos(_obj(obj, "min")), _pos(_obj(obj, "max")))
    center = _obj(obj, "center")
    _fields(center, ("x", "z"))
    action = obj.get("action")
    if not isinstance(action, str):
        raise BrushError("Expected text: action", "/action")
    if action in ("raise", "lower") and "amount" not in obj:
        raise BrushError("raise/lower require amount", "/amount")
    if action == "flatten" and "height" not in obj:
        raise BrushError("flatten requires height", "/height")
    if "amount" in obj and action not in ("raise", "lower"):
        raise BrushError("amount is only for raise/lower", "/amount")
    if "height" in obj and action != "flatten":
        raise BrushError("height is only for flatten", "/height")
    if "smooth_radius" in obj and action != "smooth":
        raise BrushError("smooth_radius is only for smooth", "/smooth_radius")
    boxes = []
    if "preserve" in obj:
        raw = obj["preserve"]
        if not isinstance(raw, list) or len(raw) > 64:
            raise BrushError("Invalid preserve boxes", "/preserve")
        for i, item in enumerate(raw):
            if not isinstance(item, dict):
                raise BrushError("Invalid preserve box", f"/preserve/{i}")
            _fields(item, ("min", "max"))
            boxes.append(_box(_pos(_obj(item, "min")), _pos(_obj(item, "max"))))
    spec = BrushSpec(
        bounds=bounds,
        center_x=_integer(center, "x"),
        center_z=_integer(center, "z"),
        radius=_integer(obj, "radius"),
        action=action,
        amount=_integer(obj, "amount") if "amount" in obj else 1,
        target_height=_integer(obj, "height") if "height" in obj else 0,
        strength=_number(obj, "strength") if "strength" in obj else 1.0,
        falloff=_number(obj, "falloff") if "falloff" in obj else 0.5,
        smooth_radius=_integer(obj, "smooth_radius") if "smooth_radius" in obj else 1,
        preserve=tuple(boxes),
    )
    check_brush(spec)
    return spec


def check_brush(spec: BrushSpec) -> None:
    """The server's spec checks, in order."""
    b = spec.bounds
    if b.volume > 4096 or b.volume < 1:
        raise BrushError("Brush scan window must contain at most 4096 cells")
    if not 1 <= spec.radius <= 16 or not 1 <= spec.smooth_radius <= 3:
        raise BrushError("Radius must be 1..16; smoothing radius 1..3")
    if spec.action not in ACTIONS:
        raise BrushError("Unknown brush action")
    if (
        not 1 <= spec.amount <= 32
        or not math.isfinite(spec.strength)
        or not 0 <= spec.strength <= 1
        or not math.isfinite(spec.falloff)
        or not 0 <= spec.falloff <= 1
    ):
        raise BrushError("Invalid brush strength, falloff or amount")
    reach = spec.radius + spec.halo
    if (
        spec.center_x - reach < b.min[0]
        or spec.center_x + reach > b.max[0]
        or spec.center_z - reach < b.min[2]
        or spec.center_z + reach > b.max[2]
    ):
        raise BrushError("Scan window must include the whole brush and smoothing halo")
    if len(spec.preserve) > 64:
        raise BrushError("At most 64 preserve boxes")
    for box in spec.preserve:
        if not b.contains_point(box.min) or not b.contains_point(box.max):
            raise BrushError("Preserve box exceeds scan window")


# -- compile ----------------------------------------------------------------------------------------------


def is_air(state: str | None) -> bool:
    return state is not None and state in AIR_STATES


def edge_weight(distance: float, radius: int, falloff: float) -> float:
    if falloff == 0:
        return 1.0
    core = radius * (1 - falloff)
    if distance <= core:
        return 1.0
    t = min(1.0, (distance - core) / (radius - core))
    return 1 - t * t * (3 - 2 * t)


def round_half_away(delta: float) -> int:
    """``sign(δ)·floor(|δ| + 0.5)``: raising and lowering round symmetrically."""
    return int(math.copysign(math.floor(abs(delta) + 0.5), delta))


def _subsoil(top: str) -> str:
    return "minecraft:dirt" if top.startswith("minecraft:grass_block") or top == "minecraft:moss_block" else top


def block_pos_text(x: int, y: int, z: int) -> str:
    return f"BlockPos[x={x}, y={y}, z={z}]"


def _surfaces(spec: BrushSpec, snapshot: dict) -> list[list[int]]:
    b = spec.bounds
    rows = []
    for z in range(b.min[2], b.max[2] + 1):
        row = []
        for x in range(b.min[0], b.max[0] + 1):
            top = None
            for y in range(b.max[1], b.min[1] - 1, -1):
                state = snapshot.get((x, y, z))
                if state is None:
                    raise BrushError("Missing snapshot cell")
                if not replaceable(state):
                    raise BrushError("Brush scan contains a non-terrain block at " + block_pos_text(x, y, z))
                if top is None and not is_air(state):
                    top = y
            if top is None:
                raise BrushError(f"No terrain surface in column {x},{z}; extend scan downward")
            if top == b.max[1]:
                raise BrushError(f"Surface touches scan ceiling at {x},{z}; include air above terrain")
            row.append(top)
        rows.append(row)
    return rows


def compile_brush(spec: BrushSpec, snapshot: dict[tuple[int, int, int], str], budget: int = 4096) -> BrushResult:
    """Targets of the stroke over an exact window snapshot (states as read from the world)."""
    b = spec.bounds
    if len(snapshot) != b.volume:
        raise BrushError("Snapshot must cover the entire scan window")
    before = _surfaces(spec, snapshot)
    after = [row[:] for row in before]
    x0, z0 = b.min[0], b.min[2]
    desired: dict[tuple[int, int, int], str] = {}
    columns = raised = lowered = 0
    for z in range(b.min[2], b.max[2] + 1):
        for x in range(b.min[0], b.max[0] + 1):
            distance = float(integer_hypot(x - spec.center_x, z - spec.center_z))
            if distance > spec.radius:
                continue
            weight = edge_weight(distance, spec.radius, spec.falloff) * spec.strength
            old = before[z - z0][x - x0]
            target = _target(spec, before, old, x - x0, z - z0)
            next_y = old + round_half_away((target - old) * weight)
            if next_y == old:
                continue
            if next_y < b.min[1] or next_y >= b.max[1]:
                raise BrushError("Target surface leaves scan window; extend vertical bounds (keep air above)")
            low, high = min(old, next_y), max(old, next_y)
            if any(box.contains(x, y, z) for y in range(low, high + 1) for box in spec.preserve):
                continue  # keep the whole column rather than tearing a hole at the box edge
            top = snapshot[(x, old, z)]
            if next_y > old:
                under = snapshot.get((x, old - 1, z))
                fill = under if under is not None and not is_air(under) else _subsoil(top)
                for y in range(old, next_y):
                    desired[(x, y, z)] = fill
                desired[(x, next_y, z)] = top
                raised += next_y - old
            else:
                if is_air(snapshot.get((x, next_y, z))):
                    raise BrushError("Cut would expose a void; choose a shallower cut or another area")
                for y in range(next_y + 1, old + 1):
                    desired[(x, y, z)] = "minecraft:air"
                desired[(x, next_y, z)] = top
                lowered += old - next_y
            after[z - z0][x - x0] = next_y
            columns += 1
    desired = {pos: state for pos, state in desired.items() if snapshot.get(pos) != state}
    if len(desired) > budget:
        raise BrushError("Brush exceeds plan budget; use a smaller radius or amount")
    return BrushResult(desired, b, before, after, columns, raised, lowered, dependencies=len(snapshot))


def _target(spec: BrushSpec, before, old: int, col: int, row: int) -> float:
    if spec.action == "raise":
        return old + spec.amount
    if spec.action == "lower":
        return old - spec.amount
    if spec.action == "flatten":
        return spec.target_height
    r = spec.smooth_radius
    values = [before[row + dz][col + dx] for dz in range(-r, r + 1) for dx in range(-r, r + 1)]
    return sum(values) / len(values)
