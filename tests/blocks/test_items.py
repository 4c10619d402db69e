"""Which items a placed block takes (mcb.blocks.items): each of Litematica's material-list rules on a hand-picked
state, and the tables checked against the 26.2 block list (every block-only form has its item, every item exists,
every stack size is the game's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcb.blocks.items import NO_ITEM, PLACED_BY, POTTED_PLANT, as_stacks, items_for_state, stack_size
from mcb.blocks.registry import load_registry

BLOCKS_26_2 = Path(__file__).resolve().parents[2].parent / "shared" / "blockdata" / "minecraft-data-pc-26.2"


@pytest.mark.parametrize(
    "state,items",
    [
        ("minecraft:stone", {"stone": 1}),
        ("stone", {"stone": 1}),  # no namespace: minecraft's
        ("minecraft:oak_door[facing=north,half=lower,hinge=left,open=false,powered=false]", {"oak_door": 1}),
        ("minecraft:oak_door[facing=north,half=upper,hinge=left,open=false,powered=false]", {}),
        ("minecraft:red_bed[facing=north,occupied=false,part=foot]", {"red_bed": 1}),
        ("minecraft:red_bed[facing=north,occupied=false,part=head]", {}),
        ("minecraft:sunflower[half=lower]", {"sunflower": 1}),
        ("minecraft:sunflower[half=upper]", {}),
        ("minecraft:tall_seagrass[half=lower]", {"seagrass": 1}),
        ("minecraft:tall_seagrass[half=upper]", {}),
        ("minecraft:oak_stairs[facing=east,half=top,shape=straight,waterlogged=false]", {"oak_stairs": 1}),
        ("minecraft:oak_slab[type=double,waterlogged=false]", {"oak_slab": 2}),
        ("minecraft:oak_slab[type=top,waterlogged=true]", {"oak_slab": 1}),  # waterlogging takes no bucket
        ("minecraft:chest[facing=north,type=left,waterlogged=false]", {"chest": 1}),  # each half is a chest
        ("minecraft:redstone_wire[east=side,north=none,power=3,south=none,west=side]", {"redstone": 1}),
        ("minecraft:tripwire[attached=true,disarmed=false,east=true,north=false,powered=false]", {"string": 1}),
        ("minecraft:water[level=0]", {"water_bucket": 1}),
        ("minecraft:water[level=3]", {}),
        ("minecraft:lava[level=0]", {"lava_bucket": 1}),
        ("minecraft:lava[level=8]", {}),
        ("minecraft:powder_snow", {"powder_snow_bucket": 1}),
        ("minecraft:candle[candles=3,lit=false,waterlogged=false]", {"candle": 3}),
        ("minecraft:blue_candle[candles=4,lit=true,waterlogged=false]", {"blue_candle": 4}),
        ("minecraft:sea_pickle[pickles=4,waterlogged=true]", {"sea_pickle": 4}),
        ("minecraft:turtle_egg[eggs=2,hatch=0]", {"turtle_egg": 2}),
        ("minecraft:snow[layers=5]", {"snow": 5}),
        ("minecraft:pink_petals[facing=north,flower_amount=3]", {"pink_petals": 3}),
        (
            "minecraft:glow_lichen[down=true,east=false,north=true,south=false,up=false,waterlogged=false,west=true]",
            {"glow_lichen": 3},
        ),
        ("minecraft:vine[east=true,north=true,south=false,up=false,west=false]", {"vine": 1}),
        ("minecraft:potted_fern", {"flower_pot": 1, "fern": 1}),
        ("minecraft:potted_azalea_bush", {"flower_pot": 1, "azalea": 1}),
        ("minecraft:potted_flowering_azalea_bush", {"flower_pot": 1, "flowering_azalea": 1}),
        ("minecraft:flower_pot", {"flower_pot": 1}),
        ("minecraft:candle_cake[lit=false]", {"cake": 1, "candle": 1}),
        ("minecraft:red_candle_cake[lit=true]", {"cake": 1, "red_candle": 1}),
        ("minecraft:farmland[moisture=7]", {"dirt": 1}),
        ("minecraft:dirt_path", {"dirt": 1}),
        ("minecraft:piston[extended=true,facing=up]", {"piston": 1}),
        ("minecraft:piston_head[facing=up,short=false,type=normal]", {}),
        ("minecraft:moving_piston[facing=up,type=normal]", {}),
        ("minecraft:nether_portal[axis=x]", {}),
        ("minecraft:end_portal", {}),
        ("minecraft:end_gateway", {}),
        ("minecraft:fire[age=0,east=false,north=false,south=false,up=false,west=false]", {}),
        ("minecraft:air", {}),
        ("minecraft:cave_air", {}),
        ("minecraft:structure_void", {}),
        ("minecraft:wall_torch[facing=east]", {"torch": 1}),
        ("minecraft:soul_wall_torch[facing=east]", {"soul_torch": 1}),
        ("minecraft:oak_wall_sign[facing=east,waterlogged=false]", {"oak_sign": 1}),
        ("minecraft:oak_wall_hanging_sign[facing=east,waterlogged=false]", {"oak_hanging_sign": 1}),
        ("minecraft:red_wall_banner[facing=east]", {"red_banner": 1}),
        ("minecraft:skeleton_wall_skull[facing=east,powered=false]", {"skeleton_skull": 1}),
        ("minecraft:dead_tube_coral_wall_fan[facing=east,waterlogged=false]", {"dead_tube_coral_fan": 1}),
        (
            "minecraft:cobblestone_wall[east=low,north=none,south=none,up=true,waterlogged=false,west=low]",
            {"cobblestone_wall": 1},
        ),
        ("minecraft:wheat[age=7]", {"wheat_seeds": 1}),
        ("minecraft:carrots[age=2]", {"carrot": 1}),
        ("minecraft:kelp_plant", {"kelp": 1}),
        ("minecraft:cave_vines_plant[berries=true]", {"glow_berries": 1}),
        ("minecraft:water_cauldron[level=2]", {"cauldron": 1}),
        ("example:ruby_block", {"example:ruby_block": 1}),  # a mod's block: its own item
    ],
)
def test_items_of_one_block(state, items):
    expected = {(name if ":" in name else f"minecraft:{name}"): count for name, count in items.items()}
    assert dict(items_for_state(state)) == expected


def test_stacks_and_shulker_boxes_as_people_plan_chests():
    assert as_stacks(5000, "minecraft:stone") == {"stack_size": 64, "stacks": 78, "remainder": 8, "shulker_boxes": 3}
    assert as_stacks(64 * 27, "minecraft:stone")["shulker_boxes"] == 1
    assert as_stacks(64 * 27 + 1, "minecraft:stone")["shulker_boxes"] == 2
    assert as_stacks(20, "minecraft:oak_sign") == {"stack_size": 16, "stacks": 1, "remainder": 4, "shulker_boxes": 1}
    assert as_stacks(3, "minecraft:red_bed") == {"stack_size": 1, "stacks": 3, "remainder": 0, "shulker_boxes": 1}
    assert as_stacks(0, "minecraft:stone") == {"stack_size": 64, "stacks": 0, "remainder": 0, "shulker_boxes": 0}
    assert stack_size("minecraft:water_bucket") == stack_size("minecraft:powder_snow_bucket") == 1
    assert stack_size("minecraft:redstone") == stack_size("minecraft:string") == 64


@pytest.fixture(scope="module")
def blocks_26_2() -> list[dict]:
    return json.loads((BLOCKS_26_2 / "blocks.json").read_text())


def test_every_block_item_stacks_as_the_game_says(blocks_26_2):
    from mcb.server.catalog_data import is_item_form

    wrong = {
        block["name"]: (block["stackSize"], stack_size(block["name"]))
        for block in blocks_26_2
        if is_item_form(block["name"]) and block["stackSize"] != stack_size(block["name"])
    }
    assert not wrong


def test_every_block_of_26_2_is_placed_by_an_item_that_exists_or_by_none(blocks_26_2):
    """A block without an item of its own name (mcb.server.catalog_data's rule, checked against minecraft-data's
    item list) names another item, or none; every item named is a real one."""
    from mcb.server.catalog_data import is_item_form, item_only_ids

    items = {block["name"] for block in blocks_26_2 if is_item_form(block["name"])} | set(item_only_ids())
    registry = load_registry("26.2")
    unknown, unmapped = {}, []
    for block in blocks_26_2:
        name = block["name"]
        taken = items_for_state(registry.block(name).default_state)
        named = [item.removeprefix("minecraft:") for item, _ in taken]
        if not is_item_form(name) and named == [name]:
            unmapped.append(name)  # would ask for an item that does not exist
        missing = [item for item in named if item not in items]
        if missing:
            unknown[name] = missing
    assert not unmapped and not unknown


def test_every_block_the_tables_name_is_a_26_2_block(blocks_26_2):
    names = {block["name"] for block in blocks_26_2}
    assert set(PLACED_BY) <= names
    assert NO_ITEM <= names
    assert {f"potted_{plant}" for plant in POTTED_PLANT} <= names
