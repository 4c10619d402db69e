"""Terrain recipe validation exactly as the server does it (terrain-materials.md §1.1, §1.3, §1.7).

Checks run in the server's order and the first failure is raised as :class:`TerrainRecipeError` with the server's
message and a JSON pointer to the offending value, so the CLI, the lint and the local server all agree.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field

from mcb.blocks.state import AIR_STATES
from mcb.errors import InputError
from mcb.terrain.jsontext import JsonNumber, canonical_text, number_text, number_value

MATERIALS = frozenset(
    {
        "stone",
        "andesite",
        "granite",
        "diorite",
        "deepslate",
        "cobbled_deepslate",
        "dirt",
        "grass_block",
        "moss_block",
        "sandstone",
        "terracotta",
    }
)
MODES = ("sculpt", "fill", "cut")
TOP_LEVEL_KEYS = ("version", "min", "max", "base_height", "seed", "noise", "mode", "palette", "features", "preserve")
XZ_LIMIT = 30_000_000
Y_LIMIT = 4096
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
ENVELOPE_MESSAGE = "Terrain envelope exceeds 2048 per side, 384 height, 1M columns or 128M voxels"


class TerrainRecipeError(InputError):
    """A recipe the server would refuse with ``invalid_request``; ``pointer`` locates the bad value."""

    kind = "invalid_request"

    def __init__(self, message: str, pointer: str = ""):
        super().__init__(message, code="invalid_request", details={"pointer": pointer} if pointer else None)
        self.pointer = pointer


@dataclass(frozen=True)
class Box:
    """Inclusive block box."""

    min: tuple[int, int, int]
    max: tuple[int, int, int]

    def contains(self, x: int, y: int, z: int) -> bool:
        return self.min[0] <= x <= self.max[0] and self.min[1] <= y <= self.max[1] and self.min[2] <= z <= self.max[2]

    def contains_point(self, p: tuple[int, int, int]) -> bool:
        return self.contains(*p)

    @property
    def size(self) -> tuple[int, int, int]:
        return tuple(self.max[i] - self.min[i] + 1 for i in range(3))

    @property
    def volume(self) -> int:
        sx, sy, sz = self.size
        return sx * sy * sz

    def region(self, world_id: str) -> dict:
        """The server's ``Region`` record shape."""
        return {"worldId": world_id, "min": dict(zip("xyz", self.min)), "max": dict(zip("xyz", self.max))}


@dataclass(frozen=True)
class Feature:
    type: str
    height: float = 0.0  # terrace: strength
    falloff: float = 1.0
    radius: float = 0.0  # hill/basin radius, ridge/channel width, terrace step
    center: tuple[int, int] | None = None  # hill/basin centre, plateau min
    corner: tuple[int, int] | None = None  # plateau max
    points: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class TerrainRecipe:
    bounds: Box
    base_height: int
    seed: int
    mode: str
    amplitude: float
    scale: float
    rock: str
    soil: str
    surface: str
    soil_depth: int
    features: tuple[Feature, ...]
    preserve: tuple[Box, ...]
    canonical: str = field(repr=False)
    terrain_id: str = ""

    @property
    def width(self) -> int:
        return self.bounds.size[0]

    @property
    def height(self) -> int:
        return self.bounds.size[1]

    @property
    def length(self) -> int:
        return self.bounds.size[2]

    def preserved(self, x: int, y: int, z: int) -> bool:
        return any(b.contains(x, y, z) for b in self.preserve)


# -- primitive readers, each mirroring one server helper ------------------------------------------------


def _fields(obj, pointer: str, allowed: tuple[str, ...]) -> None:
    if not isinstance(obj, dict):
        raise TerrainRecipeError("Expected object", pointer)
    for key in obj:
        if key not in allowed:
            raise TerrainRecipeError(f"Unknown field: {key}", f"{pointer}/{_escape(key)}")


def _required(obj: dict, key: str, pointer: str):
    if obj.get(key) is None:
        raise TerrainRecipeError(f"Missing field: {key}", f"{pointer}/{_escape(key)}")
    return obj[key]


def _object(obj: dict, key: str, pointer: str) -> dict:
    value = _required(obj, key, pointer)
    if not isinstance(value, dict):
        raise TerrainRecipeError(f"{key} must be an object", f"{pointer}/{key}")
    return value


