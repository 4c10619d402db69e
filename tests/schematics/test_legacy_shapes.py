"""Shapes a legacy .schematic never stored come out as Minecraft 1.12 showed them, each family checked against a
layout worked out by hand (which neighbours count: mcb.schematics.formats.legacy_shapes)."""

from __future__ import annotations

import json

import pytest
from schem_nbt_bytes import document

from mcb.blocks.state import parse_state
from mcb.schematics.formats import read_any
from mcb.schematics.formats.legacy import legacy_table

SHORT, BYTE, INT, STRING, BYTES, LIST, COMPOUND = 2, 1, 3, 8, 7, 9, 10


def numeric(name: str, **props: str) -> tuple[int, int]:
    """The 1.12 ``(id, data)`` whose 1.13 state is ``minecraft:name`` with these properties."""
    for key, state in sorted(legacy_table()["states"].items(), key=lambda item: [int(p) for p in item[0].split(":")]):
        parsed = parse_state(state)
        if parsed.id == name and all(parsed.get(k) == v for k, v in props.items()):
            block, data = key.split(":")
            return int(block), int(data)
    raise LookupError(name, props)


def legacy(tmp_path, size, cells: dict, tile_entities=()) -> str:
    """A .schematic of ``size`` (x, y, z) holding ``cells`` {(x, y, z): (name, {props})}, air elsewhere."""
    width, height, length = size
    blocks, data = bytearray(width * height * length), bytearray(width * height * length)
    for (x, y, z), (name, props) in cells.items():
        i = (y * length + z) * width + x
        blocks[i], data[i] = numeric(name, **props)
    path = tmp_path / "shapes.schematic"
    path.write_bytes(
        document(
            [
                ("Width", SHORT, width),
                ("Height", SHORT, height),
                ("Length", SHORT, length),
                ("Materials", STRING, "Alpha"),
                ("Blocks", BYTES, bytes(blocks)),
                ("Data", BYTES, bytes(data)),
                ("TileEntities", LIST, (COMPOUND, list(tile_entities))),
                ("Entities", LIST, (COMPOUND, [])),
            ]
        )
    )
    return path


def props(schem, x, y, z, *names) -> dict:
    state = parse_state(schem.state_at(x, y, z))
    return {name: state.get(name) for name in names}


SIDES = ("north", "south", "west", "east")


def test_fences_join_their_material_gates_across_them_and_solid_faces_but_not_glass(tmp_path):
    schem = read_any(
        legacy(
            tmp_path,
            (5, 1, 3),
            {
                (1, 0, 1): ("oak_fence", {}),
                (2, 0, 1): ("spruce_fence", {}),  # every wooden fence joins every wooden fence
                (1, 0, 0): ("nether_brick_fence", {}),  # not wood: no
                (0, 0, 1): ("stone", {}),  # a full block: yes
                (1, 0, 2): ("glass", {}),  # exempt: no
                (3, 0, 1): ("oak_fence_gate", {"facing": "north"}),  # bars run east-west: across the fence
                (2, 0, 0): ("oak_fence_gate", {"facing": "east"}),  # bars run north-south: across it
                (2, 0, 2): ("oak_fence_gate", {"facing": "south"}),  # its face towards the fence: no
            },
        )
    )
    assert props(schem, 1, 0, 1, *SIDES) == {"north": "false", "south": "false", "west": "true", "east": "true"}
    assert props(schem, 2, 0, 1, *SIDES) == {"north": "true", "south": "false", "west": "true", "east": "true"}
    assert props(schem, 1, 0, 0, *SIDES) == dict.fromkeys(SIDES, "false")


