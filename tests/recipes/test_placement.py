"""Recipe placement (--rotation / --target of `mcb build RECIPE`): properties over random recipes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcb.blocks.transform import StateTransformer
from mcb.errors import UsageError
from mcb.recipes.compile import compile_geometry
from mcb.recipes.placement import place_recipe, turn_position

BLOCKS = [
    "minecraft:stone",
    "minecraft:oak_stairs[facing=north]",
    "minecraft:oak_log[axis=x]",
    "minecraft:rail[shape=north_east]",
    "minecraft:red_bed[facing=west,part=head]",
]
coord = st.integers(-6, 6)
pos = st.builds(lambda x, y, z: {"x": x, "y": y, "z": z}, coord, st.integers(60, 66), coord)
small = st.integers(0, 3)


def _box(low, size, block, hollow):
    high = {k: low[k] + size[i] for i, k in enumerate("xyz")}
    return {"type": "box", "min": low, "max": high, "block": block, "hollow": hollow}


box = st.builds(_box, pos, st.tuples(small, small, small), st.sampled_from(BLOCKS), st.booleans())
line = st.builds(
    lambda a, b, block: {"type": "line", "from": a, "to": b, "block": block}, pos, pos, st.sampled_from(BLOCKS)
)
cylinder = st.builds(
    lambda c, r, h, block, hollow: {
        "type": "cylinder",
        "center": c,
        "radius": r,
        "height": h,
        "block": block,
        "hollow": hollow,
    },
    pos,
    small,
    st.integers(1, 3),
    st.sampled_from(BLOCKS),
    st.booleans(),
)
leaf = st.one_of(box, line, cylinder)
repeat = st.builds(
    lambda n, off, ops: {"type": "repeat", "count": n, "offset": off, "operations": ops},
    st.integers(1, 3),
    st.builds(lambda x, y, z: {"x": x, "y": y, "z": z}, small, small, small),
    st.lists(leaf, min_size=1, max_size=2),
)
recipes = st.builds(
    lambda ops: {"version": 1, "operations": ops}, st.lists(st.one_of(leaf, repeat), min_size=1, max_size=4)
)
targets = st.builds(
    lambda x, y, z: {"x": x, "y": y, "z": z}, st.integers(-100, 100), st.integers(-60, 300), st.integers(-100, 100)
)
STATES = StateTransformer()


def cells(recipe) -> dict:
    compiled = compile_geometry(recipe, max_blocks=100_000)
    return {p: STATES.rotate(s, 0) for p, s in zip(compiled.positions, compiled.states)}


@settings(max_examples=60, deadline=None)
@given(recipes, targets, st.sampled_from([0, 90, 180, 270]))
def test_min_corner_lands_on_the_target(recipe, target, rotation):
    placed = compile_geometry(place_recipe(recipe, rotation=rotation, target=target), max_blocks=100_000)
    assert placed.bounds[0] == (target["x"], target["y"], target["z"])


@settings(max_examples=60, deadline=None)
@given(recipes, st.sampled_from([90, 180, 270]))
def test_every_cell_turns_with_its_state_and_none_moves_otherwise(recipe, rotation):
    turns = rotation // 90
    before = cells(recipe)
    after = cells(place_recipe(recipe, rotation=rotation, target={"x": 0, "y": 0, "z": 0}))
    turned = {turn_position(p, turns): STATES.rotate(s, turns) for p, s in before.items()}
    low = tuple(min(p[i] for p in turned) for i in range(3))
    expected = {tuple(p[i] - low[i] for i in range(3)): s for p, s in turned.items()}
    assert after == expected


@settings(max_examples=40, deadline=None)
@given(recipes)
def test_four_quarter_turns_are_the_identity(recipe):
    placed = recipe
    for _ in range(4):
        placed = place_recipe(placed, rotation=90)
    assert cells(placed) == cells(recipe)


def test_a_rotation_that_is_not_a_quarter_turn_is_a_usage_error():
    with pytest.raises(UsageError):
        place_recipe({"version": 1, "operations": []}, rotation=45)
