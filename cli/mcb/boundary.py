"""The error boundary: what an exception escaping a command becomes (a message on stderr and an exit code).

Used by the Typer root group (:class:`mcb.app.McbGroup`), so every command answers a failure with the same words,
JSON shape and exit code. No Typer here.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys

from mcb.errors import ExitCode, InputError, McbError
from mcb.state import AppState

CAUGHT = (McbError, KeyboardInterrupt, BrokenPipeError, OSError, MemoryError)
STOPS = frozenset({"build_stopped", "undo_stopped", "batch_stopped"})  # codes of a requested stop


def exit_code_for(state: AppState, error: BaseException) -> int:
    """Report ``error`` (one of ``CAUGHT``) the way mcb reports failures and return the exit code."""
    if isinstance(error, McbError):
        report_error(state, error)
        return int(error.exit_code)
    if isinstance(error, KeyboardInterrupt):
        if state.json:
            payload = {"code": "interrupted", "message": "interrupted", "exit_code": int(ExitCode.INTERRUPTED)}
            sys.stderr.write(json.dumps({"error": payload}) + "\n")
        else:
            sys.stderr.write("interrupted\n")
        return int(ExitCode.INTERRUPTED)
    if isinstance(error, BrokenPipeError):
        # The reader of stdout has gone (`mcb ... | head`): nothing is wrong and nothing is left to say. Python
        # flushes stdout once more at exit; point it at os.devnull so that the flush fails nowhere (the note on
        # SIGPIPE in Python's signal documentation).
        with contextlib.suppress(OSError, ValueError):  # a stream without a descriptor (tests) has no pipe
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    if isinstance(error, MemoryError):
        report_error(
            state,
            InputError(
                "not enough memory for this input",
                code="out_of_memory",
                hint="the input is larger than this machine can hold: split it, or use a machine with more memory",
            ),
        )
        return int(ExitCode.FAILURE)
    # A path the user named cannot be read or written (a directory, a missing folder, no permission).
    report_error(state, InputError(describe_os_error(error), code="file_error"))
    return int(ExitCode.FAILURE)


def report_error(state: AppState, error: McbError) -> None:
    if state.json:
        sys.stderr.write(json.dumps({"error": error.to_json()}) + "\n")
        return
    # A stop someone asked for (Ctrl-C, an MCP call's time limit) is no error: it says where it stopped.
    label = "stopped" if error.code in STOPS else "error"
    state.terminal().error(error.message, error.hint, label=label)


def describe_os_error(error: OSError) -> str:
    path = error.filename2 if error.filename2 is not None else error.filename
    reason = error.strerror or str(error)
    return f"{path}: {reason}" if path is not None else reason


def stdout_is_devnull() -> bool:
    """Whether file descriptor 1 is os.devnull (where a closed stdout pipe is pointed, by us and by Rich)."""
    try:
        return os.path.samestat(os.fstat(1), os.stat(os.devnull))
    except OSError:
        return False