def _array(obj: dict, key: str, pointer: str, limit: int) -> list:
    value = _required(obj, key, pointer)
    if not isinstance(value, list) or len(value) > limit:
        raise TerrainRecipeError(f"{key} must be an array of at most {limit}", f"{pointer}/{key}")
    return value


def _text(obj: dict, key: str, pointer: str) -> str:
    value = _required(obj, key, pointer)
    if not isinstance(value, str):
        raise TerrainRecipeError(f"{key} must be text", f"{pointer}/{key}")
    return value


def _number(obj: dict, key: str, pointer: str, low: float, high: float) -> float:
    value = _required(obj, key, pointer)
    number = number_value(value)
    if number is None:
        raise TerrainRecipeError(f"{key} must be numeric", f"{pointer}/{key}")
    if not math.isfinite(number) or number < low or number > high:
        raise TerrainRecipeError(f"{key} out of range", f"{pointer}/{key}")
    return number


def _integer(obj: dict, key: str, pointer: str, low: int, high: int) -> int:
    value = _required(obj, key, pointer)
    text = number_text(value)
    literal_ok = text is not None and (
        value.looks_integral() if isinstance(value, JsonNumber) else isinstance(value, int)
    )
    if not literal_ok:
        raise TerrainRecipeError(f"{key} must be an integer", f"{pointer}/{key}")
    _number(obj, key, pointer, low, high)
    return int(text)


def _escape(key: str) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def _pos(obj: dict, pointer: str) -> tuple[int, int, int]:
    _fields(obj, pointer, ("x", "y", "z"))
    return (
        _integer(obj, "x", pointer, -XZ_LIMIT, XZ_LIMIT),
        _integer(obj, "y", pointer, -Y_LIMIT, Y_LIMIT),
        _integer(obj, "z", pointer, -XZ_LIMIT, XZ_LIMIT),
    )


def _point(obj: dict, pointer: str) -> tuple[int, int]:
    _fields(obj, pointer, ("x", "z"))
    return _integer(obj, "x", pointer, -XZ_LIMIT, XZ_LIMIT), _integer(obj, "z", pointer, -XZ_LIMIT, XZ_LIMIT)


def _region(lo: tuple[int, int, int], hi: tuple[int, int, int], pointer: str) -> Box:
    if any(lo[i] > hi[i] for i in range(3)):
        raise TerrainRecipeError("Invalid inclusive region bounds", pointer)
    return Box(lo, hi)


def _material(obj: dict, key: str, pointer: str) -> str:
    value = _text(obj, key, pointer)
    if not value.startswith("minecraft:") or value[len("minecraft:") :] not in MATERIALS:
        raise TerrainRecipeError(f"Unsupported terrain material: {value}", f"{pointer}/{key}")
    return value


# -- the recipe ----------------------------------------------------------------------------------------


def validate_recipe(obj) -> TerrainRecipe:
    """Validate a parsed recipe (numbers as :class:`JsonNumber` or plain) and compute its ``terrain_id``."""
    _fields(obj, "", TOP_LEVEL_KEYS)
    _integer(obj, "version", "", 1, 1)
    lo = _pos(_object(obj, "min", ""), "/min")
    hi = _pos(_object(obj, "max", ""), "/max")
    bounds = _region(lo, hi, "")
    w, h, l = bounds.size
    if w > 2048 or l > 2048 or h > 384 or w * l > 1_048_576 or w * h * l > 134_217_728:
        raise TerrainRecipeError(ENVELOPE_MESSAGE, "")
    base = _integer(obj, "base_height", "", -4096, 4096)
    seed = _integer(obj, "seed", "", INT32_MIN, INT32_MAX)
    mode = _text(obj, "mode", "")
    if mode not in MODES:
        raise TerrainRecipeError("Mode must be sculpt, fill or cut", "/mode")
    noise = _object(obj, "noise", "")
    _fields(noise, "/noise", ("amplitude", "scale"))
    amplitude = _number(noise, "amplitude", "/noise", 0, 256)
    scale = _number(noise, "scale", "/noise", 1, 4096)
    palette = _object(obj, "palette", "")
    _fields(palette, "/palette", ("rock", "soil", "surface", "soil_depth"))
    rock = _material(palette, "rock", "/palette")
    soil = _material(palette, "soil", "/palette")
    surface = _material(palette, "surface", "/palette")
    depth = _integer(palette, "soil_depth", "/palette", 0, 16)
    features = tuple(_feature(f, f"/features/{i}") for i, f in enumerate(_array(obj, "features", "", 64)))
    preserves = []
    for i, box in enumerate(_array(obj, "preserve", "", 64)):
        pointer = f"/preserve/{i}"
        if not isinstance(box, dict):
            raise TerrainRecipeError("Preserve box must be an object", pointer)
        _fields(box, pointer, ("min", "max"))
        region = _region(
            _pos(_object(box, "min", pointer), pointer + "/min"),
            _pos(_object(box, "max", pointer), pointer + "/max"),
            pointer,
        )
        if not bounds.contains_point(region.min) or not bounds.contains_point(region.max):
            raise TerrainRecipeError("Preserve box exceeds envelope", pointer)
        preserves.append(region)
    canonical = canonical_text(obj)
    return TerrainRecipe(
        bounds=bounds,
        base_height=base,
        seed=seed,
        mode=mode,
        amplitude=amplitude,
        scale=scale,
        rock=rock,
        soil=soil,
        surface=surface,
        soil_depth=depth,
        features=features,
        preserve=tuple(preserves),
        canonical=canonical,
        terrain_id=hashlib.sha256(canonical.encode("utf-8")).hexdigest(),
    )


