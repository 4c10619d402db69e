"""Root Typer application: global options, the error boundary, and the commands, each imported on first use.

The root lists its commands from ``mcb.commands.COMMANDS`` (name, panel, one-line help) and imports a command's
module only when that command runs or its own help is asked for, so `mcb --help`, TAB completion and each
command pay only for what they use. Built with Typer's public ``typer.main.get_command``.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import inspect
import json
import os
import sys
from functools import cache
from typing import Annotated

import typer
from typer.core import TyperCommand, TyperGroup

from mcb import __version__, boundary
from mcb.commands import COMMANDS
from mcb.errors import ExitCode, McbError, UsageError
from mcb.options import AppState, NoColorOpt, ProfileOpt, QuietOpt, ServerOpt, TimeoutOpt, VerboseOpt, app_state

# Click's UsageError, reached through Typer's public BadParameter (Typer vendors Click under a private name).
ClickUsageError = next(cls for cls in typer.BadParameter.__mro__ if cls.__name__ == "UsageError")

HELP_OPTION_NAMES = ["-h", "--help"]


class LazyCommands:
    """Commands listed from light entries and built on first use: listing them (help, TAB) builds none."""

    _listing = False

    def build(self, name: str):
        """The real command called ``name``, or None when it is not one built lazily."""
        raise NotImplementedError

    def get_command(self, ctx, cmd_name):
        built = None if self._listing else self.build(cmd_name)
        return built if built is not None else super().get_command(ctx, cmd_name)

    def format_help(self, ctx, formatter):
        with self._listing_only():
            return super().format_help(ctx, formatter)

    def shell_complete(self, ctx, incomplete):
        with self._listing_only():
            return super().shell_complete(ctx, incomplete)

    @contextlib.contextmanager
    def _listing_only(self):
        self._listing = True
        try:
            yield
        finally:
            self._listing = False


class McbGroup(LazyCommands, TyperGroup):
    """Root group: lazy commands, and McbError / Ctrl-C / usage errors turned into a message and an exit code."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        name_option_values(self)
        for name, (_module, panel, one_line) in COMMANDS.items():
            self.commands.setdefault(name, TyperCommand(name=name, help=one_line, rich_help_panel=panel))

    def build(self, name: str):
        return load_command(name) if name in COMMANDS else None

    def format_help(self, ctx, formatter):
        name_option_values(self)  # again: Typer adds --install-completion/--show-completion after __init__
        return super().format_help(ctx, formatter)

    def resolve_command(self, ctx, args):
        try:
            return super().resolve_command(ctx, args)
        except ClickUsageError as error:
            counted = ctx.params.get("quiet") or ctx.params.get("verbose")
            if counted and args and args[0].isdigit():  # `mcb -q 2 health`
                error.message += " -q and -v take no value: repeat them instead (-qq, -vv)."
            raise

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except boundary.CAUGHT as error:
            raise typer.Exit(boundary.exit_code_for(app_state(ctx), error)) from None
        except ClickUsageError as error:
            suggest_only_near_options(error)
            if not app_state(ctx).json:
                raise  # Typer prints the usual usage box
            report_error(ctx, UsageError(error.format_message()))
            raise typer.Exit(int(ExitCode.USAGE)) from None

    def make_context(self, info_name, args, parent=None, **extra):
        # Parsing consumes ``args``: look for the global flags first, so that usage errors and early refusals
        # answer in JSON, and help is uncoloured, wherever on the line the flag stands.
        wants_json = flag_in(args, "--json")
        if flag_in(args, "--no-color"):
            os.environ["NO_COLOR"] = "1"  # Rich (help, usage boxes) honours NO_COLOR
        try:
            ctx = super().make_context(info_name, args, parent=parent, **extra)
        except ClickUsageError as error:  # a mistake among the root options themselves
            suggest_only_near_options(error)
            if not wants_json:
                raise
            sys.stderr.write(json.dumps({"error": UsageError(error.format_message()).to_json()}) + "\n")
            raise typer.Exit(int(ExitCode.USAGE)) from None
        if wants_json:
            app_state(ctx).json = True
        return ctx


