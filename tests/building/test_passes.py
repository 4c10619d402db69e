"""Build order by block kind, and where the other half of a two-block thing stands (the game's rules)."""

from __future__ import annotations

import pytest

from mcb.building.passes import ATTACHED, FLUID, SOLID, build_pass, partner_offset


@pytest.mark.parametrize(
    "state,expected",
    [
        ("minecraft:stone", SOLID),
        ("minecraft:air", SOLID),
        ("minecraft:oak_stairs[facing=north]", SOLID),
        ("minecraft:sand", SOLID),
        ("minecraft:torch", ATTACHED),
        ("minecraft:wall_torch[facing=east]", ATTACHED),
        ("minecraft:redstone_wall_torch[facing=west,lit=true]", ATTACHED),
        ("minecraft:rail[shape=north_south]", ATTACHED),
        ("minecraft:powered_rail", ATTACHED),
        ("minecraft:lever[face=wall]", ATTACHED),
        ("minecraft:oak_button", ATTACHED),
        ("minecraft:white_carpet", ATTACHED),
        ("minecraft:moss_carpet", ATTACHED),
        ("minecraft:redstone_wire", ATTACHED),
        ("minecraft:repeater", ATTACHED),
        ("minecraft:comparator", ATTACHED),
        ("minecraft:vine", ATTACHED),
        ("minecraft:oak_door[half=upper]", ATTACHED),
        ("minecraft:poppy", ATTACHED),
        ("minecraft:ladder", ATTACHED),
        ("minecraft:water[level=0]", FLUID),
        ("minecraft:lava", FLUID),
        ("minecraft:bubble_column", FLUID),
        ("minecraft:oak_trapdoor[half=top]", SOLID),
        ("minecraft:redstone_block", SOLID),
    ],
)
def test_passes(state, expected):
    assert build_pass(state) == expected


@pytest.mark.parametrize(
    "state,offset",
    [
        ("minecraft:oak_door[facing=east,half=lower,hinge=left,open=false,powered=false]", (0, 1, 0)),
        ("minecraft:oak_door[facing=east,half=upper,hinge=left,open=false,powered=false]", (0, -1, 0)),
        ("minecraft:sunflower[half=lower]", (0, 1, 0)),
        ("minecraft:tall_seagrass[half=upper]", (0, -1, 0)),
        ("minecraft:red_bed[facing=north,occupied=false,part=foot]", (0, 0, -1)),  # the head is where the foot faces
        ("minecraft:red_bed[facing=north,occupied=false,part=head]", (0, 0, 1)),
        ("minecraft:red_bed[facing=east,occupied=false,part=foot]", (1, 0, 0)),
        # ChestBlock.getConnectedDirection: left -> clockwise of facing, right -> counter-clockwise
        ("minecraft:chest[facing=north,type=left,waterlogged=false]", (1, 0, 0)),
        ("minecraft:chest[facing=north,type=right,waterlogged=false]", (-1, 0, 0)),
        ("minecraft:trapped_chest[facing=east,type=left,waterlogged=false]", (0, 0, 1)),
        ("minecraft:chest[facing=south,type=single,waterlogged=false]", None),
        ("minecraft:oak_stairs[facing=north,half=top,shape=straight,waterlogged=false]", None),
        ("minecraft:stone", None),
    ],
)
def test_partner_offsets(state, offset):
    assert partner_offset(state) == offset