def test_panes_and_iron_bars_join_each_other_and_solid_faces_but_not_glass_blocks_or_fences(tmp_path):
    schem = read_any(
        legacy(
            tmp_path,
            (4, 1, 3),
            {
                (1, 0, 1): ("glass_pane", {}),
                (2, 0, 1): ("iron_bars", {}),
                (1, 0, 0): ("stone", {}),
                (0, 0, 1): ("glass", {}),
                (1, 0, 2): ("oak_fence", {}),
                (3, 0, 1): ("white_stained_glass_pane", {}),
            },
        )
    )
    assert props(schem, 1, 0, 1, *SIDES) == {"north": "true", "south": "false", "west": "false", "east": "true"}
    assert props(schem, 2, 0, 1, *SIDES) == {"north": "false", "south": "false", "west": "true", "east": "true"}


def test_walls_join_walls_and_gates_show_their_post_unless_straight_under_air_and_gates_sink_in_walls(tmp_path):
    cells = {(x, 0, 1): ("cobblestone_wall", {}) for x in (1, 2)}
    cells[(3, 0, 1)] = ("mossy_cobblestone_wall", {})
    cells[(4, 0, 1)] = ("oak_fence_gate", {"facing": "north"})  # its hinge line runs east-west: into the wall
    cells.update({(x, 0, 3): ("cobblestone_wall", {}) for x in (1, 2, 3)})
    cells[(2, 1, 3)] = ("stone", {})  # above the middle of the second run
    cells[(0, 0, 3)] = ("glass", {})
    schem = read_any(legacy(tmp_path, (5, 2, 4), cells))
    assert props(schem, 1, 0, 1, *SIDES, "up") == {**dict.fromkeys(SIDES, "false"), "east": "true", "up": "true"}
    assert props(schem, 2, 0, 1, "west", "east", "up") == {"west": "true", "east": "true", "up": "false"}
    assert props(schem, 3, 0, 1, "west", "east", "up") == {"west": "true", "east": "true", "up": "false"}
    assert props(schem, 2, 0, 3, "up") == {"up": "true"}  # straight, but not under air
    assert props(schem, 1, 0, 3, "west") == {"west": "false"}  # glass
    assert props(schem, 4, 0, 1, "in_wall") == {"in_wall": "true"}


def test_redstone_wire_runs_to_what_powers_it_climbs_full_blocks_and_is_drawn_as_1_12_drew_it(tmp_path):
    cells = {
        (1, 0, 1): ("redstone_wire", {}),  # alone: a cross
        (1, 0, 3): ("redstone_wire", {}),
        (2, 0, 3): ("redstone_wire", {}),  # two in a row: each a line through
        (4, 0, 3): ("lever", {}),
        (5, 0, 3): ("redstone_wire", {}),  # beside a lever: a line
        (1, 0, 5): ("redstone_wire", {}),
        (2, 0, 5): ("stone", {}),
        (2, 1, 5): ("redstone_wire", {}),  # on the block beside: the lower one climbs
        (4, 0, 5): ("redstone_wire", {}),
        (5, 0, 5): ("repeater", {"facing": "east"}),  # in line: yes
        (4, 0, 6): ("repeater", {"facing": "east"}),  # across: no
    }
    schem = read_any(legacy(tmp_path, (6, 2, 7), cells))
    assert props(schem, 1, 0, 1, *SIDES) == dict.fromkeys(SIDES, "side")
    line = {"north": "none", "south": "none", "west": "side", "east": "side"}
    assert props(schem, 1, 0, 3, *SIDES) == line and props(schem, 2, 0, 3, *SIDES) == line
    assert props(schem, 5, 0, 3, *SIDES) == line
    assert props(schem, 1, 0, 5, *SIDES) == {"north": "none", "south": "none", "west": "side", "east": "up"}
    assert props(schem, 2, 1, 5, *SIDES) == line  # down to the wire below the air beside it, drawn through
    assert props(schem, 4, 0, 5, *SIDES) == line