def flag_in(args, flag: str) -> bool:
    """True when ``flag`` is among command-line arguments (before a ``--`` separator)."""
    for arg in args:
        if arg == "--":
            return False
        if arg == flag:
            return True
    return False


def suggest_only_near_options(error) -> None:
    """Keep Click's "Possible options" only for names near the mistyped one (`--jsn` → `--json`, not `--bogus` →
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


def report_error(ctx, error: McbError) -> None:
    boundary.report_error(ctx.obj if isinstance(ctx.obj, AppState) else AppState(), error)


@cache
def load_command(name: str):
    """The real Click command behind a root entry, built on first use (only it, not its module's neighbours; a
    group without its sub-commands, which are built as they are used)."""
    registered = _registered(COMMANDS[name][0])
    one = typer.Typer(pretty_exceptions_enable=False, add_completion=False)
    one.registered_commands = [info for info in registered.registered_commands if info.name == name]
    groups = [info for info in registered.registered_groups if info.name == name]
    if groups:  # the group itself (callback, options, help) from a copy of its app that registers no command
        group_info, shell = copy.copy(groups[0]), copy.copy(groups[0].typer_instance)
        shell.registered_commands, group_info.typer_instance, group_info.cls = [], shell, LazyGroup
        one.registered_groups = [group_info]
    built = typer.main.get_command(one)
    if groups:  # a group comes back inside a root-like group
        built = built.commands[name]
        built.add_registrations(groups[0].typer_instance.registered_commands)
    _finish(built)
    return built


class LazyGroup(LazyCommands, TyperGroup):
    """A command group (`mcb schem`) whose sub-commands are built on first use: `mcb schem validate` builds only
    validate. Listed (help, TAB) from entries made of their registrations: name, help, panel."""

    registrations: dict = {}

    def add_registrations(self, infos) -> None:
        self.registrations = {info.name or typer.main.get_command_name(info.callback.__name__): info
                              for info in infos}
        for name, info in self.registrations.items():
            self.commands[name] = TyperCommand(
                name=name, help=rewrap_help(info.help or inspect.getdoc(info.callback)), short_help=info.short_help,
                rich_help_panel=info.rich_help_panel, hidden=info.hidden, deprecated=info.deprecated)

    def build(self, name: str):
        info = self.registrations.get(name)
        if info is None:
            return None
        if self.commands[name].callback is None:  # still the entry: build it once
            one = typer.Typer(pretty_exceptions_enable=False, add_completion=False)
            one.registered_commands = [info]
            self.commands[name] = typer.main.get_command(one)
            _finish(self.commands[name])
        return self.commands[name]

    def build_all(self) -> None:
        for name in self.registrations:
            self.build(name)


@cache
def _registered(module_name: str) -> typer.Typer:
    """A scratch app holding what the module registers (nothing is converted to Click yet)."""
    import importlib

    registered = typer.Typer(add_completion=False)
    importlib.import_module(f"mcb.commands.{module_name}").register(registered)
    return registered


def _finish(command) -> None:
    """Rewrap hard-wrapped help paragraphs, and accept `--no-color`, `-q` and `-v` at every level (like `--json`,
    they may follow the command; groups take them too, so `mcb schem --help --no-color` works)."""
    command.help = rewrap_help(command.help)
    name_option_values(command)
    for sub in getattr(command, "commands", {}).values():
        _finish(sub)
    if not any("--no-color" in getattr(param, "opts", ()) for param in command.params):
        command.params.append(_anywhere_options()[0])
    if not any(opt in ("-v", "-q") for param in command.params for opt in getattr(param, "opts", ())):
        command.params.extend(_anywhere_options()[1])


@cache
def _anywhere_options():
    """`--no-color`, `-q` and `-v` as sub-command options, declared through Typer like every other option, so that
    they may follow the command as `--json` does (`mcb build X --dry-run -v`); the counts add to the root's.
    `-q`/`-v` are hidden there: the root's help documents them."""
    probe = typer.Typer(add_completion=False)

    @probe.command()
    def anywhere_probe(
        no_color: Annotated[bool, typer.Option("--no-color", expose_value=False, callback=_no_color,
                                               help="Disable colour (NO_COLOR is honoured too).")] = False,
        quiet: Annotated[int, typer.Option("--quiet", "-q", count=True, hidden=True, expose_value=False,
                                           callback=lambda ctx, _p, n: _add_verbosity(ctx, -n))] = 0,
        verbose: Annotated[int, typer.Option("--verbose", "-v", count=True, hidden=True, expose_value=False,
                                             callback=lambda ctx, _p, n: _add_verbosity(ctx, n))] = 0,
    ) -> None:
        """Never run: only its options are used."""

    no_color_option, *counted = typer.main.get_command(probe).params
    no_color_option.metavar = ""
    return no_color_option, tuple(counted)


