"""QA pass on `mcb mcp`'s protocol surface: malformed params, --log-level, line separators inside strings."""

from __future__ import annotations

import json

import pytest
from mcpkit import MODERN_META


@pytest.mark.parametrize("params", [{}, {"uri": 5}, {"uri": None}, {"uri": ["mcb://extensions"]}])
def test_resources_read_without_a_string_uri_is_invalid_params_in_both_eras(mcp_process, params):
    legacy = mcp_process()
    legacy.initialize()
    modern = mcp_process()
    for mcp, extra in ((legacy, {}), (modern, {"_meta": MODERN_META})):
        error = mcp.request("resources/read", {**params, **extra})["error"]
        assert error["code"] == -32602, error
        assert "uri" in error["message"] and "unknown resource" not in error["message"]


def test_tools_call_with_null_arguments_is_invalid_params_and_runs_nothing(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    error = mcp.request("tools/call", {"name": "block_describe", "arguments": None})["error"]
    assert error["code"] == -32602 and "arguments must be an object" in error["message"]
    left_out = mcp.request("tools/call", {"name": "block_check", "arguments": {"states": ["minecraft:stone"]}})
    assert left_out["result"]["isError"] is False  # the session goes on


@pytest.mark.parametrize("how", [["--log-level", "loud"], ["env"]])
def test_an_unknown_log_level_is_a_usage_error_naming_the_levels(tmp_path, how):
    import os
    import subprocess
    import sys

    env = {**os.environ, "MCB_LOG_LEVEL": "loud"} if how == ["env"] else dict(os.environ)
    args = [] if how == ["env"] else how
    done = subprocess.run(
        [sys.executable, "-m", "mcb", "mcp", *args], input=b"", capture_output=True, timeout=60, cwd=tmp_path, env=env
    )
    assert done.returncode == 2 and done.stdout == b""
    err = done.stderr.decode()
    assert "'loud'" in err and "debug, info, warning, error" in err and "Traceback" not in err


def test_log_levels_are_accepted_in_any_case(mcp_process):
    mcp = mcp_process("--log-level", "DEBUG")
    assert mcp.request("ping")["result"] == {}  # the server runs: the level was accepted


def test_line_separators_inside_strings_leave_every_message_one_line_for_splitlines(mcp_process):
    name = "a\u2028b\u2029c\u0085d"
    mcp = mcp_process()
    mcp.initialize()
    error = mcp.request("tools/call", {"name": name, "arguments": {}})["error"]
    assert error["data"]["name"] == name  # the same text, escaped on the wire
    for line in mcp.raw:
        text = line.decode("utf-8")
        assert len(text.splitlines()) == 1, text
        assert not {"\u2028", "\u2029", "\u0085"} & set(text)


def test_encode_writes_one_splitlines_line_that_decodes_to_the_same_message():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from mcb.mcp.framing import encode

    texts = st.text(st.characters(codec="utf-8") | st.sampled_from("\n\r\u0085\u2028\u2029\x0b\x0c\x1c\x1d\x1e"))

    @settings(derandomize=True, max_examples=300, database=None)  # deterministic: the same cases every run
    @given(st.dictionaries(texts, texts | st.integers() | st.lists(texts, max_size=3), max_size=4))
    def check(message):
        line = encode(message)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        text = line.decode("utf-8")
        assert len(text.splitlines()) == 1
        assert json.loads(text) == message

    check()
