"""Block-state grammar: parse/format, recipe grammar, error positions, and property tests."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcb.blocks.state import (
    MAX_STATE_LENGTH,
    BlockState,
    BlockStateError,
    StateSyntaxError,
    format_state,
    parse_state,
)
from mcb.errors import InputError


def test_namespace_is_added_and_properties_kept_as_written():
    state = parse_state("oak_stairs[half=top,facing=east]")
    assert state == BlockState("minecraft:oak_stairs", (("half", "top"), ("facing", "east")))
    assert str(state) == "minecraft:oak_stairs[half=top,facing=east]"
    assert state.id == "oak_stairs"
    assert state.get("facing") == "east" and state.get("shape") is None


def test_plain_id_has_no_brackets_and_other_namespaces_survive():
    assert format_state(parse_state("minecraft:stone")) == "minecraft:stone"
    assert parse_state("stone[]") == BlockState("minecraft:stone")
    assert parse_state("mymod:thing[a=1]").name == "mymod:thing"


def test_syntax_error_is_an_input_error_with_code_and_position():
    with pytest.raises(StateSyntaxError) as info:
        parse_state("minecraft:oak_stairs[facing]")
    error = info.value
    assert isinstance(error, InputError) and isinstance(error, BlockStateError)
    assert error.code == "block.syntax"
    assert error.position == len("minecraft:oak_stairs[facing")
    assert "position 27" in error.message and "'='" in error.message
    assert ">>]<<" in error.hint  # the hint marks the offending character


@pytest.mark.parametrize(
    "text,position",
    [
        ("", 0),
        ("Stone", 0),
        ("sto ne", 3),
        ("stone[", 6),
        ("stone[facing=north", 18),
        ("stone[facing=north,]", 19),
        ("stone[=north]", 6),
        ("stone[facing=]", 13),
        ("stone[a=b;c=d]", 9),
        ("stone[a=b]extra", 10),
        ("stone[a=b,a=c]", 10),  # a property set twice points at the second key
        (":stone", 0),
        ("minecraft:", 10),
    ],
)
def test_error_positions(text, position):
    with pytest.raises(StateSyntaxError) as info:
        parse_state(text)
    assert info.value.position == position


def test_length_limit_is_1024_characters():
    name = "minecraft:" + "a" * (MAX_STATE_LENGTH - len("minecraft:"))
    assert parse_state(name).name == name
    with pytest.raises(StateSyntaxError) as info:
        parse_state(name + "a")
    assert info.value.position == MAX_STATE_LENGTH and "1024" in info.value.message


@pytest.mark.parametrize(
    "text",
    [
        "minecraft:stone",
        "minecraft:oak_stairs[facing=east,half=top]",
        "minecraft:oak_stairs[facing=east]",
        "minecraft:x_1[a_b=c_2]",
    ],
)
def test_recipe_grammar_accepts(text):
    assert str(parse_state(text, recipe_grammar=True)) == text


@pytest.mark.parametrize(
    "text,position",
    [
        ("stone", 0),  # the minecraft: prefix is required
        ("minecraf:stone", 8),
        ("other:stone", 0),
        ("minecraft:stone[]", 16),  # empty brackets are not in the recipe regex
        ("minecraft:a.b", 11),  # '.' is fine for resource locations, not for recipes
        ("minecraft:stone[a=B]", 18),  # only [a-z0-9_=,] inside the brackets
        ("minecraft:stone[a=b c]", 19),
    ],
)
def test_recipe_grammar_rejects(text, position):
    with pytest.raises(StateSyntaxError) as info:
        parse_state(text, recipe_grammar=True)
    assert info.value.position == position


def test_non_string_input_is_a_syntax_error():
    with pytest.raises(StateSyntaxError):
        parse_state(None)  # type: ignore[arg-type]


# -- property tests ---------------------------------------------------------------------------------------------

_token = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=12)
_path = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_./-", min_size=1, max_size=20)
_namespace = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.-", min_size=1, max_size=10)


@st.composite
def block_states(draw):
    name = f"{draw(_namespace)}:{draw(_path)}"
    keys = draw(st.lists(_token, max_size=6, unique=True))
    return BlockState(name, tuple((key, draw(_token)) for key in keys))


@settings(max_examples=200)
@given(block_states())
def test_format_then_parse_is_identity(state):
    assert parse_state(format_state(state)) == state


@settings(max_examples=200)
@given(block_states())
def test_parse_then_format_is_identity_on_formatted_text(state):
    text = format_state(state)
    assert format_state(parse_state(text)) == text


# Text built mostly from the grammar's own characters reaches deep into the parser, unlike random unicode.
_grammar_soup = st.text(alphabet="abcz09_:[]=,./- AZ\u00e9\x00\n", max_size=40)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_grammar_soup, st.text(max_size=60)), st.booleans())
def test_parse_raises_only_state_syntax_error(text, recipe):
    try:
        state = parse_state(text, recipe_grammar=recipe)
    except StateSyntaxError as error:
        assert 0 <= error.position <= max(len(text), 0)
        assert error.code == "block.syntax"
    else:
        # Whatever parses must format back to something that parses to the same state.
        assert parse_state(format_state(state)) == state


_STATE_ALPHABET = "abz09_.-/:[]=,xyAZ \u00e9"


@settings(max_examples=600, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=_STATE_ALPHABET, max_size=40),
        st.builds(
            lambda ns, path, props: (
                f"{ns}:{path}" + ("[" + ",".join(f"{k}={v}" for k, v in props) + "]" if props else "")
            ),
            st.sampled_from(["minecraft", "mod.x", "a-b", ""]),
            st.text(alphabet="abc_/.9", max_size=8),
            st.lists(
                st.tuples(
                    st.sampled_from(["facing", "half", "a", "A", ""]), st.sampled_from(["north", "top", "1", "", "x=y"])
                ),
                max_size=4,
            ),
        ),
    )
)
def test_the_regex_shortcut_parses_exactly_like_the_character_parser(text):
    from mcb.blocks.state import _Parser

    try:
        expected = _Parser(text, False).parse()
    except StateSyntaxError as error:
        with pytest.raises(StateSyntaxError) as raised:
            parse_state(text)
        assert str(raised.value) == str(error)
    else:
        assert parse_state(text) == expected
