"""The error boundary: what an exception escaping a command becomes (a message on stderr and an exit code).

Used by the Typer root group (:class:`mcb.app.McbGroup`), so every command answers a failure with the same words,
JSON shape and exit code. No Typer here.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys

from mcb.errors import ExitCode, InputError, McbError, Words, escaped
from mcb.state import AppState

# The root's options, which every command accepts too (mcb.app appends them to each command).
GLOBAL_OPTIONS = ("--json", "--quiet", "--verbose", "--no-color", "--server", "--profile", "--timeout")
CAUGHT = (McbError, KeyboardInterrupt, BrokenPipeError, OSError, MemoryError)
STOPS = frozenset({"build_stopped", "undo_stopped", "batch_stopped"})  # codes of a requested stop
DECLINED = frozenset({"not_confirmed"})  # a question the user answered no (exit 1 all the same)


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
    report_error(state, InputError(escaped(describe_os_error(error)), code="file_error"))
    return int(ExitCode.FAILURE)


def report_error(state: AppState, error: McbError) -> None:
    if state.json:
        sys.stderr.write(json.dumps({"error": error.to_json()}) + "\n")
        return
    # A stop someone asked for (Ctrl-C, an MCP call's time limit) is no error: it says where it stopped. Nor is a
    # question answered no: it says what was not done, with no label.
    label = "stopped" if error.code in STOPS else None if error.code in DECLINED else "error"
    state.terminal().error(error.message, error.hint, label=label)


def cli_words(state: AppState) -> Words:
    """The CLI's words for the names in an error's template (mcb.errors): a tool as the command that runs it
    (`mcb context`), an argument as the flag of the command at work (``--drop-extras``; ``--to`` where a command
    calls ``format`` so; ``-o FILE`` with a value, the switch alone for ``=true``), a global option with the
    environment variable that sets it too (``--server / MCB_SERVER``)."""
    return lambda name, value: _cli_words(state.commands, name, value)


def command_name(tool: str) -> str:
    """How the CLI names a tool: the command that runs it (`mcb context`)."""
    from mcb.summaries import CLI_COMMANDS

    return f"`mcb {CLI_COMMANDS.get(tool, tool)}`"


def _cli_words(commands: tuple, name: str, value: str | None) -> str:
    from mcb.summaries import SUMMARIES

    if value is None and name in SUMMARIES:
        return command_name(name)
    spelled = "--" + name.replace("_", "-")
    # The command at work first, then its groups and the root (whose global options the commands accept through
    # hidden copies, mcb.app.finish); an option spelled like the name before one merely called so (`status`'s
    # --wait-timeout is a parameter named timeout).
    options = [
        param
        for command in commands
        for param in getattr(command, "params", ())
        if param.param_type_name == "option" and not param.name.startswith("global_")
    ]
    found = next((p for p in options if spelled in p.opts), None) or next((p for p in options if p.name == name), None)
    if found is not None:
        return _flag_words(found, value)
    return spelled if value in (None, "true") else f"{spelled} {value}"


def _flag_words(option, value: str | None) -> str:
    if value is None:
        envvar = option.envvar if option.opts[0] in GLOBAL_OPTIONS else None
        return f"{option.opts[0]} / {envvar}" if isinstance(envvar, str) else option.opts[0]
    if option.is_flag:
        return option.secondary_opts[0] if value == "false" and option.secondary_opts else option.opts[0]
    return f"{min(option.opts, key=len)} {value}"


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
