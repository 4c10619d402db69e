"""schematic_export and the export → import → apply round trip over real HTTP (protocol §6.3, §6.5)."""

from __future__ import annotations

import hashlib
import time
import uuid

import pytest
from test_peripheral_support import P, peripheral_rpc, read_nbt, varints  # noqa: F401  (the `rpc` fixture of these tests)

ASSET_KEYS = ["assetId", "name", "width", "height", "length", "blockCount", "dataVersion", "offset", "sha256", "bytes"]
STAIRS = "minecraft:oak_stairs[facing={},half={},shape=straight,waterlogged=false]"
AIR = "minecraft:air"
FENCE = "minecraft:oak_fence[east={},north={},south={},waterlogged=false,west={}]"
# Cells relative to the export's min corner (0, 70, 0); air cells are written explicitly.
STRUCTURE = {
    (0, 0, 0): "minecraft:stone",
    (1, 0, 0): STAIRS.format("east", "top"),
    (2, 0, 0): "minecraft:oak_log[axis=x]",
    (0, 0, 1): "minecraft:glass",
    (1, 0, 1): AIR,
    (2, 0, 1): "minecraft:stone_bricks",
    (0, 1, 0): "minecraft:oak_log[axis=z]",
    (1, 1, 0): AIR,
    (2, 1, 0): FENCE.format("false", "true", "false", "true"),
    (0, 1, 1): "minecraft:red_wool",
    (1, 1, 1): STAIRS.format("north", "bottom"),
    (2, 1, 1): AIR,
}
TURN = {"north": "east", "east": "south", "south": "west", "west": "north"}


def rotated_state(state: str, quarter_turns: int) -> str:
    """Hand-written expectations for the directional states above (vanilla BlockData.rotate)."""
    for _ in range(quarter_turns):
        if state.startswith("minecraft:oak_fence["):  # each side's connection moves one side clockwise
            sides = dict(pair.split("=") for pair in state[state.index("[") + 1 : -1].split(","))
            turned = {TURN[side]: sides[side] for side in TURN}
            state = FENCE.format(turned["east"], turned["north"], turned["south"], turned["west"])
            continue
        for facing in TURN:
            if f"facing={facing}," in state:
                state = state.replace(f"facing={facing},", f"facing={TURN[facing]},")
                break
        else:
            state = {
                "minecraft:oak_log[axis=x]": "minecraft:oak_log[axis=z]",
                "minecraft:oak_log[axis=z]": "minecraft:oak_log[axis=x]",
            }.get(state, state)
    return state


def build_structure(rpc, base=(0, 70, 0)):
    rpc.place({(base[0] + x, base[1] + y, base[2] + z): s for (x, y, z), s in STRUCTURE.items()})


# -- export → import → apply --------------------------------------------------------------------------------------
@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_export_then_import_reproduces_the_blocks_at_every_rotation(rpc, rotation):
    build_structure(rpc)
    asset = rpc.ok(
        "schematic_export", {"name": "probe", "min": P((0, 70, 0)), "max": P((2, 71, 1)), "origin": P((1, 70, 0))}
    )
    assert asset["offset"] == P((-1, 0, 0))
    target = (20, 90, -20)
    turns = rotation // 90

    def world_of(cell):
        dx, dy, dz = cell[0] - 1, cell[1], cell[2]  # offset (-1, 0, 0) + cell
        for _ in range(turns):
            dx, dz = -dz, dx
        return (target[0] + dx, target[1] + dy, target[2] + dz)

    # A block where the schematic has air: importing must clear it (every cell, air included, is planned).
    rpc.place({world_of((1, 1, 0)): "minecraft:gold_block"})
    plan = rpc.ok("schematic_import_prepare", {"asset_id": asset["assetId"], "target": P(target), "rotation": rotation})
    assert set(plan) == {"plan_id", "plan_hash", "changed_blocks", "region", "expires_at"}
    solid = sum(1 for s in STRUCTURE.values() if s != AIR)
    assert plan["changed_blocks"] == solid + 1
    assert rpc.apply(plan)["total_changes"] == len(STRUCTURE)
    seen = rpc.blocks((target[0] - 4, target[1], target[2] - 4), (target[0] + 4, target[1] + 1, target[2] + 4))
    expected = {world_of(cell): rotated_state(state, turns) for cell, state in STRUCTURE.items()}
    assert {pos: seen[pos] for pos in expected} == expected
    assert sum(1 for pos, s in seen.items() if s != AIR and pos not in expected) == 0


