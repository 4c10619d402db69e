"""Root Typer application: the global options, the error boundary, and the commands, each imported on first use.

The root is a ``typer.core.TyperGroup`` subclass passed as ``typer.Typer(cls=...)`` (the lazy group Click documents
and hatch uses): it lists its commands from ``mcb.commands.COMMANDS`` (name, panel, one-line help), so `mcb --help`
and TAB import no command module, and imports a command's module when the command is resolved to run (or to show
its own help, or to complete inside it). Only public Typer names are used.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import importlib
import inspect
import os
import sys
from functools import cache

import typer
from typer.core import TyperCommand, TyperGroup

from mcb import __version__, boundary
from mcb.commands import COMMANDS
from mcb.errors import ExitCode, McbError, UsageError, escaped, exit_codes_epilog, face_words
from mcb.options import (
    JsonOpt,
    NoColorOpt,
    ProfileOpt,
    QuietOpt,
    ServerOpt,
    TimeoutOpt,
    VerboseOpt,
    app_state,
)
from mcb.state import AppState

HELP_OPTION_NAMES = ["-h", "--help"]
# The root's options that every command accepts as well (mcb.options declares them).
GLOBAL_OPTIONS = boundary.GLOBAL_OPTIONS


class McbGroup(TyperGroup):
    """The root: commands listed from light entries and built when resolved; every failure (a McbError, Ctrl-C, a
    closed stdout, a usage error) ends as one message, a hint and an exit code."""

    def list_commands(self, ctx):
        return list(COMMANDS)

    def get_command(self, ctx, cmd_name):
        """The command once built, else its light entry (name, panel, one-line help): all help and TAB need."""
        if cmd_name in self.commands or cmd_name not in COMMANDS:
            return self.commands.get(cmd_name)
        _module, panel, one_line = COMMANDS[cmd_name]
        return TyperCommand(name=cmd_name, help=one_line, rich_help_panel=panel)

    def resolve_command(self, ctx, args):
        try:
            name, _entry, rest = super().resolve_command(ctx, args)
        except typer.TyperException as error:
            near = difflib.get_close_matches(args[0], COMMANDS) if args else []
            if near and "Did you mean" not in error.message:  # Typer suggests only among built commands
                error.message = f"{error.message.rstrip('.')}. Did you mean {', '.join(map(repr, near))}?"
            if app_state(ctx).verbosity and args and args[0].isdigit():  # `mcb -q 2 health`
                error.message += " -q and -v take no value: repeat them instead (-qq, -vv)."
            raise
        if name not in self.commands:
            self.commands[name] = load_command(name, self)
        return name, self.commands[name], rest

    def make_context(self, info_name, args, parent=None, **extra):
        # Parsing stops at the first mistake, before later options are seen: look for --json and --no-color first,
        # so that a usage error answers in JSON and help is uncoloured wherever on the line the flag stands.
        state = AppState(json=flag_in(args, "--json"))
        if flag_in(args, "--no-color"):
            os.environ["NO_COLOR"] = "1"  # Rich, which prints Typer's help, honours NO_COLOR
        with face_words(boundary.cli_words(state)), ending_errors(state):
            return super().make_context(info_name, args, parent=parent, **{**extra, "obj": state})

    def invoke(self, ctx):
        state = app_state(ctx)
        with face_words(boundary.cli_words(state)), ending_errors(state):
            return super().invoke(ctx)

    def format_help(self, ctx, formatter):
        name_option_values(self, ctx)  # here: Typer adds --install-completion/--show-completion after __init__
        return super().format_help(ctx, formatter)


@contextlib.contextmanager
def ending_errors(state: AppState):
    """Every failure while parsing or running ends here as a message, a hint and an exit code (typer.Exit)."""
    try:
        yield
    except boundary.CAUGHT as error:
        raise typer.Exit(boundary.exit_code_for(state, error)) from None
    except typer.TyperException as error:  # Typer's usage errors (exit 2) and its other refusals
        raise typer.Exit(report_typer_error(state, error)) from None


def report_typer_error(state: AppState, error: typer.TyperException) -> int:
    """One line and a hint, as every mcb error, instead of Typer's usage box."""
    message = error.format_message()
    if not message.strip():  # `mcb schem` with no sub-command: Typer has printed the help already
        return int(error.exit_code)
    suggest_only_near_options(error)
    message = error.format_message()
    context = getattr(error, "ctx", None)  # the command the mistake was made in, when Typer knows it
    hint = f"see `{context.command_path} --help`" if context is not None else "see `mcb --help`"
    if error.exit_code == ExitCode.USAGE:  # Typer's words, with what the user typed: no template
        boundary.report_error(state, UsageError(escaped(message), hint=hint))
    else:
        boundary.report_error(state, McbError(escaped(message), hint=hint))
    return int(error.exit_code)


