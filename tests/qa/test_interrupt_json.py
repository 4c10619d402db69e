"""Ctrl-C: exit 130 (the exit-code table), and under --json the message on stderr is JSON like every other error."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from interrupt_kit import INTERRUPTIBLE


def wait_until_reading_stdin(process: subprocess.Popen) -> None:
    """Until the child sleeps in a read of its stdin pipe (Linux names where in /proc/PID/wchan, "0" while it runs);
    where that cannot be seen, 1.5 s more: start-up, then blocked on stdin that never ends."""
    where = Path(f"/proc/{process.pid}/wchan")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if where.read_text().endswith("pipe_read"):
                return
        except OSError:
            break
        time.sleep(0.01)
    time.sleep(1.5)


@pytest.mark.parametrize("json_flag", [False, True])
def test_ctrl_c_while_reading_stdin_exits_130(json_flag):
    args = [sys.executable, "-m", "mcb", *(["--json"] if json_flag else []), "block", "check", "-"]
    process = subprocess.Popen(
        args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **INTERRUPTIBLE
    )
    wait_until_reading_stdin(process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert out == "" and "Traceback" not in err
    if json_flag:
        assert json.loads(err.strip().splitlines()[-1])["error"]["exit_code"] == 130
    else:
        assert err.strip().splitlines()[-1] == "interrupted"
