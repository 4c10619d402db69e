"""schematic_import_prepare placement (protocol §6.5) as pure functions: the quarter-turn formula, overflow checks,
and agreement with the offline ``mcb schem rotate`` (importing a file baked at r degrees at 0 must place the same
blocks as importing the original at r degrees)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcb.blocks.registry import load_registry
from mcb.schematics.model import Schematic
from mcb.schematics.transform import rotate_schematic
from mcb.server import asset_codec
from mcb.server.assets import place
from mcb.server.errors import RpcError

REGISTRY = load_registry()
SERVER = SimpleNamespace(registry=REGISTRY)
STATES = [
    "minecraft:air",
    "minecraft:stone",
    "minecraft:oak_log[axis=x]",
    "minecraft:oak_log[axis=z]",
    "minecraft:oak_stairs[facing=east,half=top,shape=inner_left,waterlogged=false]",
    "minecraft:oak_fence[east=false,north=true,south=false,waterlogged=false,west=true]",
    "minecraft:rail[shape=north_east,waterlogged=false]",
    "minecraft:repeater[delay=2,facing=south,locked=false,powered=false]",
    "minecraft:red_bed[facing=west,occupied=false,part=head]",
]


def test_a_quarter_turn_is_clockwise_seen_from_above():
    # +x is east, +z is south: east -> south -> west -> north.
    assert place((1, 0, 0), (0, 0, 0), 90, (0, 0, 0)) == (0, 0, 1)
    assert place((1, 0, 0), (0, 0, 0), 180, (0, 0, 0)) == (-1, 0, 0)
    assert place((1, 0, 0), (0, 0, 0), 270, (0, 0, 0)) == (0, 0, -1)
    assert place((2, 5, 3), (-1, 1, 0), 0, (10, 60, 10)) == (11, 66, 13)


def test_y_is_never_rotated_and_offset_turns_with_the_cell():
    assert place((0, 3, 0), (4, -2, 1), 90, (0, 64, 0)) == (-1, 65, 4)


@pytest.mark.parametrize(
    "cell, offset, rotation, target",
    [
        ((1, 0, 0), (2**31 - 1, 0, 0), 0, (0, 0, 0)),  # cell + offset
        ((1, 0, 0), (0, 0, 0), 0, (2**31 - 1, 0, 0)),  # target + turned position
        ((0, 0, 0), (0, 0, -(2**31)), 90, (0, 0, 0)),  # negating -2^31 during the turn
        ((0, 0, 0), (0, -(2**31), 0), 0, (0, -1, 0)),  # below int32 on y
    ],
)
def test_overflow_is_refused(cell, offset, rotation, target):
    with pytest.raises(RpcError) as caught:
        place(cell, offset, rotation, target)
    assert (caught.value.code, caught.value.message) == ("invalid_request", "integer overflow")


def placed(schem, rotation, target):
    states = asset_codec.rotated_palette(schem, rotation, SERVER)
    return {place(cell, schem.offset, rotation, target): states[index] for cell, index in asset_codec.cells(schem)}


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(1, 3),
    st.integers(1, 4),
    st.sampled_from([0, 90, 180, 270]),
    st.tuples(*[st.integers(-5, 5)] * 3),
    st.randoms(use_true_random=False),
)
def test_server_placement_agrees_with_offline_rotation(width, height, length, rotation, offset, rnd):
    blocks = np.array([rnd.randrange(len(STATES)) for _ in range(width * height * length)], dtype=np.int32)
    schem = Schematic(width, height, length, list(STATES), blocks.reshape(height, length, width), 4903, offset=offset)
    target = (7, 70, -3)
    baked = rotate_schematic(schem, rotation, "vanilla", REGISTRY)
    assert placed(schem, rotation, target) == placed(baked, 0, target)


def test_four_quarter_turns_come_back():
    for state in STATES:
        turned = state
        for _ in range(4):
            turned = asset_codec.rotated_palette(SimpleNamespace(palette=[turned]), 90, SERVER)[0]
        assert turned == state