def test_import_at_the_export_origin_changes_nothing(rpc):
    build_structure(rpc, (5, 75, 5))
    asset = rpc.ok(
        "schematic_export", {"name": "same", "min": P((5, 75, 5)), "max": P((7, 76, 6)), "origin": P((0, 0, 0))}
    )
    assert asset["offset"] == P((5, 75, 5))
    plan = rpc.ok("schematic_import_prepare", {"asset_id": asset["assetId"], "target": P((0, 0, 0))})
    assert plan["changed_blocks"] == 0
    assert plan["region"] == rpc.ok("project_context")["region"]


def test_loose_rotation_and_target(rpc):
    build_structure(rpc)
    asset = rpc.ok("schematic_export", {"name": "loose", "min": P((0, 70, 0)), "max": P((0, 70, 0))})
    plan = rpc.ok(
        "schematic_import_prepare",
        {"asset_id": asset["assetId"], "target": {"x": "30", "y": 80.0, "z": 3}, "rotation": "270"},
    )
    assert plan["changed_blocks"] == 1


# -- export result and file ---------------------------------------------------------------------------------------
def test_export_result_and_exact_file_layout(rpc):
    build_structure(rpc)
    before = int(time.time() * 1000)
    asset = rpc.ok("schematic_export", {"name": "Gate ✓", "min": P((0, 70, 0)), "max": P((2, 71, 1))})
    assert list(asset) == ASSET_KEYS
    uuid.UUID(asset["assetId"])
    path = rpc.library / f"{asset['assetId']}.schem"
    data = path.read_bytes()
    assert (asset["name"], asset["width"], asset["height"], asset["length"], asset["blockCount"]) == (
        "Gate ✓",
        3,
        2,
        2,
        12,
    )
    assert asset["dataVersion"] == 4903 and asset["offset"] == P((0, 0, 0))
    assert asset["sha256"] == hashlib.sha256(data).hexdigest() and asset["bytes"] == len(data)
    root_name, root = read_nbt(data)
    assert root_name == "Schematic"
    assert [(name, tag_id) for name, tag_id, _ in root] == [
        ("Version", 3),
        ("DataVersion", 3),
        ("Width", 2),
        ("Height", 2),
        ("Length", 2),
        ("Offset", 11),
        ("PaletteMax", 3),
        ("Palette", 10),
        ("BlockData", 7),
        ("BlockEntities", 9),
        ("Entities", 9),
        ("Metadata", 10),
    ]
    fields = {name: value for name, _, value in root}
    assert (fields["Version"], fields["DataVersion"], fields["Width"], fields["Height"], fields["Length"]) == (
        2,
        4903,
        3,
        2,
        2,
    )
    order = [STRUCTURE[(x, y, z)] for y in range(2) for z in range(2) for x in range(3)]
    first_seen = list(dict.fromkeys(order))
    assert [(name, tag_id, value) for name, tag_id, value in fields["Palette"]] == [
        (state, 3, index) for index, state in enumerate(first_seen)
    ]
    assert fields["PaletteMax"] == len(first_seen)
    assert varints(fields["BlockData"]) == [first_seen.index(state) for state in order]
    assert fields["BlockEntities"] == (10, []) and fields["Entities"] == (10, [])
    meta = {name: (tag_id, value) for name, tag_id, value in fields["Metadata"]}
    assert [name for name, _, _ in fields["Metadata"]] == ["Name", "Author", "Date"]
    assert meta["Name"] == (8, "Gate ✓") and meta["Author"] == (8, "minecraft-builder-mcp")
    assert meta["Date"][0] == 4 and before <= meta["Date"][1] <= int(time.time() * 1000)
    assert [p.name for p in rpc.library.iterdir()] == [path.name]  # no temp file left behind


