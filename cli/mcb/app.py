"""Root Typer application: global options, the error boundary, and the command groups.

Command modules are imported here; each keeps its module level to Typer declarations so that ``mcb --help`` and
shell completion never import numpy, nbtlib, httpx, jsonschema or PIL.
"""

from __future__ import annotations

import importlib
import json
import sys

import typer
from typer._click.exceptions import UsageError as ClickUsageError  # Typer 0.26+ vendors Click (pinned 0.28.x)
from typer.core import TyperGroup

from mcb import __version__, boundary
from mcb.errors import ExitCode, McbError, UsageError
from mcb.options import AppState, NoColorOpt, ProfileOpt, QuietOpt, ServerOpt, TimeoutOpt, VerboseOpt, app_state

# Every module listed here exposes ``register(app: typer.Typer) -> None``.
COMMAND_MODULES = [
    "help",
    "block",
    "schem",
    "schem_edit",
    "recipe",
    "terrain",
    "serve",
    "config",
    "rpc_commands",
    "plan_commands",
    "library_commands",
    "admin_commands",
    "build",
    "batch",
    "mcp",
]


class McbGroup(TyperGroup):
    """Root group: turns McbError and Ctrl-C into a message and an exit code, never a traceback.

    Command groups (`schem`, `recipe`, ...) are built only when used: the root's help lists them from a light
    stand-in, so `mcb --help` and each TAB press do not convert every subcommand's signature.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._listing = False
        for name, info in LAZY_GROUPS.items():
            self.commands.setdefault(name, _stand_in(name, info))

    def get_command(self, ctx, cmd_name):
        command = super().get_command(ctx, cmd_name)
        info = getattr(command, "_mcb_lazy_info", None)
        if info is not None and not self._listing:
            command = typer.main.get_group_from_info(
                info,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
                suggest_commands=app.suggest_commands,
            )
            self.commands[cmd_name] = command
        return command

    def format_help(self, ctx, formatter):
        self._listing = True
        try:
            return super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def invoke(self, ctx):
        if asks_for_json(ctx):
            # Set before any parsing or checks run, so usage errors and early refusals answer in JSON too.
            app_state(ctx).json = True
        try:
            return super().invoke(ctx)
        except boundary.CAUGHT as error:
            raise typer.Exit(boundary.exit_code_for(app_state(ctx), error)) from None
        except ClickUsageError as error:
            if not app_state(ctx).json:
                raise  # Typer prints the usual usage box
            report_error(ctx, UsageError(error.format_message()))
            raise typer.Exit(int(ExitCode.USAGE)) from None

    def make_context(self, info_name, args, parent=None, **extra):
        wants_json = json_flag_in(args)  # parsing consumes ``args``: look first
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except ClickUsageError as error:  # a mistake among the root options themselves
            if not wants_json:
                raise
            sys.stderr.write(json.dumps({"error": UsageError(error.format_message()).to_json()}) + "\n")
            raise typer.Exit(int(ExitCode.USAGE)) from None


LAZY_GROUPS: dict = {}  # name -> TyperInfo, filled after the command modules registered their groups


def _stand_in(name: str, info) -> TyperGroup:
    """What the root's help needs of a group (name, one-line help, panel), without building its commands."""
    solved = typer.main.solve_typer_info_defaults(info)
    stand_in = TyperGroup(name=name, help=solved.help, short_help=solved.short_help,
                          rich_help_panel=solved.rich_help_panel, hidden=bool(solved.hidden))
    stand_in._mcb_lazy_info = info
    return stand_in


def json_flag_in(args) -> bool:
    """True when ``--json`` is among command-line arguments (before a ``--`` separator)."""
    for arg in args:
        if arg == "--":
            return False
        if arg == "--json":
            return True
    return False


def asks_for_json(ctx) -> bool:
    """True for the root's --json, or ``--json`` among the not-yet-parsed arguments."""
    if ctx.params.get("json_output"):
        return True
    pending = getattr(ctx, "_protected_args", None)
    if pending is None:
        pending = getattr(ctx, "protected_args", ())
    return json_flag_in([*pending, *ctx.args])


def report_error(ctx, error: McbError) -> None:
    boundary.report_error(ctx.obj if isinstance(ctx.obj, AppState) else AppState(), error)