def flag_in(args, flag: str) -> bool:
    """True when ``flag`` is among command-line arguments (before a ``--`` separator)."""
    for arg in args:
        if arg == "--":
            return False
        if arg == flag:
            return True
    return False


def suggest_only_near_options(error) -> None:
    """Keep Typer's "Possible options" only for names near the mistyped one (`--jsn` → `--json`, not `--bogus` →
    `--verbose`): a prefix or part of it (`--timeout` → `--wait-timeout`), or at least 75 % alike without dashes."""
    possibilities = getattr(error, "possibilities", None)
    typed = getattr(error, "option_name", None)
    if not possibilities or not typed:
        return
    bare = typed.lstrip("-")

    def near(option: str) -> bool:
        name = option.lstrip("-")
        if len(bare) >= 4 and bare in name:
            return True
        return bool(bare) and (name.startswith(bare) or difflib.SequenceMatcher(None, bare, name).ratio() >= 0.75)

    error.possibilities = [option for option in possibilities if near(option)]


@cache
def module_commands(module_name: str) -> dict:
    """The commands ``mcb.commands.<module_name>`` registers, built: name → command (a group for a group)."""
    registered = typer.Typer(add_completion=False)
    importlib.import_module(f"mcb.commands.{module_name}").register(registered)
    built = typer.main.get_command(registered)
    return dict(built.commands) if isinstance(built, TyperGroup) else {built.name: built}


def load_command(name: str, root: TyperGroup | None = None):
    """The command behind a root entry, built with its module's neighbours and made to accept the global options."""
    command = module_commands(COMMANDS[name][0])[name]
    finish(command, root or typer.main.get_command(app))
    return command


def finish(command, root) -> None:
    """Help paragraphs rewrapped, option values named, and the root's global options accepted after the command
    (hidden there: the root's help documents them), at every level of a group."""
    command.help = rewrap_help(command.help)
    name_option_values(command)
    own = {opt for param in command.params for opt in getattr(param, "opts", ())}
    for option in root.params:
        if option.opts[0] in GLOBAL_OPTIONS and not own.intersection(option.opts):
            inherited = copy.copy(option)
            inherited.hidden, inherited.expose_value, inherited.envvar = True, False, None  # the root reads the env
            # Its own name: values are parsed by name, and `status`'s --wait-timeout is a parameter named `timeout`
            # too, whose value the copy of --timeout would otherwise take as the budget of every request.
            inherited.name = f"global_{option.name}"
            command.params.append(inherited)
    for sub in getattr(command, "commands", {}).values():
        finish(sub, root)


# The word help shows for an option's value when its declaration names none (Typer would print `<str>`, `<int>`,
# `<path>`): the option's own name, as argparse does, except where a shorter word says more.
VALUE_WORDS = {
    "--output": "FILE",
    "--schem": "FILE",
    "--png": "FILE",
    "--expected": "FILE",
    "--recipe": "FILE",
    "--state": "FILE",
    "--token-file": "FILE",
    "--agent-token-file": "FILE",
    "--rotation": "DEGREES",
    "--interval": "SECONDS",
    "--wait-timeout": "SECONDS",
    "--idempotency-key": "KEY",
    "--max-plan-blocks": "N",
    "--limit": "N",
    "--count": "N",
    "--budget": "N",
    "--start": "N",
    "--scale": "N",
    "--client-id": "ID",
    "--player-id": "ID",
    "--project-id": "ID",
    "--server-url": "URL",
    "--query": "TEXT",
    "--text": "TEXT",
    "--after": "OPERATION_ID",
    "--fov": "DEGREES",
    "--width": "PIXELS",
    "--height": "PIXELS",
    "--resolution": "N",
    "--asset": "NAME",
    "--ready-file": "FILE",
}


