"""Display colours of blocks, shared by `mcb schem render` and the camera of `mcb serve`.

:func:`block_colour` tries an exact table for common blocks, then ores, dye colours, wood types and material words
(stone kinds, glass, plants, ...), then a stable hash colour: every block gets a colour, the same block always the
same one. ``INVISIBLE`` names the blocks a picture shows as empty space. Pure Python, no imports of ours.
"""

from __future__ import annotations

import hashlib

INVISIBLE = frozenset({"air", "cave_air", "void_air", "structure_void", "light", "barrier"})
RGB = tuple[int, int, int]

WOOD = {  # (planks, log bark, leaves) per wood type
    "oak": ((162, 130, 78), (109, 85, 50), (72, 118, 40)),
    "spruce": ((114, 84, 48), (58, 37, 16), (60, 92, 60)),
    "birch": ((192, 175, 121), (216, 215, 210), (96, 130, 62)),
    "jungle": ((160, 115, 80), (85, 67, 25), (48, 128, 28)),
    "acacia": ((168, 90, 50), (103, 96, 86), (80, 120, 30)),
    "dark_oak": ((66, 43, 20), (60, 46, 26), (50, 90, 30)),
    "mangrove": ((117, 54, 48), (84, 66, 41), (70, 120, 40)),
    "cherry": ((226, 178, 172), (54, 33, 44), (228, 160, 190)),
    "pale_oak": ((230, 220, 215), (90, 85, 82), (160, 168, 150)),
    "bamboo": ((194, 173, 80), (125, 140, 50), (100, 150, 50)),
    "crimson": ((101, 48, 70), (92, 25, 29), (150, 20, 20)),
    "warped": ((43, 104, 99), (58, 58, 77), (22, 120, 110)),
}
DYES = {
    "white": (233, 236, 236),
    "orange": (240, 118, 19),
    "magenta": (189, 68, 179),
    "light_blue": (58, 175, 217),
    "yellow": (248, 197, 39),
    "lime": (112, 185, 25),
    "pink": (237, 141, 172),
    "gray": (62, 68, 71),
    "light_gray": (142, 142, 134),
    "cyan": (21, 137, 145),
    "purple": (121, 42, 172),
    "blue": (53, 57, 157),
    "brown": (114, 71, 40),
    "green": (84, 109, 27),
    "red": (161, 39, 34),
    "black": (20, 21, 25),
}
EXACT: dict[str, RGB] = {  # blocks the material words below would colour wrongly (or less well)
    "mossy_cobblestone": (110, 118, 95),
    "smooth_stone": (158, 158, 158),
    "mossy_stone_bricks": (115, 121, 105),
    "polished_granite": (154, 107, 89),
    "polished_diorite": (192, 193, 194),
    "polished_andesite": (132, 134, 133),
    "cobbled_deepslate": (77, 77, 80),
    "calcite": (223, 224, 220),
    "dirt": (134, 96, 67),
    "coarse_dirt": (119, 85, 59),
    "rooted_dirt": (144, 103, 76),
    "grass_block": (95, 159, 53),
    "podzol": (91, 63, 24),
    "mycelium": (111, 99, 105),
    "mud": (60, 57, 60),
    "dirt_path": (148, 121, 65),
    "farmland": (81, 44, 15),
    "clay": (160, 166, 179),
    "gravel": (131, 127, 126),
    "sand": (219, 207, 163),
    "red_sand": (190, 102, 33),
    "red_sandstone": (181, 97, 31),
    "snow": (249, 254, 254),
    "snow_block": (249, 254, 254),
    "ice": (145, 183, 253),
    "packed_ice": (141, 180, 250),
    "blue_ice": (116, 167, 253),
    "water": (52, 92, 206),
    "lava": (207, 92, 20),
    "bedrock": (85, 85, 85),
    "obsidian": (15, 10, 24),
    "crying_obsidian": (32, 10, 60),
    "glass": (200, 220, 230),
    "tinted_glass": (44, 38, 46),
    "netherrack": (97, 38, 38),
    "red_nether_bricks": (69, 7, 9),
    "soul_sand": (81, 62, 50),
    "soul_soil": (75, 57, 46),
    "basalt": (80, 81, 86),
    "glowstone": (171, 131, 84),
    "end_stone_bricks": (218, 224, 162),
    "prismarine_bricks": (99, 171, 158),
    "dark_prismarine": (51, 91, 75),
    "sea_lantern": (172, 199, 190),
    "iron_block": (220, 220, 220),
    "gold_block": (246, 208, 61),
    "diamond_block": (98, 237, 228),
    "emerald_block": (42, 203, 87),
    "lapis_block": (30, 67, 140),
    "redstone_block": (175, 24, 5),
    "coal_block": (16, 15, 15),
    "amethyst_block": (133, 97, 191),
    "hay_block": (166, 136, 38),
    "pumpkin": (198, 118, 24),
    "melon": (111, 145, 30),
    "cactus": (85, 127, 43),
    "bookshelf": (117, 94, 59),
    "tnt": (219, 68, 52),
    "redstone_wire": (175, 24, 5),
    "torch": (255, 200, 80),
    "lantern": (255, 190, 90),
    "chest": (164, 116, 48),
    "crafting_table": (120, 73, 42),
    "furnace": (110, 110, 110),
    "moss_block": (89, 109, 45),
    "terracotta": (152, 94, 67),
    "magma_block": (142, 63, 31),
    "sponge": (195, 192, 74),
    "slime_block": (111, 192, 91),
    "honey_block": (251, 185, 52),
    "target": (226, 170, 157),
    "rail": (125, 110, 90),
    "iron_bars": (136, 139, 135),
    "ladder": (127, 98, 51),
    "vine": (58, 96, 30),
    "fern": (80, 130, 50),
    "kelp": (60, 120, 40),
    "seagrass": (50, 110, 40),
    "lily_pad": (32, 128, 48),
    "cobweb": (220, 220, 220),
    "note_block": (88, 58, 40),
    "repeater": (160, 150, 150),
    "comparator": (165, 150, 148),
    "barrel": (134, 100, 58),
    "observer": (98, 98, 98),
    "piston": (153, 127, 85),
    "sticky_piston": (120, 150, 90),
    "piston_head": (153, 127, 85),
    "lever": (110, 95, 75),
    "iron_trapdoor": (202, 202, 202),
    "iron_door": (194, 193, 193),
    "end_rod": (230, 225, 215),
    "chain": (60, 65, 80),
    "iron_chain": (60, 65, 80),
    "lightning_rod": (200, 110, 80),
    "bone_block": (229, 225, 207),
    "blast_furnace": (108, 108, 110),
    "smoker": (107, 90, 70),
    "campfire": (150, 100, 60),
    "hopper": (70, 70, 74),
    "anvil": (68, 68, 68),
    "loom": (142, 119, 92),
    "beehive": (180, 146, 90),
    "bee_nest": (200, 160, 70),
    "scaffolding": (170, 134, 80),
    "composter": (118, 78, 40),
    "cauldron": (60, 60, 64),
    "beacon": (117, 220, 215),
    "wheat": (170, 160, 60),
    "potatoes": (90, 140, 50),
    "carrots": (90, 140, 50),
    "sweet_berry_bush": (60, 100, 50),
    "cartography_table": (100, 80, 60),
    "lectern": (173, 137, 83),
    "brewing_stand": (122, 100, 80),
    "jukebox": (94, 64, 47),
    "dispenser": (110, 110, 110),
    "dropper": (110, 110, 110),
    "shroomlight": (240, 146, 70),
    "enchanting_table": (60, 30, 40),
    "smithing_table": (60, 60, 70),
    "powder_snow": (248, 253, 253),
    "polished_basalt": (88, 88, 92),
    "daylight_detector": (130, 116, 94),
    "soul_torch": (100, 200, 210),
    "trapped_chest": (164, 116, 48),
    "ender_chest": (40, 55, 60),
    "fire": (230, 130, 40),
    "glow_lichen": (110, 130, 110),
    "sea_pickle": (100, 110, 40),
    "bell": (240, 200, 80),
    "tripwire_hook": (130, 110, 90),
    "bubble_column": (52, 92, 206),
}
MATERIAL_WORDS = [  # (word in the id, colour), first match wins: the base stone of stairs/slabs/walls, ...
    ("leaves", (70, 120, 40)),
    ("water", EXACT["water"]),
    ("deepslate", (80, 80, 82)),
    ("blackstone", (42, 36, 41)),
    ("cobblestone", (122, 122, 122)),
    ("stone_brick", (122, 121, 122)),
    ("sandstone", (216, 203, 155)),
    ("quartz", (235, 229, 222)),
    ("prismarine", (99, 156, 151)),
    ("purpur", (169, 125, 169)),
    ("nether_brick", (44, 21, 26)),
    ("end_stone", (219, 222, 158)),
    ("mud_brick", (137, 104, 79)),
    ("brick", (150, 97, 83)),
    ("granite", (149, 103, 86)),
    ("diorite", (188, 188, 188)),
    ("andesite", (136, 136, 137)),
    ("tuff", (108, 109, 102)),
    ("copper", (192, 107, 79)),
    ("resin", (217, 99, 25)),
    ("sulfur", (200, 190, 60)),
    ("cinnabar", (170, 50, 40)),
    ("stone", (125, 125, 125)),
    ("glass", EXACT["glass"]),
    ("ice", EXACT["ice"]),
    ("sand", EXACT["sand"]),
    ("potted_", (133, 75, 55)),
    ("froglight", (230, 220, 170)),
    ("head", (150, 120, 100)),
    ("skull", (200, 200, 190)),
    ("rail", EXACT["rail"]),
    ("pressure_plate", (200, 200, 200)),
    ("amethyst", EXACT["amethyst_block"]),
    ("candle", (230, 220, 180)),
    ("vines", (60, 110, 50)),
    ("coral", (200, 80, 130)),
    ("mushroom", (150, 110, 90)),
    ("flower", (220, 200, 60)),
    ("tulip", (220, 90, 60)),
    ("sapling", (70, 120, 40)),
    ("grass", (92, 150, 50)),
]
ORES = {
    "coal": (45, 45, 45),
    "iron": (216, 175, 147),
    "copper": (200, 120, 80),
    "gold": (250, 210, 60),
    "redstone": (200, 20, 20),
    "emerald": (40, 200, 90),
    "lapis": (40, 70, 180),
    "diamond": (100, 230, 225),
    "quartz": (230, 220, 210),
}


