"""`mcb serve --json` announces readiness as ONE line, as its help says, so a script can `read` it while it runs."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

from interrupt_kit import INTERRUPTIBLE


def test_serve_json_ready_announcement_is_one_json_line(tmp_path):
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcb",
            "serve",
            "--data",
            str(tmp_path / "d"),
            "--port",
            "0",
            "--tick-ms",
            "5",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
        **INTERRUPTIBLE,
    )
    try:
        first_line = process.stdout.readline()  # what `read -r line` or `head -1` gets
        info = json.loads(first_line)
        assert set(info) == {"url", "data_dir", "token_file"}
        assert info["url"].startswith("http://127.0.0.1:")
    finally:
        process.send_signal(signal.SIGINT)
        remaining, _ = process.communicate(timeout=30)
    assert process.returncode == 0
    assert remaining == ""  # nothing else on stdout
