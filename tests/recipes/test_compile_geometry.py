"""Compiled geometry against hand-computed cells (protocol §4.2 formulas), in the compiler's insertion order."""

from __future__ import annotations

import pytest

from mcb.recipes.compile import compile_geometry, compile_recipe

from .helpers import box, cylinder, line, recipe, repeat


def cells(*operations, max_blocks=4096):
    return compile_geometry(recipe(*operations), max_blocks=max_blocks).positions


def test_one_block_box():
    assert cells(box((5, -3, 7), (5, -3, 7))) == [(5, -3, 7)]


def test_box_cells_run_x_fastest_then_z_then_y():
    assert cells(box((0, 0, 0), (1, 1, 1))) == [
        (0, 0, 0),
        (1, 0, 0),
        (0, 0, 1),
        (1, 0, 1),
        (0, 1, 0),
        (1, 1, 0),
        (0, 1, 1),
        (1, 1, 1),
    ]


def test_box_with_negative_coordinates():
    assert cells(box((-2, -64, -2), (-1, -64, -1))) == [(-2, -64, -2), (-1, -64, -2), (-2, -64, -1), (-1, -64, -1)]


def test_hollow_3x3x3_box_has_26_cells_and_no_centre():
    result = cells(box((0, 0, 0), (2, 2, 2), hollow=True))
    assert len(result) == 26 and (1, 1, 1) not in result


def test_hollow_4x4x4_box_loses_its_2x2x2_core():
    result = set(cells(box((0, 0, 0), (3, 3, 3), hollow=True)))
    core = {(x, y, z) for x in (1, 2) for y in (1, 2) for z in (1, 2)}
    assert len(result) == 56 and not (result & core)


@pytest.mark.parametrize("high", [(1, 4, 4), (4, 1, 4), (4, 4, 0)])
def test_hollow_box_two_or_fewer_cells_thick_comes_out_solid(high):
    solid = cells(box((0, 0, 0), high))
    assert cells(box((0, 0, 0), high, hollow=True)) == solid


def test_zero_length_line_is_one_cell():
    assert cells(line((3, 70, -2), (3, 70, -2))) == [(3, 70, -2)]


def test_shallow_line_rounds_to_nearest():
    # steps 3: y = round(s/3) -> 0, 0, 1, 1
    assert cells(line((0, 0, 0), (3, 1, 0))) == [(0, 0, 0), (1, 0, 0), (2, 1, 0), (3, 1, 0)]


def test_line_halves_round_toward_positive_infinity():
    # steps 2, s = 1: +0.5 rounds to 1, -0.5 rounds to 0
    assert cells(line((0, 0, 0), (2, 1, 0))) == [(0, 0, 0), (1, 1, 0), (2, 1, 0)]
    assert cells(line((0, 0, 0), (2, -1, 0))) == [(0, 0, 0), (1, 0, 0), (2, -1, 0)]


def test_descending_diagonal_includes_both_endpoints():
    assert cells(line((3, 3, 3), (-2, -2, -2))) == [(3 - i, 3 - i, 3 - i) for i in range(6)]


def test_line_along_z_with_x_drift():
    # steps 4 (z), x = round(2*s/4) = 0, 1(0.5 up), 1, 2(1.5 up), 2
    assert cells(line((0, 0, 0), (2, 0, 4))) == [(0, 0, 0), (1, 0, 1), (1, 0, 2), (2, 0, 3), (2, 0, 4)]


def test_radius_zero_cylinder_is_a_column_solid_or_hollow():
    expected = [(1, 2, 3), (1, 3, 3), (1, 4, 3)]
    assert cells(cylinder((1, 2, 3), 0, 3)) == expected
    assert cells(cylinder((1, 2, 3), 0, 3, hollow=True)) == expected


def test_radius_one_disc_order_and_hollow_ring():
    assert cells(cylinder((0, 0, 0), 1, 1)) == [(0, 0, -1), (-1, 0, 0), (0, 0, 0), (1, 0, 0), (0, 0, 1)]
    assert cells(cylinder((0, 0, 0), 1, 1, hollow=True)) == [(0, 0, -1), (-1, 0, 0), (1, 0, 0), (0, 0, 1)]


def test_radius_one_height_two_gives_10_solid_and_8_hollow_open_at_both_ends():
    solid = cells(cylinder((0, 3, 0), 1, 2))
    hollow = cells(cylinder((0, 3, 0), 1, 2, hollow=True))
    assert len(solid) == 10 and (0, 4, 0) in solid and min(y for _, y, _ in solid) == 3
    assert len(hollow) == 8 and (0, 3, 0) not in hollow and (0, 4, 0) not in hollow


