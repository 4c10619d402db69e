"""`mcb materials`: the text, CSV and JSON a user sees, --top, a bad --format, and --target against a live
`mcb serve`: what is still to place, what is in place and what is in the way, read without any operation."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from mcb.schematics.formats import write_any
from mcb.schematics.model import Schematic

STONE, AIR = "minecraft:stone", "minecraft:air"
DOUBLE_SLAB = "minecraft:oak_slab[type=double,waterlogged=false]"
BOTTOM_SLAB = "minecraft:oak_slab[type=bottom,waterlogged=false]"
DOOR = "minecraft:oak_door[facing=north,half={},hinge=left,open=false,powered=false]"
GRASS = "minecraft:grass_block[snowy=false]"


@pytest.fixture
def site(tmp_path):
    """A file 5 wide and 2 high (one row along x), worked out by hand: it takes 3 stone, 2 oak slabs, 1 door.

    y=0: stone, stone, double slab, air,   door (lower)
    y=1: air,   air,   air,         stone, door (upper)
    """
    layers = [[STONE, STONE, DOUBLE_SLAB, AIR, DOOR.format("lower")], [AIR, AIR, AIR, STONE, DOOR.format("upper")]]
    palette = list(dict.fromkeys(state for layer in layers for state in layer))
    blocks = np.array([[[palette.index(s) for s in layer]] for layer in layers], dtype=np.int32)
    path = tmp_path / "site.schem"
    write_any(Schematic(5, 2, 1, palette, blocks, 4903), path, "sponge2")
    return path


def set_blocks(server, blocks: dict) -> None:
    from mcb.client import McbClient

    with McbClient(server.url, admin_token=server.admin_token, agent_token=server.agent_token) as client:
        client.call(
            "test_set_blocks",
            {"blocks": [{"pos": dict(zip("xyz", pos)), "state": state} for pos, state in blocks.items()]},
            admin=True,
            scoped=False,
        )


def test_text_lists_items_with_stacks_and_boxes(cli, site):
    result = cli("materials", str(site))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"{site}: 6 items of 3 kinds for 6 blocks (Minecraft 26.2)"
    rows = [line.split("│") for line in lines[3:]]
    assert [[cell.strip() for cell in row] for row in rows] == [
        ["minecraft:stone", "3", "3", "1"],
        ["minecraft:oak_slab", "2", "2", "1"],
        ["minecraft:oak_door", "1", "1", "1"],
    ]


def test_top_and_csv(cli, site):
    top = cli("materials", str(site), "--top", "1")
    assert top.exit_code == 0 and "minecraft:oak_slab" not in top.stdout
    assert top.stdout.rstrip().endswith("and 2 more kinds (--top 0 lists all)")
    table = cli("materials", str(site), "--format", "csv")
    assert table.exit_code == 0, table.stderr
    assert list(csv.reader(io.StringIO(table.stdout))) == [
        ["item", "count", "stack_size", "stacks", "remainder", "shulker_boxes"],
        ["minecraft:stone", "3", "64", "0", "3", "1"],
        ["minecraft:oak_slab", "2", "64", "0", "2", "1"],
        ["minecraft:oak_door", "1", "64", "0", "1", "1"],
    ]


def test_a_bad_format_and_a_missing_file_are_told_plainly(cli, site, tmp_path):
    bad = cli("materials", str(site), "--format", "xml")
    assert bad.exit_code == 2 and "--format must be text, json or csv, not 'xml'" in bad.stderr
    missing = cli("materials", str(tmp_path / "nope.schem"))
    assert missing.exit_code == 1 and "nope.schem" in missing.stderr and "Traceback" not in missing.stderr


def test_target_subtracts_what_the_world_holds(mcb, live_server, site):
    # The world under the file: grass along y=63 and air above, then one stone and a bottom slab put in place.
    ground = {(x, 63, 0): GRASS for x in range(5)}
    above = {(x, 64, 0): AIR for x in range(5)}
    set_blocks(live_server, {**ground, **above, (0, 63, 0): STONE, (2, 63, 0): BOTTOM_SLAB})
    operations = mcb("context", "--json").json()["operations_total"]
    result = mcb("materials", site, "--target", "0,63,0", "--json")
    assert result.exit_code == 0, result.stderr
    data = result.json()
    assert data["target"] == {"x": 0, "y": 63, "z": 0} and data["box"] == {
        "min": {"x": 0, "y": 63, "z": 0},
        "max": {"x": 4, "y": 64, "z": 0},
    }
    rows = {row["item"].removeprefix("minecraft:"): row for row in data["items"]}
    assert {item: (r["needed"], r["in_place"], r["count"]) for item, r in rows.items()} == {
        "stone": (3, 1, 2),
        "oak_slab": (2, 1, 1),  # a bottom slab stands where the file has a double one
        "oak_door": (1, 0, 1),
    }
    world = data["world"]
    assert (world["compared"], world["in_place"], world["to_place"], world["other_state"]) == (10, 2, 4, 1)
    # grass where the file wants stone, air and the door's lower half
    assert world["in_the_way"] == [{"block": "minecraft:grass_block", "count": 3}] and world["in_the_way_total"] == 3
    assert mcb("context", "--json").json()["operations_total"] == operations  # reads only

    text = mcb("materials", site, "--target", "0,63,0")
    assert text.exit_code == 0, text.stderr
    assert f"{site} at 0,63,0: 4 items still to place of 6 (3 kinds); 2 in place" in text.stdout
    assert "in the way: 3 blocks (minecraft:grass_block 3)" in text.stdout
    assert "other state: 1 position holds the block with other properties" in text.stdout
    table = mcb("materials", site, "--target", "0,63,0", "--format", "csv")
    assert list(csv.reader(io.StringIO(table.stdout)))[:2] == [
        ["item", "needed", "in_place", "count", "stack_size", "stacks", "remainder", "shulker_boxes"],
        ["minecraft:stone", "3", "1", "2", "64", "0", "2", "1"],
    ]


def test_a_target_outside_the_project_area_is_refused_before_reading(mcb, site):
    """`materials` and `verify` only read: far outside the area they say nothing was read there (they said "nothing
    was written", the words of a build)."""
    area = mcb("context", "--json").json()["region"]
    low, high = area["min"], area["max"]
    for command in ("materials", "verify"):
        result = mcb(command, site, "--target", "1000,63,0")
        assert result.exit_code == 1
        assert result.stderr.startswith(
            "error: nothing was read: the file's box 1000,63,0 .. 1004,64,0 is outside the project area "
            f"{low['x']},{low['y']},{low['z']} .. {high['x']},{high['y']},{high['z']}: it sticks out "
        ), result.stderr
        assert "written" not in result.stderr and result.stdout == ""
