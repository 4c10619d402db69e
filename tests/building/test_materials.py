"""`mcb materials FILE` offline: each counting rule on a small file made here and worked out by hand, cells a file
leaves unchanged, turns that change nothing, and the totals of two real corpus files computed independently (nbtlib
reads the palette and the cells, and a small rule set of its own names the items)."""

from __future__ import annotations

import gzip
import json
from collections import Counter

import nbtlib
import numpy as np
import pytest
from buildkit import CORPUS_DIR

from mcb.schematics.formats import write_any
from mcb.schematics.model import Schematic

TEXAS = CORPUS_DIR / "v3_nucleation_uss-texas.schem"
HOUSE = CORPUS_DIR / "v2_schematic4j_interieur-exterieur.schem"


def row_file(tmp_path, states: list[str], fmt: str = "sponge2", name: str = "row", void=None):
    """A file of one row of cells along x, one per state (1 x 1 x len)."""
    palette = list(dict.fromkeys(states))
    blocks = np.array([[[palette.index(state) for state in states]]], dtype=np.int32)
    void_mask = None if void is None else np.array([[void]], dtype=bool)
    schem = Schematic(len(states), 1, 1, palette, blocks, 4903, void=void_mask)
    suffix = {"sponge2": ".schem", "structure": ".nbt", "litematic": ".litematic"}[fmt]
    path = tmp_path / f"{name}{suffix}"
    write_any(schem, path, fmt)
    return path


def items_of(cli, path, *args) -> dict:
    result = cli("materials", str(path), "--json", *args)
    assert result.exit_code == 0, result.stderr
    return {row["item"].removeprefix("minecraft:"): row["count"] for row in json.loads(result.stdout)["items"]}


def run_json(cli, *args) -> dict:
    result = cli(*map(str, args))
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


# (states of the file, the items they take worked out by hand)
RULES = {
    "door once": (
        [
            "oak_door[facing=north,half=lower,hinge=left,open=false,powered=false]",
            "oak_door[facing=north,half=upper,hinge=left,open=false,powered=false]",
        ],
        {"oak_door": 1},
    ),
    "bed once": (
        ["red_bed[facing=east,occupied=false,part=foot]", "red_bed[facing=east,occupied=false,part=head]"],
        {"red_bed": 1},
    ),
    "tall plant once": (
        ["sunflower[half=lower]", "sunflower[half=upper]", "rose_bush[half=lower]"],
        {
            "sunflower": 1,
            "rose_bush": 1,
        },
    ),
    "double slab is two": (
        ["oak_slab[type=double,waterlogged=false]"] * 3 + ["oak_slab[type=bottom,waterlogged=false]"],
        {"oak_slab": 7},
    ),
    "wire and string": (
        ["redstone_wire[east=none,north=side,power=0,south=side,west=none]"] * 2
        + ["tripwire[attached=false,disarmed=false,east=true,north=false,powered=false,south=false,west=true]"],
        {"redstone": 2, "string": 1},
    ),
    "fluids by the bucket": (
        ["water[level=0]", "water[level=0]", "water[level=4]", "lava[level=0]", "lava[level=2]"],
        {"water_bucket": 2, "lava_bucket": 1},
    ),
    "counts by property": (
        [
            "candle[candles=3,lit=false,waterlogged=false]",
            "sea_pickle[pickles=4,waterlogged=true]",
            "turtle_egg[eggs=2,hatch=0]",
            "snow[layers=5]",
            "snow[layers=8]",
        ],
        {"candle": 3, "sea_pickle": 4, "turtle_egg": 2, "snow": 13},
    ),
    "potted plant is a pot and the plant": (
        ["potted_fern", "potted_cactus", "potted_azalea_bush", "flower_pot"],
        {"flower_pot": 4, "fern": 1, "cactus": 1, "azalea": 1},
    ),
    "farmland and paths are dirt": (["farmland[moisture=7]", "dirt_path", "dirt"], {"dirt": 3}),
    "piston heads, portals, fire and air are nothing": (
        [
            "piston[extended=true,facing=up]",
            "piston_head[facing=up,short=false,type=normal]",
            "nether_portal[axis=x]",
            "fire[age=0,east=false,north=false,south=false,up=false,west=false]",
            "air",
        ],
        {"piston": 1},
    ),
    "wall forms are the standing item": (
        [
            "wall_torch[facing=east]",
            "oak_wall_sign[facing=east,waterlogged=false]",
            "oak_sign[rotation=0,waterlogged=false]",
            "red_wall_banner[facing=east]",
        ],
        {"torch": 1, "oak_sign": 2, "red_banner": 1},
    ),
}


@pytest.mark.parametrize("rule", list(RULES))
def test_each_counting_rule_on_a_hand_worked_file(rule, cli, tmp_path):
    states, expected = RULES[rule]
    path = row_file(tmp_path, [f"minecraft:{state}" for state in states])
    assert items_of(cli, path) == expected


