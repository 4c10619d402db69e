"""Brush parsing messages and compile arithmetic (§4, §9 TerrainBrushTest vectors, hand-computed cases)."""

from __future__ import annotations

import json

import pytest

from mcb.terrain.brush import BrushError, compile_brush, edge_weight, parse_brush, round_half_away
from mcb.terrain.brush_image import brush_preview_fields, render_brush_image
from mcb.terrain.jsontext import loads_keeping_numbers

GRASS = "minecraft:grass_block[snowy=false]"


def brush(**changes) -> dict:
    data = {
        "min": {"x": -4, "y": -4, "z": -4},
        "max": {"x": 4, "y": 10, "z": 4},
        "center": {"x": 0, "z": 0},
        "radius": 3,
        "action": "raise",
        "amount": 4,
        "strength": 1,
        "falloff": 0.5,
        "preserve": [],
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def spec_of(data: dict):
    return parse_brush(loads_keeping_numbers(json.dumps(data)))


def snapshot(surface, lo=(-4, -4, -4), hi=(4, 10, 4)):
    """Grass at h, dirt at h-1..h-2, stone below, air above; ``surface(x, z)`` gives h."""
    cells = {}
    for x in range(lo[0], hi[0] + 1):
        for z in range(lo[2], hi[2] + 1):
            h = surface(x, z)
            for y in range(lo[1], hi[1] + 1):
                cells[(x, y, z)] = (
                    "minecraft:air"
                    if y > h
                    else GRASS
                    if y == h
                    else "minecraft:dirt"
                    if y >= h - 2
                    else "minecraft:stone"
                )
    return cells


def flat(h):
    return lambda x, z: h


def test_raise_lower_vector_and_symmetry():
    raised = compile_brush(spec_of(brush(amount=4, strength=0.5, falloff=1)), snapshot(flat(3)))
    lowered = compile_brush(spec_of(brush(action="lower", amount=4, strength=0.5, falloff=1)), snapshot(flat(3)))
    assert raised.after[4][4] == 5 and lowered.after[4][4] == 1
    assert raised.after[4][7] == 3  # column (3, 0) sits on the rim: weight 0
    for z in range(9):
        for x in range(9):
            assert raised.after[z][x] - 3 == 3 - lowered.after[z][x]
    assert raised.dependencies == 9 * 15 * 9 == 1215


def test_strength_zero_has_no_targets():
    result = compile_brush(spec_of(brush(strength=0)), snapshot(flat(3)))
    assert result.desired == {} and result.changed_columns == 0


def spike(x, z):
    return 8 if (x, z) == (0, 0) else 2


def test_flatten_spike():
    result = compile_brush(spec_of(brush(action="flatten", amount=None, height=4, falloff=0)), snapshot(spike))
    assert result.after[4][4] == 4 and result.after[4][5] == 4
    assert result.desired[(0, 4, 0)] == GRASS and result.desired[(0, 5, 0)] == "minecraft:air"
    assert result.desired[(1, 2, 0)] == "minecraft:dirt" and result.desired[(1, 4, 0)] == GRASS


def test_smooth_spike_uses_original_surface():
    data = brush(action="smooth", amount=None, smooth_radius=1, falloff=0)
    result = compile_brush(spec_of(data), snapshot(spike))
    row = result.after[4]
    assert (row[4], row[5], row[3], row[6]) == (3, 3, 3, 2)


def test_preserve_keeps_whole_column():
    box = {"min": {"x": 0, "y": 3, "z": 0}, "max": {"x": 0, "y": 3, "z": 0}}
    result = compile_brush(spec_of(brush(amount=2, preserve=[box])), snapshot(flat(2)))
    assert result.after[4][4] == 2 and result.after[4][5] == 4
    assert not any(pos[0] == 0 and pos[2] == 0 for pos in result.desired)


def java_div(a, b):
    return int(a / b)  # truncation toward zero, like Java's int division


def test_raise_on_slope_moves_grass_up_and_fills_with_dirt():
    surface = lambda x, z: java_div(x, 2) + 2  # noqa: E731
    result = compile_brush(spec_of(brush(amount=2, falloff=0)), snapshot(surface))
    for x in range(-3, 4):
        h = surface(x, 0)
        assert result.desired[(x, h + 2, 0)] == GRASS
        assert result.desired[(x, h, 0)] == "minecraft:dirt"
        assert result.after[4][x + 4] == h + 2


def test_live_fixture_raise_three():
    """9x13x9 fixture at surface 84, radius 3, falloff 0.5, raise 3 (live-brush.mjs numbers)."""
    data = brush(min={"x": -4, "y": 80, "z": -4}, max={"x": 4, "y": 92, "z": 4}, amount=3)
    result = compile_brush(spec_of(data), snapshot(flat(84), (-4, 80, -4), (4, 92, 4)))
    assert (result.changed_columns, result.raised, len(result.desired), result.dependencies) == (21, 51, 72, 1053)
    assert result.after[4][4] == 87
    fields = brush_preview_fields(result)
    assert (fields["height_min"], fields["height_max"], fields["raised_volume"]) == (84, 87, 51)
    flatten_same = compile_brush(
        spec_of(brush(min=data["min"], max=data["max"], action="flatten", amount=None, height=84)),
        snapshot(flat(84), (-4, 80, -4), (4, 92, 4)),
    )
    assert flatten_same.desired == {}


@pytest.mark.parametrize(
    ("delta", "expected"), [(0.5, 1), (-0.5, -1), (1.49, 1), (-1.5, -2), (2.5, 3), (0.49, 0), (-0.49, 0), (0.0, 0)]
)
def test_round_half_away_from_zero(delta, expected):
    assert round_half_away(delta) == expected


def test_edge_weight_by_hand():
    assert edge_weight(2.9, 3, 0) == 1
    assert edge_weight(1.5, 3, 0.5) == 1  # core = 1.5
    assert edge_weight(3, 3, 0.5) == 0
    assert edge_weight(2.25, 3, 0.5) == pytest.approx(0.5)  # t = 0.5 -> 1 - 0.5
    assert edge_weight(0, 3, 1) == 1  # core 0: t = 0


def test_image_colours_and_size():
    data = brush(min={"x": -4, "y": 80, "z": -4}, max={"x": 4, "y": 92, "z": 4}, amount=3)
    result = compile_brush(spec_of(data), snapshot(flat(84), (-4, 80, -4), (4, 92, 4)))
    pixels = render_brush_image(result)
    assert pixels.shape == (300, 780, 3)
    cell = 240 / 9
    centre = (36 + int(4 * cell) + 2, 530 + int(4 * cell) + 2)
    assert tuple(pixels[centre]) == (0x89, 0xCC, 0x70)
    assert tuple(pixels[37, 531]) == (0x34, 0x46, 0x4A)  # corner column unchanged
    assert tuple(pixels[37, 11]) == (45, 83, 65)  # before, lowest height
    assert tuple(pixels[centre[0], 270 + int(4 * cell) + 2]) == (205, 203, 172)  # after, highest


def snapshot_errors(surface_fn, **changes):
    with pytest.raises(BrushError) as info:
        compile_brush(spec_of(brush(**changes)), snapshot(surface_fn))
    return info.value.message


def test_compile_errors():
    assert snapshot_errors(flat(10)) == "Surface touches scan ceiling at -4,-4; include air above terrain"
    assert snapshot_errors(flat(-5)) == "No terrain surface in column -4,-4; extend scan downward"
    assert snapshot_errors(flat(8), amount=4, falloff=0) == (
        "Target surface leaves scan window; extend vertical bounds (keep air above)"
    )
    cells = snapshot(flat(3))
    cells[(2, 1, -1)] = "minecraft:oak_log[axis=y]"
    with pytest.raises(BrushError, match=r"non-terrain block at BlockPos\[x=2, y=1, z=-1\]"):
        compile_brush(spec_of(brush()), cells)
    cave = snapshot(flat(3))
    cave[(0, 0, 0)] = "minecraft:cave_air"
    with pytest.raises(BrushError, match="Cut would expose a void"):
        compile_brush(spec_of(brush(action="lower", amount=3, falloff=0)), cave)
    with pytest.raises(BrushError, match="Brush exceeds plan budget"):
        compile_brush(spec_of(brush(amount=4, falloff=0)), snapshot(flat(3)), budget=10)


BOX = {"min": {"x": 0, "y": 0, "z": 0}, "max": {"x": 0, "y": 0, "z": 0}}
PARSE_CASES = [
    (brush(color="red"), "Unknown brush field: color"),
    (brush(min=None), "Expected object: min"),
    (brush(min={"x": 0, "y": 0, "z": 0, "w": 1}), "Unknown brush field: w"),
    (brush(min={"x": 0, "y": 0}), "Expected number: z"),
    (brush(min={"x": 0.5, "y": 0, "z": 0}), "Expected 32-bit integer: x"),
    (brush(min={"x": 2**31, "y": 0, "z": 0}), "Expected 32-bit integer: x"),
    (brush(min={"x": -30_000_001, "y": 0, "z": 0}), "Coordinate out of range"),
    (brush(max={"x": 4, "y": 4097, "z": 4}), "Coordinate out of range"),
    (brush(min={"x": 5, "y": -4, "z": -4}), "Invalid inclusive region bounds"),
    (brush(center={"x": 0, "y": 0, "z": 0}), "Unknown brush field: y"),
    (brush(action=None), "Expected text: action"),
    (brush(amount=None), "raise/lower require amount"),
    (brush(action="flatten", amount=None), "flatten requires height"),
    (brush(action="smooth"), "amount is only for raise/lower"),
    (brush(height=3), "height is only for flatten"),
    (brush(smooth_radius=2), "smooth_radius is only for smooth"),
    (brush(preserve={}), "Invalid preserve boxes"),
    (brush(preserve=[BOX] * 65), "Invalid preserve boxes"),
    (brush(preserve=[1]), "Invalid preserve box"),
    (brush(radius=3.5), "Expected 32-bit integer: radius"),
    (brush(strength="1"), "Expected number: strength"),
    (brush(max={"x": 4, "y": 60, "z": 4}), "Brush scan window must contain at most 4096 cells"),
    (brush(radius=17), "Radius must be 1..16; smoothing radius 1..3"),
    (brush(action="smooth", amount=None, smooth_radius=4), "Radius must be 1..16; smoothing radius 1..3"),
    (brush(action="dig", amount=None), "Unknown brush action"),
    (brush(amount=33), "Invalid brush strength, falloff or amount"),
    (brush(strength=1.5), "Invalid brush strength, falloff or amount"),
    (brush(falloff=-0.1), "Invalid brush strength, falloff or amount"),
    (brush(radius=5), "Scan window must include the whole brush and smoothing halo"),
    (
        brush(action="smooth", amount=None, radius=3, smooth_radius=2),
        "Scan window must include the whole brush and smoothing halo",
    ),
    (
        brush(preserve=[{"min": {"x": 0, "y": 0, "z": 0}, "max": {"x": 5, "y": 0, "z": 0}}]),
        "Preserve box exceeds scan window",
    ),
]


@pytest.mark.parametrize(
    ("data", "message"), PARSE_CASES, ids=[m[:40] + f"#{i}" for i, (_, m) in enumerate(PARSE_CASES)]
)
def test_parse_messages(data, message):
    with pytest.raises(BrushError) as info:
        spec_of(data)
    assert info.value.message == message and info.value.code == "invalid_request"


def test_brush_integers_accept_integral_decimals_and_defaults_apply():
    text = json.dumps(brush()).replace('"radius": 3', '"radius": 3.0').replace('"amount": 4', '"amount": 4e0')
    spec = parse_brush(loads_keeping_numbers(text))
    assert (spec.radius, spec.amount) == (3, 4)
    bare = {k: v for k, v in brush().items() if k not in ("strength", "falloff", "preserve")}
    spec = spec_of(bare)
    assert (spec.strength, spec.falloff, spec.preserve, spec.smooth_radius) == (1.0, 0.5, (), 1)
    with pytest.raises(BrushError, match="Expected brush object"):
        parse_brush(None)
