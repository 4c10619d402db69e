"""`-o -`: the one place a command's output file becomes stdout (fileio.STDOUT), and the refusals that go with it."""

from __future__ import annotations


def output_target(term, path, option: str = "-o/--output"):
    """``path`` as given, or :data:`mcb.fileio.STDOUT` for ``-``; then the command's summary goes to stderr.

    Refused (exit 2) with --json, whose document would share stdout with the file, and when stdout is a terminal,
    which binary data would garble."""
    import sys

    from mcb.errors import UsageError
    from mcb.fileio import STDOUT, is_dash

    if not is_dash(path):
        return path
    name = option.split("/")[0]
    if term.json_mode:
        raise UsageError(
            f"{name} - writes the file to stdout, where --json prints too",
            hint=f"name a file with {name}, or drop --json",
            details={"field": option},
        )
    if getattr(sys.stdout, "isatty", lambda: False)():
        raise UsageError(
            f"{name} - writes binary data, and stdout is a terminal",
            hint="redirect or pipe it: `... -o - > FILE`",
            details={"field": option},
        )
    term.divert_lines()
    return STDOUT
