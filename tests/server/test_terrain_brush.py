"""terrain_brush_prepare over real HTTP (spec §4): snapshot, compile, plan, image, errors, dependency conflicts."""

from __future__ import annotations

import base64
import io

from PIL import Image

GRASS = "minecraft:grass_block[snowy=false]"


def brush(**changes):
    data = {
        "min": {"x": -4, "y": 58, "z": -4},
        "max": {"x": 4, "y": 70, "z": 4},
        "center": {"x": 0, "z": 0},
        "radius": 3,
        "action": "raise",
        "amount": 3,
        "strength": 1,
        "falloff": 0.5,
        "preserve": [],
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def column(rpc, x, z, low=58, high=70):
    blocks = rpc.inspect_blocks((x, low, z), (x, high, z))
    return [blocks[(x, y, z)] for y in range(low, high + 1)]


def test_raise_prepare_apply(rpc):
    before = rpc.inspect_blocks((-4, 58, -4), (4, 70, 4))
    result = rpc.call("terrain_brush_prepare", brush=brush())
    assert result["plan_state"] == "prepared" and result["world_edited"] is False
    assert (result["changed_columns"], result["raised_volume"], result["lowered_volume"]) == (21, 51, 0)
    assert (result["dependency_blocks"], result["changed_blocks"]) == (1053, 72)
    assert (result["height_min"], result["height_max"]) == (63, 66)
    assert result["scan_bounds"] == {
        "worldId": "brush",
        "min": {"x": -4, "y": 58, "z": -4},
        "max": {"x": 4, "y": 70, "z": 4},
    }
    image = Image.open(io.BytesIO(base64.b64decode(result["imageBase64"]))).convert("RGB")
    assert image.size == (780, 300)
    assert image.getpixel((530 + int(4 * 240 / 9) + 3, 36 + int(4 * 240 / 9) + 3)) == (0x89, 0xCC, 0x70)
    assert rpc.inspect_blocks((-4, 58, -4), (4, 70, 4)) == before  # preparing never edits
    status = rpc.wait(rpc.apply(result, "brush-raise")["operation_id"])
    assert status["status"] == "applied" and status["written"] == 72
    centre = column(rpc, 0, 0)
    assert centre[66 - 58] == GRASS and centre[63 - 58 : 66 - 58] == ["minecraft:dirt"] * 3
    assert centre[67 - 58] == "minecraft:air"
    assert column(rpc, 2, 0)[65 - 58] == GRASS  # ring at 65 (weight rounds 2.x to 2)


def test_lower_and_flatten(rpc):
    lowered = rpc.call("terrain_brush_prepare", brush=brush(action="lower", amount=2))
    assert lowered["lowered_volume"] > 0 and lowered["height_min"] == 61
    status = rpc.wait(rpc.apply(lowered, "brush-lower")["operation_id"])
    assert status["status"] == "applied"
    assert column(rpc, 0, 0)[61 - 58 : 64 - 58] == [GRASS, "minecraft:air", "minecraft:air"]
    flat = rpc.call(
        "terrain_brush_prepare",
        brush=brush(
            min={"x": 10, "y": 58, "z": 10},
            max={"x": 18, "y": 70, "z": 18},
            center={"x": 14, "z": 14},
            action="flatten",
            amount=None,
            height=63,
        ),
    )
    assert flat["plan_state"] == "empty" and flat["changed_blocks"] == 0 and "plan_id" not in flat
    assert flat["imageBase64"]


def test_brush_errors(rpc):
    assert rpc.error(
        "terrain_brush_prepare",
        brush=brush(min={"x": -70, "y": 58, "z": -4}, center={"x": -66, "z": 0}, max={"x": -62, "y": 70, "z": 4}),
    ) == (400, "out_of_bounds", "Brush scan including halo exceeds project area")
    assert rpc.error("terrain_brush_prepare", brush=brush(max={"x": 4, "y": 63, "z": 4}))[1:] == (
        "invalid_request",
        "Surface touches scan ceiling at -4,-4; include air above terrain",
    )
    assert rpc.error("terrain_brush_prepare", brush=brush(amount=9, falloff=0))[2] == (
        "Target surface leaves scan window; extend vertical bounds (keep air above)"
    )
    assert rpc.error("terrain_brush_prepare", brush=brush(colour=1))[2] == "Unknown brush field: colour"
    assert rpc.error("terrain_brush_prepare")[2] == "Expected brush object"
    rpc.set_blocks(((4, 60, -3), "minecraft:water"), ((-2, 61, 2), "minecraft:oak_log"))
    assert rpc.error("terrain_brush_prepare", brush=brush())[1:] == (
        "invalid_request",
        "Brush scan contains a non-terrain block at BlockPos[x=4, y=60, z=-3]",
    )


def test_halo_change_after_prepare_conflicts(rpc):
    plan = rpc.call(
        "terrain_brush_prepare",
        brush=brush(
            action="smooth",
            amount=None,
            radius=2,
            smooth_radius=2,
            min={"x": -4, "y": 58, "z": -4},
            max={"x": 4, "y": 70, "z": 4},
        ),
    )
    # smoothing flat ground changes nothing; raise a spike first so the smooth has work to do
    assert plan["plan_state"] == "empty"
    rpc.set_blocks(((0, 64, 0), "minecraft:dirt"), ((0, 65, 0), "minecraft:dirt"), ((0, 66, 0), GRASS))
    smooth = rpc.call(
        "terrain_brush_prepare", brush=brush(action="smooth", amount=None, radius=2, smooth_radius=2, falloff=0)
    )
    assert smooth["plan_state"] == "prepared" and smooth["lowered_volume"] > 0
    rpc.set_blocks(((4, 64, 4), "minecraft:dirt"))  # halo corner, outside every target column
    status = rpc.wait(rpc.apply(smooth, "brush-halo")["operation_id"])
    assert status["status"] == "conflict" and status["written"] == 0
