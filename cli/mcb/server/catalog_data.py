"""The emulator's material list: registry blocks with item flags, plus the item-only materials.

A live server's catalog comes from Bukkit ``Material``: 1,691 entries on 26.2, 1,196 blocks and 1,537 items. Ours
has the 1,196 registry blocks and the 492 item-only ids of minecraft-data 26.1 (the newest release it has items for),
1,688 in all: items new in 26.2 that are not blocks are missing. The item flag of a block follows vanilla: a block is
also an item unless it is one of the placed-only forms below (wall variants, potted plants, crops, fluids, portals,
...); ``scripts/gen_items.py`` checks that rule against minecraft-data's 26.1 item list.
"""

from __future__ import annotations

import functools
import json

from mcb.server.catalog import BlockDescription, CatalogEntry, CatalogError, MaterialCatalog

# Blocks that exist only in the world (Material.isItem() is false for these in vanilla).
_BLOCK_ONLY_IDS = frozenset(
    """
    air cave_air void_air water lava bubble_column fire soul_fire moving_piston piston_head nether_portal
    end_portal end_gateway frosted_ice tall_seagrass redstone_wire tripwire carrots potatoes beetroots cocoa
    sweet_berry_bush melon_stem pumpkin_stem attached_melon_stem attached_pumpkin_stem torchflower_crop
    pitcher_crop kelp_plant cave_vines cave_vines_plant weeping_vines_plant twisting_vines_plant bamboo_sapling
    powder_snow big_dripleaf_stem water_cauldron lava_cauldron powder_snow_cauldron wall_torch
    """.split()
)
_BLOCK_ONLY_SUFFIXES = (
    "_wall_torch",
    "_wall_sign",
    "_wall_hanging_sign",
    "_wall_banner",
    "_wall_head",
    "_wall_skull",
    "_wall_fan",
    "candle_cake",
)
# Vanilla's AIR is an item stack type (the empty stack), so Material.AIR.isItem() is true.
_BLOCK_AND_ITEM_EXCEPTIONS = frozenset({"air"})


def is_item_form(block_id: str) -> bool:
    """Whether a registry block (``oak_log``, no namespace) also exists as an item."""
    if block_id in _BLOCK_AND_ITEM_EXCEPTIONS:
        return True
    if block_id in _BLOCK_ONLY_IDS or block_id.startswith("potted_"):
        return False
    if block_id.endswith("_cauldron"):
        return False
    return not block_id.endswith(_BLOCK_ONLY_SUFFIXES)


@functools.lru_cache(maxsize=1)
def item_only_ids() -> list[str]:
    """Items that are not blocks (tools, food, spawn eggs, ...): minecraft-data's newest item list, 26.1, less its
    blocks (``data/item_ids.json``, made by ``scripts/gen_items.py``)."""
    from importlib import resources

    document = json.loads(resources.files("mcb.server").joinpath("data/item_ids.json").read_text(encoding="utf-8"))
    return list(document["item_only"])


def catalog_entries(block_names: list[str]) -> list[CatalogEntry]:
    """Registry blocks (namespaced) plus the item-only list; an item that is also a block stays one entry."""
    entries = {name: CatalogEntry(name, True, is_item_form(name.partition(":")[2])) for name in block_names}
    for item in item_only_ids():
        entries.setdefault(f"minecraft:{item}", CatalogEntry(f"minecraft:{item}", False, True))
    return list(entries.values())


def describe_from_registry(registry, material_id: str) -> BlockDescription:
    """Default state, property domains and behaviour hints of one block, from the packaged registry."""
    info = registry.block(material_id)
    if info is None:
        raise CatalogError(
            "material_properties_unavailable", f"Runtime property introspection is unavailable for {material_id}"
        )
    properties = {name: _runtime_value_order(values) for name, values in info.properties.items()}
    return BlockDescription(info.default_state, properties, tuple(_behavior_flags(registry, material_id)))


def _runtime_value_order(values: tuple[str, ...]) -> tuple[str, ...]:
    # Bukkit lists boolean domains as false, true (terrain-materials §6.4); minecraft-data has true, false.
    if set(values) == {"true", "false"}:
        return ("false", "true")
    return tuple(values)


def _behavior_flags(registry, material_id: str) -> list[str]:
    behavior = getattr(registry, "behavior", None)
    if behavior is None:
        return []
    flags = behavior(material_id)
    if isinstance(flags, dict):
        flags = flags.get("behavior", [])
    return [flag if isinstance(flag, str) else flag.get("flag", "") for flag in flags]


@functools.lru_cache(maxsize=4)
def build_catalog(release: str | None = None, runtime_version: str | None = None) -> MaterialCatalog:
    """The catalog for one packaged release; ``runtime_version`` stands in for Bukkit's version strings."""
    from mcb.blocks.registry import load_registry

    registry = load_registry(release)
    label = runtime_version or f"{registry.release}/mcb-serve-{registry.release}"
    return MaterialCatalog(
        catalog_entries(registry.names()),
        label,
        functools.partial(describe_from_registry, registry),
    )
