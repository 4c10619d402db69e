"""Shapes a legacy file never stored, derived from the neighbours as Minecraft 1.12 showed them (and as the game's
1.13 upgrade computes them when it loads an old world): fences, fence gates in walls, panes and iron bars, walls,
redstone wire, stair corners, double chests, tripwire, vines, chorus plants, snowy grass and fruit-bearing stems.

Which neighbours count (facts of the game's 1.12 blocks; a position outside the file counts as air):

* A **fence** joins each side where there is a fence of its material (every wooden fence joins every wooden fence;
  nether brick joins nether brick), a fence gate hung across that side, or a block whose face on that side is solid
  -- a full block, a double slab, the back of a stair -- unless it is one the game exempts: leaves, glass, stained
  glass, glowstone, ice, sea lantern, beacon, cauldron, shulker boxes, pistons and their heads.
* A **pane** or **iron bars** join panes and iron bars, and solid faces but the same exempt blocks.
* A **wall** joins walls, a fence gate hung across that side, and solid faces but the exempt blocks; it shows its
  post (``up``) unless it runs straight (north and south only, or east and west only) with air above it.
* A **fence gate** stands lowered (``in_wall``) where a wall is on either side of its hinge line.
* **Redstone wire** runs to a side where it can be powered from: wire, a repeater or a comparator in line, an
  observer whose back faces it, any other power source (torch, lever, button, pressure plate, redstone block,
  daylight detector, trapped chest, tripwire hook, detector rail); it climbs (``up``) a full block whose top has
  wire and whose own top is clear (a conductor above the wire stops it), and runs down to wire below a non-conductor
  beside it. A wire joined on one side only is drawn through to the opposite side, and one joined on none is a
  cross, as 1.12 drew them (since 1.16 the state carries that look).
* A **stair** turns into an outer corner when the stair behind it (same half) faces across it, into an inner
  corner when the stair in front does, unless a stair of the same facing and half stands beside it on that side.
* Two **chests** (or trapped chests) side by side, single, facing the same way across their line, are one double
  chest: each is checked in the cells' order against north, south, west, east; the one whose partner stands
  clockwise of its facing is the left half. For pairs facing north or east the game swaps their contents, so that
  the double chest's inventory reads as it did; that is done too.
* **Tripwire** joins tripwire, and a tripwire hook facing back at it.
* A **vine** covers the underside of the block above it (``up``) where that block's bottom face is solid.
* A **chorus plant** joins chorus plants and flowers on every side, and end stone below.
* **Grass, podzol and mycelium** are snowy under snow (a layer or a block).
* A grown **pumpkin or melon stem** bends to its fruit (the first of north, east, south, west).

Each cell whose shape this changed is counted once, in one "shapes derived" conversion naming the families.
"""

from __future__ import annotations

from functools import lru_cache

from mcb.blocks.state import BlockState
from mcb.schematics.formats.legacy_cells import Cells, with_values

SIDES = ("north", "south", "west", "east")
STEP = {
    "north": (0, 0, -1),
    "south": (0, 0, 1),
    "west": (-1, 0, 0),
    "east": (1, 0, 0),
    "up": (0, 1, 0),
    "down": (0, -1, 0),
}
OPPOSITE = {"north": "south", "south": "north", "west": "east", "east": "west", "up": "down", "down": "up"}
CLOCKWISE = {"north": "east", "east": "south", "south": "west", "west": "north"}
COUNTER = {value: key for key, value in CLOCKWISE.items()}
AXIS = {"north": "z", "south": "z", "west": "x", "east": "x"}

