"""The ``behavior`` hints of ``material_describe`` (protocol §3.3, terrain-materials §6.4), derived offline.

The plugin reads them from Bukkit at runtime. Here most come from the block's own properties, which is how Bukkit's
BlockData interfaces are chosen in the first place; two (``gravity``, ``block_entity``) need name lists, because the
block data says nothing about falling or tile entities. ``basis`` records, per flag, which rule fired, so a caller
can tell a property-derived fact from a name-list one.

| flag                  | rule here                                                              | Bukkit side             |
|-----------------------|------------------------------------------------------------------------|-------------------------|
| gravity               | name list: sand, red_sand, gravel, suspicious_*, *_concrete_powder,     | Material.hasGravity()   |
|                       | anvils, dragon_egg, pointed_dripstone, scaffolding                     |                         |
| fluid                 | water or lava                                                          | protocol: water or lava |
| waterloggable         | has property ``waterlogged``                                           | Waterlogged             |
| multi_block           | door (``half`` upper/lower + ``hinge``) or bed (``part`` head/foot)    | protocol: doors, beds   |
| half_property         | has property ``half`` (top/bottom or upper/lower)                      | Bisected                |
| attachment_sensitive  | has ``face`` (buttons, lever, grindstone) or ``attached`` (tripwire,   | FaceAttachable,         |
|                       | tripwire hook, hanging signs)                                          | Attachable              |
| leaf_decay            | has ``persistent`` and ``distance`` (leaves)                           | Leaves                  |
| block_entity          | name list of vanilla block-entity blocks (below)                       | TileState               |
"""

from __future__ import annotations

import re

BEHAVIOR_ORDER = (
    "gravity",
    "fluid",
    "waterloggable",
    "multi_block",
    "half_property",
    "attachment_sensitive",
    "leaf_decay",
    "block_entity",
)

_GRAVITY = re.compile(
    r"(sand|red_sand|gravel|suspicious_sand|suspicious_gravel|\w+_concrete_powder|anvil|chipped_anvil|damaged_anvil"
    r"|dragon_egg|pointed_dripstone|scaffolding)"
)
# Blocks whose state carries a block entity in vanilla 1.17-26.2 (signs, containers, heads, beds, banners, ...).
_BLOCK_ENTITY = re.compile(
    r"(\w+_sign|\w+_shelf|\w+_banner|\w+_bed|(\w+_)?shulker_box|(\w+_)?copper_chest|(\w+_)?copper_golem_statue"
    r"|\w+_(skull|head)|chest|trapped_chest|ender_chest|barrel|furnace|blast_furnace|smoker|brewing_stand|beacon"
    r"|bee_nest|beehive|bell|(soul_)?campfire|(chain_|repeating_)?command_block|structure_block|jigsaw"
    r"|chiseled_bookshelf|comparator|conduit|crafter|creaking_heart|daylight_detector|decorated_pot|dispenser"
    r"|dropper|enchanting_table|end_gateway|end_portal|hopper|jukebox|lectern|moving_piston|spawner|trial_spawner"
    r"|vault|(calibrated_)?sculk_sensor|sculk_catalyst|sculk_shrieker|suspicious_sand|suspicious_gravel"
    r"|test_block|test_instance_block)"
)


def has_block_entity(block_id: str) -> bool:
    """Whether a block (``chest`` or ``minecraft:chest``) carries a block entity in vanilla."""
    return _BLOCK_ENTITY.fullmatch(block_id.partition(":")[2] if ":" in block_id else block_id) is not None


def describe_behavior(info) -> dict:
    """``{"behavior": [flags in protocol order], "basis": {flag: rule}}`` for a :class:`BlockInfo`."""
    block_id = info.name.partition(":")[2]
    props = info.properties
    basis: dict[str, str] = {}
    if _GRAVITY.fullmatch(block_id):
        basis["gravity"] = "name list (falling blocks)"
    if block_id in ("water", "lava"):
        basis["fluid"] = "water or lava"
    if "waterlogged" in props:
        basis["waterloggable"] = "property waterlogged"
    if "hinge" in props and props.get("half") == ("upper", "lower"):
        basis["multi_block"] = "door: properties half=upper|lower and hinge"
    elif set(props.get("part", ())) == {"head", "foot"}:
        basis["multi_block"] = "bed: property part=head|foot"
    if "half" in props:
        basis["half_property"] = f"property half={'|'.join(props['half'])}"
    if "face" in props:
        basis["attachment_sensitive"] = "property face (face-attachable)"
    elif "attached" in props:
        basis["attachment_sensitive"] = "property attached (attachable)"
    if "persistent" in props and "distance" in props:
        basis["leaf_decay"] = "properties persistent and distance (leaves)"
    if _BLOCK_ENTITY.fullmatch(block_id):
        basis["block_entity"] = "name list (block-entity blocks)"
    return {"behavior": [flag for flag in BEHAVIOR_ORDER if flag in basis], "basis": basis}
