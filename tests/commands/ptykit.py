"""Run mcb with stderr on a pseudo-terminal, as a person at a terminal has it (progress bars, spinners)."""

from __future__ import annotations

import os
import pty
import subprocess


def stderr_on_a_terminal(args, env) -> tuple[int, str]:
    """Run ``args`` with stderr on a pseudo-terminal; (exit code, what the terminal received)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    proc.stdout.read()
    proc.wait(timeout=60)
    os.close(master)
    return proc.returncode, b"".join(chunks).decode("utf-8", "replace")
