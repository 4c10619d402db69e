"""Schematic rotate/mirror: placement equivalence with the server's import formula (protocol §6.5), group laws,
block entities / entities / biomes moving with their blocks, upstream test expectations (spec §B.6)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcb.blocks.registry import load_registry
from mcb.blocks.transform import mirror_state, rotate_state
from mcb.errors import UsageError
from mcb.schematics import nbt  # the codec's own NBT tag types
from mcb.schematics.model import BlockEntity, Entity, Schematic
from mcb.schematics.transform import mirror_schematic, rotate_schematic

REG = load_registry("26.2")
STATES = [
    "minecraft:air",
    "minecraft:stone",
    "minecraft:oak_stairs[facing=north,half=bottom,shape=outer_left,waterlogged=false]",
    "minecraft:oak_log[axis=x]",
    "minecraft:rail[shape=south_east,waterlogged=false]",
    "minecraft:oak_sign[rotation=3,waterlogged=false]",
    "minecraft:chest[facing=west,type=left,waterlogged=false]",
]


def server_placement(schem: Schematic, target, degrees: int) -> dict:
    """Protocol §6.5, written out independently: d = p + Offset, turned (dx, dz) <- (-dz, dx) per 90°, plus target."""
    placed = {}
    for y in range(schem.height):
        for z in range(schem.length):
            for x in range(schem.width):
                dx, dy, dz = x + schem.offset[0], y + schem.offset[1], z + schem.offset[2]
                for _ in range(degrees // 90):
                    dx, dz = -dz, dx
                placed[(target[0] + dx, target[1] + dy, target[2] + dz)] = schem.palette[int(schem.blocks[y, z, x])]
    return placed


@st.composite
def schematics(draw):
    w, h, l = (draw(st.integers(1, 5)) for _ in range(3))
    blocks = np.array(
        draw(st.lists(st.integers(0, len(STATES) - 1), min_size=w * h * l, max_size=w * h * l)), dtype=np.int32
    ).reshape(h, l, w)
    offset = tuple(draw(st.integers(-6, 6)) for _ in range(3))
    return Schematic(width=w, height=h, length=l, palette=list(STATES), blocks=blocks, data_version=4903, offset=offset)


@settings(max_examples=150, deadline=None)
@given(schematics(), st.sampled_from([90, 180, 270]), st.sampled_from(["vanilla", "geometric"]))
def test_rotating_offline_then_importing_at_0_equals_importing_at_that_rotation(schem, degrees, rules):
    target = (10, 64, -20)
    expected = {
        pos: rotate_state(state, degrees // 90, rules, REG)
        for pos, state in server_placement(schem, target, degrees).items()
    }
    rotated = rotate_schematic(schem, degrees, rules, REG)
    assert rotated.blocks.shape == (
        schem.height,
        *((schem.width, schem.length) if degrees != 180 else (schem.length, schem.width)),
    )
    assert rotated.blocks.flags["C_CONTIGUOUS"]
    assert server_placement(rotated, target, 0) == expected


@settings(max_examples=100, deadline=None)
@given(schematics(), st.sampled_from("xz"))
def test_mirror_keeps_the_anchor_and_reflects_world_positions(schem, axis):
    target = (3, 70, 5)
    expected = {}
    for (x, y, z), state in server_placement(schem, target, 0).items():
        dx, dz = x - target[0], z - target[2]
        pos = (target[0] - dx, y, z) if axis == "x" else (x, y, target[2] - dz)
        expected[pos] = mirror_state(state, axis, "geometric", REG)
    mirrored = mirror_schematic(schem, axis, "geometric", REG)
    assert server_placement(mirrored, target, 0) == expected


def canonical_cells(schem: Schematic):
    return [[[REG.canonicalize(schem.palette[i]) for i in row] for row in layer] for layer in schem.blocks.tolist()]


@settings(max_examples=100, deadline=None)
@given(schematics(), st.sampled_from(["vanilla", "geometric"]))
def test_group_laws(schem, rules):
    four = schem
    for _ in range(4):
        four = rotate_schematic(four, 90, rules, REG)
    there_back = rotate_schematic(rotate_schematic(schem, 90, rules, REG), 270, rules, REG)
    for result in (
        four,
        there_back,
        mirror_schematic(mirror_schematic(schem, "x", rules, REG), "x", rules, REG),
        mirror_schematic(mirror_schematic(schem, "z", rules, REG), "z", rules, REG),
    ):
        assert result.size == schem.size and result.offset == schem.offset
        assert canonical_cells(result) == canonical_cells(schem)


def test_upstream_rotation_expectations():
    """Spec §B.6: blocks at x = 1,2,3 (Offset (1,0,0)) rotated 90 at target (10,64,20)."""
    palette = ["minecraft:oak_stairs[facing=north]", "minecraft:oak_log[axis=x]", "minecraft:oak_slab[type=top]"]
    schem = Schematic(3, 1, 1, palette, np.array([[[0, 1, 2]]], dtype=np.int32), 4903, offset=(1, 0, 0))
    placed = server_placement(rotate_schematic(schem, 90, registry=REG), (10, 64, 20), 0)
    assert "facing=east" in placed[(10, 64, 21)]
    assert "axis=z" in placed[(10, 64, 22)]
    assert "type=top" in placed[(10, 64, 23)]
    assert rotate_schematic(schem, 90, registry=REG).offset == (0, 0, 1)  # (-(O.z + L - 1), O.y, O.x)


def test_offset_formulas_from_the_spec_table():
    schem = Schematic(4, 2, 3, ["minecraft:stone"], np.zeros((2, 3, 4), dtype=np.int32), 4903, offset=(5, -1, 7))
    w, l = 4, 3
    assert rotate_schematic(schem, 90, registry=REG).offset == (-(7 + l - 1), -1, 5)
    assert rotate_schematic(schem, 180, registry=REG).offset == (-(5 + w - 1), -1, -(7 + l - 1))
    assert rotate_schematic(schem, 270, registry=REG).offset == (7, -1, -(5 + w - 1))
    assert (rotate_schematic(schem, 90, registry=REG).width, rotate_schematic(schem, 90, registry=REG).length) == (3, 4)


def test_block_entities_entities_and_biomes_follow_their_blocks():
    w, h, l = 3, 1, 2
    blocks = np.zeros((h, l, w), dtype=np.int32)
    blocks[0, 1, 2] = 1  # chest at local (2, 0, 1)
    palette = ["minecraft:air", "minecraft:chest[facing=north]"]
    be = BlockEntity((2, 0, 1), "minecraft:chest", nbt.Compound({"Items": nbt.List((), nbt.TAG_COMPOUND)}))
    frame = Entity(
        (2.5, 0.5, 1.5),
        "minecraft:item_frame",
        nbt.Compound({"Facing": nbt.Byte(2), "Rotation": nbt.List([0.0, 10.0], nbt.TAG_FLOAT)}),
    )
    biomes = np.array([[[0, 0, 1], [0, 0, 0]]], dtype=np.int32)
    schem = Schematic(
        w,
        h,
        l,
        palette,
        blocks,
        4903,
        block_entities=[be],
        entities=[frame],
        biome_palette=["minecraft:plains", "minecraft:desert"],
        biomes=biomes,
    )
    out = rotate_schematic(schem, 90, registry=REG)
    # 90° CW: local (x, z) -> (L - 1 - z, x) = (0, 2)
    assert out.state_at(0, 0, 2).startswith("minecraft:chest[facing=east")
    assert out.block_entities[0].pos == (0, 0, 2)
    assert out.entities[0].pos == pytest.approx((0.5, 0.5, 2.5))  # still the centre of the chest's cell
    assert int(out.entities[0].data["Facing"]) == 5  # north -> east (3-D data value 5)
    assert float(out.entities[0].data["Rotation"][0]) == pytest.approx(90.0)  # yaw south(0) -> west(90)
    assert float(out.entities[0].data["Rotation"][1]) == pytest.approx(10.0)
    assert out.biomes.shape == (1, 3, 2) and out.biomes[0, 2, 1] == 1 and out.biomes.sum() == 1  # (2,0) -> (1,2)
    assert int(schem.entities[0].data["Facing"]) == 2  # input untouched
    mirrored = mirror_schematic(schem, "x", registry=REG)
    assert mirrored.block_entities[0].pos == (0, 0, 1)
    assert mirrored.entities[0].pos == pytest.approx((0.5, 0.5, 1.5))


@settings(max_examples=100, deadline=None)
@given(st.floats(-179.0, 179.0), st.sampled_from([None, "x", "z"]))
def test_entity_yaw_round_trips(yaw, axis):
    data = nbt.Compound({"Rotation": nbt.List([yaw, 0.0], nbt.TAG_FLOAT)})
    schem = Schematic(
        2,
        1,
        3,
        ["minecraft:air"],
        np.zeros((1, 3, 2), dtype=np.int32),
        4903,
        entities=[Entity((0.25, 0.0, 1.75), "minecraft:armor_stand", data)],
    )
    out = schem
    for _ in range(2 if axis else 4):
        out = mirror_schematic(out, axis, registry=REG) if axis else rotate_schematic(out, 90, registry=REG)
    back = float(out.entities[0].data["Rotation"][0])
    assert math.isclose(math.cos(math.radians(back)), math.cos(math.radians(yaw)), abs_tol=1e-4)
    assert math.isclose(math.sin(math.radians(back)), math.sin(math.radians(yaw)), abs_tol=1e-4)
    assert out.entities[0].pos == pytest.approx((0.25, 0.0, 1.75))


def test_bad_degrees_and_axis_are_usage_errors():
    schem = Schematic(1, 1, 1, ["minecraft:stone"], np.zeros((1, 1, 1), dtype=np.int32), 4903)
    with pytest.raises(UsageError):
        rotate_schematic(schem, 45)
    with pytest.raises(UsageError):
        mirror_schematic(schem, "y")


def test_palette_entries_that_become_equal_are_merged():
    palette = ["minecraft:oak_sign", "minecraft:oak_sign[rotation=8]"]  # same state, one implicit
    schem = Schematic(2, 1, 1, palette, np.array([[[0, 1]]], dtype=np.int32), 4903)
    out = rotate_schematic(schem, 90, registry=REG)
    assert len(out.palette) == 1 and out.blocks.tolist() == [[[0], [0]]]


def test_hanging_entity_absolute_tile_position_moves_with_its_block():
    """WorldEdit files keep TileX/Y/Z absolute; with a world origin the support block moves like a cell."""
    schem = Schematic(
        3,
        1,
        2,
        ["minecraft:stone"],
        np.zeros((1, 2, 3), dtype=np.int32),
        4903,
        offset=(-1, 0, -2),
        world_origin=(100, 64, 200),
    )
    # local cell (2, 0, 1) is world (100 - 1 + 2, 64, 200 - 2 + 1) = (101, 64, 199)
    frame = Entity(
        (2.5, 0.5, 1.05),
        "minecraft:item_frame",
        nbt.Compound(
            {
                "TileX": nbt.Int(101),
                "TileY": nbt.Int(64),
                "TileZ": nbt.Int(199),
                "Facing": nbt.Byte(3),
                "block_pos": nbt.IntArray((101, 64, 199)),
            }
        ),
    )
    schem.entities.append(frame)
    out = rotate_schematic(schem, 90, registry=REG)
    # The cell moves to local (L - 1 - z, x) = (0, 2) of the rotated box whose min is origin + new offset.
    new_min = (100 + out.offset[0], 64 + out.offset[1], 200 + out.offset[2])
    data = out.entities[0].data
    assert (int(data["TileX"]), int(data["TileY"]), int(data["TileZ"])) == (new_min[0] + 0, 64, new_min[2] + 2)
    assert list(data["block_pos"]) == [new_min[0], 64, new_min[2] + 2]
    assert int(data["Facing"]) == 4  # south (3) turned clockwise -> west (4)
    # Same world position as the server would compute for the original cell at 90°: anchor-relative (-dz, dx).
    dx, dz = 101 - 100, 199 - 200
    assert (100 - dz, 200 + dx) == (int(data["TileX"]), int(data["TileZ"]))


def test_geometric_mirror_moves_bookshelf_books_with_the_slot_state():
    palette = [
        "minecraft:chiseled_bookshelf[facing=north,slot_0_occupied=true,slot_1_occupied=false,"
        "slot_2_occupied=false,slot_3_occupied=false,slot_4_occupied=true,slot_5_occupied=false]"
    ]
    items = nbt.List(
        [
            nbt.Compound({"Slot": nbt.Byte(0), "id": nbt.String("minecraft:book")}),
            nbt.Compound({"Slot": nbt.Byte(4), "id": nbt.String("minecraft:book")}),
        ],
        nbt.TAG_COMPOUND,
    )
    be = BlockEntity((0, 0, 0), "minecraft:chiseled_bookshelf", nbt.Compound({"Items": items}))
    schem = Schematic(1, 1, 1, palette, np.zeros((1, 1, 1), dtype=np.int32), 4903, block_entities=[be])
    out = mirror_schematic(schem, "x", "geometric", REG)
    state = out.palette[0]
    assert "slot_2_occupied=true" in state and "slot_0_occupied=false" in state and "slot_4_occupied=true" in state
    assert sorted(int(i["Slot"]) for i in out.block_entities[0].data["Items"]) == [2, 4]
    vanilla = mirror_schematic(schem, "x", "vanilla", REG)
    assert sorted(int(i["Slot"]) for i in vanilla.block_entities[0].data["Items"]) == [0, 4]


def test_worldedit_metadata_offset_follows_the_paste_offset():
    meta = nbt.Compound(
        {"WorldEdit": nbt.Compound({"Offset": nbt.IntArray((1, 2, 3)), "Version": nbt.String("7.3.0")})}
    )
    schem = Schematic(
        2, 1, 4, ["minecraft:stone"], np.zeros((1, 4, 2), dtype=np.int32), 4903, offset=(1, 2, 3), metadata=meta
    )
    out = rotate_schematic(schem, 90, registry=REG)
    assert tuple(out.metadata["WorldEdit"]["Offset"]) == out.offset == (-(3 + 4 - 1), 2, 1)
    assert out.metadata["WorldEdit"]["Version"] == "7.3.0"
    assert tuple(schem.metadata["WorldEdit"]["Offset"]) == (1, 2, 3)  # input untouched


@settings(max_examples=60, deadline=None)
@given(
    schematics(),
    st.sampled_from([("rotate", 90), ("rotate", 180), ("rotate", 270), ("mirror", "x"), ("mirror", "z")]),
    st.data(),
)
def test_the_void_mask_moves_with_its_cells(schem, move, data):
    """Cells a file leaves unchanged stay unchanged wherever a rotation or mirror puts them."""
    schem.void = np.array(
        data.draw(st.lists(st.booleans(), min_size=schem.volume, max_size=schem.volume)), dtype=bool
    ).reshape(schem.blocks.shape)
    kind, arg = move
    moved = (
        rotate_schematic(schem, arg, "vanilla", REG)
        if kind == "rotate"
        else mirror_schematic(schem, arg, "vanilla", REG)
    )
    marked = schem.__class__(
        **{**schem.__dict__, "palette": ["minecraft:stone", "minecraft:dirt"], "blocks": schem.void.astype(np.int32)}
    )
    where = (
        rotate_schematic(marked, arg, "vanilla", REG)
        if kind == "rotate"
        else mirror_schematic(marked, arg, "vanilla", REG)
    )
    expected = np.array([where.palette[i] == "minecraft:dirt" for i in where.blocks.ravel()]).reshape(
        where.blocks.shape
    )
    assert moved.void.shape == moved.blocks.shape
    assert (moved.void == expected).all()
