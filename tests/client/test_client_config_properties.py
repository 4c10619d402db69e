"""Property tests for the small codecs in config and argument parsing."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from mcb.commands.rpc_support import parse_position
from mcb.config_edit import load_user_config, write_user_config

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=12)
values = st.one_of(
    st.text(max_size=40),  # any unicode, quotes, backslashes, control characters
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        names | st.text(min_size=1, max_size=8),
        st.dictionaries(names | st.text(min_size=1, max_size=8), values, max_size=4),
        max_size=4,
    ),
    st.none() | names,
)
def test_user_config_writer_round_trips_through_tomllib(profiles, active):
    data = {"profiles": profiles}
    if active is not None:
        data["profile"] = active
    write_user_config(data)
    loaded = load_user_config()
    assert loaded.get("profile") == active
    assert loaded.get("profiles", {}).keys() == profiles.keys()
    for name, section in profiles.items():
        for key, value in section.items():
            got = loaded["profiles"][name][key]
            if isinstance(value, float):
                assert math.isclose(got, value) or got == value
            else:
                assert got == value and type(got) is type(value)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-4096, 4096),
    st.integers(-(2**31), 2**31 - 1),
    st.sampled_from(["", " "]),
)
def test_parse_position_round_trips(x, y, z, space):
    assert parse_position(f"{x},{space}{y},{space}{z}", "--at") == {"x": x, "y": y, "z": z}