def _feature(f, pointer: str) -> Feature:
    if not isinstance(f, dict):
        raise TerrainRecipeError("Feature must be an object", pointer)
    kind = _text(f, "type", pointer)
    if kind in ("hill", "basin"):
        _fields(f, pointer, ("type", "center", "radius", "height", "falloff"))
        center = _point(_object(f, "center", pointer), pointer + "/center")
        radius = _number(f, "radius", pointer, 1, 2048)
        falloff = _number(f, "falloff", pointer, 1, 2048)
        return Feature(
            kind, height=_number(f, "height", pointer, -4096, 4096), falloff=falloff, radius=radius, center=center
        )
    if kind == "plateau":
        _fields(f, pointer, ("type", "min", "max", "height", "falloff"))
        a = _point(_object(f, "min", pointer), pointer + "/min")
        b = _point(_object(f, "max", pointer), pointer + "/max")
        if a[0] > b[0] or a[1] > b[1]:
            raise TerrainRecipeError("Invalid plateau bounds", pointer)
        falloff = _number(f, "falloff", pointer, 1, 2048)
        return Feature(kind, height=_number(f, "height", pointer, -4096, 4096), falloff=falloff, center=a, corner=b)
    if kind in ("ridge", "channel"):
        _fields(f, pointer, ("type", "points", "width", "falloff", "height"))
        points = []
        for i, p in enumerate(_array(f, "points", pointer, 32)):
            if not isinstance(p, dict):
                raise TerrainRecipeError("Expected path point", f"{pointer}/points/{i}")
            points.append(_point(p, f"{pointer}/points/{i}"))
        if len(points) < 2:
            raise TerrainRecipeError("A path needs 2..32 points", pointer + "/points")
        width = _number(f, "width", pointer, 1, 1024)
        falloff = _number(f, "falloff", pointer, 1, 2048)
        return Feature(
            kind, height=_number(f, "height", pointer, -4096, 4096), falloff=falloff, radius=width, points=tuple(points)
        )
    if kind == "terrace":
        _fields(f, pointer, ("type", "step", "strength"))
        step = _number(f, "step", pointer, 1, 128)
        return Feature(kind, height=_number(f, "strength", pointer, 0, 1), radius=step)
    raise TerrainRecipeError(f"Unsupported terrain feature: {kind}", pointer + "/type")


def parse_recipe_text(text: str) -> TerrainRecipe:
    """Parse JSON text (keeping number literals) and validate it."""
    import json

    from mcb.terrain.jsontext import loads_keeping_numbers

    try:
        obj = loads_keeping_numbers(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise TerrainRecipeError(f"Invalid JSON: {exc}") from None
    return validate_recipe(obj)


def replaceable(state: str) -> bool:
    """Natural terrain (§1.6): air variants or one of the 11 materials, properties ignored."""
    name = state.split("[", 1)[0]
    if name in AIR_STATES:
        return True
    return name.startswith("minecraft:") and name[len("minecraft:") :] in MATERIALS
