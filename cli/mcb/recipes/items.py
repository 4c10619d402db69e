"""Item-only materials that people write as recipe blocks, and the block each one probably meant.

``Bukkit.createBlockData`` refuses item-only materials (they have no block form), so the server answers
``unsupported_block``. The block registry only knows blocks; this table lets lint say *why* and suggest the block.
The list covers the usual mix-ups (resources, seeds, buckets, tools), not every item of the game.
"""

from __future__ import annotations

ITEM_ONLY_TO_BLOCK: dict[str, str | None] = {
    "diamond": "diamond_block",
    "emerald": "emerald_block",
    "iron_ingot": "iron_block",
    "gold_ingot": "gold_block",
    "copper_ingot": "copper_block",
    "netherite_ingot": "netherite_block",
    "coal": "coal_block",
    "charcoal": "coal_block",
    "lapis_lazuli": "lapis_block",
    "quartz": "quartz_block",
    "redstone": "redstone_wire",
    "glowstone_dust": "glowstone",
    "amethyst_shard": "amethyst_block",
    "raw_iron": "raw_iron_block",
    "raw_gold": "raw_gold_block",
    "raw_copper": "raw_copper_block",
    "snowball": "snow_block",
    "clay_ball": "clay",
    "brick": "bricks",
    "nether_brick": "nether_bricks",
    "slime_ball": "slime_block",
    "honeycomb": "honeycomb_block",
    "string": "tripwire",
    "wheat_seeds": "wheat",
    "beetroot_seeds": "beetroots",
    "melon_seeds": "melon_stem",
    "pumpkin_seeds": "pumpkin_stem",
    "carrot": "carrots",
    "potato": "potatoes",
    "cocoa_beans": "cocoa",
    "sweet_berries": "sweet_berry_bush",
    "glow_berries": "cave_vines",
    "water_bucket": "water",
    "lava_bucket": "lava",
    "powder_snow_bucket": "powder_snow",
    "flint_and_steel": "fire",
    "bucket": None,
    "stick": None,
    "flint": None,
    "feather": None,
    "leather": None,
    "paper": None,
    "book": "bookshelf",
    "ender_pearl": None,
    "bone": "bone_block",
    "bone_meal": "bone_block",
    "arrow": None,
    "bow": None,
    "oak_boat": None,
    "minecart": "rail",
    "item_frame": None,
    "painting": None,
    "armor_stand": None,
    "wooden_sword": None,
    "iron_sword": None,
    "diamond_sword": None,
    "iron_pickaxe": None,
    "diamond_pickaxe": None,
    "apple": None,
    "bread": None,
    "sugar": None,
    "egg": None,
    "nether_star": "beacon",
    "blaze_rod": None,
    "prismarine_shard": "prismarine",
    "prismarine_crystals": "sea_lantern",
    "dried_kelp": "dried_kelp_block",
}


def item_only(block_id: str) -> tuple[bool, str | None]:
    """(True, suggested block or None) when ``block_id`` (``minecraft:x``) is a known item-only material."""
    name = block_id.partition(":")[2] if ":" in block_id else block_id
    if name in ITEM_ONLY_TO_BLOCK:
        target = ITEM_ONLY_TO_BLOCK[name]
        return True, None if target is None else f"minecraft:{target}"
    return False, None
