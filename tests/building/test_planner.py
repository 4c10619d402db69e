"""The plan stream of a build against a real `mcb serve`: the fewest plans, under 1 MiB each, bottom-up in passes,
two-block things never split, and no more reading than needed."""

from __future__ import annotations

import numpy as np
import pytest
from buildkit import CORPUS_DIR

from mcb.building.passes import ATTACHED, FLUID, SOLID, build_pass
from mcb.building.placement import PlacementOptions, load_placement
from mcb.building.planner import BuildPlanner

TEXAS = CORPUS_DIR / "v3_nucleation_uss-texas.schem"


def all_plans(planner):
    plans = []
    while (plan := planner.next_plan()) is not None:
        plans.append(plan)
    return plans


def test_texas_on_empty_land_is_14_plans_under_a_mebibyte_from_summary_reads_only(wide_client):
    placement = load_placement(TEXAS, PlacementOptions(target=(-87, 64, -15)))
    planner = BuildPlanner(wide_client, placement)
    plans = all_plans(planner)
    assert [len(p) for p in plans] == [4096] * 13 + [54273 - 13 * 4096]
    assert max(p.size for p in plans) < 1_000_000
    counter = planner.walker.counter
    # empty land: one read per tile, whatever number of passes visits it; the bottom layer's in detail, every tile
    # above one that held one state (air) as a summary
    tiles = planner.walker.tiles
    bottom = [t for t in tiles if t.lo[1] == tiles[0].lo[1]]
    assert counter.summary + counter.blocks == len(tiles) < planner.tiles_read
    assert counter.blocks == len(bottom)


def test_a_tile_with_blocks_is_read_in_detail_only_there(wide_client, wide_server):
    placement = load_placement(TEXAS, PlacementOptions(target=(-87, 64, -15)))
    wide_client.call(
        "test_set_blocks",
        {"blocks": [{"pos": {"x": -80, "y": 70, "z": -10}, "state": "minecraft:gold_block"}]},
        admin=True,
        scoped=False,
    )
    planner = BuildPlanner(wide_client, placement)
    plans = all_plans(planner)
    counter = planner.walker.counter
    assert counter.summary + counter.blocks == len(planner.walker.tiles)  # each tile once, the gold one in detail
    replaced = sum((p.replaced(planner.table) for p in plans), start=__import__("collections").Counter())
    expected_there = placement.states[int(placement.blocks[6, 5, 7])]
    assert dict(replaced) == ({} if expected_there == "minecraft:gold_block" else {"minecraft:gold_block": 1})


def _pairs_file(tmp_path):
    """34^3 cells: doors across the y=16 tile boundary, beds across x=16, double chests across z=16, torches,
    water and stone around them."""
    from mcb.schematics.formats import write_any
    from mcb.schematics.model import Schematic

    palette = [
        "minecraft:air",
        "minecraft:stone",
        "minecraft:oak_door[facing=north,half=lower,hinge=left,open=false,powered=false]",
        "minecraft:oak_door[facing=north,half=upper,hinge=left,open=false,powered=false]",
        "minecraft:red_bed[facing=east,occupied=false,part=foot]",
        "minecraft:red_bed[facing=east,occupied=false,part=head]",
        "minecraft:chest[facing=east,type=left,waterlogged=false]",
        "minecraft:chest[facing=east,type=right,waterlogged=false]",
        "minecraft:torch",
        "minecraft:water[level=0]",
    ]
    blocks = np.ones((34, 34, 34), dtype=np.int32)
    blocks[::3, ::2, ::2] = 0
    for x in range(0, 34, 2):
        blocks[15, 3, x], blocks[16, 3, x] = 2, 3  # door: lower at y=15, upper at y=16
    for z in range(0, 34, 2):
        blocks[5, z, 15], blocks[5, z, 16] = 4, 5  # bed facing east: foot at x=15, head at x=16
    for x in range(0, 34, 3):
        blocks[7, 15, x], blocks[7, 16, x] = 6, 7  # chest facing east: left at z=15, its right half south of it
    blocks[20, :, 20] = 8
    blocks[25, 10:20, 10:20] = 9
    path = tmp_path / "pairs.schem"
    write_any(
        Schematic(width=34, height=34, length=34, palette=palette, blocks=blocks, data_version=4903), path, "sponge2"
    )
    return path


