"""Completing the 1.13 states of a legacy read: content 1.12 kept in block entities, halves it kept apart, and the
shapes it derived from neighbours (:mod:`.legacy_shapes`).

:func:`complete_states` edits the model in place and returns what it did as conversions
(``{"change", "cells", "carried"}``), so a read says what it converted and what it could not carry.
"""

from __future__ import annotations

from collections import Counter

from mcb.blocks.state import BlockState
from mcb.schematics.formats.legacy_cells import Cells, with_values
from mcb.schematics.formats.legacy_shapes import derive_shapes, shaped
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
# The numeric format never stored these and no shape is derived for them: they come out at their 1.13 defaults.
DEFAULTED = (("fire", "fire faces"),)


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


def complete_states(schem: Schematic, counts: list[int]) -> list[dict]:
    """``counts``: cells per palette entry of the read (``schem``'s palette as read)."""
    cells = Cells(schem, counts, lambda name: _interesting(name) or shaped(name))
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
    derived, families = derive_shapes(cells, schem.block_entities)
    if derived:
        done[f"shapes derived from their neighbours, as Minecraft 1.12 showed them ({', '.join(families)})"] = derived
    for name, count in zip(cells.names, counts):
        what = next((what for suffix, what in DEFAULTED if name.endswith(suffix)), None)
        if count and what is not None:
            missed[f"{what}: not stored by the numeric format, left at their 1.13 defaults"] += count
    return [{"change": change, "cells": n, "carried": True} for change, n in done.items()] + [
        {"change": change, "cells": n, "carried": False} for change, n in missed.items()
    ]


def _from_block_entity(cells: Cells, be, state: BlockState, done: Counter) -> bool:
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
            cells.set(x, y, z, with_values(state, note=str(int(note))))
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


def _missing_block_entities(cells: Cells, schem: Schematic, missed: Counter) -> None:
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


def _doors(cells: Cells, done: Counter, missed: Counter) -> None:
    """1.12 stored a door's facing and open in its lower half, its hinge and powered in the upper one."""
    for x, y, z in cells.where(lambda s: s.id.endswith("_door") and s.get("half") == "lower"):
        lower, upper = cells.state(x, y, z), cells.state(x, y + 1, z)
        if upper is None or upper.name != lower.name or upper.get("half") != "upper":
            missed["door lower halves without their upper half: hinge left at the default"] += 1
            continue
        cells.set(x, y, z, with_values(lower, hinge=upper.get("hinge"), powered=upper.get("powered")))
        cells.set(x, y + 1, z, with_values(upper, facing=lower.get("facing"), open=lower.get("open")))
        done["doors: each half completed from the other"] += 2


def _tall_plants(cells: Cells, done: Counter, missed: Counter) -> None:
    """1.12 stored which tall plant it was in the lower half only."""
    for x, y, z in cells.where(lambda s: s.id in TALL_PLANTS and s.get("half") == "upper"):
        below = cells.state(x, y - 1, z)
        if below is not None and below.id in TALL_PLANTS and below.get("half") == "lower":
            cells.set(x, y, z, BlockState(below.name, (("half", "upper"),)))
            done["tall plant tops: named after their lower half"] += 1
        else:
            missed["tall plant tops without their lower half: left sunflowers"] += 1
