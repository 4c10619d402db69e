"""Rotate and mirror block states about the vertical axis (spec sponge-rotation-blockdata.md §C).

Conventions: +X east, +Z south; a quarter turn is **clockwise seen from above** (north -> east -> south -> west).
``mirror_state(state, "x")`` negates X (east <-> west, Minecraft's ``Mirror.FRONT_BACK``);
``mirror_state(state, "z")`` negates Z (north <-> south, ``Mirror.LEFT_RIGHT``).

Two rule sets:

* ``vanilla`` (default): what Minecraft's ``BlockState.rotate``/``mirror`` produce, i.e. what the server applies on
  ``schematic_import_prepare`` (protocol §6.6). Chorus plant and fire connections are left alone; on mirror the
  stair shape follows ``StairBlock.mirror``, chest ``type`` and shelf ``side_chain`` are kept, anvils keep their
  facing (``AnvilBlock`` has no mirror override), door hinges swap.
* ``geometric``: the WorldEdit-like, geometrically correct result (§C.5): chorus/fire connections turn too, and
  a mirror swaps every stair left/right shape, chest halves, door hinges, shelf chains and bookshelf slot columns.

For rotation only, the two sets differ only for chorus plant and fire.

Every property is classified by its name and its set of values (§C.3). A property that looks direction-bearing but
has no rule raises :class:`UnclassifiedPropertyError` — the transform fails closed rather than emitting a state
that points the wrong way.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from mcb.blocks.state import BlockState, BlockStateError, format_state, parse_state
from mcb.errors import InputError, UsageError

RULE_SETS = ("vanilla", "geometric")
ROTATIONS = (0, 90, 180, 270)  # degrees clockwise seen from above, as schematic_import_prepare takes them
MIRROR_AXES = ("x", "z")

HORIZONTAL = ("north", "east", "south", "west")  # clockwise order
_VERTICAL = ("up", "down")
_FLIP = {"x": {"east": "west", "west": "east"}, "z": {"north": "south", "south": "north"}}

STAIR_SHAPES = frozenset({"straight", "inner_left", "inner_right", "outer_left", "outer_right"})
RAIL_SHAPES = frozenset(
    {
        "north_south",
        "east_west",
        "ascending_east",
        "ascending_west",
        "ascending_north",
        "ascending_south",
        "south_east",
        "south_west",
        "north_west",
        "north_east",
    }
)
CHEST_TYPES = frozenset({"single", "left", "right"})
SIDE_CHAINS = frozenset({"unconnected", "left", "center", "right"})
ORIENTATIONS = frozenset(
    {
        "down_east",
        "down_north",
        "down_south",
        "down_west",
        "up_east",
        "up_north",
        "up_south",
        "up_west",
        "west_up",
        "east_up",
        "north_up",
        "south_up",
    }
)
_LEFT_RIGHT = {"left": "right", "right": "left"}
_SWAP_HANDEDNESS = {
    "inner_left": "inner_right",
    "inner_right": "inner_left",
    "outer_left": "outer_right",
    "outer_right": "outer_left",
}
# Chiseled bookshelf: slots 0-2 are the top row and 3-5 the bottom row, left to right seen from the front.
_BOOKSHELF_MIRROR = {
    "slot_0_occupied": "slot_2_occupied",
    "slot_2_occupied": "slot_0_occupied",
    "slot_3_occupied": "slot_5_occupied",
    "slot_5_occupied": "slot_3_occupied",
}

# Properties that no Y rotation or horizontal mirror changes (checked against every shipped release by a test).
NEUTRAL_PROPERTIES = frozenset(
    {
        "active",
        "age",
        "attached",
        "attachment",
        "berries",
        "bites",
        "bloom",
        "bottom",
        "can_summon",
        "candles",
        "charges",
        "conditional",
        "copper_golem_pose",
        "cracked",
        "crafting",
        "creaking",
        "creaking_heart_state",
        "delay",
        "disarmed",
        "distance",
        "down",
        "drag",
        "dusted",
        "eggs",
        "enabled",
        "extended",
        "eye",
        "face",
        "flower_amount",
        "half",
        "hanging",
        "has_book",
        "has_bottle_0",
        "has_bottle_1",
        "has_bottle_2",
        "has_record",
        "hatch",
        "honey_level",
        "hydration",
        "in_wall",
        "instrument",
        "inverted",
        "layers",
        "leaves",
        "level",
        "lit",
        "locked",
        "mode",
        "moisture",
        "natural",
        "note",
        "occupied",
        "ominous",
        "open",
        "part",
        "persistent",
        "pickles",
        "potent_sulfur_state",
        "power",
        "powered",
        "sculk_sensor_phase",
        "segment_amount",
        "short",
        "shrieking",
        "signal_fire",
        "snowy",
        "stage",
        "thickness",
        "tilt",
        "tip",
        "trial_spawner_state",
        "triggered",
        "unstable",
        "up",
        "vault_state",
        "vertical_direction",
        "waterlogged",
    }
)
# Slab top/bottom/double and piston-head normal/sticky share the name ``type`` with chests.
_NEUTRAL_TYPE_VALUES = (frozenset({"top", "bottom", "double"}), frozenset({"normal", "sticky"}))
_DIRECTION_WORDS = re.compile(r"north|south|east|west|left|right|facing|axis|rotation|orientation|hinge|side|chain")

# Rule kinds.
(
    FACING,
    AXIS,
    ROTATION16,
    SIDE,
    RAIL_SHAPE,
    STAIR_SHAPE,
    CHEST_TYPE,
    HINGE,
    SIDE_CHAIN,
    ORIENTATION,
    BOOKSHELF_SLOT,
    NEUTRAL,
) = (
    "facing",
    "axis",
    "rotation16",
    "side",
    "rail_shape",
    "stair_shape",
    "chest_type",
    "hinge",
    "side_chain",
    "orientation",
    "bookshelf_slot",
    "neutral",
)

# Vanilla's exceptions to the geometric rules, by block id (MC-26.3 block classes, spec §C.3).
_VANILLA_FIXED_SIDES = frozenset({"minecraft:chorus_plant", "minecraft:fire"})  # PipeBlock / FireBlock
_VANILLA_NO_MIRROR = frozenset({"minecraft:anvil", "minecraft:chipped_anvil", "minecraft:damaged_anvil"})


class TransformError(InputError):
    """A block state cannot be rotated or mirrored."""

    kind = "block.transform"


class UnclassifiedPropertyError(TransformError):
    """A property looks direction-bearing but no rotation rule covers it (fail closed)."""

    kind = "block.transform.unclassified"

    def __init__(self, block: str, prop: str, values: Iterable[str]):
        shown = ", ".join(sorted(values))
        super().__init__(
            f"no rotation rule for property {prop!r} of {block} (values: {shown})",
            hint="this block/property is not known to mcb's rotation tables; rotate it in game, or report it",
            details={"block": block, "property": prop},
        )


def classify_property(block: str, prop: str, values: Iterable[str]) -> str:
    """The rule kind for ``prop`` given the values it can take (or, for unknown blocks, the value present)."""
    vals = frozenset(values)
    if prop == "facing" and vals <= set(HORIZONTAL) | set(_VERTICAL):
        return FACING
    if prop == "axis" and vals <= {"x", "y", "z"}:
        return AXIS
    if prop == "rotation" and vals <= {str(i) for i in range(16)}:
        return ROTATION16
    if prop in HORIZONTAL:
        return SIDE
    if prop == "shape" and vals <= STAIR_SHAPES:
        return STAIR_SHAPE
    if prop == "shape" and vals <= RAIL_SHAPES:
        return RAIL_SHAPE
    if prop == "type" and vals <= CHEST_TYPES:
        return CHEST_TYPE
    if prop == "type" and any(vals <= known for known in _NEUTRAL_TYPE_VALUES):
        return NEUTRAL
    if prop == "hinge" and vals <= {"left", "right"}:
        return HINGE
    if prop == "side_chain" and vals <= SIDE_CHAINS:
        return SIDE_CHAIN
    if prop == "orientation" and vals <= ORIENTATIONS:
        return ORIENTATION
    if re.fullmatch(r"slot_[0-5]_occupied", prop):
        return BOOKSHELF_SLOT
    if prop in NEUTRAL_PROPERTIES:
        return NEUTRAL
    if _DIRECTION_WORDS.search(prop) or any(_DIRECTION_WORDS.search(v) for v in vals) or vals & {"x", "z"}:
        raise UnclassifiedPropertyError(block, prop, vals)
    return NEUTRAL  # an unknown, plainly non-directional property (e.g. a new crop age)


# -- direction arithmetic -----------------------------------------------------------------------------------------


def turn_direction(direction: str, quarter_turns: int) -> str:
    if direction in _VERTICAL:
        return direction
    return HORIZONTAL[(HORIZONTAL.index(direction) + quarter_turns) % 4]


def flip_direction(direction: str, axis: str) -> str:
    return _FLIP[axis].get(direction, direction)


def _rail_parts(shape: str) -> tuple[str, list[str]]:
    prefix = "ascending_" if shape.startswith("ascending_") else ""
    return prefix, shape[len(prefix) :].split("_")


def _rail_join(prefix: str, parts: list[str]) -> str:
    """Rebuild a rail shape; curves are spelled north/south first (``south_east``, never ``east_south``)."""
    if len(parts) == 2 and parts[0] in ("east", "west"):
        parts = [parts[1], parts[0]]
    return prefix + "_".join(parts)


def _map_rail(shape: str, fn) -> str:
    prefix, parts = _rail_parts(shape)
    if not prefix and len(parts) == 2 and sorted(parts) in (["east", "west"], ["north", "south"]):
        turned = fn(parts[0])
        return "east_west" if turned in ("east", "west") else "north_south"
    return _rail_join(prefix, [fn(p) for p in parts])


# -- the transform itself ---------------------------------------------------------------------------------------------


class _Op:
    """One element of the horizontal symmetry group: ``mirror`` (None/'x'/'z') applied first, then ``turns``."""

    __slots__ = ("mirror", "turns")

    def __init__(self, turns: int = 0, mirror: str | None = None):
        self.turns = turns % 4
        self.mirror = mirror

    def direction(self, d: str) -> str:
        if self.mirror:
            d = flip_direction(d, self.mirror)
        return turn_direction(d, self.turns)


def _transform_properties(block: str, props: dict[str, str], kinds: dict[str, str], op: _Op, rules: str) -> dict:
    vanilla = rules == "vanilla"
    out = dict(props)
    mirror = op.mirror
    # Vanilla stairs mirror by their own (inconsistent) rule; the loop below must not mirror them again.
    mirror_done = bool(vanilla and mirror and kinds.get("shape") == STAIR_SHAPE)
    if mirror_done:
        out = _vanilla_stair_mirror(props, mirror)
    for prop, kind in kinds.items():
        value = out.get(prop)
        if value is None or kind == NEUTRAL:
            continue
        if kind == FACING:
            if mirror and not mirror_done and not (vanilla and block in _VANILLA_NO_MIRROR):
                value = flip_direction(value, mirror)
            out[prop] = turn_direction(value, op.turns)
        elif kind == AXIS:
            out[prop] = {"x": "z", "z": "x"}.get(value, value) if op.turns % 2 else value
        elif kind == ROTATION16:
            r = int(value)
            if mirror == "x":
                r = -r
            elif mirror == "z":
                r = 8 - r
            out[prop] = str((r + 4 * op.turns) % 16)
        elif kind == RAIL_SHAPE:
            out[prop] = _map_rail(value, op.direction)
        elif kind == ORIENTATION:
            front, top = value.split("_")
            out[prop] = f"{op.direction(front)}_{op.direction(top)}"
        elif mirror and kind == STAIR_SHAPE and not mirror_done:
            out[prop] = _SWAP_HANDEDNESS.get(value, value)
        elif mirror and kind == HINGE:
            out[prop] = _LEFT_RIGHT[value]
        elif mirror and kind in (CHEST_TYPE, SIDE_CHAIN) and not vanilla:
            out[prop] = _LEFT_RIGHT.get(value, value)
    sides = [p for p, k in kinds.items() if k == SIDE and p in props]
    if sides and not (vanilla and block in _VANILLA_FIXED_SIDES):
        for side in sides:
            out.pop(side)
        for side in sides:
            out[op.direction(side)] = props[side]
    if mirror and not vanilla and any(k == BOOKSHELF_SLOT for k in kinds.values()):
        for slot, other in _BOOKSHELF_MIRROR.items():
            if slot in props:
                out[other] = props[slot]
    return out


def _vanilla_stair_mirror(props: dict[str, str], axis: str) -> dict[str, str]:
    """``StairBlock.mirror``: only acts when the stair faces along the flipped axis (spec §C.4)."""
    facing, shape = props.get("facing"), props.get("shape")
    out = dict(props)
    along = {"z": ("north", "south"), "x": ("east", "west")}[axis]
    if facing not in along:
        return out
    out["facing"] = turn_direction(facing, 2)
    if shape in _SWAP_HANDEDNESS and (axis == "z" or shape.startswith("outer")):
        out["shape"] = _SWAP_HANDEDNESS[shape]
    return out


class StateTransformer:
    """Rotates/mirrors state strings with a registry, caching per distinct input (one pass over a palette).

    ``registry``: a :mod:`mcb.blocks.registry` registry (default release when None). Blocks the registry does not
    know are transformed by property name alone (like WorldEdit does for modded blocks), still failing closed.
    """

    def __init__(self, registry=None, rules: str = "vanilla"):
        if rules not in RULE_SETS:
            raise UsageError(f"unknown rule set {rules!r}", hint="use 'vanilla' or 'geometric'")
        self.registry = registry if registry is not None else _default_registry()
        self.rules = rules
        self._cache: dict[tuple[str, int, str | None], str] = {}

    def rotate(self, state: str, quarter_turns_clockwise: int) -> str:
        return self.apply(state, _Op(quarter_turns_clockwise))

    def mirror(self, state: str, axis: str) -> str:
        if axis not in MIRROR_AXES:
            raise UsageError(f"unknown mirror axis {axis!r}", hint="use 'x' (east<->west) or 'z' (north<->south)")
        return self.apply(state, _Op(0, axis))

    def apply(self, state: str, op: _Op) -> str:
        key = (state, op.turns, op.mirror)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._apply(state, op)
        return hit

    def _apply(self, text: str, op: _Op) -> str:
        parsed = parse_state(text)
        info = self._block_info(parsed.name)
        props = dict(parsed.properties)
        if info is None:  # unknown block: classify each property by the value it has
            kinds = {p: classify_property(parsed.name, p, [v]) for p, v in props.items()}
        else:
            self.registry.canonicalize(parsed)  # raises the registry's own error for a bad property or value
            known = info.properties
            kinds = _block_kinds(parsed.name, tuple((p, tuple(v)) for p, v in known.items()))
            # Fill omitted direction-bearing properties from the release's defaults: rotating an implicit default
            # is only right if the default is written out (sign rotation defaults changed in 26.x, §C.3).
            defaults = info.defaults or {}
            for prop, kind in kinds.items():
                if kind != NEUTRAL and prop not in props and prop in defaults:
                    props[prop] = defaults[prop]
        if op.turns == 0 and op.mirror is None:
            out = props
        else:
            out = _transform_properties(parsed.name, props, kinds, op, self.rules)
        return format_state(BlockState(parsed.name, tuple(sorted(out.items()))))

    def _block_info(self, name: str):
        try:
            return self.registry.block(name)
        except (KeyError, LookupError, BlockStateError):
            return None


@functools.lru_cache(maxsize=4096)
def _block_kinds(block: str, properties: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, str]:
    return {prop: classify_property(block, prop, values) for prop, values in properties}


@functools.lru_cache(maxsize=1)
def _default_registry():
    from mcb.blocks.registry import load_registry

    return load_registry(None)


def rotate_state(state: str, quarter_turns_clockwise: int, rules: str = "vanilla", registry=None) -> str:
    """``rotate_state("minecraft:oak_stairs[facing=north]", 1)`` -> ``...[facing=east,half=bottom,...]``."""
    return StateTransformer(registry, rules).rotate(state, quarter_turns_clockwise)


def mirror_state(state: str, axis: str = "x", rules: str = "vanilla", registry=None) -> str:
    """Mirror across a vertical plane: ``axis='x'`` swaps east/west, ``axis='z'`` swaps north/south."""
    return StateTransformer(registry, rules).mirror(state, axis)


def transform_palette(
    palette: list[str], *, quarter_turns: int = 0, mirror_axis: str | None = None, rules: str = "vanilla", registry=None
) -> list[str]:
    """Transform every palette entry once (mirror first, then turn); the blocks array is never touched here."""
    transformer = StateTransformer(registry, rules)
    if mirror_axis is not None and mirror_axis not in MIRROR_AXES:
        raise UsageError(f"unknown mirror axis {mirror_axis!r}", hint="use 'x' or 'z'")
    op = _Op(quarter_turns, mirror_axis)
    return [transformer.apply(state, op) for state in palette]