@pytest.mark.parametrize("capacity", [37, 200, 4096])
def test_two_block_things_are_never_split_and_passes_come_in_order(wide_client, tmp_path, capacity):
    placement = load_placement(_pairs_file(tmp_path), PlacementOptions(target=(0, 70, 0)))
    planner = BuildPlanner(wide_client, placement, capacity=capacity)
    plans = all_plans(planner)
    names = planner.table.names
    plan_of, state_at = {}, {}
    for index, plan in enumerate(plans):
        assert len(plan) <= capacity
        c = plan.changes
        for x, y, z, want in zip(c.x.tolist(), c.y.tolist(), c.z.tolist(), c.want.tolist()):
            assert (x, y, z) not in plan_of, "a position planned twice"
            plan_of[(x, y, z)] = index
            state_at[(x, y, z)] = names[want]
    assert len(plan_of) == int((placement.blocks != 0).sum())
    pairs = 0
    for (x, y, z), state in state_at.items():
        if "half=lower" in state:
            assert plan_of[(x, y + 1, z)] == plan_of[(x, y, z)]
            pairs += 1
        if "part=foot" in state:
            assert plan_of[(x + 1, y, z)] == plan_of[(x, y, z)]
            pairs += 1
        if "type=left" in state:
            assert plan_of[(x, y, z + 1)] == plan_of[(x, y, z)]
            pairs += 1
    assert pairs == 17 + 17 + 12
    order = [build_pass(state_at[p]) for p in sorted(plan_of, key=lambda p: plan_of[p])]
    last_plan = {kind: max(plan_of[p] for p in plan_of if build_pass(state_at[p]) == kind) for kind in set(order)}
    first_plan = {kind: min(plan_of[p] for p in plan_of if build_pass(state_at[p]) == kind) for kind in set(order)}
    assert last_plan[SOLID] <= first_plan[ATTACHED] and last_plan[ATTACHED] <= first_plan[FLUID]
    if capacity == 37:  # plans are packed full, pairs aside
        assert len(plans) <= -(-len(plan_of) // (capacity - 1)) + 1


def test_skip_air_and_void_cells_are_never_planned(wide_client, wide_server, tmp_path):
    from mcb.schematics.formats import write_any
    from mcb.schematics.model import Schematic

    blocks = np.zeros((2, 2, 2), dtype=np.int32)
    blocks[0, 0, 0] = 1
    void = np.zeros((2, 2, 2), dtype=bool)
    void[1, 1, 1] = True
    schem = Schematic(
        width=2,
        height=2,
        length=2,
        palette=["minecraft:air", "minecraft:stone"],
        blocks=blocks,
        data_version=4903,
        void=void,
    )
    path = tmp_path / "v.nbt"
    write_any(schem, path, "structure")
    # the world holds blocks everywhere the file could clear
    wide_client.call(
        "test_set_blocks",
        {
            "blocks": [
                {"pos": {"x": x, "y": 80 + y, "z": z}, "state": "minecraft:dirt"}
                for x in (0, 1)
                for y in (0, 1)
                for z in (0, 1)
            ]
        },
        admin=True,
        scoped=False,
    )
    plain = all_plans(BuildPlanner(wide_client, load_placement(path, PlacementOptions(target=(0, 80, 0)))))
    cleared = {(int(x), int(y), int(z)) for p in plain for x, y, z in zip(p.changes.x, p.changes.y, p.changes.z)}
    assert (1, 81, 1) not in cleared and len(cleared) == 7  # the void cell stays dirt
    skipped = all_plans(
        BuildPlanner(wide_client, load_placement(path, PlacementOptions(target=(0, 80, 0), skip_air=True)))
    )
    assert sum(len(p) for p in skipped) == 1
    kept = all_plans(
        BuildPlanner(wide_client, load_placement(path, PlacementOptions(target=(0, 80, 0), keep_existing=True)))
    )
    assert sum(len(p) for p in kept) == 0  # nothing is air there now
