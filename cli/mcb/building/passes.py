"""Build order by block kind, and the two-block things a plan must never split.

Builders paste in passes (Litematica's "schematic placement" order): solid blocks first, then blocks that hang on
others (torches, rails, levers, buttons, carpets, redstone, vines, plants, doors), fluids last, so nothing drops or
washes away. Air is part of the first pass (clearing happens with the solids).

Two-block things — doors and tall plants (``half=lower|upper``), beds (``part=foot|head``), double chests
(``type=left|right``) — are pairs: :func:`partner_offset` says where a half's other half stands, so the planner
keeps both in one plan.
"""

from __future__ import annotations

import re

SOLID, ATTACHED, FLUID = 0, 1, 2
PASS_NAMES = ("solid", "attached", "fluids")

_FLUIDS = frozenset({"water", "lava", "bubble_column"})
# Blocks that need a neighbour to stand on or hang from (names without the namespace).
_ATTACHED = re.compile(
    r"(\w+_)?torch|\w*wall_torch|(\w+_)?rail|lever|\w+_button|(\w+_)?carpet|redstone_wire|repeater|comparator"
    r"|vine|(cave|weeping|twisting)_vines(_plant)?|glow_lichen|sculk_vein|resin_clump|ladder|\w+_sign"
    r"|\w+_banner|\w+_pressure_plate|\w+_door|tripwire(_hook)?|\w+_sapling|mangrove_propagule|snow"
    r"|(dead_)?\w+_coral(_wall)?_fan|(dead_)?\w+_coral|(soul_)?lantern|bell|(\w+_)?candle|sea_pickle|lily_pad"
    r"|sugar_cane|cactus|bamboo(_sapling)?|kelp(_plant)?|(tall_)?seagrass|short_grass|grass|(large_)?fern"
    r"|tall_grass|(short_|tall_)?dry_grass|dead_bush|bush|firefly_bush|(red|brown)_mushroom|\w+_fungus"
    r"|\w+_roots|nether_sprouts|\w+_tulip|dandelion|poppy|blue_orchid|allium|azure_bluet|oxeye_daisy|cornflower"
    r"|lily_of_the_valley|wither_rose|sunflower|lilac|rose_bush|peony|torchflower(_crop)?|pitcher_(plant|crop)"
    r"|(open|closed)_eyeblossom|spore_blossom|hanging_roots|\w+_amethyst_bud|amethyst_cluster|pointed_dripstone"
    r"|big_dripleaf(_stem)?|small_dripleaf|frogspawn|pink_petals|wildflowers|leaf_litter|wheat|carrots|potatoes"
    r"|beetroots|(attached_)?(melon|pumpkin)_stem|nether_wart|sweet_berry_bush|cocoa|chorus_(plant|flower)"
    r"|scaffolding|turtle_egg|(soul_)?fire|\w+_wall_(head|skull)|pale_hanging_moss"
)
_CLOCKWISE = ("north", "east", "south", "west")
_STEP = {"north": (0, 0, -1), "east": (1, 0, 0), "south": (0, 0, 1), "west": (-1, 0, 0)}


def _split(state: str) -> tuple[str, dict[str, str]]:
    name, _, rest = state.partition("[")
    block = name.partition(":")[2] if ":" in name else name
    props = dict(item.split("=", 1) for item in rest.rstrip("]").split(",") if "=" in item) if rest else {}
    return block, props


def build_pass(state: str) -> int:
    """:data:`SOLID`, :data:`ATTACHED` or :data:`FLUID` for a block state (``minecraft:water[level=0]`` -> FLUID)."""
    block, _ = _split(state)
    if block in _FLUIDS:
        return FLUID
    if _ATTACHED.fullmatch(block):
        return ATTACHED
    return SOLID


def partner_offset(state: str) -> tuple[int, int, int] | None:
    """Where the other half of a two-block thing stands, relative to this half; None for a single block."""
    block, props = _split(state)
    half = props.get("half")
    if half in ("lower", "upper"):
        return (0, 1, 0) if half == "lower" else (0, -1, 0)
    facing = props.get("facing")
    if facing not in _STEP:
        return None
    part = props.get("part")
    if part in ("foot", "head") and block.endswith("bed"):
        dx, dy, dz = _STEP[facing]
        return (dx, dy, dz) if part == "foot" else (-dx, -dy, -dz)
    kind = props.get("type")
    if kind in ("left", "right") and block.endswith("chest"):
        turn = 1 if kind == "left" else 3  # the game's getConnectedDirection: left -> clockwise of facing
        return _STEP[_CLOCKWISE[(_CLOCKWISE.index(facing) + turn) % 4]]
    return None
