"""Geometry properties against a reference written here from the spec's definitions (exact fractions, sets)."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from mcb.recipes.compile import compile_geometry

from .helpers import box, cylinder, line, recipe, repeat

coordinate = st.integers(-12, 12)
points = st.tuples(coordinate, coordinate, coordinate)


def cells(*operations):
    return compile_geometry(recipe(*operations), max_blocks=100_000).positions


@settings(max_examples=200)
@given(points, points)
def test_line_is_round_half_up_of_the_exact_fraction(start, end):
    deltas = [e - s for s, e in zip(start, end)]
    steps = max(abs(d) for d in deltas)
    if steps == 0:
        expected = [start]
    else:
        expected = [
            tuple(s + math.floor(Fraction(d * i, steps) + Fraction(1, 2)) for s, d in zip(start, deltas))
            for i in range(steps + 1)
        ]
    result = cells(line(start, end))
    assert result == list(dict.fromkeys(expected))
    assert result[0] == start and result[-1] == end and len(result) == steps + 1
    # 26-connected: consecutive cells touch (Chebyshev distance 1)
    assert all(max(abs(a - b) for a, b in zip(p, q)) == 1 for p, q in zip(result, result[1:]))


@settings(max_examples=150)
@given(points, st.integers(0, 6), st.integers(1, 4), st.booleans())
def test_cylinder_is_the_set_of_the_definition(center, radius, height, hollow):
    cx, cy, cz = center
    expected = {
        (cx + x, cy + y, cz + z)
        for x in range(-radius, radius + 1)
        for z in range(-radius, radius + 1)
        for y in range(height)
        if x * x + z * z <= radius * radius and (not hollow or radius == 0 or x * x + z * z > (radius - 1) ** 2)
    }
    result = cells(cylinder(center, radius, height, hollow=hollow))
    assert set(result) == expected and len(result) == len(expected)


@settings(max_examples=150)
@given(points, st.tuples(*[st.integers(0, 5)] * 3), st.booleans())
def test_box_is_the_set_of_the_definition(low, size, hollow):
    high = tuple(a + b for a, b in zip(low, size))
    every = {
        (x, y, z)
        for x in range(low[0], high[0] + 1)
        for y in range(low[1], high[1] + 1)
        for z in range(low[2], high[2] + 1)
    }
    on_face = {p for p in every if any(p[i] in (low[i], high[i]) for i in range(3))}
    assert set(cells(box(low, high, hollow=hollow))) == (on_face if hollow else every)


@settings(max_examples=100)
@given(st.integers(1, 5), points, points, points)
def test_repeat_equals_the_union_of_shifted_copies(count, offset, start, end):
    shifted = []
    for i in range(count):
        move = tuple(i * o for o in offset)
        shifted.append(line(tuple(a + m for a, m in zip(start, move)), tuple(a + m for a, m in zip(end, move))))
    assert cells(repeat(count, offset, [line(start, end)])) == cells(*shifted)


@settings(max_examples=100)
@given(st.lists(st.tuples(points, st.tuples(*[st.integers(0, 3)] * 3), st.sampled_from("abc")), min_size=1, max_size=5))
def test_last_operation_wins_and_first_insertion_order_is_kept(specs):
    operations, expected_state, order = [], {}, []
    for low, size, name in specs:
        high = tuple(a + b for a, b in zip(low, size))
        operations.append(box(low, high, f"minecraft:{name}"))
        for y in range(low[1], high[1] + 1):
            for z in range(low[2], high[2] + 1):
                for x in range(low[0], high[0] + 1):
                    if (x, y, z) not in expected_state:
                        order.append((x, y, z))
                    expected_state[(x, y, z)] = f"minecraft:{name}"
    compiled = compile_geometry(recipe(*operations), max_blocks=100_000)
    assert compiled.positions == order
    assert compiled.states == [expected_state[p] for p in order]
