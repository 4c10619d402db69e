"""Registry API: canonical forms, errors with codes and hints, release selection. Expected values come from the
protocol (§4.6), terrain-materials §6.4 and the block-data spec (§D), not from the code under test."""

from __future__ import annotations

import pytest

from mcb.blocks.registry import (
    DEFAULT_RELEASE,
    KNOWN_RELEASES,
    SHIPPED_RELEASES,
    BadValueError,
    BlockStateError,
    UnknownBlockError,
    UnknownPropertyError,
    load_registry,
    release_for_data_version,
)
from mcb.blocks.state import BlockState, StateSyntaxError
from mcb.errors import InputError, UsageError


@pytest.fixture(scope="module")
def reg():
    return load_registry()


def test_default_release_is_26_2(reg):
    assert DEFAULT_RELEASE == "26.2"
    assert (reg.release, reg.data_version) == ("26.2", 4903)
    assert load_registry("26.2") is reg  # cached per release
    assert len(reg) == 1196  # protocol §7.1: Paper 26.2 lists 1196 blocks


@pytest.mark.parametrize(
    "given,canonical",
    [
        ("oak_stairs[facing=east]", "minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]"),
        ("minecraft:oak_stairs", "minecraft:oak_stairs[facing=north,half=bottom,shape=straight,waterlogged=false]"),
        ("minecraft:chest", "minecraft:chest[facing=north,type=single,waterlogged=false]"),
        ("oak_log", "minecraft:oak_log[axis=y]"),
        ("minecraft:stone", "minecraft:stone"),
        ("stone[]", "minecraft:stone"),
        ("copper_door", "minecraft:copper_door[facing=north,half=lower,hinge=left,open=false,powered=false]"),
        (
            "oak_stairs[waterlogged=true,half=top]",
            "minecraft:oak_stairs[facing=north,half=top,shape=straight,waterlogged=true]",
        ),
    ],
)
def test_canonicalize(reg, given, canonical):
    assert reg.canonicalize(given) == canonical
    assert reg.canonicalize(canonical) == canonical  # canonical forms are fixed points
    assert reg.is_valid(given)


def test_canonicalize_accepts_a_parsed_state(reg):
    state = BlockState("minecraft:oak_log", (("axis", "x"),))
    assert reg.canonicalize(state) == "minecraft:oak_log[axis=x]"


def test_block_lookup_with_and_without_namespace(reg):
    info = reg.block("oak_stairs")
    assert info is reg.block("minecraft:oak_stairs")
    assert info.name == "minecraft:oak_stairs"
    assert list(info.properties) == ["facing", "half", "shape", "waterlogged"]
    assert info.properties["facing"] == ("north", "south", "west", "east")  # game order (§D.1)
    assert info.defaults == {"facing": "north", "half": "bottom", "shape": "straight", "waterlogged": "false"}
    assert reg.block("oak_stair") is None and reg.block("other:oak_stairs") is None
    assert "minecraft:stone" in reg.names() and reg.names() == sorted(reg.names())


def test_oak_sign_default_rotation_is_8_in_26_2(reg):
    # §D.2: 26.2 oak_sign default rotation "8" (a tool that assumes 0 is wrong for 26.x).
    assert reg.block("oak_sign").defaults["rotation"] == "8"


def test_unknown_block_suggests_close_ids(reg):
    with pytest.raises(UnknownBlockError) as info:
        reg.canonicalize("oak_stair")
    error = info.value
    assert isinstance(error, BlockStateError) and isinstance(error, InputError)
    assert error.code == "block.unknown"
    assert "minecraft:oak_stairs" in error.hint and error.hint.startswith("did you mean")


def test_foreign_namespace_is_unknown(reg):
    with pytest.raises(UnknownBlockError) as info:
        reg.canonicalize("mymod:stone")
    assert "minecraft:" in info.value.message


def test_unknown_property(reg):
    with pytest.raises(UnknownPropertyError) as info:
        reg.canonicalize("oak_stairs[facin=east]")
    assert info.value.code == "block.property.unknown"
    assert "'facing'" in info.value.hint
    with pytest.raises(UnknownPropertyError) as info:
        reg.canonicalize("stone[facing=east]")
    assert "no properties" in info.value.hint


