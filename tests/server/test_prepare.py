"""§3.6 build_prepare: summary shape, no-ops, compile and state errors, region, dependencies, expected_blocks,
part masks, guard; order of checks."""

from __future__ import annotations

import json
import re
import sqlite3

from server_rpc import box, pos

STONE = "minecraft:stone"
HEX64 = re.compile(r"[0-9a-f]{64}")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def test_summary_shape_counts_only_real_changes(rpc, server):
    # 2x1x1 at y=63..64: (0,63,0) is grass -> stone is a change, (0,64,0) air -> air is a no-op
    plan = rpc.prepare([box((0, 63, 0), (0, 64, 0), STONE), box((0, 64, 0), (0, 64, 0), "minecraft:air")])
    assert set(plan) == {"plan_id", "plan_hash", "changed_blocks", "region", "expires_at"}
    assert UUID.fullmatch(plan["plan_id"]) and HEX64.fullmatch(plan["plan_hash"])
    assert plan["changed_blocks"] == 1
    assert plan["region"] == {"worldId": server.world_id, "min": pos(-64, 0, -64), "max": pos(64, 128, 64)}
    status = rpc.apply(plan, "k")
    assert status["total_changes"] == 2


def test_plan_expires_in_ten_minutes_and_hash_is_unique_per_preparation(rpc):
    import time

    before = int(time.time() * 1000)
    first = rpc.prepare([box((0, 70, 0), (0, 70, 0), STONE)])
    second = rpc.prepare([box((0, 70, 0), (0, 70, 0), STONE)])
    after = int(time.time() * 1000)
    assert before + 600_000 <= first["expires_at"] <= after + 600_000
    assert first["plan_hash"] != second["plan_hash"]


def test_plan_hash_equals_sha256_of_the_journaled_record(rpc, server):
    import hashlib

    plan = rpc.prepare([box((0, 70, 0), (1, 70, 0), "minecraft:oak_stairs[facing=east]")])
    with sqlite3.connect(server.data_dir / "journal.sqlite3") as db:
        payload, sha = db.execute("SELECT payload, sha256 FROM plans WHERE id=?", (plan["plan_id"],)).fetchone()
    record = json.loads(payload)
    assert sha == plan["plan_hash"]
    assert list(record) == [
        "id",
        "projectId",
        "worldEpoch",
        "region",
        "changes",
        "dependencies",
        "createdAtMillis",
        "expiresAtMillis",
    ]
    assert (
        record["changes"][0]["desired"]
        == "minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]"
    )
    text = json.dumps(record, separators=(",", ":")).replace("=", "\\u003d")
    assert hashlib.sha256(text.encode()).hexdigest() == plan["plan_hash"]


def test_compiler_errors_are_invalid_request(rpc):
    cases = [
        ({"version": 1, "operations": [], "extra": 1}, "Unknown field: extra"),
        ({"version": 1.0, "operations": []}, None),
        ({"version": 1, "operations": [box((1, 70, 0), (0, 70, 0), STONE)]}, "Invalid inclusive region bounds"),
        ({"version": 1, "operations": [box((0, 70, 0), (16, 86, 15), STONE)]}, "Recipe block limit exceeded"),
    ]
    for recipe, message in cases:
        status, code, text = rpc.error("build_prepare", recipe=recipe)
        assert (status, code) == (400, "invalid_request"), recipe
        if message:
            assert text == message
    assert rpc.error("build_prepare") == (400, "invalid_request", "Expected an object")


def test_unregistered_state_is_unsupported_block(rpc):
    for block in ("minecraft:not_a_block", "minecraft:oak_stairs[facing=up]", "minecraft:diamond"):
        assert rpc.error(
            "build_prepare", recipe={"version": 1, "operations": [box((0, 70, 0), (0, 70, 0), block)]}
        ) == (400, "unsupported_block", "Invalid registered block or block properties")


def test_region_and_dependency_checks(rpc):
    outside = [box((64, 70, 0), (65, 70, 0), STONE)]
    assert rpc.error("build_prepare", recipe={"version": 1, "operations": outside}) == (
        400,
        "out_of_bounds",
        "Recipe exceeds project region",
    )
    inside = [box((0, 70, 0), (0, 70, 0), STONE)]
    too_many = (
        [pos(i, 70, 1) for i in range(-64, 64)] * 2
        + [pos(i, 71, 1) for i in range(-64, 64)] * 3
        + [pos(i, 72, 1) for i in range(-64, 64)]
        + [pos(i, 73, 1) for i in range(-64, 64)]
        + [pos(0, 74, 1)]
    )
    assert len({(p["x"], p["y"]) for p in too_many}) == 513
    assert rpc.error("build_prepare", recipe={"version": 1, "operations": inside}, dependencies=too_many) == (
        400,
        "budget_exceeded",
        "At most 512 explicit dependencies supported",
    )
    assert rpc.error("build_prepare", recipe={"version": 1, "operations": inside}, dependencies=[pos(100, 70, 0)]) == (
        400,
        "invalid_request",
        "Position outside authorized region: BlockPos[x=100, y=70, z=0]",
    )
    ok = rpc.prepare(inside, dependencies=[pos(1, 70, 0), {"x": "1", "y": 70.0, "z": 0}])
    assert ok["changed_blocks"] == 1