def name_option_values(command, ctx=None) -> None:
    """Help names each option's value in words: a flag takes none, so it shows no type (Typer prints `<bool>`,
    which reads as if `--json` took one; an empty metavar is Click's public way to say so), and a valued option
    that declares no metavar gets :data:`VALUE_WORDS`' word or its own name (`--degrees DEGREES`)."""
    context = ctx or typer.Context(command, help_option_names=HELP_OPTION_NAMES)
    for param in [*command.params, command.get_help_option(context)]:
        if getattr(param, "is_flag", False) or getattr(param, "count", False):
            param.metavar = ""
        elif getattr(param, "param_type_name", None) == "option" and param.metavar is None:
            long = max(param.opts, key=len)
            param.metavar = VALUE_WORDS.get(long, long.lstrip("-").replace("-", "_").upper())


def rewrap_help(text: str | None) -> str | None:
    """Join the lines of each hard-wrapped docstring paragraph, as Click does (Typer keeps the breaks, which prints
    ragged lines). A paragraph that starts with ``\\b`` or whose lines are all indented (the examples) keeps them.
    """
    if not text:
        return text
    out = []
    for paragraph in inspect.cleandoc(text).split("\n\n"):
        lines = paragraph.split("\n")
        if paragraph.startswith("\b") or all(line.startswith(" ") for line in lines if line):
            out.append(paragraph)
        else:
            out.append(" ".join(line.strip() for line in lines))
    return "\n\n".join(out)


app = typer.Typer(
    name="mcb",
    cls=McbGroup,
    help="Build in Minecraft with the minecraft-builder plugin: RPC commands, offline schematic and recipe tools, "
    "and a local reference server.\n\nThe global options (--json, -q, -v, --no-color, --server, --profile, --timeout) may "
    "also follow the command: "
    "`mcb context --server URL --json`.",
    epilog=exit_codes_epilog(),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": HELP_OPTION_NAMES},
)


def _version_callback(value: bool) -> None:
    if value:
        sys.stdout.write(f"mcb {__version__}\n")
        sys.stdout.flush()  # a closed pipe is met here, inside the error boundary, not at interpreter exit
        raise typer.Exit()


@app.callback()
def _root_callback(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."
    ),
    json_: JsonOpt = False,
    quiet: QuietOpt = 0,
    verbose: VerboseOpt = 0,
    no_color: NoColorOpt = False,
    server: ServerOpt = None,
    profile: ProfileOpt = None,
    timeout: TimeoutOpt = None,
) -> None:
    """(The options' callbacks have stored their values on the AppState as they were parsed.)"""


def command_tree():
    """The root command with every command built (for documentation and tests that walk all commands)."""
    root = typer.main.get_command(app)
    for name in COMMANDS:
        root.commands[name] = load_command(name, root)
    return root


def main() -> None:
    """Console-script entry point."""
    stdout_was_devnull = boundary.stdout_is_devnull()
    try:
        app(prog_name="mcb")
    except KeyboardInterrupt:  # raised before the group's boundary, e.g. during start-up
        sys.stderr.write("interrupted\n")
        sys.exit(int(ExitCode.INTERRUPTED))
    except SystemExit as done:
        # Rich, printing Typer's help, meets a closed stdout pipe by pointing stdout at os.devnull and exiting 1
        # (rich.console.Console.on_broken_pipe): a reader that stopped reading is no failure of ours.
        if done.code == 1 and not stdout_was_devnull and boundary.stdout_is_devnull():
            raise SystemExit(0) from None
        raise
