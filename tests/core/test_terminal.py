"""Diagnostics on stderr when colour is off: plain text, written without Rich."""

from __future__ import annotations

import subprocess
import sys


def test_plain_status_lines_keep_brackets_escape_control_codes_and_skip_rich():
    script = (
        "import sys\n"
        "from mcb.terminal import Terminal\n"
        "Terminal().error('bad\\rstate minecraft:oak_stairs[facing=east] :smile:', 'try [this]')\n"
        "Terminal().warn('careful')\n"
        "sys.stdout.write(str('rich' in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"},
    )
    assert proc.stderr == (
        "error: bad\\rstate minecraft:oak_stairs[facing=east] :smile:\nhint: try [this]\nwarning: careful\n"
    )
    assert proc.stdout == "False"