# Blocks whose faces are not full on their sides (besides the families named below): no fence, pane or wall joins
# them, and they hold no vine.
_NOT_FULL = frozenset(
    "air cave_air void_air water lava fire structure_void moving_piston end_portal end_gateway nether_portal "
    "grass fern dead_bush dandelion poppy blue_orchid allium azure_bluet oxeye_daisy sunflower lilac rose_bush peony "
    "tall_grass large_fern brown_mushroom red_mushroom wheat carrots potatoes beetroots nether_wart sugar_cane "
    "melon_stem pumpkin_stem attached_melon_stem attached_pumpkin_stem cactus cocoa lily_pad vine chorus_plant "
    "chorus_flower torch wall_torch redstone_torch redstone_wall_torch end_rod rail powered_rail detector_rail "
    "activator_rail redstone_wire repeater comparator tripwire tripwire_hook lever iron_bars ladder sign wall_sign "
    "flower_pot snow farmland grass_path chest trapped_chest ender_chest cake cauldron hopper brewing_stand "
    "enchanting_table anvil chipped_anvil damaged_anvil end_portal_frame dragon_egg cobweb piston_head "
    "daylight_detector beacon".split()
)
_NOT_FULL_ENDS = (
    "_sapling", "_tulip", "_door", "_trapdoor", "_fence", "_fence_gate", "_wall", "_pane", "_banner", "_skull", "_head",
    "_button", "_pressure_plate", "_carpet", "_bed", "_slab", "_stairs",
)  # fmt: skip
# Full blocks that fences, panes and walls never join (the game's exceptions).
_EXEMPT = frozenset("glass glowstone ice sea_lantern beacon cauldron piston sticky_piston piston_head".split())
# Blocks with a solid bottom face though not full: what a vine may hang under besides full blocks.
_SOLID_BOTTOM = frozenset(
    "snow farmland grass_path daylight_detector enchanting_table end_portal_frame repeater comparator".split()
)
# Full blocks that do not conduct redstone (glass-like, or power sources).
_NOT_CONDUCTING = frozenset(
    "glass glowstone ice frosted_ice sea_lantern beacon tnt redstone_block observer spawner".split()
)
# Power sources redstone wire runs to from any side (repeaters, comparators and observers are asked apart).
_POWER = frozenset(
    "redstone_torch redstone_wall_torch lever redstone_block daylight_detector trapped_chest tripwire_hook "
    "detector_rail".split()
)


def _id(state: BlockState | None) -> str:
    return state.id if state is not None else "air"


@lru_cache(maxsize=4096)  # per distinct state: a file has few
def is_full(state: BlockState | None) -> bool:
    """A whole cube (every face full)."""
    name = _id(state)
    if name.endswith("_slab"):
        return state.get("type") == "double"
    return not (name in _NOT_FULL or name.endswith(_NOT_FULL_ENDS) or _extended(state))


def _extended(state: BlockState | None) -> bool:
    return state is not None and state.get("extended") == "true"


def _leaves_or_glass(name: str) -> bool:
    return name.endswith(("_leaves", "_stained_glass", "shulker_box")) or name in _EXEMPT


@lru_cache(maxsize=4096)  # per distinct state: a file has few
def solid_face(state: BlockState | None, face: str) -> bool:
    """Whether ``state`` shows a full, solid face on its side ``face`` (north ... down)."""
    name = _id(state)
    if name.endswith("_stairs"):
        if face in ("up", "down"):
            return (face == "up") == (state.get("half") == "top")
        facing, shape = state.get("facing"), state.get("shape")
        if facing not in CLOCKWISE:
            return False
        if shape == "straight":
            return face == facing
        if shape == "inner_left":
            return face in (facing, COUNTER[facing])
        if shape == "inner_right":
            return face in (facing, CLOCKWISE[facing])
        return False
    if name.endswith("_slab"):
        kind = state.get("type")
        return kind == "double" or (face == "up" and kind == "top") or (face == "down" and kind == "bottom")
    if face == "down" and (name in _SOLID_BOTTOM or name.endswith("_carpet")):
        return True
    if name == "cauldron":
        return face not in ("up", "down")
    return is_full(state)


@lru_cache(maxsize=4096)  # per distinct state: a file has few
def _joins_solid(state: BlockState | None, face: str) -> bool:
    """A solid face a fence, pane or wall joins: not one of the exempt blocks."""
    return solid_face(state, face) and not _leaves_or_glass(_id(state))


def _gate_across(state: BlockState | None, side: str) -> bool:
    """A fence gate whose bars run across ``side`` (it faces along the other axis)."""
    return _id(state).endswith("_fence_gate") and AXIS.get(state.get("facing"), AXIS[side]) != AXIS[side]


