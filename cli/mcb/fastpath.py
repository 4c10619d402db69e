"""A Typer-free start for the hottest commands: `mcb schem validate` as CI and pre-commit hooks call it, and
`mcb schem rotate|mirror` (their reader and body live in :mod:`mcb.commands.schem_edit_run`).

Building the Typer/Click command tree (~70 ms here) costs more than validating a typical small file (~60 ms in
all), and a pre-commit hook pays it on every commit. This module reads the plain shapes of these command lines
itself and runs the very same body (:func:`mcb.commands.reporting.run_schem_validate`) behind the same error boundary
(:mod:`mcb.boundary`). Anything else (help, root options, ``--``, a short option glued to its value, an option
without its value, a value that looks like an option, an invalid ``--jobs``) returns ``None`` and the full Typer
application handles it, so usage errors keep Typer's wording. ``MCB_FAST_PATH=0`` turns the fast path off.

``tests/test_fastpath.py`` runs the same command lines both ways and compares output and exit codes.
"""

from __future__ import annotations

import os
import sys

# option -> (destination, takes a value)
_VALIDATE_OPTIONS = {
    "--profile": ("profile", True), "-p": ("profile", True),
    "--mc-version": ("mc_version", True),
    "--format": ("format_", True), "-f": ("format_", True),
    "--glob": ("glob", True),
    "--jobs": ("jobs", True), "-j": ("jobs", True),
    "--strict": ("strict", False),
    "--json": ("json_", False),
}


def read_plain(args: list[str], options: dict[str, tuple[str, bool]], *, repeatable: frozenset[str] = frozenset(),
               convert: dict | None = None) -> tuple[list[str], dict, set[str]] | None:
    """Read a command line of plain shapes: positionals, ``--opt VALUE``, ``--opt=VALUE``, ``-o VALUE`` and flags.

    ``options`` maps each option to (destination, takes a value); ``repeatable`` destinations collect lists;
    ``convert`` maps a destination to a function returning the converted value or None to refuse it. Returns
    (positionals, values by destination, destinations given), or None for anything else (help, ``--``, ``-``,
    glued short options, unknown options, a flag with ``=``, a missing or option-like value, a refused value).
    """
    positional: list[str] = []
    values: dict = {}
    given: set[str] = set()
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        if not token.startswith("-"):
            positional.append(token)
            continue
        name, has_inline, inline = token.partition("=") if token.startswith("--") else (token, "", "")
        spec = options.get(name)
        if spec is None:
            return None
        dest, takes_value = spec
        if not takes_value:
            if has_inline:
                return None
            values[dest] = True
            given.add(dest)
            continue
        if has_inline:
            value = inline
        elif i < len(args):
            value = args[i]
            i += 1
        else:
            return None
        if value.startswith("-"):
            return None
        if convert and dest in convert:
            value = convert[dest](value)
            if value is None:
                return None
        if dest in repeatable:
            values.setdefault(dest, []).append(value)
        else:
            values[dest] = value
        given.add(dest)
    return positional, values, given


def whole_number(value: str, minimum: int = 0) -> int | None:
    """``value`` as Click's int would read plain ASCII digits, if at least ``minimum``; else None."""
    return int(value) if value.isascii() and value.isdigit() and int(value) >= minimum else None


def option_env(name: str) -> str | None:
    """An option's environment variable as Click reads it (unset or empty means not given)."""
    return os.environ.get(name) or None


def parse_validate(args: list[str]) -> dict | None:
    """The keyword arguments of `schem validate` for ``args`` (what follows ``schem validate``), or None when the
    command line is not one of the plain shapes this parser takes."""
    read = read_plain(args, _VALIDATE_OPTIONS, repeatable=frozenset({"glob"}),
                      convert={"jobs": lambda value: whole_number(value, 1)})
    if read is None or not read[0]:
        return None
    paths, values, given = read
    return {"paths": paths, "profile": values.get("profile", "server"),
            "mc_version": values["mc_version"] if "mc_version" in given else option_env("MCB_MC_VERSION"),
            "format_": values.get("format_"), "strict": values.get("strict", False), "glob": values.get("glob"),
            "jobs": values.get("jobs"), "json_": values.get("json_", False)}


def dispatch(argv: list[str]) -> int | None:
    """Run ``argv`` (without the program name) if the fast path takes it; return the exit code, else None."""
    if os.environ.get("MCB_FAST_PATH") == "0":
        return None
    if argv[:2] in (["schem", "rotate"], ["schem", "mirror"]):  # their reader and body: mcb.commands.schem_edit_run
        from mcb.commands.schem_edit_run import dispatch_edit

        return dispatch_edit(argv[1], argv[2:])
    if argv[:2] != ["schem", "validate"]:
        return None
    values = parse_validate(argv[2:])
    if values is None:
        return None
    if len(values["paths"]) == 1 and _big_file(values["paths"][0]):
        # the BlockData helper (mcb.schematics.offload) starts its numpy import while the imports below run
        from mcb.schematics.offload import start_early

        start_early()
    from pathlib import Path

    from mcb.commands.reporting import run_schem_validate

    return run_guarded(values["json_"], lambda term: run_schem_validate(
        term, [Path(p) for p in values["paths"]], profile=values["profile"], mc_version=values["mc_version"],
        format_=values["format_"], strict=values["strict"], glob=values["glob"], jobs=values["jobs"]))


def _big_file(path: str) -> bool:
    import stat

    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size > 32 * 1024  # (mcb.schematics.rules._SMALL_FILE)


def run_guarded(json_: bool, body) -> int:
    """Call ``body(terminal)`` behind the error boundary the Typer root group uses; return the exit code."""
    from mcb import boundary
    from mcb.state import AppState

    state = AppState(json=json_)
    try:
        body(state.terminal(json_))
    except boundary.CAUGHT as error:
        return boundary.exit_code_for(state, error)
    return 0


def main() -> None:
    """Console-script entry point: the fast path when it applies, else the Typer application."""
    code = dispatch(sys.argv[1:])
    if code is None:
        from mcb.app import main as typer_main

        typer_main()
        return
    exit_now(code)


def exit_now(code: int) -> None:
    """Flush the output and end the process without the interpreter's teardown.

    After a big schematic, tearing down frees every object one by one (~15 ms on the 256^3 corpus file) for
    nothing: these commands have written and renamed their outputs and register no exit handlers. A reader that
    has gone away (``mcb ... | head``) is not an error, as at the error boundary.
    """
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    try:
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(code)