def test_bad_value_names_allowed_values(reg):
    with pytest.raises(BadValueError) as info:
        reg.canonicalize("minecraft:oak_stairs[facing=up]")
    assert info.value.code == "block.value.invalid"
    assert "north, south, west, east" in info.value.hint
    assert not reg.is_valid("minecraft:oak_stairs[facing=up]")


def test_syntax_errors_pass_through_canonicalize(reg):
    with pytest.raises(StateSyntaxError):
        reg.canonicalize("oak_stairs[facing=east")
    assert not reg.is_valid("oak_stairs[")


@pytest.mark.parametrize(
    "version,release,data_version",
    [
        (None, "26.2", 4903),
        ("26.1", "26.1", 4786),
        ("1.21.11", "1.21.11", 4671),
        ("1.21.4", "1.21.4", 4189),
        ("1.20.6", "1.20.6", 3839),
        ("1.20.4", "1.20.4", 3700),
        (4903, "26.2", 4903),
        ("4903", "26.2", 4903),
        (5023, "26.2", 4903),  # 26.3 is not shipped: newest release at or below it
        (3465, "1.20.1", 3465),
        (4081, "1.21.2", 4080),
        ("1.14.2", "1.14.1", 1957),  # named but not shipped: mapped by its DataVersion
    ],
)
def test_release_selection(version, release, data_version):
    reg = load_registry(version)
    assert (reg.release, reg.data_version) == (release, data_version)


def test_known_releases_cover_spec_table():
    # sponge-rotation-blockdata.md §D.3 and the older anchors.
    expected = {
        "1.12.2": 1343,
        "1.15.2": 2230,
        "1.16.4": 2584,
        "1.18": 2860,
        "1.18.2": 2975,
        "1.19.2": 3120,
        "1.20": 3463,
        "1.20.1": 3465,
        "1.20.2": 3578,
        "1.20.3": 3698,
        "1.20.4": 3700,
        "1.20.5": 3837,
        "1.20.6": 3839,
        "1.21": 3953,
        "1.21.1": 3955,
        "1.21.2": 4080,
        "1.21.3": 4082,
        "1.21.4": 4189,
        "1.21.5": 4325,
        "1.21.6": 4435,
        "1.21.7": 4438,
        "1.21.8": 4440,
        "1.21.9": 4554,
        "1.21.10": 4556,
        "1.21.11": 4671,
        "26.1": 4786,
        "26.1.1": 4788,
        "26.1.2": 4790,
        "26.2": 4903,
        "26.3": 5023,
    }
    for release, data_version in expected.items():
        assert KNOWN_RELEASES[release] == data_version, release
    assert set(SHIPPED_RELEASES) <= set(KNOWN_RELEASES)
    assert {"26.2", "26.1", "1.21.11", "1.21.4", "1.20.6", "1.20.4"} <= set(SHIPPED_RELEASES)


def test_release_for_data_version_edges():
    assert release_for_data_version(4903) == "26.2"
    assert release_for_data_version(4902) == "26.1.2"  # 26.2-rc-2 predates the 26.2 registry
    assert release_for_data_version(1343) is None  # 1.12.2: before the flattening, no block states


@pytest.mark.parametrize("version", ["1.12.2", "9.9", "banana", 1343, "", "-5"])
def test_bad_versions_are_usage_errors(version):
    if version == "":
        assert load_registry(version).release == DEFAULT_RELEASE
        return
    with pytest.raises(UsageError) as info:
        load_registry(version)
    assert info.value.hint


@pytest.mark.parametrize("typo", ["0.1", "1.10.1x", "1.20.99", "26.9"])
def test_every_release_a_hint_suggests_can_be_loaded(typo):
    with pytest.raises(UsageError) as info:
        load_registry(typo)
    hint = info.value.hint
    suggested = hint.removeprefix("did you mean ").split("?")[0].split(" or ") if hint.startswith("did you") else []
    for release in suggested:
        assert load_registry(release).release, release


