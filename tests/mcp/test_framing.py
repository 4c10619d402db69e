"""Framing and JSON-RPC shape rules over raw stdio (mcp-conventions MCP-1..8, checklist 1-10)."""

from __future__ import annotations

import json

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def test_ping_is_one_line_with_lf_or_crlf_and_blank_lines_get_nothing(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    mcp.write(json.dumps(PING) + "\n")
    assert mcp.recv() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    mcp.write(json.dumps(PING) + "\r\n")
    assert mcp.recv() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    mcp.write("     \n\t\n")
    assert mcp.silent()
    assert mcp.close() == 0
    assert mcp.raw[-1] == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'


def test_content_length_header_answers_once_and_ends_the_session(mcp_process):
    mcp = mcp_process()
    body = json.dumps(PING)
    mcp.write(f"Content-Length: {len(body)}\r\n\r\n{body}\n")
    reply = mcp.recv()
    assert reply["id"] is None and reply["error"]["code"] == -32700
    assert mcp.recv() is None  # the body is never answered
    assert mcp.proc.wait(timeout=10) != 0


def test_undecodable_lines_answer_parse_error_and_the_session_goes_on(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    for bad in (
        b'{"jsonrpc":"2.0","id":2,"meth',
        b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":NaN}}',
        b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":1e400}}',
        b"\xff\xfe{}",
        b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":Infinity}}',
    ):
        mcp.write(bad + b"\n")
        reply = mcp.recv()
        assert reply["id"] is None and reply["error"]["code"] == -32700, bad
    assert mcp.request("ping", id=3)["result"] == {}


def test_batches_and_non_objects_are_invalid_requests(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    for line in ("[]", "[" + json.dumps(PING) + "]", "5", '"ping"'):
        mcp.write(line + "\n")
        reply = mcp.recv()
        assert reply["id"] is None and reply["error"]["code"] == -32600, line
        assert mcp.silent(0.1)  # exactly one reply per line


def test_shape_errors_echo_a_legal_id(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    mcp.write({"jsonrpc": "1.0", "id": 3, "method": "ping"})
    assert mcp.recv()["error"]["code"] == -32600 and mcp.raw[-1].startswith(b'{"jsonrpc":"2.0","id":3,')
    mcp.write({"jsonrpc": "2.0", "id": 4, "method": "ping", "params": 5})
    reply = mcp.recv()
    assert (reply["id"], reply["error"]["code"]) == (4, -32600)
    mcp.write({"jsonrpc": "2.0", "id": 5, "method": 7})
    assert mcp.recv()["error"]["code"] == -32600


def test_illegal_ids_are_refused_and_legal_ids_echoed_exactly(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    for bad in ("null", "1.5", "true", "{}"):
        mcp.write('{"jsonrpc":"2.0","id":' + bad + ',"method":"ping"}\n')
        reply = mcp.recv()
        assert reply["id"] is None and reply["error"]["code"] == -32600, bad
    assert mcp.request("ping", id="a")["id"] == "a"
    big = 2**60
    assert mcp.request("ping", id=big)["id"] == big
    assert mcp.raw[-1].startswith(b'{"jsonrpc":"2.0","id":1152921504606846976,')


def test_a_request_without_id_is_not_run(mcp_process, live_server, server_env):
    from rpc_testkit import FaultProxy

    with FaultProxy(live_server.url) as proxy:
        mcp = mcp_process(env={**server_env, "MCB_SERVER": proxy.url})
        mcp.initialize()
        mcp.write(
            {
                "jsonrpc": "2.0",
                "method": "tools/call",
                "params": {
                    "name": "build_apply",
                    "arguments": {"plan_id": "p", "plan_hash": "h", "idempotency_key": "k"},
                },
            }
        )
        mcp.write({"jsonrpc": "2.0", "method": "notifications/whatever"})
        assert mcp.silent(0.5)
        assert mcp.request("ping", id=9)["result"] == {}
        assert proxy.requests == []
    assert mcp.close() == 0
    assert "tools/call was sent as a notification (no id): not run" in mcp.stderr()


def test_unknown_method_and_array_params(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    assert mcp.request("nope", id=4)["error"]["code"] == -32601
    reply = mcp.request("tools/call", [], id=5)
    assert reply["error"]["code"] == -32602 and "object" in reply["error"]["message"]


def test_tools_call_with_null_arguments_is_invalid_params_and_runs_nothing(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    error = mcp.request("tools/call", {"name": "block_describe", "arguments": None})["error"]
    assert error["code"] == -32602 and "arguments must be an object" in error["message"]
    left_out = mcp.request("tools/call", {"name": "block_check", "arguments": {"states": ["minecraft:stone"]}})
    assert left_out["result"]["isError"] is False  # the session goes on


def test_every_stdout_line_is_one_compact_message(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    mcp.request("tools/list")
    mcp.call("block_describe", {"block_id": "minecraft:oak_stairs"})
    mcp.call("block_describe", {"nope": 1})
    assert mcp.close() == 0
    for line in mcp.raw:
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        message = json.loads(line)
        assert message["jsonrpc"] == "2.0"


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