def test_neighbour_outside_region_in_unloaded_chunk_is_chunk_not_loaded(tmp_path):
    from server_rpc import Rpc

    from mcb.server.testing import run_server

    with run_server(tmp_path / "s", loaded_chunk_radius=0, region_min=(0, 0, 0), region_max=(15, 128, 15)) as h:
        client = Rpc(h)
        try:
            # (15,70,0) is inside the region, but its neighbour (16,70,0) sits in the unloaded chunk 1,0
            assert client.error(
                "build_prepare", recipe={"version": 1, "operations": [box((15, 70, 0), (15, 70, 0), STONE)]}
            )[1:] == ("chunk_not_loaded", "Visit/load the target chunks before editing")
            assert client.prepare([box((14, 70, 1), (14, 70, 1), STONE)])["changed_blocks"] == 1
        finally:
            client.close()


def test_expected_blocks_rules(rpc):
    ops = [box((0, 63, 0), (1, 63, 0), STONE)]
    grass = "minecraft:grass_block"
    good = [{"pos": pos(0, 63, 0), "state": grass}, {"pos": {"x": "1", "y": 63, "z": 0}, "state": "grass_block"}]
    assert rpc.prepare(ops, expected_blocks=good)["changed_blocks"] == 2
    cover = "expected_blocks must cover every desired position exactly once"
    assert rpc.error("build_prepare", recipe={"version": 1, "operations": ops}, expected_blocks=good[:1])[2] == cover
    dup = [good[0], good[0]]
    assert (
        rpc.error("build_prepare", recipe={"version": 1, "operations": ops}, expected_blocks=dup)[2]
        == "Unexpected or duplicate expected_blocks position"
    )
    stale = [good[0], {"pos": pos(1, 63, 0), "state": "minecraft:dirt"}]
    assert rpc.error("build_prepare", recipe={"version": 1, "operations": ops}, expected_blocks=stale) == (
        400,
        "stale_snapshot",
        "Caller snapshot changed at BlockPos[x=1, y=63, z=0]",
    )
    bad_state = [good[0], {"pos": pos(1, 63, 0), "state": "minecraft:nope"}]
    assert (
        rpc.error("build_prepare", recipe={"version": 1, "operations": ops}, expected_blocks=bad_state)[1]
        == "unsupported_block"
    )
    bad_id = [good[0], {"pos": pos(1, 63, 0), "state": grass, "snapshot_id": "ABC"}]
    assert (
        rpc.error("build_prepare", recipe={"version": 1, "operations": ops}, expected_blocks=bad_id)[2]
        == "snapshot_id must be a SHA-256 digest"
    )
    entity = [good[0], {"pos": pos(1, 63, 0), "state": grass, "snapshot_id": "a" * 64}]
    assert rpc.error("build_prepare", recipe={"version": 1, "operations": ops}, expected_blocks=entity) == (
        400,
        "stale_snapshot",
        "Caller block-entity snapshot changed at BlockPos[x=1, y=63, z=0]",
    )
    bad_pos = [good[0], {"pos": {"x": 1.5, "y": 63, "z": 0}, "state": grass}]
    assert (
        rpc.error("build_prepare", recipe={"version": 1, "operations": ops}, expected_blocks=bad_pos)[2]
        == "Expected position coordinates must be integers"
    )


def test_part_mask_rules(rpc, server):
    status = rpc.build([box((0, 70, 0), (1, 70, 0), STONE)], "p")
    with server.state.lock:
        part = server.state.parts.define("wall", status["operation_id"], [(0, 70, 0), (1, 70, 0)])
    assert rpc.error(
        "build_prepare", recipe={"version": 1, "operations": [box((0, 70, 0), (0, 70, 0), STONE)]}, part_id="nope"
    ) == (400, "not_found", "Part not found")
    assert rpc.error(
        "build_prepare", recipe={"version": 1, "operations": [box((0, 70, 0), (2, 70, 0), STONE)]}, part_id=part.id
    ) == (400, "out_of_bounds", "Patch exceeds the exact part mask; create a new part for an extension")
    assert rpc.prepare([box((0, 70, 0), (1, 70, 0), "minecraft:dirt")], part_id=part.id)["changed_blocks"] == 2


def test_paused_writes_refuse_prepare_with_cancelled(rpc):
    rpc.admin("test_pause_writes", paused=True)
    assert rpc.error("build_prepare", recipe={"version": 1, "operations": [box((0, 70, 0), (0, 70, 0), STONE)]}) == (
        400,
        "cancelled",
        "Writing paused by the owner; send a new request or /ai resume",
    )
    rpc.admin("test_pause_writes", paused=False)
    assert rpc.prepare([box((0, 70, 0), (0, 70, 0), STONE)])["changed_blocks"] == 1


def test_compile_error_comes_before_dependency_and_state_errors(rpc):
    recipe = {"version": 1, "operations": [box((1, 70, 0), (0, 70, 0), "minecraft:nope")]}
    assert (
        rpc.error("build_prepare", recipe=recipe, dependencies=[pos(500, 0, 0)])[2] == "Invalid inclusive region bounds"
    )
    recipe = {"version": 1, "operations": [box((0, 70, 0), (0, 70, 0), "minecraft:nope")]}
    many = [pos(i % 128 - 64, 70 + i // 128, 0) for i in range(513)]
    assert rpc.error("build_prepare", recipe=recipe, dependencies=many)[1] == "budget_exceeded"
    outside_and_bad = {"version": 1, "operations": [box((100, 70, 0), (100, 70, 0), "minecraft:nope")]}
    assert rpc.error("build_prepare", recipe=outside_and_bad)[1] == "unsupported_block"