def test_the_totals_and_the_stacks_of_a_hand_worked_file(cli, tmp_path):
    states = ["minecraft:stone"] * 100 + ["minecraft:oak_sign[rotation=0,waterlogged=false]"] * 20 + ["minecraft:air"]
    data = run_json(cli, "materials", row_file(tmp_path, states), "--json")
    assert (data["cells"], data["blocks"], data["items_total"], data["kinds"]) == (121, 120, 120, 2)
    assert data["world"] is None and data["target"] is None and data["shown"] == 2
    assert data["items"] == [
        {"item": "minecraft:stone", "count": 100, "stack_size": 64, "stacks": 1, "remainder": 36, "shulker_boxes": 1},
        {"item": "minecraft:oak_sign", "count": 20, "stack_size": 16, "stacks": 1, "remainder": 4, "shulker_boxes": 1},
    ]


def test_cells_the_file_leaves_unchanged_count_nothing(cli, tmp_path):
    states = ["minecraft:stone", "minecraft:stone", "minecraft:glass", "minecraft:stone"]
    path = row_file(tmp_path, states, fmt="structure", void=[False, True, True, False])
    assert items_of(cli, path) == {"stone": 2}
    data = run_json(cli, "materials", path, "--json")
    assert data["cells"] == 2 and data["blocks"] == 2


def test_turning_the_file_changes_no_count(cli, tmp_path):
    states = ["minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]"] * 3 + [
        "minecraft:oak_slab[type=double,waterlogged=false]"
    ]
    path = row_file(tmp_path, states)
    plain = items_of(cli, path)
    assert plain == {"oak_stairs": 3, "oak_slab": 2}
    assert items_of(cli, path, "--rotation", "90") == items_of(cli, path, "--mirror", "x") == plain


def test_a_litematic_counts_the_same(cli, tmp_path):
    states, expected = RULES["door once"]
    path = row_file(tmp_path, [f"minecraft:{state}" for state in states], fmt="litematic")
    assert items_of(cli, path) == expected


# -- the corpus, counted independently ------------------------------------------------------------------------------


def _varints(data: bytes) -> list[int]:
    values, value, shift = [], 0, 0
    for byte in data:
        value |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
        else:
            values.append(value)
            value, shift = 0, 0
    return values


def raw_block_counts(path) -> Counter:
    """{state as the file writes it: cells}, straight from the file's NBT (Sponge v2 and v3)."""
    with gzip.open(path) as handle:
        root = nbtlib.File.parse(handle)
    body = root.get("Schematic", root)
    if "Blocks" in body:  # v3
        palette, cells = body["Blocks"]["Palette"], body["Blocks"]["Data"]
    else:
        palette, cells = body["Palette"], body["BlockData"]
    names = {int(index): str(state) for state, index in palette.items()}
    counted = Counter(_varints(bytes(int(b) & 0xFF for b in cells)))
    return Counter({names[index]: n for index, n in counted.items()})


# What the two files need renamed for 26.2 and the items their blocks take, written for this test alone.
RENAMED = {"minecraft:chain": "minecraft:iron_chain", "minecraft:grass": "minecraft:short_grass"}
NOTHING = {"air", "cave_air", "piston_head", "fire"}
CROPS = {
    "carrots": "carrot",
    "potatoes": "potato",
    "wheat": "wheat_seeds",
    "cave_vines": "glow_berries",
    "cave_vines_plant": "glow_berries",
    "sweet_berry_bush": "sweet_berries",
    "twisting_vines_plant": "twisting_vines",
    "redstone_wire": "redstone",
    "tripwire": "string",
    "water_cauldron": "cauldron",
    "farmland": "dirt",
    "powder_snow": "powder_snow_bucket",
}


def independent_items(state: str) -> dict[str, int]:
    block, _, rest = state.partition("[")
    block = RENAMED.get(block, block).removeprefix("minecraft:")
    props = dict(pair.split("=") for pair in rest.rstrip("]").split(",") if pair)
    if block in NOTHING or props.get("half") == "upper" or props.get("part") == "head":
        return {}
    if block == "water":
        return {"water_bucket": 1} if props["level"] == "0" else {}
    if block.startswith("potted_"):
        plant = block[7:].replace("azalea_bush", "azalea")
        return {"flower_pot": 1, plant: 1}
    if "_wall_" in block:  # signs, banners, heads, coral fans on a wall
        block = block.replace("_wall_", "_")
    block = CROPS.get(block, block)
    for amount in ("candles", "pickles", "layers"):
        if amount in props:
            return {block: int(props[amount])}
    return {block: 2 if props.get("type") == "double" and block.endswith("_slab") else 1}


@pytest.mark.parametrize(
    "path,total,kinds", [(TEXAS, 53_860, 93), (HOUSE, 36_385, 352)], ids=["uss-texas", "interieur-exterieur"]
)
def test_corpus_totals_match_an_independent_count(cli, path, total, kinds):
    expected: Counter = Counter()
    for state, cells in raw_block_counts(path).items():
        for item, each in independent_items(state).items():
            expected[f"minecraft:{item}"] += each * cells
    data = run_json(cli, "materials", path, "--json")
    got = {row["item"]: row["count"] for row in data["items"]}
    assert got == dict(expected)
    assert (data["items_total"], data["kinds"]) == (sum(expected.values()), len(expected)) == (total, kinds)
