"""Completing the 1.13 states of a legacy read: content 1.12 kept in block entities, and halves it kept apart.

:func:`complete_states` edits the model in place and returns what it did as conversions
(``{"change", "cells", "carried"}``), so a read says what it converted and what it could not carry.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from mcb.blocks.state import BlockState, parse_state
from mcb.schematics.model import Schematic

COLOURS = (
    "white",
    "orange",
    "magenta",
    "light_blue",
    "yellow",
    "lime",
    "pink",
    "gray",
    "light_gray",
    "cyan",
    "purple",
    "blue",
    "brown",
    "green",
    "red",
    "black",
)
SKULLS = (
    ("skeleton_skull", "skeleton_wall_skull"),
    ("wither_skeleton_skull", "wither_skeleton_wall_skull"),
    ("zombie_head", "zombie_wall_head"),
    ("player_head", "player_wall_head"),
    ("creeper_head", "creeper_wall_head"),
    ("dragon_head", "dragon_wall_head"),
)
TALL_PLANTS = {"sunflower", "lilac", "tall_grass", "large_fern", "rose_bush", "peony"}
CLOCKWISE = {"north": "east", "east": "south", "south": "west", "west": "north"}
STEP = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0)}
# The numeric format never stored these; they come out at their 1.13 defaults.
DEFAULTED = (
    ("_fence", "fence connections"),
    ("_pane", "glass pane connections"),
    ("iron_bars", "iron bar connections"),
    ("_wall", "wall connections"),
    ("redstone_wire", "redstone wire connections"),
    ("tripwire", "tripwire connections"),
    ("_stairs", "stair corner shapes"),
    ("fire", "fire faces"),
    ("chorus_plant", "chorus plant connections"),
)


class _Cells:
    """Cell edits by position, adding states to the palette as needed."""

    def __init__(self, schem: Schematic, counts: list[int]):
        self.schem = schem
        self.index = {state: i for i, state in enumerate(schem.palette)}
        self.parsed: dict[int, BlockState] = {}
        self.counts = counts
        self.names = [state.split("[", 1)[0].partition(":")[2] for state in schem.palette]
        # Where the few blocks this module completes stand, found in one pass over the cells, by palette index
        interesting = np.array([_interesting(name) for name in self.names] or [False])
        self.found: dict[int, list[tuple[int, int, int]]] = {int(i): [] for i in np.flatnonzero(interesting)}
        if self.found:
            flat = schem.blocks.ravel()
            at = np.flatnonzero(interesting[flat])
            width, length = schem.width, schem.length
            for i, index in zip(at.tolist(), flat[at].tolist()):
                self.found[index].append((i % width, i // (width * length), (i // width) % length))

    def state(self, x: int, y: int, z: int) -> BlockState | None:
        s = self.schem
        if not (0 <= x < s.width and 0 <= y < s.height and 0 <= z < s.length):
            return None
        return self.parsed_at(int(s.blocks[y, z, x]))

    def parsed_at(self, index: int) -> BlockState:
        if index not in self.parsed:
            self.parsed[index] = parse_state(self.schem.palette[index])
        return self.parsed[index]

    def set(self, x: int, y: int, z: int, state: BlockState) -> None:
        text = str(state)
        if text not in self.index:
            self.index[text] = len(self.schem.palette)
            self.schem.palette.append(text)
        self.schem.blocks[y, z, x] = self.index[text]

    def where(self, test) -> list[tuple[int, int, int]]:
        """(x, y, z) of every cell of the read whose state passes ``test`` (one of :func:`_interesting`'s)."""
        return sorted(pos for i, found in self.found.items() if test(self.parsed_at(i)) for pos in found)


def _interesting(name: str) -> bool:
    """The blocks whose positions the completion needs: doors, tall plants, chests, and what needed a 1.12 block
    entity for its colour or type (by id without namespace)."""
    return (
        name.endswith("_door")
        or name in TALL_PLANTS
        or name
        in (
            "chest",
            "trapped_chest",
            "red_bed",
            "white_banner",
            "white_wall_banner",
            "skeleton_skull",
            "skeleton_wall_skull",
        )
    )


def _with(state: BlockState, **values: str) -> BlockState:
    props = dict(state.properties)
    props.update(values)
    return BlockState(state.name, tuple(props.items()))


def complete_states(schem: Schematic, counts: list[int]) -> list[dict]:
    """``counts``: cells per palette entry of the read (``schem``'s palette as read)."""
    cells = _Cells(schem, counts)
    done: Counter = Counter()
    missed: Counter = Counter()
    kept = []
    for be in schem.block_entities:
        state = cells.state(*be.pos)
        consumed = _from_block_entity(cells, be, state, done) if state is not None else False
        if not consumed:
            kept.append(be)
    schem.block_entities = kept
    _missing_block_entities(cells, schem, missed)
    _doors(cells, done, missed)
    _tall_plants(cells, done, missed)
    _chests(cells, done)
    for name, count in zip(cells.names, counts):
        what = next((what for suffix, what in DEFAULTED if name.endswith(suffix)), None)
        if count and what is not None:
            missed[f"{what}: not stored by the numeric format, left at their 1.13 defaults"] += count
    return [{"change": change, "cells": n, "carried": True} for change, n in done.items()] + [
        {"change": change, "cells": n, "carried": False} for change, n in missed.items()
    ]


def _from_block_entity(cells: _Cells, be, state: BlockState, done: Counter) -> bool:
    """Move what 1.13 keeps in the state out of a 1.12 block entity; True when the block entity is used up."""
    x, y, z = be.pos
    data = be.data
    name = state.id
    if name == "flower_pot" and be.id.endswith("flower_pot"):
        plant = _potted(data)
        if plant is not None:
            cells.set(x, y, z, BlockState(f"minecraft:potted_{plant}"))
            done["flower pot plants: from the block entity into the state (potted_*)"] += 1
        return True  # a 1.13 flower pot has no block entity
    if name == "note_block" and be.id.endswith("noteblock"):
        note = data.get("note")
        if isinstance(note, int) and 0 <= int(note) <= 24:
            cells.set(x, y, z, _with(state, note=str(int(note))))
            done["note block pitches: from the block entity into the state"] += 1
        return True
    if name.endswith("_bed") and isinstance(data.get("color"), int) and 0 <= int(data["color"]) < 16:
        cells.set(x, y, z, BlockState(f"minecraft:{COLOURS[int(data['color'])]}_bed", state.properties))
        be.data = _without(data, "color")
        done["bed colours: from the block entity into the block"] += 1
    elif name.endswith("banner") and isinstance(data.get("Base"), int) and 0 <= int(data["Base"]) < 16:
        kind = "wall_banner" if name.endswith("wall_banner") else "banner"
        cells.set(x, y, z, BlockState(f"minecraft:{COLOURS[15 - int(data['Base'])]}_{kind}", state.properties))
        be.data = _without(data, "Base")
        done["banner colours: from the block entity into the block"] += 1
    elif name in ("skeleton_skull", "skeleton_wall_skull") and isinstance(data.get("SkullType"), int):
        kind = int(data["SkullType"])
        if 0 <= kind < len(SKULLS):
            if name == "skeleton_skull":
                rotation = int(data.get("Rot", 0)) & 15
                new = BlockState(f"minecraft:{SKULLS[kind][0]}", (("rotation", str(rotation)),))
            else:
                new = BlockState(f"minecraft:{SKULLS[kind][1]}", state.properties)
            cells.set(x, y, z, new)
            be.data = _without(data, "SkullType", "Rot")
            done["skull types and rotations: from the block entity into the state"] += 1
    return False


def _potted(data) -> str | None:
    from mcb.schematics.formats.legacy import legacy_table

    item, value = data.get("Item"), int(data.get("Data", 0) or 0)
    table = legacy_table()
    if isinstance(item, str):
        if not item or item == "minecraft:air":
            return None
        number = table["ids"].get(item if ":" in item else f"minecraft:{item}")
    elif isinstance(item, int):
        number = int(item)
    else:
        return None
    if not number:
        return None
    name = table["items"].get(f"{number}:{value}") or table["items"].get(f"{number}:0")
    if name is None:
        return None
    plant = name.partition(":")[2]
    return {"grass": "fern"}.get(plant, plant)  # 1.12 potted "tall grass" was a fern


def _without(data, *keys):
    from mcb.schematics.formats.common import without

    return without(data, *keys)


def _missing_block_entities(cells: _Cells, schem: Schematic, missed: Counter) -> None:
    """Blocks whose 1.13 state needed their 1.12 block entity, where the file has none."""
    with_entity = {be.pos for be in schem.block_entities}
    checks = (
        (lambda s: s.id in ("red_bed",), "beds without their block entity: colour left red"),
        (
            lambda s: s.id in ("white_banner", "white_wall_banner"),
            "banners without their block entity: colour left white",
        ),
        (
            lambda s: s.id in ("skeleton_skull", "skeleton_wall_skull"),
            "skulls without their block entity: left skeleton skulls",
        ),
    )
    for test, what in checks:
        count = sum(1 for pos in cells.where(test) if pos not in with_entity)
        if count:
            missed[what] += count


def _doors(cells: _Cells, done: Counter, missed: Counter) -> None:
    """1.12 stored a door's facing and open in its lower half, its hinge and powered in the upper one."""
    for x, y, z in cells.where(lambda s: s.id.endswith("_door") and s.get("half") == "lower"):
        lower, upper = cells.state(x, y, z), cells.state(x, y + 1, z)
        if upper is None or upper.name != lower.name or upper.get("half") != "upper":
            missed["door lower halves without their upper half: hinge left at the default"] += 1
            continue
        cells.set(x, y, z, _with(lower, hinge=upper.get("hinge"), powered=upper.get("powered")))
        cells.set(x, y + 1, z, _with(upper, facing=lower.get("facing"), open=lower.get("open")))
        done["doors: each half completed from the other"] += 2


def _tall_plants(cells: _Cells, done: Counter, missed: Counter) -> None:
    """1.12 stored which tall plant it was in the lower half only."""
    for x, y, z in cells.where(lambda s: s.id in TALL_PLANTS and s.get("half") == "upper"):
        below = cells.state(x, y - 1, z)
        if below is not None and below.id in TALL_PLANTS and below.get("half") == "lower":
            cells.set(x, y, z, BlockState(below.name, (("half", "upper"),)))
            done["tall plant tops: named after their lower half"] += 1
        else:
            missed["tall plant tops without their lower half: left sunflowers"] += 1


def _chests(cells: _Cells, done: Counter) -> None:
    """Two side-by-side chests of one kind facing one way were one double chest in 1.12; 1.13 states which half."""
    paired: set[tuple[int, int, int]] = set()
    for x, y, z in cells.where(lambda s: s.id in ("chest", "trapped_chest") and s.get("type") == "single"):
        if (x, y, z) in paired:
            continue
        here = cells.state(x, y, z)
        facing = here.get("facing")
        if facing not in CLOCKWISE:
            continue
        dx, dz = STEP[CLOCKWISE[facing]]  # a left half's partner stands clockwise of its facing
        there = cells.state(x + dx, y, z + dz)
        if (
            there is None
            or there.name != here.name
            or there.get("facing") != facing
            or there.get("type") != "single"
            or (x + dx, y, z + dz) in paired
        ):
            continue
        cells.set(x, y, z, _with(here, type="left"))
        cells.set(x + dx, y, z + dz, _with(there, type="right"))
        paired |= {(x, y, z), (x + dx, y, z + dz)}
        done["double chests: halves paired (1.12 joined neighbouring chests itself)"] += 2
