"""Arguments are checked before any work or HTTP request; refusals name the problem and carry a remedy
(MCP-28..35, checklist 23-30), against a live `mcb serve` behind a recording proxy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mcpkit import refusal_of
from rpc_testkit import FaultProxy

REMEDY_FIELDS = ("retry_with", "field", "next_call", "restart_with", "retry_after_ms", "no_remedy")
BOX = {"min": {"x": 0, "y": 60, "z": 0}, "max": {"x": 1, "y": 61, "z": 1}}
HOUSE = Path(__file__).resolve().parents[2] / "schematics" / "house.schem"


@pytest.fixture
def proxied(mcp_process, live_server, server_env):
    with FaultProxy(live_server.url) as proxy:
        mcp = mcp_process(env={**server_env, "MCB_SERVER": proxy.url})
        mcp.initialize()
        yield mcp, proxy


def refusal(response: dict) -> dict:
    result = response["result"]
    assert result["isError"] is True
    error = refusal_of(result["structuredContent"]["error"])
    assert error["remedy"] and any(key in error for key in REMEDY_FIELDS) or error["code"] == "internal", error
    return error


def rpc_requests(proxy) -> list[str]:
    return [method for method in proxy.methods() if method]


def test_a_misspelt_key_is_refused_by_name_before_any_request(proxied):
    mcp, proxy = proxied
    error = refusal(mcp.call("region_inspect", {**BOX, "detial": "blocks"}))
    assert error["code"] == "invalid_argument" and error["field"] == "detial"
    assert error["unknown"] == ["detial"] and error["did_you_mean"] == {"detial": "detail"}
    assert {"min", "max", "detail"} <= set(error["accepted"])
    assert error["retry_with"] == {**BOX, "detail": "blocks"}  # the whole corrected call, the bad key gone
    assert "'detial'" in error["message"] and "detail" in error["message"]
    assert rpc_requests(proxy) == []


def test_a_rename_never_overwrites_a_given_key_nor_moves_a_value_where_it_cannot_go(proxied):
    mcp, proxy = proxied
    error = refusal(mcp.call("region_inspect", {**BOX, "detail": "summary", "detial": "blocks"}))
    assert "retry_with" not in error and "detial" not in error.get("did_you_mean", {})  # detail was given
    error = refusal(mcp.call("region_inspect", {"min": BOX["min"], "mox": 5}))  # max takes a position, not 5
    assert "retry_with" not in error and "mox" not in error.get("did_you_mean", {})
    assert error["field"] == "mox" and error["missing"] == ["max"]
    assert rpc_requests(proxy) == []


def test_a_batch_step_keeps_the_did_you_mean_of_the_single_call(proxied):
    mcp, proxy = proxied
    single = refusal(mcp.call("region_inspect", {**BOX, "detial": "blocks"}))
    step = refusal(
        mcp.call("tool_batch", {"steps": [{"tool": "region_inspect", "arguments": {**BOX, "detial": "blocks"}}]})
    )
    assert step["did_you_mean"] == single["did_you_mean"] == {"detial": "detail"}
    assert step["field"] == "steps[0].arguments" and rpc_requests(proxy) == []


def test_injected_scope_keys_are_refused_with_the_call_without_them(proxied):
    mcp, proxy = proxied
    call = {"plan_id": "PLAN-1", "plan_hash": "h", "idempotency_key": "k"}
    error = refusal(mcp.call("build_apply", {**call, "player_id": "steve"}))
    assert error["field"] == "player_id" and "injected by mcb" in error["message"]
    assert error["retry_with"] == call and "did_you_mean" not in error
    error = refusal(mcp.call("project_context", {"project_id": "p"}))
    assert "injected by mcb" in error["message"] and error["retry_with"] == {}
    assert rpc_requests(proxy) == []


def test_every_problem_is_reported_at_once(proxied):
    mcp, proxy = proxied
    error = refusal(mcp.call("build_apply", {"plan_id": "p"}))
    assert set(error["missing"]) == {"plan_hash", "idempotency_key"}
    error = refusal(
        mcp.call("build_apply", {"plan_id": "p", "plan_hash": "h", "idempotency_key": "k", "player_id": "x"})
    )
    assert error["unknown"] == ["player_id"] and error["field"] == "player_id"
    nested = refusal(mcp.call("region_inspect", {"min": {"x": 0, "y": 1, "z": 2, "w": 3}, "max": BOX["max"]}))
    assert nested["pointer"] == "/min/w"
    assert rpc_requests(proxy) == []


def test_no_coercion_but_integral_floats_pass_as_integers(proxied):
    mcp, proxy = proxied
    for bad in ("5", True, 5.5):
        assert refusal(mcp.call("material_search", {"query": "oak", "limit": bad}))["field"] == "limit"
    assert rpc_requests(proxy) == []
    accepted = mcp.call("material_search", {"query": "oak", "limit": 5.0})["result"]
    assert accepted["isError"] is False, accepted
    bodies = [
        request["body"]
        for request in proxy.requests
        if request["json"] and request["json"].get("method") == "material_search"
    ]
    assert len(bodies) == 1 and b'"limit":5' in bodies[0].replace(b" ", b"")


def test_paths_outside_the_workspace_root_are_denied(mcp_process, tmp_path):
    mcp = mcp_process(cwd=tmp_path)
    mcp.initialize()
    error = refusal(mcp.call("schem_info", {"path": "../../etc/passwd"}))
    assert error["code"] == "path_denied" and error["field"] == "path"
    outside = tmp_path.parent / "outside.schem"
    (tmp_path / "link.schem").symlink_to(outside)
    assert refusal(mcp.call("schem_info", {"path": "link.schem"}))["code"] == "path_denied"
    free = mcp_process("--allow-any-path", cwd=tmp_path)
    free.initialize()
    assert refusal(free.call("schem_info", {"path": "../../etc/passwd"}))["code"] != "path_denied"


def test_the_same_failure_twice_says_so_and_a_success_resets_it(mcp_process):
    mcp = mcp_process()
    mcp.initialize()
    first = refusal(mcp.call("block_describe", {"block": "stone"}))
    assert "repeated" not in first
    second = refusal(mcp.call("block_describe", {"block": "stone"}))
    assert second["repeated"]["count"] == 2 and second["repeated"]["follow"] in REMEDY_FIELDS
    assert mcp.call("block_describe", {"block_id": "stone"})["result"]["isError"] is False
    assert "repeated" not in refusal(mcp.call("block_describe", {"block": "stone"}))


def test_no_agent_token_means_a_refusal_with_restart_with(mcp_process, live_server):
    mcp = mcp_process(env={"MCB_SERVER": live_server.url, "MCB_TOKEN": live_server.admin_token})
    mcp.initialize()
    error = refusal(mcp.call("project_context"))
    assert "MCB_AGENT_TOKEN" in error["restart_with"]
    assert mcp.close() == 0
    assert live_server.admin_token not in mcp.stderr() and live_server.admin_token.encode() not in b"".join(mcp.raw)


def test_an_integer_of_thousands_of_digits_is_refused_in_plain_words(proxied):
    """A 5,000-digit literal is valid JSON that Python will not convert (its 4,300-digit guard): the call is
    refused naming the argument, before any request, not answered with Python's words or a parse error."""
    mcp, proxy = proxied
    digits = "9" * 5000
    steps = '{"steps":[{"tool":"region_inspect","arguments":{"min":{"x":0,"y":0,"z":0},"max":{"x":X,"y":1,"z":1}}}]}'
    for number, (name, arguments, pointer) in enumerate(
        [
            ("region_inspect", '{"min":{"x":-X,"y":0,"z":0},"max":{"x":1,"y":1,"z":1}}', "/min/x"),
            ("tool_batch", steps, "/steps/0/arguments/max/x"),
        ],
        start=900,
    ):
        params = f'{{"name":"{name}","arguments":{arguments.replace("X", digits)}}}'
        mcp.write(f'{{"jsonrpc":"2.0","id":{number},"method":"tools/call","params":{params}}}\n')
        error = refusal(mcp.wait_for(number))
        assert error["code"] == "invalid_argument" and error["problems"][0]["pointer"] == pointer, error
        assert f"{pointer[1:]}: a number of {len(digits):,} digits is out of range" in error["message"]
        assert "sys.set_int_max_str_digits" not in str(error) and "4300" not in str(error)
    assert rpc_requests(proxy) == []