def test_chain_was_renamed_in_1_21_9():
    # §D.3: chain -> iron_chain from 1.21.9.
    assert load_registry("1.21.8").block("chain") is not None
    assert load_registry("1.21.9").block("chain") is None
    assert load_registry("1.21.9").block("iron_chain") is not None


def test_26_2_adds_28_blocks_to_26_1():
    new = set(load_registry("26.2").names()) - set(load_registry("26.1").names())
    assert len(new) == 28 and {"minecraft:potent_sulfur", "minecraft:sulfur_spike", "minecraft:cinnabar"} <= new
    assert not set(load_registry("26.1").names()) - set(load_registry("26.2").names())
    assert load_registry("26.2").block("potent_sulfur").properties["potent_sulfur_state"] == (
        "dry",
        "wet",
        "dormant",
        "erupting",
        "continuous",
    )


def test_old_release_int_domains_are_filled():
    # 1.13's block list lacks int values; they are inferred (SOURCES.md). Vanilla facts checked here:
    old = load_registry("1.13")
    assert old.block("repeater").properties["delay"] == ("1", "2", "3", "4")
    assert old.block("snow").properties["layers"] == tuple(str(n) for n in range(1, 9))
    assert old.block("cauldron").properties["level"] == ("0", "1", "2", "3")
    assert old.canonicalize("oak_sapling") == "minecraft:oak_sapling[stage=0]"


def test_behavior_flags(reg):
    assert reg.behavior("oak_door")["behavior"] == ["multi_block", "half_property"]
    assert reg.behavior("red_bed")["behavior"] == ["multi_block", "block_entity"]
    assert reg.behavior("sand")["behavior"] == ["gravity"]
    assert reg.behavior("water")["behavior"] == ["fluid"]
    assert reg.behavior("oak_stairs")["behavior"] == ["waterloggable", "half_property"]
    assert reg.behavior("oak_button")["behavior"] == ["attachment_sensitive"]
    assert reg.behavior("oak_leaves")["behavior"] == ["waterloggable", "leaf_decay"]
    assert reg.behavior("chest")["behavior"] == ["waterloggable", "block_entity"]
    assert reg.behavior("stone")["behavior"] == []
    with pytest.raises(UnknownBlockError):
        reg.behavior("oak_stair")


# -- property tests over real blocks ------------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_REG = load_registry()
_WITH_PROPS = [name for name in _REG.names() if _REG.block(name).properties]


@st.composite
def partial_states(draw):
    """A real block with a random subset of its properties, random allowed values, in random order."""
    info = _REG.block(draw(st.sampled_from(_WITH_PROPS)))
    keys = draw(st.permutations(list(info.properties)))
    keys = keys[: draw(st.integers(0, len(keys)))]
    chosen = {key: draw(st.sampled_from(info.properties[key])) for key in keys}
    return info, chosen


@settings(max_examples=200)
@given(partial_states())
def test_canonical_form_is_complete_sorted_and_order_independent(sample):
    info, chosen = sample
    text = info.name + ("[" + ",".join(f"{k}={v}" for k, v in chosen.items()) + "]" if chosen else "")
    canonical = _REG.canonicalize(text)
    expected = dict(info.defaults, **chosen)
    assert canonical == info.name + "[" + ",".join(f"{k}={expected[k]}" for k in sorted(expected)) + "]"
    reversed_text = info.name + (
        "[" + ",".join(f"{k}={v}" for k, v in reversed(chosen.items())) + "]" if chosen else ""
    )
    assert _REG.canonicalize(reversed_text) == canonical
    assert _REG.canonicalize(canonical) == canonical


@settings(max_examples=200)
@given(partial_states(), st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=12))
def test_any_value_outside_the_domain_is_rejected_with_its_allowed_values(sample, value):
    info, _ = sample
    prop = next(iter(info.properties))
    if value in info.properties[prop]:
        return
    with pytest.raises(BadValueError) as error:
        _REG.canonicalize(f"{info.name}[{prop}={value}]")
    assert error.value.hint.endswith(", ".join(info.properties[prop]))
