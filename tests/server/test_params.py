"""Property tests for the wire parsing helpers: the loose integer rule (§2) and the Gson-style plan text (§5.1)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcb.server.errors import RpcError
from mcb.server.params import INT32_MAX, INT32_MIN, blockpos_text, loose_int
from mcb.server.plans import gson_text

int32 = st.integers(INT32_MIN, INT32_MAX)


@settings(max_examples=200)
@given(int32)
def test_loose_int_accepts_every_int32_spelling(number):
    assert loose_int(number, "m") == number
    assert loose_int(str(number), "m") == number
    assert loose_int(f"{number}.0", "m") == number
    if abs(number) < 2**53:
        assert loose_int(float(number), "m") == number


@settings(max_examples=200)
@given(st.one_of(st.integers(max_value=INT32_MIN - 1), st.integers(min_value=INT32_MAX + 1)))
def test_loose_int_rejects_out_of_range(number):
    with pytest.raises(RpcError) as caught:
        loose_int(number, "Integer coordinate required: x")
    assert (caught.value.code, caught.value.message) == ("invalid_request", "Integer coordinate required: x")


@settings(max_examples=200)
@given(st.floats(allow_nan=True, allow_infinity=True).filter(lambda f: not (f == f and f.is_integer())))
def test_loose_int_rejects_fractions_nan_and_infinity(value):
    with pytest.raises(RpcError):
        loose_int(value, "m")


@pytest.mark.parametrize("value", [True, False, None, {}, [], "five", "1e400", "0x10", ""])
def test_loose_int_rejects_non_numbers(value):
    with pytest.raises(RpcError):
        loose_int(value, "m")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200)
@given(json_values)
def test_gson_text_round_trips_and_escapes_html_characters(value):
    text = gson_text(value)
    assert json.loads(text) == value
    assert not any(char in text for char in "<>&='")


def test_blockpos_text_is_java_record_text():
    assert blockpos_text((1, -64, 2)) == "BlockPos[x=1, y=-64, z=2]"
