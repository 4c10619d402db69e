"""A cancelled call stops at once (MCP-47/48): no answer ever, not even its deadline's, and nothing more on the
wire: no second request, no /health probe. The fault proxy (tests/client/rpc_testkit.py) holds the answers."""

from __future__ import annotations

import json
import threading
import time

import pytest
from extkit import add_distribution, demo_module
from rpc_testkit import FaultProxy

STALLED = {"region_inspect", "build_apply"}
APPLY = {"plan_id": "p-1", "plan_hash": "h-1", "idempotency_key": "k-1"}
INSPECT = {"min": {"x": 0, "y": 100, "z": 0}, "max": {"x": 3, "y": 103, "z": 3}}


@pytest.fixture
def stalling(live):
    """A proxy that holds every region_inspect and build_apply unanswered (never forwarded) until the test ends."""
    release = threading.Event()

    def decide(request):
        body = request.get("json")
        if isinstance(body, dict) and body.get("method") in STALLED:
            release.wait(40)
            return "drop"
        return "forward"

    proxy = FaultProxy(live.url, decide).__enter__()
    yield proxy
    release.set()
    proxy.__exit__(None, None, None)


def mcp_through(mcp_process, live, proxy, tmp_path, timeout=None):
    if timeout is not None:  # the client's budget per HTTP exchange, from the project file as a user sets it
        (tmp_path / ".mcb.toml").write_text(f"timeout = {timeout}\n")
    mcp = mcp_process(env={"MCB_SERVER": proxy.url, "MCB_AGENT_TOKEN": live.agent_token, "MCB_PLAYER_ID": "console"})
    mcp.initialize()
    return mcp


def send_call(mcp, id, name, arguments):
    mcp.write({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})


def cancel(mcp, id):
    mcp.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "t"}})


def wait_for_requests(proxy, methods, seconds=15):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen = [r["json"].get("method") for r in proxy.requests if isinstance(r.get("json"), dict)]
        if all(method in seen for method in methods):
            return
        time.sleep(0.02)
    pytest.fail(f"the proxy never saw {methods}: {proxy.methods()}")


def answered(mcp, ids):
    return [json.loads(line) for line in mcp.raw if json.loads(line).get("id") in ids]


def test_cancelled_calls_send_nothing_more_even_after_the_client_budget(mcp_process, live, stalling, tmp_path):
    """With a 2 s client budget a stalled read used to be sent again at ~2.2 s and a stalled write probed /health.
    Here the budget is 1 s: the cancels land well inside it, and the wait below outlasts both budgets of the read."""
    mcp = mcp_through(mcp_process, live, stalling, tmp_path, timeout=1)
    send_call(mcp, 1, "region_inspect", INSPECT)
    send_call(mcp, 2, "build_apply", APPLY)
    wait_for_requests(stalling, STALLED)
    cancel(mcp, 1)
    cancel(mcp, 2)
    assert mcp.request("ping")["result"] == {}
    time.sleep(2.5)  # past the budget, the read's one repeat and the write's transport failure
    assert sorted(stalling.methods()) == ["build_apply", "region_inspect"]  # each sent once, nothing after
    assert not [r for r in stalling.requests if r["path"] == "/health"]  # no liveness probe either
    assert mcp.close() == 0
    assert answered(mcp, {1, 2}) == []
    err = mcp.stderr()
    assert "region_inspect cancelled after its request went out: stopped waiting" in err
    assert "build_apply cancelled after its request went out: stopped waiting" in err


def test_a_cancelled_write_frees_the_write_queue_at_once(mcp_process, live, stalling, tmp_path):
    """Writes run one at a time: a cancelled build_apply stuck on the wire used to hold the queue for its 30 s."""
    mcp = mcp_through(mcp_process, live, stalling, tmp_path)
    send_call(mcp, 2, "build_apply", APPLY)
    wait_for_requests(stalling, {"build_apply"})
    cancel(mcp, 2)
    prepared = mcp.call(
        "build_prepare",
        {
            "recipe": {
                "version": 1,
                "operations": [
                    {
                        "type": "box",
                        "min": {"x": 0, "y": 100, "z": 0},
                        "max": {"x": 1, "y": 101, "z": 1},
                        "block": "minecraft:stone",
                    }
                ],
            }
        },
        timeout=20,
    )  # the old code answered only after build_apply's 30 s
    assert prepared["result"]["isError"] is False
    assert answered(mcp, {2}) == []
    assert stalling.methods().count("build_apply") == 1


def test_a_cancelled_call_is_not_answered_by_its_deadline(mcp_process, tmp_path):
    """demo_stuck cannot be stopped: its 1 s deadline used to answer `timeout` for a call already cancelled.
    (It sleeps 1.5 s: the wait below outlasts both its deadline and its end.)"""
    site = tmp_path / "site"
    add_distribution(site, "demo-tools", "1.0", {"demo": "mcb_demo:DemoTools"}, {"mcb_demo": demo_module()})
    mcp = mcp_process(env={"PYTHONPATH": str(site)})
    mcp.initialize()
    send_call(mcp, 7, "demo_stuck", {})
    time.sleep(0.3)
    cancel(mcp, 7)
    assert mcp.silent(2.0)  # past the deadline (1 s) and the handler's own end (1.5 s)
    assert mcp.request("ping")["result"] == {}
    assert mcp.close() == 0
    assert answered(mcp, {7}) == []
