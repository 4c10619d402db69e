"""Block entities' ids: the type a block's entity has, and whether an id is one the game can read.

Some writers leave the id out (Litematica tile entities without ``id``); the block standing there says what it is
when the block has exactly one kind of block entity (a chest: ``minecraft:chest``; every sign: ``minecraft:sign``).
:func:`name_block_entities` does that after every read; what it cannot name is reported and written by no format
(:mod:`mcb.schematics.formats.losses`).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcb.schematics.model import Schematic

# block id (no namespace) -> its block entity type, where they differ or the block is its own type
_TYPE_OF = {
    "spawner": "mob_spawner",
    "moving_piston": "piston",
    "soul_campfire": "campfire",
    "bee_nest": "beehive",
    "chain_command_block": "command_block",
    "repeating_command_block": "command_block",
    "suspicious_sand": "brushable_block",
    "suspicious_gravel": "brushable_block",
}
_OWN_TYPE = frozenset(
    "chest trapped_chest ender_chest barrel beacon bell brewing_stand campfire chiseled_bookshelf comparator conduit "
    "crafter creaking_heart daylight_detector decorated_pot dispenser dropper enchanting_table end_gateway end_portal "
    "furnace blast_furnace smoker hopper jigsaw jukebox lectern structure_block trial_spawner vault sculk_sensor "
    "calibrated_sculk_sensor sculk_catalyst sculk_shrieker beehive command_block test_block test_instance_block "
    "flower_pot".split()
)
# (name pattern, type): families of blocks that share one type
_FAMILIES = (
    (re.compile(r"\w+_(wall_)?hanging_sign"), "hanging_sign"),
    (re.compile(r"\w+_(wall_)?sign|sign|wall_sign"), "sign"),
    (re.compile(r"\w+_bed"), "bed"),
    (re.compile(r"\w+_(wall_)?banner"), "banner"),
    (
        re.compile(r"(skeleton|wither_skeleton)_(wall_)?skull|(zombie|player|creeper|dragon|piglin)_(wall_)?head"),
        "skull",
    ),
    (re.compile(r"(\w+_)?shulker_box"), "shulker_box"),
    (re.compile(r"\w+_shelf"), "shelf"),
)
_RESOURCE_LOCATION = re.compile(r"([a-z0-9_.-]+:)?[a-z0-9_./-]+")


def block_entity_type(state: str) -> str | None:
    """``minecraft:chest`` for ``minecraft:chest[facing=north]``: the one block-entity type of a block, or None
    (a block without one, or one mcb does not know)."""
    name = state.split("[", 1)[0]
    namespace, _, block = name.rpartition(":")
    if namespace not in ("", "minecraft"):
        return None
    if block in _TYPE_OF:
        return f"minecraft:{_TYPE_OF[block]}"
    if block in _OWN_TYPE:
        return f"minecraft:{block}"
    found = next((kind for pattern, kind in _FAMILIES if pattern.fullmatch(block)), None)
    return f"minecraft:{found}" if found else None


def is_resource_location(text: str) -> bool:
    """Whether the game can read ``text`` as an id (``minecraft:skull``, ``skull``; not ``"minecraft:skull"``)."""
    return _RESOURCE_LOCATION.fullmatch(text) is not None


def name_block_entities(schem: Schematic) -> None:
    """Give block entities without an id the type of the block they stand on, where it has one; say what was
    named and what was not in ``schem.source.notes``."""
    missing = [be for be in schem.block_entities if not be.id]
    if not missing:
        return
    named: Counter = Counter()
    unnamed: list[str] = []
    for be in missing:
        x, y, z = (int(p) for p in be.pos)
        inside = 0 <= x < schem.width and 0 <= y < schem.height and 0 <= z < schem.length
        state = schem.state_at(x, y, z) if inside else None
        kind = block_entity_type(state) if state is not None else None
        if kind is not None:
            be.id = kind
            named[kind] += 1
        else:
            unnamed.append(f"{x},{y},{z} ({state.split('[', 1)[0] if state else 'outside the box'})")
    from mcb.wording import plural

    if named:
        kinds = ", ".join(f"{kind} x{count:,}" for kind, count in named.most_common())
        schem.source.notes.append(
            f"{plural(sum(named.values()), 'block entity', 'block entities')} without an id named after their "
            f"block: {kinds}"
        )
    if unnamed:
        schem.source.notes.append(
            f"{plural(len(unnamed), 'block entity', 'block entities')} without an id on a block with no block "
            f"entity of one kind, at {', '.join(unnamed[:5])}{', ...' if len(unnamed) > 5 else ''}: no format "
            "can write them"
        )
