"""Which items a placed block state takes out of a player's inventory, and how many of an item fit in one slot.

    items_for_state("minecraft:oak_slab[type=double,waterlogged=false]")   # (("minecraft:oak_slab", 2),)
    items_for_state("minecraft:oak_door[half=upper,...]")                  # (): the lower half counts the door
    items_for_state("minecraft:potted_fern")        # (("minecraft:flower_pot", 1), ("minecraft:fern", 1))
    stack_size("minecraft:oak_sign")                # 16

The rules are the ones Litematica's material list applies (the counts builders know): what a player picks from the
block in creative, with its overrides — one item for a door, bed or tall plant (the lower half or the foot counts),
two slabs for a double slab, one item per layer, pickle, egg, candle or petal, a bucket for a fluid's source and
nothing for flowing fluid, a pot and a plant for a potted plant, dirt for farmland and dirt paths, and nothing for
piston heads, portals, fire and air. A candle cake takes a cake and a candle (Litematica counts the cake alone);
petals and leaf litter count by their amount (Litematica: one). Waterlogging takes no bucket, as in Litematica.

Most blocks are placed by the item of the same name; the exceptions are listed below, each with why.
"""

from __future__ import annotations

import re
from functools import lru_cache

from mcb.blocks.state import StateSyntaxError, parse_state

NAMESPACE = "minecraft:"

# Blocks that no item places: air, parts that another block makes, portals, fire (lit with flint and steel, which is
# not used up), and what the game makes itself (frosted ice, bubble columns) or leaves unchanged (structure_void).
NO_ITEM = frozenset(
    """
    air cave_air void_air piston_head moving_piston nether_portal end_portal end_gateway fire soul_fire
    bubble_column frosted_ice structure_void
    """.split()
)

# Blocks placed by an item of another name (the block is a plant, crop or wire the item turns into).
PLACED_BY = {
    "redstone_wire": "redstone",
    "tripwire": "string",
    "wheat": "wheat_seeds",  # the crop; the `wheat` item is the harvest
    "carrots": "carrot",
    "potatoes": "potato",
    "beetroots": "beetroot_seeds",
    "torchflower_crop": "torchflower_seeds",
    "pitcher_crop": "pitcher_pod",
    "melon_stem": "melon_seeds",
    "attached_melon_stem": "melon_seeds",
    "pumpkin_stem": "pumpkin_seeds",
    "attached_pumpkin_stem": "pumpkin_seeds",
    "cocoa": "cocoa_beans",
    "sweet_berry_bush": "sweet_berries",
    "cave_vines": "glow_berries",
    "cave_vines_plant": "glow_berries",
    "kelp_plant": "kelp",  # the stem below the tip; every block of it is one kelp
    "weeping_vines_plant": "weeping_vines",
    "twisting_vines_plant": "twisting_vines",
    "tall_seagrass": "seagrass",  # grown from seagrass with bone meal; its lower half counts
    "big_dripleaf_stem": "big_dripleaf",
    "bamboo_sapling": "bamboo",
    "powder_snow": "powder_snow_bucket",
    "water_cauldron": "cauldron",  # filled by a bucket or the rain; the cauldron is what is placed
    "lava_cauldron": "cauldron",
    "powder_snow_cauldron": "cauldron",
    "farmland": "dirt",  # tilled with a hoe
    "dirt_path": "dirt",  # made with a shovel
}

# A potted plant is a flower pot and the plant; these two plants are named otherwise inside a pot.
POTTED_PLANT = {"azalea_bush": "azalea", "flowering_azalea_bush": "flowering_azalea"}

# Wall-mounted forms are placed by the standing item: oak_wall_sign -> oak_sign, wall_torch -> torch.
_WALL_FORM = re.compile(r"(?:(\w+)_)?wall_(torch|sign|hanging_sign|banner|head|skull|fan)")

# Properties that say how many items one block holds.
COUNT_PROPERTIES = ("layers", "pickles", "eggs", "candles", "flower_amount", "segment_amount")
# Blocks that grow on any of their six faces (multiface): one item per face covered.
MULTIFACE = frozenset({"glow_lichen", "sculk_vein", "resin_clump"})
FACES = ("north", "east", "south", "west", "up", "down")

SHULKER_BOX_SLOTS = 27


@lru_cache(maxsize=8192)
def items_for_state(state: str) -> tuple[tuple[str, int], ...]:
    """The items (namespaced id, count) that placing one block of ``state`` uses; ``()`` for none."""
    try:
        parsed = parse_state(state)
    except StateSyntaxError:  # a palette entry no block state reads as: its own name, one item
        return ((state, 1),)
    full, properties = parsed.name, dict(parsed.properties)
    if not full.startswith(NAMESPACE):  # a mod's block: its item has its name
        return ((full, 1),)
    name = full[len(NAMESPACE) :]
    if name in NO_ITEM or properties.get("half") == "upper" or properties.get("part") == "head":
        return ()  # the lower half of a door or tall plant, and a bed's foot, count the item
    if name in ("water", "lava"):
        return ((f"{NAMESPACE}{name}_bucket", 1),) if properties.get("level", "0") == "0" else ()
    if name.startswith("potted_"):
        plant = name[len("potted_") :]
        return ((NAMESPACE + "flower_pot", 1), (NAMESPACE + POTTED_PLANT.get(plant, plant), 1))
    if name.endswith("candle_cake"):
        return ((NAMESPACE + "cake", 1), (NAMESPACE + name[: -len("_cake")], 1))
    return ((NAMESPACE + _item_name(name), _count(name, properties)),)


def _item_name(name: str) -> str:
    if name in PLACED_BY:
        return PLACED_BY[name]
    wall = _WALL_FORM.fullmatch(name)
    if wall:
        prefix, kind = wall.groups()
        return f"{prefix}_{kind}" if prefix else kind
    return name


def _count(name: str, properties: dict[str, str]) -> int:
    if name.endswith("_slab") and properties.get("type") == "double":
        return 2
    if name in MULTIFACE:
        return max(1, sum(properties.get(face) == "true" for face in FACES))
    for key in COUNT_PROPERTIES:
        value = properties.get(key)
        if value is not None and value.isdigit():
            return max(1, int(value))
    return 1


def stack_size(item: str) -> int:
    """How many of ``item`` one inventory slot holds: 1 for beds, shulker boxes, cake and filled buckets, 16 for
    signs and banners, else 64 (the stack sizes of every block item of 26.2, and of the items above)."""
    name = item.rpartition(":")[2]
    if name in ("cake", "water_bucket", "lava_bucket", "powder_snow_bucket") or name.endswith(("_bed", "shulker_box")):
        return 1
    if name.endswith(("_sign", "_banner")):
        return 16
    return 64


def as_stacks(count: int, item: str) -> dict:
    """``count`` items as people pack them: full stacks and the rest, and the shulker boxes (27 slots) they fill."""
    size = stack_size(item)
    stacks, remainder = divmod(count, size)
    slots = stacks + (remainder > 0)
    return {
        "stack_size": size,
        "stacks": stacks,
        "remainder": remainder,
        "shulker_boxes": -(-slots // SHULKER_BOX_SLOTS),
    }