def test_edit_refusals_speak_in_the_tools_argument_names(mcp_process, tmp_path):
    shutil.copy(HOUSE, tmp_path / "house.schem")
    mcp = mcp_process("--root", str(tmp_path))
    mcp.initialize()
    missing = refusal(mcp.call("schem_rotate", {"path": "house.schem", "degrees": 90}))
    both = refusal(
        mcp.call("schem_mirror", {"path": "house.schem", "axis": "x", "output": "m.schem", "in_place": True})
    )
    for error in (missing, both):
        words = error["message"] + " " + error["remedy"]
        assert "--" not in words and "-o" not in words, words
        assert error["field"] == "output" and "output" in error["message"]
    assert "in_place" in both["message"]


def test_a_number_past_its_bound_is_refused_with_the_bound_to_retry(proxied):
    """A number past an inclusive bound carries retry_with holding the bound (it used to carry only field), for
    pydantic-checked tools (schem_build) and schema-checked RPC tools (material_search) alike; a batch step's
    refusal reads as one sentence (it used to say "...wait_seconds.; nothing ran")."""
    mcp, proxy = proxied
    target = {"x": 0, "y": 60, "z": 0}
    error = refusal(mcp.call("schem_build", {"path": "house.schem", "target": target, "wait_seconds": 5}))
    assert (error["field"], error["retry_with"]) == ("wait_seconds", {"wait_seconds": 10})
    assert "wait_seconds: 5 is below the least allowed, 10" in error["message"]  # not pydantic's "Input should be"
    error = refusal(mcp.call("material_search", {"query": "oak", "limit": 500}))
    assert (error["field"], error["retry_with"]) == ("limit", {"limit": 32})
    assert "limit: 500 is above the most allowed, 32" in error["message"]
    error = refusal(mcp.call("material_search", {"query": "oak", "limit": 500, "cursor": 3}))
    assert "retry_with" not in error  # another fault besides the bound: no retry that passes is known
    step = {"tool": "schem_build", "arguments": {"path": "house.schem", "target": target, "wait_seconds": 5}}
    error = refusal(mcp.call("tool_batch", {"steps": [step]}))
    assert error["message"].endswith("wait_seconds.") is False and ".;" not in error["message"]
    assert error["message"].endswith("; nothing ran")
    assert rpc_requests(proxy) == []


def test_a_bound_or_a_check_of_mcbs_own_is_said_in_plain_words(proxied):
    """Pydantic's words stay out of a refusal: "steps: needs at least 1 item, got 0" (was "List should have at least 1
    item after validation, not 0"), "path: a path has 1 to 1024 characters" (was "Value error, a path has ...")."""
    mcp, _ = proxied
    error = refusal(mcp.call("tool_batch", {"steps": []}))
    assert "steps: needs at least 1 item, got 0" in error["message"], error["message"]
    error = refusal(mcp.call("schem_info", {"path": ""}))
    assert "path: a path has 1 to 1024 characters" in error["message"] and "Value error" not in error["message"]
