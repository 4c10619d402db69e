"""What the MCP face itself does toward the Minecraft server (issue 14 QA items 1, 2, 5): its own call deadline,
writes never repeated automatically, reads repeated once. Against a live `mcb serve` behind the fault proxy."""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "client"))  # rpc_testkit
sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcpkit import refusal_of  # noqa: E402
from rpc_testkit import FaultProxy  # noqa: E402
from test_rpc_tools import box  # noqa: E402

from mcb.client.retry import RetryPolicy  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def _calls(proxy, method):
    return [r for r in proxy.requests if isinstance(r.get("json"), dict) and r["json"].get("method") == method]


def _structured(response):
    result = response["result"]
    return result["structuredContent"], result.get("isError", False)


@pytest.fixture
def proxied(live_server):
    """(proxy, env) with `mcb mcp` pointed at the proxy; set proxy.decide to inject faults."""
    with FaultProxy(live_server.url) as proxy:
        env = {"MCB_SERVER": proxy.url, "MCB_AGENT_TOKEN": live_server.agent_token, "MCB_PLAYER_ID": "console"}
        yield proxy, env


def _plan(mcp):
    data, failed = _structured(mcp.call("build_prepare", {"recipe": box(0, 100, 0)}))
    assert not failed, data
    return data


def _only(method, decision):
    return lambda r: decision if isinstance(r.get("json"), dict) and r["json"].get("method") == method else "forward"


