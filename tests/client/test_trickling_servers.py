"""A call's budget is a total limit even when the server sends its answer one byte at a time.

Each byte arrives well inside a per-read timeout, so only a limit on the whole exchange stops these calls: the
status line followed by a head that never ends ("head"), or a complete head and a body that never ends ("body").
The servers trickle for 20 s and then hold the socket, so a client without a total limit fails these tests (it
waits at least 20 s) instead of hanging the suite. Real sockets throughout; the client is not mocked.

The calls get a short budget (BUDGET) so that the suite does not wait; SLACK is what a loaded machine may add.
(The default /health budget is checked once, on a silent server: tests/client/test_silent_server_budgets.py.)
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest
from rpc_testkit import TricklingServer, box_recipe

from mcb.client.errors import TransportError

PARTS = ("head", "body")
BUDGET = 0.3  # seconds: --timeout, the client's timeout, `timeout =` in .mcb.toml
SLACK = 1.0


def timed(call):
    started = time.monotonic()
    with pytest.raises(TransportError) as caught:
        call()
    return caught.value, time.monotonic() - started


@pytest.mark.parametrize("part", PARTS)
def test_health_stops_at_the_timeout(part):
    from mcb.client import McbClient

    with TricklingServer(part) as server, McbClient(server.url, timeout=BUDGET) as client:
        error, elapsed = timed(client.health)
    assert server.hits >= 1  # the server did start answering
    assert error.reason == "deadline" and error.timed_out
    assert BUDGET <= elapsed < BUDGET + SLACK


@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("kind", ["read", "write"])
def test_an_rpc_stops_at_the_timeout(part, kind):
    from mcb.client import McbClient

    with TricklingServer(part) as server, McbClient(server.url, agent_token="t" * 40, timeout=BUDGET) as client:
        call = client.project_context if kind == "read" else lambda: client.build_prepare(box_recipe(0, 100, 0))
        error, elapsed = timed(call)
    assert error.reason == "deadline" and error.outcome_unknown
    assert BUDGET <= elapsed < BUDGET + SLACK
    assert server.hits == 1  # no repeat: the budget was spent


def test_a_trickled_answer_that_completes_in_time_is_read():
    """The limit is on the whole exchange, not on trickling as such: a slow answer that fits is accepted."""
    import socket
    import threading

    from mcb.client import McbClient

    body = b'{"status":"ready"}'
    answer = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)

        def serve():
            connection, _ = listener.accept()
            with connection:
                connection.recv(65536)
                for i in range(0, len(answer), 8):
                    connection.sendall(answer[i : i + 8])
                    time.sleep(0.02)

        worker = threading.Thread(target=serve, daemon=True)
        worker.start()
        with McbClient(f"http://127.0.0.1:{listener.getsockname()[1]}", timeout=5.0) as client:
            assert client.health().status == "ready"
        worker.join(5)


@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("command", [["health"], ["-vv", "health"], ["context"], ["prepare", "RECIPE"]])
def test_every_command_exits_6_at_the_timeout(cli, monkeypatch, tmp_path, part, command):
    recipe = tmp_path / "box.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0)))
    monkeypatch.setenv("MCB_AGENT_TOKEN", "t" * 40)
    args = [str(recipe) if word == "RECIPE" else word for word in command]
    with TricklingServer(part) as server:
        started = time.monotonic()
        result = cli("--server", server.url, "--timeout", str(BUDGET), *args)
        elapsed = time.monotonic() - started
    assert result.exit_code == 6, result.stderr
    waited = re.search(r"no answer before the timeout \((\d+\.\d) s\)", result.stderr)
    assert waited and BUDGET - 0.05 <= float(waited.group(1)) < BUDGET + SLACK, result.stderr
    assert elapsed < BUDGET + SLACK


@pytest.mark.slow  # waits out the /health probe's fixed 2 s (MCP-53)
def test_mcb_mcp_rpc_tools_stop_at_the_configured_timeout(tmp_path):
    """`mcb mcp` shares the client: a read, repeated once with a fresh budget (MCP-55), then the refusal's probe of
    /health each end at their budget. (A trickled head; the client stops a trickled body the same way, above, and
    each run here waits out the probe's fixed 2 s.)"""
    part = "head"
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mcp"))
    from mcpkit import McpProcess, refusal_of

    (tmp_path / ".mcb.toml").write_text(f"timeout = {BUDGET}\n")
    with TricklingServer(part) as server:
        process = McpProcess(env={"MCB_SERVER": server.url, "MCB_AGENT_TOKEN": "t" * 40}, cwd=tmp_path)
        try:
            process.initialize()
            started = time.monotonic()
            answer = process.call("project_context", {}, timeout=15)
            elapsed = time.monotonic() - started
        finally:
            process.kill()
    result = answer["result"]
    assert result["isError"] is True
    refusal = refusal_of(result["structuredContent"]["error"])
    assert refusal["code"] == "timeout" and refusal["transport"]["reason"] == "deadline", refusal
    assert refusal["transport"]["repeated"] is True
    # the read and its one repeat, then the refusal's probe of /health (2 s budget, MCP-53)
    assert server.request_lines == ["POST /v1/rpc", "POST /v1/rpc", "GET /health"]
    assert elapsed < 2 * BUDGET + 2.0 + 2 * SLACK
