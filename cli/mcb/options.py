"""Shared command-line options, defined once and reused by every command module.

:class:`AppState` (in :mod:`mcb.state`) is the per-invocation object the root callback stores on the Typer context.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcb.state import AppState
from mcb.summaries import PLACEMENT_FIELDS, cli_summary
from mcb.terminal import Terminal
from mcb.waiting import DEFAULT as WAIT


def summarised(tool: str):
    """Start a command's help with its tool's one summary (:mod:`mcb.summaries`), the words MCP shows too; the
    docstring holds what only the CLI says (flags, exit codes, examples). Its first line is indented as the rest
    of a command's docstring body (4 spaces), so dedenting the whole keeps the examples' own indentation."""

    def decorate(function):
        function.__doc__ = f"{cli_summary(tool)}\n\n    {function.__doc__ or ''}"
        return function

    return decorate


# TAB completion of option values (`autocompletion=`): each list is the core's own, imported only when a shell
# asks, so defining the options costs nothing.
def _starting_with(values, incomplete: str) -> list[str]:
    return [str(value) for value in values if str(value).startswith(incomplete)]


def complete_profile(incomplete: str) -> list[str]:
    from mcb.schematics.rules import PROFILES

    return _starting_with(PROFILES, incomplete)


def complete_report_format(incomplete: str) -> list[str]:
    from mcb.reports.formatters import FORMATS

    return _starting_with(FORMATS, incomplete)


def complete_turn(incomplete: str) -> list[str]:
    from mcb.blocks.transform import ROTATIONS

    return _starting_with([degrees for degrees in ROTATIONS if degrees], incomplete)


def complete_rotation(incomplete: str) -> list[str]:
    from mcb.blocks.transform import ROTATIONS

    return _starting_with(ROTATIONS, incomplete)


def complete_rules(incomplete: str) -> list[str]:
    from mcb.blocks.transform import RULE_SETS

    return _starting_with(RULE_SETS, incomplete)


def complete_axis(incomplete: str) -> list[str]:
    from mcb.blocks.transform import MIRROR_AXES

    return _starting_with(MIRROR_AXES, incomplete)


def complete_schematic_format(incomplete: str) -> list[str]:
    from mcb.schematics.formats import writable_names

    return _starting_with(writable_names(), incomplete)


def complete_view(incomplete: str) -> list[str]:
    from mcb.schematics.render_limits import VIEWS

    return _starting_with(VIEWS, incomplete)


# The global options. The root declares them and every command accepts them too, before or after its own words
# (`mcb --server URL context`, `mcb context --server URL --json`): mcb.app appends the root's options to each
# command it builds. Each one stores its value on the AppState as it is parsed, wherever it stands.
def _json(ctx: typer.Context, _param, value: bool) -> bool:
    if value:
        app_state(ctx).json = True
    return value


def _no_color(ctx: typer.Context, _param, value: bool) -> None:
    if value:
        app_state(ctx).no_color = True


def _quieter(ctx: typer.Context, _param, count: int) -> None:
    app_state(ctx).verbosity -= count


def _louder(ctx: typer.Context, _param, count: int) -> None:
    app_state(ctx).verbosity += count


def _server(ctx: typer.Context, _param, value: str | None) -> None:
    if value is not None:
        app_state(ctx).server = value


def _profile(ctx: typer.Context, _param, value: str | None) -> None:
    if value is not None:
        app_state(ctx).profile = value


def _timeout(ctx: typer.Context, _param, value: float | None) -> None:
    if value is None:
        return
    if value != value or abs(value) == float("inf"):  # nan, inf, 1e999: a usage error (2)
        raise typer.BadParameter("Input should be a finite number of seconds")
    app_state(ctx).timeout = value


JsonOpt = Annotated[
    bool, typer.Option("--json", callback=_json, help="Print machine-readable JSON on stdout (stable shape).")
]
QuietOpt = Annotated[
    int,
    typer.Option(
        "--quiet",
        "-q",
        count=True,
        show_default=False,
        callback=_quieter,
        help="Less output on stderr (-qq: even less).",
    ),
]
VerboseOpt = Annotated[
    int,
    typer.Option(
        "--verbose",
        "-v",
        count=True,
        show_default=False,
        callback=_louder,
        help="More output on stderr (-vv: HTTP lines too).",
    ),
]
NoColorOpt = Annotated[
    bool, typer.Option("--no-color", callback=_no_color, help="Disable colour (NO_COLOR is honoured too).")
]
ServerOpt = Annotated[
    str | None,
    typer.Option(
        "--server",
        envvar="MCB_SERVER",
        metavar="URL",
        callback=_server,
        help="RPC server URL, e.g. http://127.0.0.1:8765.",
    ),
]
ProfileOpt = Annotated[
    str | None,
    typer.Option(
        "--profile", envvar="MCB_PROFILE", metavar="NAME", callback=_profile, help="Named profile from the config file."
    ),
]
TimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        min=0.1,
        callback=_timeout,
        help="Total seconds per request, retries included (health 3, reads 15, writes 30).",
    ),
]
McVersionOpt = Annotated[
    str | None,
    typer.Option(
        "--mc-version",
        envvar="MCB_MC_VERSION",
        metavar="VERSION",
        help="Minecraft release or DataVersion of the block registry (default 26.2).",
    ),
]
FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT",
        autocompletion=complete_report_format,
        help="Report format: text, json, github, sarif or junit (github is chosen automatically when GITHUB_ACTIONS=true).",
    ),
]


# The options of the three file checkers (`schem validate`, `recipe lint`, `terrain lint`).
StrictOpt = Annotated[bool, typer.Option("--strict", help="Warnings fail too (exit 1).")]
GlobOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--glob",
        metavar="PATTERN",
        help="File-name pattern when walking directories (repeatable; default *.schem, *.litematic, *.nbt and "
        "*.schematic for schematics, *.json for recipes and terrain).",
    ),
]
ExcludeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude",
        metavar="PATTERN",
        help="Skip files, named or walked, whose name or path matches (repeatable; walking recipes skips "
        "*.schema.json).",
    ),
]
JobsOpt = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        min=1,
        metavar="N",
        help="Files checked in parallel (default: one per core, at most 8; recipe lint 1, as linting is pure Python).",
    ),
]


def app_state(ctx: typer.Context) -> AppState:
    """The root's :class:`AppState`, from any (sub)command context; it keeps the deepest command seen, whose
    flags name the arguments in errors (mcb.boundary.cli_words)."""
    root = ctx.find_root()
    if not isinstance(root.obj, AppState):
        root.obj = AppState()
    chain = []
    while ctx is not None:
        chain.append(ctx.command)
        ctx = ctx.parent
    if len(chain) > len(root.obj.commands):
        root.obj.commands = tuple(chain)
    return root.obj


def terminal(ctx: typer.Context, json_flag: bool = False) -> Terminal:
    state = app_state(ctx)
    if json_flag:
        # Remember a subcommand's --json so the error boundary answers in JSON too.
        state.json = True
    return state.terminal(json_flag)


# Schematic outputs (schem convert, rotate, mirror; export and build read the same names).
SchematicFormatOpt = Annotated[
    str | None,
    typer.Option(
        "--to",
        "--format",
        "-f",
        metavar="FORMAT",
        autocompletion=complete_schematic_format,
        help="Format to write: sponge2, sponge3, litematic or structure (v2/v3 also work). Default: what -o's "
        "extension names (.litematic, .nbt), else sponge2 for convert and the input's own format for rotate and "
        "mirror (a legacy file: sponge3).",
    ),
]
# convert, rotate and mirror upgrade to the file's own release unless asked (info, validate and build: 26.2).
UpgradeMcVersionOpt = Annotated[
    str | None,
    typer.Option(
        "--mc-version",
        envvar="MCB_MC_VERSION",
        metavar="VERSION",
        help="Minecraft release or DataVersion "
        "to upgrade the states to (default: the file's own release; 26.2 for legacy files and files "
        "without a DataVersion).",
    ),
]
# The placement of a schematic file (mcb.building.placement.PlacementOptions), in the words of its one model.
TargetOpt = Annotated[str | None, typer.Option("--target", metavar="X,Y,Z", help=PLACEMENT_FIELDS["target"])]
RotationOpt = Annotated[
    int, typer.Option("--rotation", autocompletion=complete_rotation, help=PLACEMENT_FIELDS["rotation"])
]
MirrorOpt = Annotated[
    str | None,
    typer.Option("--mirror", metavar="AXIS", autocompletion=complete_axis, help=PLACEMENT_FIELDS["mirror"]),
]
SkipAirOpt = Annotated[bool, typer.Option("--skip-air", help=PLACEMENT_FIELDS["skip_air"])]
KeepExistingOpt = Annotated[bool, typer.Option("--keep-existing", help=PLACEMENT_FIELDS["keep_existing"])]
DropExtrasOpt = Annotated[bool, typer.Option("--drop-extras", help=PLACEMENT_FIELDS["drop_extras"])]
ReplaceUnknownOpt = Annotated[
    str | None, typer.Option("--replace-unknown", metavar="BLOCK", help=PLACEMENT_FIELDS["replace_unknown"])
]
PngOutputOpt = Annotated[Path | None, typer.Option("--output", "-o", help="Write the PNG image here.")]
# How long a write waits for each operation (mcb.waiting.WaitPolicy).
WAIT_TIMEOUT = WAIT.timeout
WaitTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--wait-timeout",
        metavar="SECONDS",
        min=0.1,
        help="Seconds to wait for each operation to end (it goes on running after: `mcb status ID --wait`).",
    ),
]
IntervalOpt = Annotated[
    float,
    typer.Option("--interval", metavar="SECONDS", min=0.02, help="Shortest pause between status polls."),
]