def _wooden_fence(name: str) -> bool:
    return name.endswith("_fence") and name != "nether_brick_fence"


def _fence_side(here: BlockState, there: BlockState | None, side: str) -> bool:
    name, other = here.id, _id(there)
    same = other.endswith("_fence") and _wooden_fence(name) == _wooden_fence(other)
    return same or _gate_across(there, side) or _joins_solid(there, OPPOSITE[side])


def _pane_side(here: BlockState, there: BlockState | None, side: str) -> bool:
    other = _id(there)
    return other.endswith("_pane") or other == "iron_bars" or _joins_solid(there, OPPOSITE[side])


def _wall_side(here: BlockState, there: BlockState | None, side: str) -> bool:
    return _id(there).endswith("_wall") or _gate_across(there, side) or _joins_solid(there, OPPOSITE[side])


@lru_cache(maxsize=4096)  # per distinct state: a file has few
def _conductor(state: BlockState | None) -> bool:
    """A full opaque block that carries power (the game's "normal cube")."""
    name = _id(state)
    return is_full(state) and not (name in _NOT_CONDUCTING or name.endswith(("_leaves", "_stained_glass")))


@lru_cache(maxsize=4096)  # per distinct state: a file has few
def _top_solid(state: BlockState | None) -> bool:
    """Wire can lie on its top."""
    name = _id(state)
    if name.endswith(("_slab", "_stairs")):
        return solid_face(state, "up")
    return name in ("hopper", "glowstone") or _conductor(state)


def _powers(state: BlockState | None, side: str) -> bool:
    """Wire runs towards ``side`` to this neighbour without climbing."""
    name = _id(state)
    if name == "redstone_wire":
        return True
    if name == "repeater":
        return AXIS.get(state.get("facing")) == AXIS[side]
    if name == "observer":
        return state.get("facing") == side
    return name in _POWER or name == "comparator" or name.endswith(("_button", "_pressure_plate"))


class _Shapes:
    def __init__(self, cells: Cells):
        self.cells = cells
        self.derived = 0
        self.families: dict[str, int] = {}

    def at(self, x: int, y: int, z: int, side: str) -> BlockState | None:
        dx, dy, dz = STEP[side]
        return self.cells.state(x + dx, y + dy, z + dz)

    def each(self, test) -> list[tuple[int, int, int, BlockState]]:
        return [(x, y, z, self.cells.state(x, y, z)) for x, y, z in self.cells.where(test)]

    def put(self, family: str, x: int, y: int, z: int, before: BlockState, after: BlockState) -> None:
        """Set a derived state, counting the cell when its shape changed."""
        if after != before:
            self.cells.set(x, y, z, after)
            self.families[family] = self.families.get(family, 0) + 1
            self.derived += 1

    def sides(self, family: str, test, joins) -> None:
        for x, y, z, here in self.each(test):
            values = {side: str(joins(here, self.at(x, y, z, side), side)).lower() for side in SIDES}
            self.put(family, x, y, z, here, with_values(here, **values))


_SHAPED = frozenset(
    "iron_bars redstone_wire tripwire vine chorus_plant pumpkin_stem melon_stem chest trapped_chest".split()
)


def shaped(name: str) -> bool:
    """Whether a block (id without namespace) has a shape derived here."""
    return name in _SHAPED or name.endswith(("_fence", "_fence_gate", "_pane", "_wall", "_stairs"))


def derive_shapes(cells: Cells, block_entities: list) -> tuple[int, list[str]]:
    """Derive every family's shape in ``cells`` (editing them, and swapping chest contents in ``block_entities``);
    (cells derived, the families found) for the conversion line."""
    shapes = _Shapes(cells)
    _stairs(shapes)  # first: a stair's faces, which the others ask, depend on its corner
    shapes.sides("fences", lambda s: s.id.endswith("_fence"), _fence_side)
    shapes.sides("panes and iron bars", lambda s: s.id.endswith("_pane") or s.id == "iron_bars", _pane_side)
    _walls(shapes)
    _fence_gates(shapes)
    _redstone(shapes)
    shapes.sides("tripwire", lambda s: s.id == "tripwire", _tripwire_side)
    _vines(shapes)
    _chorus(shapes)
    _snowy(shapes)
    _stems(shapes)
    _chests(shapes, block_entities)
    return shapes.derived, list(shapes.families)


