"""A server that accepts connections and never answers: `mcb health` gives up within its short budget, and
`--timeout N` is the whole budget (the old per-attempt budget made `--timeout 2` take 4.5 s)."""

from __future__ import annotations

import json
import socket
import time

import pytest


@pytest.fixture
def silent_url():
    with socket.socket() as sock:  # the kernel completes the handshakes (backlog); nobody ever reads or answers
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.mark.slow  # waits out the real default /health budget (3 s): the one test that does
def test_health_of_a_silent_server_is_quick_and_says_so(cli, silent_url):
    from mcb.client.transport import HEALTH_TIMEOUT

    started = time.monotonic()
    result = cli("--server", silent_url, "health")
    elapsed = time.monotonic() - started
    # the one test of the default /health budget (the others inject a short --timeout): it is that budget, not less
    assert result.exit_code == 6 and HEALTH_TIMEOUT - 0.1 <= elapsed < HEALTH_TIMEOUT + 1.5
    assert "no answer before the timeout" in result.stderr


def test_timeout_is_a_total_budget_for_reads(cli, silent_url, monkeypatch):
    monkeypatch.setenv("MCB_AGENT_TOKEN", "t" * 40)
    started = time.monotonic()
    result = cli("--server", silent_url, "--timeout", "1.5", "context", "--json")
    elapsed = time.monotonic() - started
    assert result.exit_code == 6 and elapsed < 2.5  # one budget: not 2 x 1.5 s plus a pause
    transport = json.loads(result.stderr.strip().splitlines()[-1])["error"]["details"]["transport"]
    assert transport["reason"] == "deadline" and 1000 <= transport["waited_ms"] < 2500
