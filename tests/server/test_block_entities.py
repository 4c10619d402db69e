"""§4.5/§4.7 block-entity snapshots: snapshot_id in region_inspect, expected_blocks rules, conflict fields."""

from __future__ import annotations

import re

from server_rpc import box, pos

CHEST = "minecraft:chest[facing=north,type=single,waterlogged=false]"
HEX64 = re.compile(r"[0-9a-f]{64}")


def test_inspect_shows_snapshot_ids_only_for_block_entities(rpc):
    rpc.build([box((0, 70, 0), (0, 70, 0), "minecraft:chest"), box((1, 70, 0), (1, 70, 0), "minecraft:stone")], "c")
    blocks = rpc.call("region_inspect", min=pos(0, 70, 0), max=pos(1, 70, 0), detail="blocks")["blocks"]
    chest, stone = blocks
    assert list(chest) == ["state", "snapshot_id", "pos"] and chest["state"] == CHEST
    assert HEX64.fullmatch(chest["snapshot_id"])
    assert stone == {"state": "minecraft:stone", "pos": pos(1, 70, 0)}
    again = rpc.call("region_inspect", min=pos(0, 70, 0), max=pos(0, 70, 0), detail="blocks")["blocks"][0]
    assert again["snapshot_id"] == chest["snapshot_id"]  # stable while the block is unchanged


def test_expected_blocks_need_and_check_snapshot_ids(rpc):
    rpc.build([box((0, 70, 0), (0, 70, 0), "minecraft:chest")], "c")
    snapshot = rpc.call("region_inspect", min=pos(0, 70, 0), max=pos(0, 70, 0), detail="blocks")["blocks"][0][
        "snapshot_id"
    ]
    recipe = {"version": 1, "operations": [box((0, 70, 0), (0, 70, 0), "minecraft:barrel")]}
    assert rpc.error("build_prepare", recipe=recipe, expected_blocks=[{"pos": pos(0, 70, 0), "state": CHEST}]) == (
        400,
        "invalid_request",
        "expected_blocks needs snapshot_id for block-entity data at BlockPos[x=0, y=70, z=0]; inspect this block again",
    )
    assert rpc.error(
        "build_prepare",
        recipe=recipe,
        expected_blocks=[{"pos": pos(0, 70, 0), "state": CHEST, "snapshot_id": "0" * 64}],
    ) == (400, "stale_snapshot", "Caller block-entity snapshot changed at BlockPos[x=0, y=70, z=0]")
    plan = rpc.prepare(
        recipe["operations"], expected_blocks=[{"pos": pos(0, 70, 0), "state": CHEST, "snapshot_id": snapshot}]
    )
    assert plan["changed_blocks"] == 1


def test_conflicts_carry_snapshot_ids_of_entity_values(rpc):
    plan = rpc.prepare([box((0, 70, 0), (0, 70, 0), "minecraft:stone")])
    rpc.set_blocks(((0, 70, 0), "minecraft:chest"))
    final = rpc.wait(rpc.apply(plan, "k")["operation_id"])
    conflict = final["conflicts"][0]
    assert conflict["current"] == CHEST and HEX64.fullmatch(conflict["current_snapshot_id"])
    assert "expected_snapshot_id" not in conflict and "desired_snapshot_id" not in conflict