def test_stairs_turn_outer_and_inner_corners_as_the_stairs_behind_and_in_front_face(tmp_path):
    cells = {
        (1, 0, 1): ("oak_stairs", {"facing": "east", "half": "bottom"}),
        (2, 0, 1): ("oak_stairs", {"facing": "north", "half": "bottom"}),  # behind the first, facing across
        (1, 0, 4): ("oak_stairs", {"facing": "east", "half": "bottom"}),
        (0, 0, 4): ("oak_stairs", {"facing": "north", "half": "bottom"}),  # in front of it, facing across
        (3, 0, 6): ("oak_stairs", {"facing": "east", "half": "top"}),
        (4, 0, 6): ("oak_stairs", {"facing": "north", "half": "bottom"}),  # another half: no corner
    }
    schem = read_any(legacy(tmp_path, (5, 1, 7), cells))
    assert props(schem, 1, 0, 1, "shape") == {"shape": "outer_left"}
    assert props(schem, 2, 0, 1, "shape") == {"shape": "straight"}
    assert props(schem, 1, 0, 4, "shape") == {"shape": "inner_left"}
    assert props(schem, 3, 0, 6, "shape") == {"shape": "straight"}


def test_side_by_side_chests_are_one_double_chest_and_north_facing_pairs_swap_contents(tmp_path):
    def chest_entity(x, z, item):
        slot = [("id", STRING, item), ("Count", BYTE, 1), ("Slot", BYTE, 0), ("Damage", SHORT, 0)]
        return [
            ("x", INT, x),
            ("y", INT, 0),
            ("z", INT, z),
            ("id", STRING, "Chest"),
            ("Items", LIST, (COMPOUND, [slot])),
        ]

    cells = {
        (1, 0, 1): ("chest", {"facing": "north"}),
        (2, 0, 1): ("chest", {"facing": "north"}),
        (1, 0, 3): ("chest", {"facing": "south"}),
        (2, 0, 3): ("chest", {"facing": "south"}),
        (1, 0, 5): ("chest", {"facing": "north"}),
        (2, 0, 5): ("chest", {"facing": "north"}),
        (3, 0, 5): ("chest", {"facing": "north"}),  # a third in the row stays single
        (1, 0, 7): ("chest", {"facing": "east"}),
        (2, 0, 7): ("chest", {"facing": "east"}),  # in line with their facing: two singles
        (4, 0, 1): ("trapped_chest", {"facing": "north"}),  # another kind beside a chest: single
    }
    entities = [chest_entity(1, 1, "minecraft:stone"), chest_entity(2, 1, "minecraft:dirt")]
    entities += [chest_entity(1, 3, "minecraft:stone"), chest_entity(2, 3, "minecraft:dirt")]
    schem = read_any(legacy(tmp_path, (5, 1, 8), cells, entities))

    def kind(x, z):
        return props(schem, x, 0, z, "type")["type"]

    assert (kind(1, 1), kind(2, 1)) == ("left", "right")
    assert (kind(1, 3), kind(2, 3)) == ("right", "left")
    assert (kind(1, 5), kind(2, 5), kind(3, 5)) == ("left", "right", "single")
    assert (kind(1, 7), kind(2, 7), kind(4, 1)) == ("single", "single", "single")
    items = {be.pos: str(be.data["Items"][0]["id"]) for be in schem.block_entities}
    assert items[(1, 0, 1)] == "minecraft:dirt" and items[(2, 0, 1)] == "minecraft:stone"  # north: swapped
    assert items[(1, 0, 3)] == "minecraft:stone" and items[(2, 0, 3)] == "minecraft:dirt"  # south: kept


def test_tripwire_joins_tripwire_and_hooks_facing_it(tmp_path):
    cells = {
        (0, 0, 1): ("tripwire_hook", {"facing": "east"}),
        (1, 0, 1): ("tripwire", {}),
        (2, 0, 1): ("tripwire", {}),
        (3, 0, 1): ("tripwire_hook", {"facing": "west"}),
        (1, 0, 0): ("tripwire_hook", {"facing": "north"}),  # faces away: no
    }
    schem = read_any(legacy(tmp_path, (4, 1, 2), cells))
    line = {"north": "false", "south": "false", "west": "true", "east": "true"}
    assert props(schem, 1, 0, 1, *SIDES) == line and props(schem, 2, 0, 1, *SIDES) == line