def _hide_flag_types() -> None:
    """Typer 0.28 prints `<bool>` beside every flag, which reads as if `--json` took a value; show nothing there.

    Typer is pinned to 0.28.x in pyproject.toml; if the hook point moves, help keeps Typer's own rendering.
    """
    option_class = getattr(typer.core, "TyperOption", None)
    original = getattr(option_class, "display_type_rich", None)
    if original is None:
        return

    def display_type_rich(self, ctx):
        if getattr(self, "is_flag", False) or getattr(self, "count", False):
            return None
        return original(self, ctx)

    option_class.display_type_rich = display_type_rich


def _rewrap_help_paragraphs() -> None:
    """Typer 0.28 keeps the single line breaks of a docstring's later paragraphs, so hard-wrapped help prints as
    ragged lines. Join them, as Click does, at the moment help is first rendered (Rich stays out of start-up).

    A paragraph that starts with ``\\b`` or whose lines are all indented (the examples) keeps its breaks.
    """
    def rewrap(paragraphs, markup_mode):
        out = []
        for text in paragraphs:
            lines = text.split("\n")
            if text.startswith("\b") or all(line.startswith(" ") for line in lines if line):
                out.append(text)
            else:
                out.append(" ".join(line.strip() for line in lines))
        return "\n\n".join(out)

    def install(format_help):
        def format_help_rewrapped(self, ctx, formatter):
            from typer import rich_utils

            if getattr(rich_utils, "_fix_linebreaks", None) is not None:
                rich_utils._fix_linebreaks = rewrap
            return format_help(self, ctx, formatter)

        return format_help_rewrapped

    for cls in (typer.core.TyperCommand, typer.core.TyperGroup):
        cls.format_help = install(cls.format_help)


_hide_flag_types()
_rewrap_help_paragraphs()

app = typer.Typer(
    name="mcb",
    cls=McbGroup,
    help="Build in Minecraft with the minecraft-builder plugin: RPC commands, offline schematic and recipe tools, "
    "and a local reference server.\n\nRun `mcb help exit-codes` for the exit-code table.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version_callback(value: bool) -> None:
    if value:
        sys.stdout.write(f"mcb {__version__}\n")
        raise typer.Exit()


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
    state.no_color = no_color
    state.server = server
    state.profile = profile
    state.timeout = timeout


app.callback()(_root_callback)

for _name in COMMAND_MODULES:
    importlib.import_module(f"mcb.commands.{_name}").register(app)

# Help panels group the long command list by what a user is doing; anything unlisted stays under "Commands".
HELP_PANELS = {
    "Offline tools": ("block", "schem", "recipe", "terrain"),
    "Server: read": ("health", "context", "inspect", "changes", "status", "material", "asset", "part", "camera"),
    "Server: write": ("prepare", "apply", "cancel", "undo", "export", "import-prepare"),
    "Workflows": ("build", "batch"),
    "Administration": ("serve", "config", "chat", "recovery", "rpc", "help"),
}


def _assign_help_panels() -> None:
    panel_of = {name: panel for panel, names in HELP_PANELS.items() for name in names}
    for info in app.registered_commands:
        name = info.name or (info.callback.__name__.replace("_", "-") if info.callback else None)
        if name in panel_of:
            info.rich_help_panel = panel_of[name]
    for info in app.registered_groups:
        name = info.name or (info.typer_instance.info.name if info.typer_instance else None)
        if name in panel_of:
            info.rich_help_panel = panel_of[name]
    order = {panel: index for index, panel in enumerate(HELP_PANELS)}
    app.registered_commands.sort(key=lambda info: order.get(info.rich_help_panel, len(order)))
    app.registered_groups.sort(key=lambda info: order.get(info.rich_help_panel, len(order)))


_assign_help_panels()
LAZY_GROUPS.update((info.name, info) for info in app.registered_groups if info.name)
app.registered_groups[:] = [info for info in app.registered_groups if not info.name]


def command_tree():
    """The root Click command with every group built (for documentation and tests that walk all commands)."""
    root = typer.main.get_command(app)
    for name in list(root.commands):
        root.get_command(None, name)
    return root


def main() -> None:
    """Console-script entry point."""
    try:
        app(prog_name="mcb")
    except KeyboardInterrupt:  # raised before the group's boundary, e.g. during start-up
        sys.stderr.write("interrupted\n")
        sys.exit(int(ExitCode.INTERRUPTED))