def test_radius_two_disc_and_ring_by_hand():
    disc = {(x, z) for x in range(-2, 3) for z in range(-2, 3) if x * x + z * z <= 4}
    assert len(disc) == 13
    ring = disc - {(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)}
    assert {(x, z) for x, _, z in cells(cylinder((0, 0, 0), 2, 1))} == disc
    assert {(x, z) for x, _, z in cells(cylinder((0, 0, 0), 2, 1, hollow=True))} == ring
    assert len(ring) == 8


def test_repeat_offsets_accumulate_and_later_operations_win():
    compiled = compile_geometry(
        recipe(
            repeat(3, (2, 0, 0), [line((0, 0, 0), (1, 0, 0))]),
            box((2, 0, 0), (2, 0, 0), "minecraft:gold_block"),
        )
    )
    assert compiled.positions == [(x, 0, 0) for x in range(6)]
    assert compiled.states[2] == "minecraft:gold_block"
    assert compiled.states.count("minecraft:stone") == 5


def test_overlap_keeps_first_insertion_position_and_last_value():
    compiled = compile_geometry(
        recipe(
            box((0, 0, 0), (2, 0, 0)),
            line((1, 0, 0), (1, 0, 0), "minecraft:dirt"),
            box((0, 0, 0), (0, 0, 0), "minecraft:sand"),
        )
    )
    assert compiled.positions == [(0, 0, 0), (1, 0, 0), (2, 0, 0)]
    assert compiled.states == ["minecraft:sand", "minecraft:dirt", "minecraft:stone"]
    assert compiled.scan_used == 5


def test_nested_repeats_at_the_depth_limit():
    inner = [box((0, 0, 0), (0, 0, 0))]
    for _ in range(8):
        inner = [repeat(2, (1, 0, 0), inner)]
    compiled = compile_geometry(recipe(*inner))
    # x is the number of iterations with i = 1 among the 8 levels: 0..8
    assert compiled.positions == [(x, 0, 0) for x in range(9)]
    assert compiled.operations_expanded == 255 + 256
    assert compiled.scan_used == 256
    assert compiled.max_depth_reached == 8


def test_repeat_displacements_are_multiples_of_the_offset_per_level():
    compiled = compile_geometry(recipe(repeat(2, (0, 10, 0), [repeat(3, (1, 0, -1), [box((0, 0, 0), (0, 0, 0))])])))
    assert compiled.positions == [(0, 0, 0), (1, 0, -1), (2, 0, -2), (0, 10, 0), (1, 10, -1), (2, 10, -2)]


def test_plan_order_sorts_by_y_then_z_then_x():
    # the line's middle cell: y = 1 + round(-1/2) = 1 + 0 (halves go toward +infinity)
    compiled = compile_geometry(recipe(line((2, 1, 0), (0, 0, 0)), box((5, 0, -1), (5, 0, -1))))
    assert compiled.positions == [(2, 1, 0), (1, 1, 0), (0, 0, 0), (5, 0, -1)]
    assert [p for p, _ in compiled.blocks()] == [(5, 0, -1), (0, 0, 0), (1, 1, 0), (2, 1, 0)]


def test_empty_recipe_compiles_to_nothing():
    compiled = compile_geometry(recipe())
    assert compiled.positions == [] and compiled.bounds is None


def test_summary_reports_bounds_palette_and_budgets():
    compiled = compile_geometry(
        recipe(box((0, 0, 0), (1, 0, 0)), box((0, 2, 0), (0, 2, 0), "minecraft:dirt")), max_blocks=100
    )
    summary = compiled.summary()
    assert summary["bounds"] == {
        "min": {"x": 0, "y": 0, "z": 0},
        "max": {"x": 1, "y": 2, "z": 0},
        "size": {"x": 2, "y": 3, "z": 1},
    }
    assert summary["palette"] == [{"state": "minecraft:stone", "count": 2}, {"state": "minecraft:dirt", "count": 1}]
    assert summary["budgets"]["scan"] == {"used": 3, "limit": 1600}
    assert summary["budgets"]["blocks"] == {"used": 3, "limit": 100}


def test_registry_canonicalizes_states():
    from mcb.blocks.registry import load_registry

    compiled = compile_recipe(
        recipe(box((0, 0, 0), (0, 0, 0), "minecraft:oak_stairs[facing=east]")), load_registry("26.2")
    )
    assert compiled.states == ["minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]"]
    assert compiled.canonical