def test_vines_cover_the_underside_of_a_block_with_a_solid_bottom(tmp_path):
    cells = {(x, 0, 0): ("vine", {"south": "true"}) for x in range(5)}
    cells[(0, 1, 0)] = ("stone", {})
    cells[(2, 1, 0)] = ("stone_slab", {"type": "bottom"})
    cells[(3, 1, 0)] = ("stone_slab", {"type": "top"})
    cells[(4, 1, 0)] = ("oak_leaves", {"persistent": "false"})
    schem = read_any(legacy(tmp_path, (5, 2, 1), cells))
    ups = [props(schem, x, 0, 0, "up")["up"] for x in range(5)]
    assert ups == ["true", "false", "true", "false", "true"]  # stone, air, bottom slab, top slab, leaves
    assert props(schem, 0, 0, 0, "south") == {"south": "true"}  # the stored sides stay


def test_chorus_snowy_grass_and_stems_take_their_neighbours(tmp_path):
    cells = {
        (1, 0, 1): ("end_stone", {}),
        (1, 1, 1): ("chorus_plant", {}),
        (1, 2, 1): ("chorus_plant", {}),
        (2, 1, 1): ("chorus_flower", {}),
        (3, 0, 0): ("grass_block", {}),
        (3, 1, 0): ("snow", {}),
        (4, 0, 0): ("grass_block", {}),
        (0, 0, 3): ("pumpkin_stem", {"age": "7"}),
        (0, 0, 2): ("carved_pumpkin", {}),
        (2, 0, 3): ("melon_stem", {"age": "5"}),  # not grown: straight
        (2, 0, 2): ("melon", {}),
    }
    schem = read_any(legacy(tmp_path, (5, 3, 4), cells))
    sides = ("north", "south", "west", "east", "up", "down")
    expected = {**dict.fromkeys(sides, "false"), "east": "true", "up": "true", "down": "true"}
    assert props(schem, 1, 1, 1, *sides) == expected
    assert props(schem, 3, 0, 0, "snowy") == {"snowy": "true"} and props(schem, 4, 0, 0, "snowy") == {"snowy": "false"}
    assert schem.state_at(0, 0, 3) == "minecraft:attached_pumpkin_stem[facing=north]"
    assert schem.state_at(2, 0, 3) == "minecraft:melon_stem[age=5]"


def test_derived_shapes_are_said_in_one_line_with_their_count(cli, tmp_path):
    cells = {(1, 0, 1): ("oak_fence", {}), (2, 0, 1): ("oak_fence", {}), (4, 0, 1): ("oak_fence", {})}
    path = legacy(tmp_path, (5, 1, 2), cells)
    (line,) = [c for c in read_any(path).source.conversions if "shapes" in c["change"]]
    assert line == {
        "change": "shapes derived from their neighbours, as Minecraft 1.12 showed them (fences)",
        "cells": 2,  # the lone fence keeps its default shape
        "carried": True,
    }
    info = json.loads(cli("schem", "info", str(path), "--json").stdout)
    assert line in info["upgrade"]["conversions"]
    assert not [c for c in info["upgrade"]["conversions"] if "left at their 1.13 defaults" in c["change"]]


@pytest.mark.parametrize("name", ["legacy_schematic4j_9383.schematic", "legacy_schematic4j_12727.schematic"])
def test_corpus_legacy_files_come_out_with_joined_fences_and_turned_stairs(corpus, name):
    schem = read_any(corpus / name)
    states = [parse_state(state) for state, count in schem.palette_counts() if count]
    assert any(s.id.endswith("_fence") and "true" in dict(s.properties).values() for s in states)
    assert {s.get("shape") for s in states if s.id.endswith("_stairs")} - {"outer_right"}