def test_a_lost_build_apply_answer_is_not_sent_again_through_mcp(mcp_process, proxied, live_server):
    proxy, env = proxied
    mcp = mcp_process(env=env)
    mcp.initialize()
    plan = _plan(mcp)
    proxy.decide = _only("build_apply", "drop_after_forward")
    arguments = {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"], "idempotency_key": "mcp-lost"}
    error, failed = _structured(mcp.call("build_apply", arguments))
    error = refusal_of(error["error"])
    assert failed and error["code"] == "unavailable" and error["outcome_unknown"] is True
    assert error["retry_with"] == arguments  # the identical call, same key: the agent decides to send it
    assert len(_calls(proxy, "build_apply")) == 1  # MCP-54: never repeated automatically
    proxy.decide = lambda r: "forward"
    again, failed = _structured(mcp.call("build_apply", error["retry_with"]))
    assert not failed, again
    context, _ = _structured(mcp.call("project_context", {}))
    assert [op["operation_id"] for op in context["operations"]] == [again["operation_id"]]


def test_a_lost_build_apply_answer_in_a_batch_is_not_sent_again(mcp_process, proxied):
    proxy, env = proxied
    mcp = mcp_process(env=env)
    mcp.initialize()
    plan = _plan(mcp)
    proxy.decide = _only("build_apply", "drop_after_forward")
    arguments = {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"], "idempotency_key": "mcp-batch"}
    data, _ = _structured(mcp.call("tool_batch", {"steps": [{"tool": "build_apply", "arguments": arguments}]}))
    assert len(_calls(proxy, "build_apply")) == 1, data
    assert json.dumps(arguments, sort_keys=True) in json.dumps(data, sort_keys=True)  # its retry_with


class _Lines:
    def __init__(self):
        self.messages = []

    def write(self, line):
        self.messages.append(json.loads(line))

    def flush(self):
        pass


def in_process_session(make_client, deadlines: dict[str, float]):
    """(session, call): an in-process session whose tools named in ``deadlines`` get those deadlines (seconds)."""
    from mcb.mcp.extensions import load_catalog
    from mcb.mcp.session import Options, Session

    catalog = load_catalog(no_extensions=True)
    catalog.actions = [
        dataclasses.replace(a, deadline_s=deadlines[a.name]) if a.name in deadlines else a for a in catalog.actions
    ]
    out = _Lines()
    session = Session(catalog, Options(), out, make_client)
    session.handle(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
    )
    session.handle({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(request_id, name, arguments):
        session.handle(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
        limit = time.monotonic() + 20
        while time.monotonic() < limit:
            for message in out.messages:
                if message.get("id") == request_id:
                    return message["result"]
            time.sleep(0.02)
        raise AssertionError(f"no answer to {name}")

    return session, call


def test_the_faces_own_deadline_on_build_apply_has_the_transport_shape(live_server):
    """The face's deadline (30 s, here 0.3 s) gives the §1.7 shape the transport mapping gives, from one mapping."""
    from mcb.client import McbClient

    with FaultProxy(live_server.url) as proxy:
        session, call = in_process_session(
            lambda deadline=None: McbClient(
                proxy.url, agent_token=live_server.agent_token, player_id="console", retry=RetryPolicy(replays=0)
            ),
            {"build_apply": 0.3},
        )
        plan = call(1, "build_prepare", {"recipe": box(0, 100, 0)})["structuredContent"]
        proxy.decide = _only("build_apply", ("sleep_then_forward", 1.5))
        arguments = {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"], "idempotency_key": "stalled"}
        result = call(2, "build_apply", arguments)
        session.close()
    error = refusal_of(result["structuredContent"]["error"])
    assert result["isError"] and error["code"] == "timeout"
    transport = error["transport"]
    assert (transport["request_started"], transport["timed_out"], transport["reason"]) == (True, True, "deadline")
    assert 270 <= transport["waited_ms"] < 1500
    assert error["plugin"] in {"alive", "unknown"} and "plugin_reason" in error
    assert error["retry_with"] == arguments and error["next_call"]["tool"] == "project_context"


def test_a_busy_server_is_retried_until_the_tools_deadline_then_refused_busy(live_server, monkeypatch):
    """D2 through the face's own client (mcb.mcp.context.client_factory): the tool call's deadline (30 s; here
    2 s) bounds the busy retries, which used to stop after 100 tries (~8 s) whatever the deadline; what comes back
    is the busy refusal, before the face's own timeout."""
    from mcb.config import load_settings
    from mcb.mcp.context import client_factory

    body = json.dumps({"ok": False, "error": {"code": "busy", "message": "A journal step is in progress; retry"}})
    with FaultProxy(live_server.url, _only("build_apply", ("respond", 400, body.encode()))) as proxy:
        monkeypatch.setenv("MCB_SERVER", proxy.url)
        monkeypatch.setenv("MCB_AGENT_TOKEN", live_server.agent_token)
        monkeypatch.setenv("MCB_PLAYER_ID", "console")
        session, call = in_process_session(client_factory(load_settings), {"build_apply": 2.0})
        started = time.monotonic()
        result = call(1, "build_apply", {"plan_id": "p", "plan_hash": "h", "idempotency_key": "k"})
        elapsed = time.monotonic() - started
        session.close()
    error = refusal_of(result["structuredContent"]["error"])
    assert (error["code"], error["retry_after_ms"]) == ("busy", 100) and "transport" not in error
    assert 1.5 <= elapsed < 2.0 and len(_calls(proxy, "build_apply")) >= 10


def test_a_busy_read_is_retried_until_the_tools_deadline_too(live_server, monkeypatch):
    """MCP-56 for reads: their request budget (15 s; here 0.4 s) is shorter than the tool call's deadline (35 s;
    here 2 s), and busy is retried until the latter, as for writes, not given up when the request's own budget
    ends."""
    from mcb.config import load_settings
    from mcb.mcp.context import client_factory

    body = json.dumps({"ok": False, "error": {"code": "busy", "message": "A journal step is in progress; retry"}})
    with FaultProxy(live_server.url, _only("project_context", ("respond", 400, body.encode()))) as proxy:
        monkeypatch.setenv("MCB_SERVER", proxy.url)
        monkeypatch.setenv("MCB_AGENT_TOKEN", live_server.agent_token)
        monkeypatch.setenv("MCB_PLAYER_ID", "console")
        short = client_factory(lambda: load_settings(timeout=0.4))
        session, call = in_process_session(short, {"project_context": 2.0})
        started = time.monotonic()
        result = call(1, "project_context", {})
        elapsed = time.monotonic() - started
        session.close()
    error = refusal_of(result["structuredContent"]["error"])
    assert (error["code"], error["retry_after_ms"]) == ("busy", 100) and "transport" not in error
    assert 1.5 <= elapsed < 2.0 and len(_calls(proxy, "project_context")) >= 10


BOX = {"min": {"x": 0, "y": 100, "z": 0}, "max": {"x": 1, "y": 100, "z": 0}}


def test_a_read_repeated_once_after_a_lost_answer_says_so_in_meta(mcp_process, proxied):
    proxy, env = proxied
    mcp = mcp_process(env=env)
    mcp.initialize()
    seen = {"n": 0}

    def drop_first(request):
        if isinstance(request.get("json"), dict) and request["json"].get("method") == "region_inspect":
            seen["n"] += 1
            return "drop_after_forward" if seen["n"] == 1 else "forward"
        return "forward"

    proxy.decide = drop_first
    result = mcp.call("region_inspect", BOX)["result"]
    assert not result["isError"] and result["structuredContent"]["palette"] == {"minecraft:air": 2}
    assert result["_meta"]["mcb/transport"] == {"repeats": 1} and len(_calls(proxy, "region_inspect")) == 2
    plain = mcp.call("region_inspect", BOX)["result"]
    assert "mcb/transport" not in plain.get("_meta", {})


def test_a_read_that_timed_out_is_repeated_once_with_a_fresh_deadline(live_server):
    """The MCP face's client (fresh_read_budget): the repeat gets its own budget; waited_ms is the whole wait."""
    from mcb.client import McbClient
    from mcb.client.errors import TransportError

    budget, stall = 0.3, 0.6  # injected short; the proxy holds each read twice the budget
    with FaultProxy(live_server.url, _only("region_inspect", ("sleep_then_forward", stall))) as proxy:
        with McbClient(
            proxy.url,
            agent_token=live_server.agent_token,
            player_id="console",
            timeout=budget,
            retry=RetryPolicy(replays=0, fresh_read_budget=True),
        ) as client:
            with pytest.raises(TransportError) as caught:
                client.call("region_inspect", BOX)
        time.sleep(stall)  # let the stalled forwards finish before the server stops
        assert len(_calls(proxy, "region_inspect")) == 2
    error = caught.value
    assert error.reason == "deadline" and error.repeated and error.waited_ms >= 2 * budget * 1000


def test_a_batch_waits_as_long_as_its_steps_may(tmp_path, monkeypatch):
    """tool_batch's deadline is the sum of its steps' (each as for its own call), never less than the face's
    default (30 s, here 0.5 s): a schem_build step, which may build for wait_seconds, was cut at the default."""
    from mcb.client import McbClient
    from mcb.mcp import calls
    from mcb.server.testing import spawn_server

    monkeypatch.setattr(calls, "DEFAULT_DEADLINE_S", 0.5)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    server = spawn_server(tmp_path / "paced", tick_ms=40, max_plan_blocks=512)
    try:
        session, call = in_process_session(
            lambda deadline=None: McbClient(server.url, agent_token=server.agent_token, player_id="console"), {}
        )
        step = {"path": str(CORPUS / "v2_nucleation_c4_ai_last_played.schem"), "target": {"x": 0, "y": 80, "z": 30},
                "drop_extras": True, "wait_seconds": 10}  # fmt: skip
        result = call(1, "tool_batch", {"steps": [{"tool": "schem_build", "arguments": step}]})
        session.close()
    finally:
        server.stop()
    assert result["isError"] is False, result
    built = result["structuredContent"]["results"][0]
    assert built["ok"] and built["result"]["result"] == "running", built