def test_export_palette_index_above_127_uses_multibyte_varints(rpc):
    colours = [
        "white",
        "orange",
        "magenta",
        "light_blue",
        "yellow",
        "lime",
        "pink",
        "gray",
        "light_gray",
        "cyan",
        "purple",
        "blue",
        "brown",
        "green",
        "red",
        "black",
    ]
    kinds = ["wool", "concrete", "terracotta", "stained_glass", "carpet", "concrete_powder"]
    plain = """stone granite polished_granite diorite polished_diorite andesite polished_andesite dirt coarse_dirt
        cobblestone oak_planks spruce_planks birch_planks jungle_planks acacia_planks dark_oak_planks sand red_sand
        gravel gold_ore iron_ore coal_ore gold_block iron_block diamond_block emerald_block lapis_block
        redstone_block coal_block netherrack glowstone obsidian bricks mossy_cobblestone stone_bricks""".split()
    states = [f"minecraft:{c}_{k}" for k in kinds for c in colours] + [f"minecraft:{b}" for b in plain]
    cells = {(i % 10, 64 + i // 100, (i // 10) % 10): s for i, s in enumerate(states)}
    for chunk in range(0, len(states), 64):
        rpc.place(dict(list(cells.items())[chunk : chunk + 64]))
    asset = rpc.ok("schematic_export", {"name": "many", "min": P((0, 64, 0)), "max": P((9, 65, 9))})
    fields = {name: value for name, _, value in read_nbt((rpc.library / f"{asset['assetId']}.schem").read_bytes())[1]}
    assert fields["PaletteMax"] > 128
    palette = {index: state for state, _, index in fields["Palette"]}
    decoded = varints(fields["BlockData"])
    assert len(decoded) == 200 and len(states) > 128
    for (x, y, z), state in cells.items():
        assert palette[decoded[x + z * 10 + (y - 64) * 100]] == state


# -- export errors --------------------------------------------------------------------------------------------------
def test_export_errors_in_order(rpc):
    base = {"name": "n", "min": P((0, 70, 0)), "max": P((1, 70, 1))}
    assert rpc.error("schematic_export", {**base, "max": P((65, 70, 0)), "name": ""}) == (
        "out_of_bounds",
        "Export exceeds project region",
    )
    assert rpc.error("schematic_export", {**base, "min": P((2, 70, 0))}) == (
        "invalid_request",
        "Invalid inclusive region bounds",
    )
    assert rpc.error("schematic_export", {**base, "max": P((16, 85, 15))}) == (
        "budget_exceeded",
        "Export at most 4096 blocks",
    )
    assert rpc.error("schematic_export", {"name": "n", "max": P((1, 70, 1))}) == (
        "invalid_request",
        "Integer coordinate required: min",
    )
    for name in ["", "   ", None]:
        assert rpc.error("schematic_export", {**base, "name": name}) == (
            "invalid_request",
            "Required bounded string: name",
        )
    for name in ["n" * 65, "tab\there", "bell\u0007", "x\u0085"]:
        assert rpc.error("schematic_export", {**base, "name": name}) == (
            "invalid_request",
            "Asset name must contain 1..64 printable characters",
        )
    assert rpc.error("schematic_export", {**base, "origin": P((2**31 - 1, 0, 0)), "min": P((-2, 70, 0))}) == (
        "invalid_request",
        "integer overflow",
    )
    assert rpc.ok("schematic_export", {**base, "name": "n" * 64})["name"] == "n" * 64


def test_export_refuses_block_entities_without_writing(rpc):
    rpc.place({(1, 70, 1): "minecraft:chest[facing=west]"})
    assert rpc.error("schematic_export", {"name": "c", "min": P((0, 70, 0)), "max": P((2, 70, 2))}) == (
        "unsupported_block_entity",
        "Schematic export cannot retain block-entity data at BlockPos[x=1, y=70, z=1]; no asset was written",
    )
    assert not rpc.library.exists() or list(rpc.library.iterdir()) == []


def test_export_needs_loaded_chunks(rpc):
    rpc.ok("test_set_chunk_loaded", {"chunk": {"x": 1, "z": 0}, "loaded": False}, admin=True, scope=False)
    assert rpc.error("schematic_export", {"name": "c", "min": P((14, 70, 0)), "max": P((17, 70, 0))})[0] == (
        "chunk_not_loaded"
    )


def test_export_into_a_full_library(rpc):
    first = rpc.ok("schematic_export", {"name": "one", "min": P((0, 70, 0)), "max": P((0, 70, 0))})
    data = (rpc.library / f"{first['assetId']}.schem").read_bytes()
    for index in range(63):
        rpc.put_file(f"copy{index:02d}", data)
    assert len(rpc.ok("asset_list")["assets"]) == 64
    assert rpc.error("schematic_export", {"name": "two", "min": P((0, 70, 0)), "max": P((0, 70, 0))}) == (
        "invalid_request",
        "Asset library is full (64 files maximum)",
    )
    rpc.put_file("copy63", data)
    assert rpc.error("asset_list")[0] == "invalid_request"


# -- asset_list ---------------------------------------------------------------------------------------------------
def test_export_refuses_entities_but_ignores_players(rpc):
    box = {"name": "e", "min": P((0, 70, 0)), "max": P((2, 71, 2))}
    hook = {"admin": True, "scope": False}
    rpc.ok("test_spawn_entity", {"type": "player", "pos": {"x": 1.5, "y": 70, "z": 1.5}}, **hook)
    rpc.ok("test_spawn_entity", {"type": "minecraft:pig", "pos": {"x": 3.01, "y": 70, "z": 1}}, **hook)
    assert rpc.ok("schematic_export", box)["blockCount"] == 18
    rpc.ok("test_spawn_entity", {"type": "minecraft:item_frame", "pos": {"x": 2.99, "y": 71.5, "z": 0.2}}, **hook)
    assert rpc.error("schematic_export", box) == (
        "unsupported_entity",
        "Export region contains entities; this prototype exports blocks only",
    )
