"""Block-state rotation and mirroring: group laws over every block, rule coverage, hand-checked cases (spec §C)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcb.blocks.registry import SHIPPED_RELEASES, load_registry
from mcb.blocks.transform import (
    NEUTRAL,
    NEUTRAL_PROPERTIES,
    UnclassifiedPropertyError,
    classify_property,
    mirror_state,
    rotate_state,
    transform_palette,
)

REG = load_registry("26.2")
NAMES = REG.names()
RULES = ("vanilla", "geometric")


@st.composite
def full_states(draw):
    """Any block of 26.2 with every property set to a random allowed value."""
    info = REG.block(draw(st.sampled_from(NAMES)))
    props = {p: draw(st.sampled_from(values)) for p, values in info.properties.items()}
    return REG.canonicalize(info.name + ("[" + ",".join(f"{k}={v}" for k, v in props.items()) + "]" if props else ""))


def canon(state: str) -> str:
    return REG.canonicalize(state)


@settings(max_examples=300, deadline=None)
@given(full_states(), st.sampled_from(RULES))
def test_four_quarter_turns_are_identity_and_every_step_is_valid(state, rules):
    current = state
    for _ in range(4):
        current = rotate_state(current, 1, rules, REG)
        assert REG.is_valid(current), current
    assert canon(current) == state


@settings(max_examples=300, deadline=None)
@given(full_states(), st.sampled_from(RULES), st.sampled_from([1, 2, 3]))
def test_turn_then_inverse_turn_is_identity(state, rules, turns):
    there = rotate_state(state, turns, rules, REG)
    assert REG.is_valid(there)
    assert canon(rotate_state(there, 4 - turns, rules, REG)) == state


@settings(max_examples=300, deadline=None)
@given(full_states(), st.sampled_from(RULES), st.sampled_from("xz"))
def test_mirror_twice_is_identity_and_valid(state, rules, axis):
    once = mirror_state(state, axis, rules, REG)
    assert REG.is_valid(once), once
    assert canon(mirror_state(once, axis, rules, REG)) == state


@settings(max_examples=200, deadline=None)
@given(full_states())
def test_rotation_rule_sets_differ_only_for_chorus_plant_and_fire(state):
    """§C.5: for quarter turns (no mirror) vanilla and geometric differ only in chorus plant and fire."""
    vanilla = rotate_state(state, 1, "vanilla", REG)
    geometric = rotate_state(state, 1, "geometric", REG)
    if state.split("[")[0] not in ("minecraft:chorus_plant", "minecraft:fire"):
        assert vanilla == geometric


@settings(max_examples=200, deadline=None)
@given(full_states())
def test_x_mirror_then_half_turn_equals_z_mirror_geometric(state):
    """A group law independent of the tables: flipping X then turning 180° is flipping Z."""
    via_x = rotate_state(mirror_state(state, "x", "geometric", REG), 2, "geometric", REG)
    via_z = mirror_state(state, "z", "geometric", REG)
    assert canon(via_x) == canon(via_z)


def test_every_property_of_every_shipped_release_is_classified():
    """Fail closed: each property is either explicitly rotation-neutral or has a rule (no heuristic fallthrough)."""
    assert len(SHIPPED_RELEASES) >= 40
    seen = 0
    for release in SHIPPED_RELEASES:
        registry = load_registry(release)
        for name in registry.names():
            for prop, values in registry.block(name).properties.items():
                kind = classify_property(name, prop, values)  # raises UnclassifiedPropertyError otherwise
                if kind == NEUTRAL:
                    assert prop in NEUTRAL_PROPERTIES or prop == "type", (release, name, prop, values)
                seen += 1
    assert seen > 50_000  # (release, block, property) triples walked


@pytest.mark.parametrize(
    "prop,values",
    [
        ("facing", ("north", "sideways")),
        ("sideways", ("left", "right")),
        ("twist", ("x", "y")),
        ("shape", ("diagonal_northeast",)),
    ],
)
def test_direction_like_property_without_rule_fails_closed(prop, values):
    with pytest.raises(UnclassifiedPropertyError):
        classify_property("mod:thing", prop, values)


def test_unknown_modded_block_with_unknown_directional_property_raises():
    with pytest.raises(UnclassifiedPropertyError):
        rotate_state("mod:thing[curve=north_left]", 1, registry=REG)
    assert rotate_state("mod:thing[facing=north,colour=red]", 1, registry=REG) == "mod:thing[colour=red,facing=east]"


# -- hand-checked cases from the spec -------------------------------------------------------------------------------


def props(state: str) -> dict[str, str]:
    inside = state.partition("[")[2].rstrip("]")
    return dict(pair.split("=") for pair in inside.split(",")) if inside else {}


@pytest.mark.parametrize("turns,facing", [(1, "east"), (2, "south"), (3, "west"), (0, "north")])
def test_upstream_stairs_expectations(turns, facing):
    """protocol §6.6 test expectations: stairs facing north -> east at 90, west at 270; shape never changes."""
    out = props(rotate_state("minecraft:oak_stairs[facing=north,shape=inner_left]", turns, registry=REG))
    assert out["facing"] == facing and out["shape"] == "inner_left"


def test_log_axis_and_slab():
    assert props(rotate_state("minecraft:oak_log[axis=x]", 1, registry=REG))["axis"] == "z"
    assert props(rotate_state("minecraft:oak_log[axis=x]", 2, registry=REG))["axis"] == "x"
    assert props(rotate_state("minecraft:oak_log[axis=y]", 3, registry=REG))["axis"] == "y"
    assert props(rotate_state("minecraft:oak_slab[type=top]", 1, registry=REG))["type"] == "top"
    assert props(rotate_state("minecraft:nether_portal[axis=z]", 1, registry=REG))["axis"] == "x"


def test_six_way_facing_keeps_vertical():
    assert props(rotate_state("minecraft:piston[facing=up]", 1, registry=REG))["facing"] == "up"
    assert props(rotate_state("minecraft:observer[facing=west]", 1, registry=REG))["facing"] == "north"
    assert props(rotate_state("minecraft:hopper[facing=down]", 3, registry=REG))["facing"] == "down"
    assert props(rotate_state("minecraft:hopper[facing=south]", 3, registry=REG))["facing"] == "east"


@pytest.mark.parametrize(
    "start,turns,expected",
    [
        (0, 1, 4),
        (4, 1, 8),
        (15, 1, 3),
        (8, 2, 0),
        (1, 3, 13),  # (r + 4k) mod 16
    ],
)
def test_sign_rotation_16(start, turns, expected):
    out = rotate_state(f"minecraft:oak_sign[rotation={start}]", turns, registry=REG)
    assert props(out)["rotation"] == str(expected)


@pytest.mark.parametrize(
    "start,axis,expected",
    [
        (0, "z", 8),
        (4, "z", 4),
        (1, "z", 7),
        (0, "x", 0),
        (4, "x", 12),
        (3, "x", 13),
    ],
)
def test_banner_rotation_mirror(start, axis, expected):
    """Z-flip: (8 - r) mod 16; X-flip: (-r) mod 16 (0 south, 4 west, 8 north, 12 east)."""
    out = mirror_state(f"minecraft:white_banner[rotation={start}]", axis, registry=REG)
    assert props(out)["rotation"] == str(expected)


def test_omitted_sign_rotation_uses_release_default():
    """26.x standing signs default to rotation 8 (north); 1.21.11 and older to 0 (§C.3 caveat)."""
    assert props(rotate_state("minecraft:oak_sign", 1, registry=REG))["rotation"] == "12"
    old = load_registry("1.21.4")
    assert props(rotate_state("minecraft:oak_sign", 1, registry=old))["rotation"] == "4"


def test_wall_and_redstone_sides_turn_with_the_block():
    wall = props(rotate_state("minecraft:cobblestone_wall[north=tall,east=low,south=none,west=none]", 1, registry=REG))
    assert (wall["east"], wall["south"], wall["west"], wall["north"]) == ("tall", "low", "none", "none")
    wire = props(
        rotate_state("minecraft:redstone_wire[north=up,east=side,south=none,west=none,power=5]", 2, registry=REG)
    )
    sides = (wire["south"], wire["west"], wire["north"], wire["east"], wire["power"])
    assert sides == ("up", "side", "none", "none", "5")
    fence = props(mirror_state("minecraft:oak_fence[east=true,north=true]", "x", registry=REG))
    assert (fence["west"], fence["north"], fence["east"]) == ("true", "true", "false")


def test_chorus_plant_and_fire_vanilla_vs_geometric():
    state = "minecraft:chorus_plant[north=true,east=false,south=false,west=false,up=true,down=false]"
    assert props(rotate_state(state, 1, "vanilla", REG))["north"] == "true"
    geometric = props(rotate_state(state, 1, "geometric", REG))
    assert geometric["east"] == "true" and geometric["north"] == "false" and geometric["up"] == "true"
    fire = "minecraft:fire[north=false,east=true,south=false,west=false,up=false,age=3]"
    assert props(rotate_state(fire, 1, "vanilla", REG))["east"] == "true"
    assert props(rotate_state(fire, 1, "geometric", REG))["south"] == "true"


@pytest.mark.parametrize(
    "shape,turns,expected",
    [
        ("north_south", 1, "east_west"),
        ("east_west", 1, "north_south"),
        ("north_south", 2, "north_south"),
        ("ascending_east", 1, "ascending_south"),
        ("ascending_south", 1, "ascending_west"),
        ("ascending_west", 1, "ascending_north"),
        ("ascending_north", 1, "ascending_east"),
        ("south_east", 1, "south_west"),
        ("south_west", 1, "north_west"),
        ("north_west", 1, "north_east"),
        ("north_east", 1, "south_east"),
        ("ascending_east", 2, "ascending_west"),
        ("south_east", 2, "north_west"),
        ("south_east", 3, "north_east"),
    ],
)
def test_rail_shapes_rotate(shape, turns, expected):
    assert props(rotate_state(f"minecraft:rail[shape={shape}]", turns, registry=REG))["shape"] == expected


@pytest.mark.parametrize(
    "shape,axis,expected",
    [
        ("ascending_north", "z", "ascending_south"),
        ("south_east", "z", "north_east"),
        ("south_west", "z", "north_west"),
        ("ascending_east", "x", "ascending_west"),
        ("south_east", "x", "south_west"),
        ("north_east", "x", "north_west"),
        ("north_south", "x", "north_south"),
        ("ascending_east", "z", "ascending_east"),
    ],
)
def test_rail_shapes_mirror(shape, axis, expected):
    assert props(mirror_state(f"minecraft:rail[shape={shape}]", axis, registry=REG))["shape"] == expected


def test_powered_rail_rotates_without_curves():
    out = rotate_state("minecraft:powered_rail[shape=ascending_north]", 1, registry=REG)
    assert props(out)["shape"] == "ascending_east"


@pytest.mark.parametrize(
    "facing,shape,axis,vanilla,geometric",
    [
        # Z-flip, facing along Z: vanilla and geometric agree (turn 180°, swap left/right).
        ("north", "inner_left", "z", ("south", "inner_right"), ("south", "inner_right")),
        ("south", "outer_right", "z", ("north", "outer_left"), ("north", "outer_left")),
        # X-flip, facing along X: vanilla swaps outer_* only, keeps inner_* (StairBlock.mirror FRONT_BACK).
        ("east", "inner_left", "x", ("west", "inner_left"), ("west", "inner_right")),
        ("east", "outer_left", "x", ("west", "outer_right"), ("west", "outer_right")),
        # Flip across the stair's own axis: vanilla leaves it alone, geometric swaps handedness.
        ("north", "outer_left", "x", ("north", "outer_left"), ("north", "outer_right")),
        ("east", "inner_right", "z", ("east", "inner_right"), ("east", "inner_left")),
        ("west", "straight", "z", ("west", "straight"), ("west", "straight")),
    ],
)
def test_stair_shape_under_mirror(facing, shape, axis, vanilla, geometric):
    state = f"minecraft:oak_stairs[facing={facing},shape={shape}]"
    for rules, expected in (("vanilla", vanilla), ("geometric", geometric)):
        out = props(mirror_state(state, axis, rules, REG))
        assert (out["facing"], out["shape"]) == expected, rules


def test_stair_shape_never_changes_under_rotation():
    for shape in ("inner_left", "inner_right", "outer_left", "outer_right", "straight"):
        for turns in (1, 2, 3):
            assert props(rotate_state(f"minecraft:stone_stairs[shape={shape}]", turns, registry=REG))["shape"] == shape


def test_chest_type_door_hinge_shelf_under_mirror():
    chest = "minecraft:chest[facing=north,type=left]"
    assert props(mirror_state(chest, "x", "vanilla", REG))["type"] == "left"  # ChestBlock.mirror keeps the type
    assert props(mirror_state(chest, "x", "geometric", REG))["type"] == "right"
    assert props(mirror_state(chest, "z", "geometric", REG))["facing"] == "south"
    assert props(rotate_state(chest, 1, "geometric", REG))["type"] == "left"
    door = "minecraft:oak_door[facing=east,hinge=left,half=upper]"
    for rules in RULES:  # vanilla DoorBlock.mirror cycles the hinge, geometric too
        out = props(mirror_state(door, "z", rules, REG))
        assert (out["facing"], out["hinge"], out["half"]) == ("east", "right", "upper")
    shelf = "minecraft:oak_shelf[facing=north,side_chain=left]"
    assert props(mirror_state(shelf, "x", "vanilla", REG))["side_chain"] == "left"
    assert props(mirror_state(shelf, "x", "geometric", REG))["side_chain"] == "right"
    assert props(mirror_state(shelf, "x", "geometric", REG))["facing"] == "north"


def test_orientation_jigsaw_and_crafter():
    assert props(rotate_state("minecraft:jigsaw[orientation=north_up]", 1, registry=REG))["orientation"] == "east_up"
    assert props(rotate_state("minecraft:jigsaw[orientation=up_north]", 1, registry=REG))["orientation"] == "up_east"
    crafter = rotate_state("minecraft:crafter[orientation=down_west]", 1, registry=REG)
    assert props(crafter)["orientation"] == "down_north"
    assert props(mirror_state("minecraft:crafter[orientation=west_up]", "x", registry=REG))["orientation"] == "east_up"


def test_anvil_mirror_vanilla_keeps_facing():
    assert props(mirror_state("minecraft:anvil[facing=east]", "x", "vanilla", REG))["facing"] == "east"
    assert props(mirror_state("minecraft:anvil[facing=east]", "x", "geometric", REG))["facing"] == "west"


def test_transform_palette_keeps_order_and_neutral_states():
    palette = ["minecraft:air", "minecraft:oak_stairs[facing=north]", "minecraft:stone"]
    out = transform_palette(palette, quarter_turns=1, registry=REG)
    assert out[0] == "minecraft:air" and out[2] == "minecraft:stone"
    assert props(out[1])["facing"] == "east"


@st.composite
def states_of_any_release(draw):
    registry = load_registry(draw(st.sampled_from(sorted(SHIPPED_RELEASES))))
    info = registry.block(draw(st.sampled_from(registry.names())))
    props = {p: draw(st.sampled_from(values)) for p, values in info.properties.items()}
    text = info.name + ("[" + ",".join(f"{k}={v}" for k, v in props.items()) + "]" if props else "")
    return registry, registry.canonicalize(text)


@settings(max_examples=200, deadline=None)
@given(states_of_any_release(), st.sampled_from(RULES), st.sampled_from([1, 2, 3]), st.sampled_from("xz"))
def test_every_shipped_release_stays_valid_under_every_transform(case, rules, turns, axis):
    registry, state = case
    turned = rotate_state(state, turns, rules, registry)
    mirrored = mirror_state(state, axis, rules, registry)
    assert registry.is_valid(turned) and registry.is_valid(mirrored)
    assert registry.canonicalize(rotate_state(turned, 4 - turns, rules, registry)) == state
    assert registry.canonicalize(mirror_state(mirrored, axis, rules, registry)) == state


VECTORS = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}


@pytest.mark.parametrize(
    "block",
    [
        "minecraft:furnace",
        "minecraft:oak_stairs",
        "minecraft:observer",
        "minecraft:wall_torch",
        "minecraft:repeater",
        "minecraft:bell",
    ],
)
@pytest.mark.parametrize("facing", list(VECTORS))
def test_facing_turns_like_its_vector(block, facing):
    """Independent of the tables: a clockwise quarter turn maps (x, z) to (-z, x) (+x east, +z south)."""
    x, z = VECTORS[facing]
    expected = next(name for name, vector in VECTORS.items() if vector == (-z, x))
    assert props(rotate_state(f"{block}[facing={facing}]", 1, registry=REG))["facing"] == expected
    flipped_x = next(name for name, vector in VECTORS.items() if vector == (-x, z))
    assert props(mirror_state(f"{block}[facing={facing}]", "x", "geometric", REG))["facing"] == flipped_x