def block_colour(state: str) -> RGB:
    """A display colour for a block state (namespace and properties are ignored)."""
    block = state.split("[", 1)[0].rpartition(":")[2]
    if block in EXACT:
        return EXACT[block]
    if block.endswith("_ore"):
        host = (80, 80, 82) if "deepslate" in block else (97, 38, 38) if "nether" in block else (125, 125, 125)
        mineral = next((c for word, c in ORES.items() if word in block), (180, 180, 180))
        return _mix(host, mineral, 0.45)
    for dye in sorted(DYES, key=len, reverse=True):  # light_gray before gray
        if block.startswith(dye + "_"):
            return _dyed(DYES[dye], block[len(dye) + 1 :])
    for wood in sorted(WOOD, key=len, reverse=True):  # dark_oak/pale_oak before oak
        if block.startswith(wood + "_") or block.startswith("stripped_" + wood + "_"):
            planks, bark, leaves = WOOD[wood]
            if "leaves" in block:
                return leaves
            if any(part in block for part in ("_log", "_wood", "_stem", "_hyphae")):
                return planks if block.startswith("stripped_") else bark
            return planks
    return next((colour for word, colour in MATERIAL_WORDS if word in block), None) or _hash_colour(block)


def _dyed(base: RGB, material: str) -> RGB:
    if material.startswith("terracotta") or material.startswith("glazed_terracotta"):
        return _mix(base, (152, 94, 67), 0.45)
    if material.startswith("wool") or material.startswith("carpet"):
        return _mix(base, (255, 255, 255), 0.12)
    if "glass" in material:
        return _mix(base, (255, 255, 255), 0.35)
    return base  # concrete, concrete powder, candles, beds, banners, shulker boxes


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b))  # type: ignore[return-value]


def _hash_colour(block: str) -> RGB:
    digest = hashlib.blake2s(block.encode(), digest_size=3).digest()
    return tuple(64 + d * 160 // 255 for d in digest)  # type: ignore[return-value]