def _stairs(shapes: _Shapes) -> None:
    stairs = shapes.each(lambda s: s.id.endswith("_stairs") and s.get("facing") in CLOCKWISE)
    original = {(x, y, z): state for x, y, z, state in stairs}
    for x, y, z, here in stairs:

        def stair(side: str, x=x, y=y, z=z) -> BlockState | None:
            dx, dy, dz = STEP[side]
            return original.get((x + dx, y + dy, z + dz))

        shapes.put("stairs", x, y, z, here, with_values(here, shape=_stair_shape(here, stair)))


def _stair_shape(here: BlockState, stair) -> str:
    """The corner a stair makes with the stairs around it (``stair(side)``: the stair there, or None)."""
    facing, half = here.get("facing"), here.get("half")

    def differs(side: str) -> bool:
        other = stair(side)
        return other is None or other.get("facing") != facing or other.get("half") != half

    back, front = stair(facing), stair(OPPOSITE[facing])
    if back is not None and back.get("half") == half and AXIS[back.get("facing")] != AXIS[facing]:
        if differs(OPPOSITE[back.get("facing")]):
            return "outer_left" if back.get("facing") == COUNTER[facing] else "outer_right"
    if front is not None and front.get("half") == half and AXIS[front.get("facing")] != AXIS[facing]:
        if differs(front.get("facing")):
            return "inner_left" if front.get("facing") == COUNTER[facing] else "inner_right"
    return "straight"


def _walls(shapes: _Shapes) -> None:
    for x, y, z, here in shapes.each(lambda s: s.id.endswith("_wall")):
        joined = {side: _wall_side(here, shapes.at(x, y, z, side), side) for side in SIDES}
        straight = (joined["north"] and joined["south"] and not joined["east"] and not joined["west"]) or (
            joined["east"] and joined["west"] and not joined["north"] and not joined["south"]
        )
        up = not straight or _id(shapes.at(x, y, z, "up")) not in ("air", "cave_air", "void_air")
        values = {side: str(value).lower() for side, value in joined.items()}
        shapes.put("walls", x, y, z, here, with_values(here, **values, up=str(up).lower()))


def _fence_gates(shapes: _Shapes) -> None:
    for x, y, z, here in shapes.each(lambda s: s.id.endswith("_fence_gate") and s.get("facing") in AXIS):
        hinge_line = ("west", "east") if AXIS[here.get("facing")] == "z" else ("north", "south")
        in_wall = any(_id(shapes.at(x, y, z, side)).endswith("_wall") for side in hinge_line)
        shapes.put("fence gates", x, y, z, here, with_values(here, in_wall=str(in_wall).lower()))


def _redstone(shapes: _Shapes) -> None:
    for x, y, z, here in shapes.each(lambda s: s.id == "redstone_wire"):
        covered = _conductor(shapes.at(x, y, z, "up"))
        values = {side: _wire_side(shapes, x, y, z, side, covered) for side in SIDES}
        joined = [side for side, value in values.items() if value != "none"]
        if len(joined) == 1:  # drawn through, as a line
            values[OPPOSITE[joined[0]]] = "side"
        elif not joined:  # a cross
            values = dict.fromkeys(SIDES, "side")
        shapes.put("redstone wire", x, y, z, here, with_values(here, **values))


def _wire_side(shapes: _Shapes, x: int, y: int, z: int, side: str, covered: bool) -> str:
    dx, _, dz = STEP[side]
    there = shapes.cells.state(x + dx, y, z + dz)
    below = shapes.cells.state(x + dx, y - 1, z + dz)
    if _powers(there, side) or (not _conductor(there) and _id(below) == "redstone_wire"):
        return "side"
    above = shapes.cells.state(x + dx, y + 1, z + dz)
    if not covered and _top_solid(there) and _id(above) == "redstone_wire":
        return "up" if is_full(there) else "side"
    return "none"