def _add_verbosity(ctx, count: int) -> None:
    if count:
        app_state(ctx).verbosity += count


# The word help shows for an option's value when its declaration names none (Typer would print `<str>`, `<int>`,
# `<path>`): the option's own name, as argparse does, except where a shorter word says more.
VALUE_WORDS = {"--output": "FILE", "--schem": "FILE", "--png": "FILE", "--expected": "FILE", "--recipe": "FILE",
               "--state": "FILE", "--token-file": "FILE", "--agent-token-file": "FILE", "--rotation": "DEGREES",
               "--interval": "SECONDS", "--wait-timeout": "SECONDS", "--idempotency-key": "KEY",
               "--max-plan-blocks": "N", "--jobs": "N", "--limit": "N", "--count": "N", "--budget": "N",
               "--start": "N", "--scale": "N", "--client-id": "ID", "--player-id": "ID", "--project-id": "ID",
               "--server-url": "URL", "--query": "TEXT", "--text": "TEXT", "--after": "OPERATION_ID", "--fov": "DEGREES",
               "--width": "PIXELS", "--height": "PIXELS", "--resolution": "N", "--asset": "NAME", "--ready-file": "FILE"}


def name_option_values(command) -> None:
    """Help names each option's value in words: a flag takes none, so it shows no type (Typer prints `<bool>`,
    which reads as if `--json` took one; an empty metavar is Click's public way to say so), and a valued option
    that declares no metavar gets :data:`VALUE_WORDS`' word or its own name (`--degrees DEGREES`)."""
    help_option = command.get_help_option(typer.Context(command, help_option_names=HELP_OPTION_NAMES))
    for param in [*command.params, help_option]:
        if getattr(param, "is_flag", False) or getattr(param, "count", False):
            param.metavar = ""
        elif param.param_type_name == "option" and param.metavar is None:
            long = max(param.opts, key=len)
            param.metavar = VALUE_WORDS.get(long, long.lstrip("-").replace("-", "_").upper())


def _no_color(ctx, _param, value: bool) -> None:
    if value:
        app_state(ctx).no_color = True


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
    "and a local reference server.\n\nRun `mcb help exit-codes` for the exit-code table.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": HELP_OPTION_NAMES},
)


def _version_callback(value: bool) -> None:
    if value:
        sys.stdout.write(f"mcb {__version__}\n")
        raise typer.Exit()


@app.callback()
def _root_callback(
    ctx: typer.Context,
    version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."),
    json_output: bool = typer.Option(False, "--json", help="Print machine-readable JSON on stdout for every command."),
    quiet: QuietOpt = 0,
    verbose: VerboseOpt = 0,
    no_color: NoColorOpt = False,
    server: ServerOpt = None,
    profile: ProfileOpt = None,
    timeout: TimeoutOpt = None,
) -> None:
    state = app_state(ctx)
    state.json = state.json or json_output
    state.verbosity = verbose - quiet
    state.no_color = state.no_color or no_color
    state.server = server
    state.profile = profile
    state.timeout = timeout


def command_tree():
    """The root Click command with every command built (for documentation and tests that walk all commands)."""
    root = typer.main.get_command(app)
    for name in COMMANDS:
        root.commands[name] = load_command(name)
        if isinstance(root.commands[name], LazyGroup):
            root.commands[name].build_all()
    return root


def main() -> None:
    """Console-script entry point."""
    try:
        app(prog_name="mcb")
    except KeyboardInterrupt:  # raised before the group's boundary, e.g. during start-up
        sys.stderr.write("interrupted\n")
        sys.exit(int(ExitCode.INTERRUPTED))
