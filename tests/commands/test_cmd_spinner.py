"""A write that takes longer than a second shows a spinner on stderr, on a terminal only (and not under NO_COLOR)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from ptykit import stderr_on_a_terminal
from rpc_testkit import FaultProxy, box_recipe


def _run(args, env, stderr_tty: bool):
    if stderr_tty:
        return stderr_on_a_terminal(args, env)
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stderr


def test_slow_prepare_spins_on_a_terminal_only(tmp_path):
    from mcb.server.testing import run_server

    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0)))

    def decide(request):
        slow = request["json"] and request["json"]["method"] == "build_prepare"
        return ("sleep_then_forward", 1.8) if slow else "forward"

    with run_server(tmp_path / "server", tick_ms=2) as server, FaultProxy(server.url, decide) as proxy:
        env = {
            **os.environ,
            "MCB_SERVER": proxy.url,
            "MCB_AGENT_TOKEN": server.agent_token,
            "TERM": "xterm",
            "COLUMNS": "100",
        }
        env.pop("NO_COLOR", None)
        args = [sys.executable, "-m", "mcb", "prepare", str(recipe)]
        started = time.monotonic()
        # The three slow runs are independent (the proxy holds each prepare on its own thread): run them side by
        # side, so the test waits out the 1.8 s once, not three times.
        with ThreadPoolExecutor(max_workers=3) as pool:
            runs = [
                pool.submit(_run, args, env, True),
                pool.submit(_run, args, env, False),
                pool.submit(_run, args, {**env, "NO_COLOR": "1"}, True),
            ]
            (code, tty_err), (pipe_code, pipe_err), (uncoloured_code, uncoloured_err) = [r.result() for r in runs]
        assert code == 0 and time.monotonic() - started > 1.5, tty_err
        assert pipe_code == 0, pipe_err
        assert uncoloured_code == 0, uncoloured_err
        # each of them waited on the slow prepare (one may be answered busy while another clears the journal latch,
        # as the plugin does, and sent again)
        assert proxy.methods().count("build_prepare") >= 3
        proxy.decide = lambda request: "forward"
        code, fast_err = _run(args, env, stderr_tty=True)
        assert code == 0, fast_err
    assert "waiting for the server to prepare the plan" in tty_err
    assert "waiting for the server" not in uncoloured_err and "\x1b" not in uncoloured_err  # NO_COLOR: no animation
    assert "waiting for the server" not in pipe_err
    assert "waiting for the server" not in fast_err  # under a second: no spinner