def _tripwire_side(here: BlockState, there: BlockState | None, side: str) -> bool:
    name = _id(there)
    return name == "tripwire" or (name == "tripwire_hook" and there.get("facing") == OPPOSITE[side])


def _vines(shapes: _Shapes) -> None:
    for x, y, z, here in shapes.each(lambda s: s.id == "vine"):
        up = solid_face(shapes.at(x, y, z, "up"), "down")
        shapes.put("vines", x, y, z, here, with_values(here, up=str(up).lower()))


def _chorus(shapes: _Shapes) -> None:
    plant = ("chorus_plant", "chorus_flower")
    for x, y, z, here in shapes.each(lambda s: s.id == "chorus_plant"):
        values = {side: str(_id(shapes.at(x, y, z, side)) in plant).lower() for side in (*SIDES, "up")}
        values["down"] = str(_id(shapes.at(x, y, z, "down")) in (*plant, "end_stone")).lower()
        shapes.put("chorus plants", x, y, z, here, with_values(here, **values))


def _snowy(shapes: _Shapes) -> None:
    """The one family found with numpy: ground is common (thousands of grass blocks), snow on it rare."""
    import numpy as np

    schem = shapes.cells.schem
    names = [state.split("[", 1)[0].partition(":")[2] for state in schem.palette]
    ground = np.array([name in ("grass_block", "podzol", "mycelium") for name in names])
    snow = np.array([name in ("snow", "snow_block") for name in names])
    for y, z, x in np.argwhere(ground[schem.blocks[:-1]] & snow[schem.blocks[1:]]).tolist():
        here = shapes.cells.state(x, y, z)
        shapes.put("snowy grass", x, y, z, here, with_values(here, snowy="true"))


def _stems(shapes: _Shapes) -> None:
    fruit = {"pumpkin_stem": "carved_pumpkin", "melon_stem": "melon"}
    grown = shapes.each(lambda s: s.id in fruit and s.get("age") == "7")
    for x, y, z, here in grown:
        side = next((s for s in ("north", "east", "south", "west") if _fruit(shapes.at(x, y, z, s), here.id)), None)
        if side is not None:
            shapes.put("stems", x, y, z, here, BlockState(f"minecraft:attached_{here.id}", (("facing", side),)))


def _fruit(state: BlockState | None, stem: str) -> bool:
    name = _id(state)
    return name == "melon" if stem == "melon_stem" else name in ("pumpkin", "carved_pumpkin")


def _chests(shapes: _Shapes, block_entities: list) -> None:
    cells = shapes.cells
    kinds = ("chest", "trapped_chest")
    by_pos = {tuple(int(p) for p in be.pos): be for be in block_entities}
    for x, y, z, _ in shapes.each(lambda s: s.id in kinds):
        here = cells.state(x, y, z)
        facing = here.get("facing")
        if here.get("type") != "single" or facing not in CLOCKWISE:
            continue
        for side in SIDES:
            there = shapes.at(x, y, z, side)
            if AXIS[side] == AXIS[facing] or there is None or there.name != here.name:
                continue
            if there.get("type") != "single" or there.get("facing") != facing:
                continue
            kind = "left" if side == CLOCKWISE[facing] else "right"
            dx, _, dz = STEP[side]
            shapes.put("double chests", x, y, z, here, with_values(here, type=kind))
            other = with_values(there, type="right" if kind == "left" else "left")
            shapes.put("double chests", x + dx, y, z + dz, there, other)
            if facing in ("north", "east"):
                _swap_items(by_pos.get((x, y, z)), by_pos.get((x + dx, y, z + dz)))
            break


def _swap_items(one, other) -> None:
    if one is None or other is None or not isinstance(one.data, dict) or not isinstance(other.data, dict):
        return
    from mcb.schematics.formats.common import without

    mine, theirs = one.data.get("Items"), other.data.get("Items")
    one.data, other.data = without(one.data, "Items"), without(other.data, "Items")
    if theirs is not None:
        one.data["Items"] = theirs
    if mine is not None:
        other.data["Items"] = mine
