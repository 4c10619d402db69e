"""`mcb schem rotate`, `mcb schem mirror` and `mcb schem render`: offline edits and pictures of .schem files.

The rotate/mirror bodies live in :mod:`mcb.commands.schem_edit_run`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcb.errors import UsageError
from mcb.options import (
    JsonOpt,
    ReplaceUnknownOpt,
    SchematicFormatOpt,
    UpgradeMcVersionOpt,
    complete_axis,
    complete_rules,
    complete_turn,
    complete_view,
    summarised,
    terminal,
)
from mcb.schematics.render_limits import SCALE_MAX, SCALE_MIN
from mcb.wording import dimensions, shown

FileArg = Annotated[
    Path,
    typer.Argument(
        metavar="FILE", readable=False, help="Schematic in any format (.schem, .litematic, .nbt, .schematic)."
    ),
]
OutOpt = Annotated[Path | None, typer.Option("--output", "-o", help="Where to write the result.")]
RulesOpt = Annotated[
    str,
    typer.Option(
        "--rules",
        autocompletion=complete_rules,
        help="Block-state rules: 'vanilla' (what the server's rotation produces) or 'geometric' "
        "(WorldEdit-like: also turns chorus/fire connections; on mirror swaps chest halves, stair "
        "corners, shelf chains).",
    ),
]
InPlaceOpt = Annotated[
    bool,
    typer.Option(
        "--in-place", help="Overwrite FILE, in its own format (not a legacy .schematic), instead of writing -o."
    ),
]


@summarised("schem_rotate")
def rotate(
    ctx: typer.Context,
    file: FileArg,
    degrees: Annotated[
        int,
        typer.Option(
            "--degrees", "-d", autocompletion=complete_turn, help="Clockwise turn seen from above: 90, 180 or 270."
        ),
    ],
    output: OutOpt = None,
    rules: RulesOpt = "vanilla",
    fmt: SchematicFormatOpt = None,
    in_place: InPlaceOpt = False,
    replace_unknown: ReplaceUnknownOpt = None,
    mc_version: UpgradeMcVersionOpt = None,
    json_: JsonOpt = False,
) -> None:
    """The paste offset is rotated with the server's formula, so importing the result at rotation 0 places every
    block exactly where importing the original at --degrees would. Block states follow the vanilla rules by
    default (what `schematic_import_prepare` applies), checked against the release matching the file's
    DataVersion unless --mc-version is given. The input is never modified unless --in-place.

    Examples:

        mcb schem rotate house.schem --degrees 90 -o house-90.schem

        mcb schem rotate house.schem -d 270 --rules geometric -o house-270.schem

        mcb schem rotate house.schem -d 180 --in-place --json
    """
    from mcb.commands.schem_edit_run import run_edit

    run_edit(
        terminal(ctx, json_),
        file,
        degrees=degrees,
        output=output,
        rules=rules,
        fmt=fmt,
        in_place=in_place,
        mc_version=mc_version,
        replace_unknown=replace_unknown,
    )


@summarised("schem_mirror")
def mirror(
    ctx: typer.Context,
    file: FileArg,
    axis: Annotated[
        str,
        typer.Option(
            "--axis", "-a", autocompletion=complete_axis, help="x: swap east and west; z: swap north and south."
        ),
    ],
    output: OutOpt = None,
    rules: RulesOpt = "vanilla",
    fmt: SchematicFormatOpt = None,
    in_place: InPlaceOpt = False,
    replace_unknown: ReplaceUnknownOpt = None,
    mc_version: UpgradeMcVersionOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Vanilla rules reproduce Minecraft's own mirror (double chests and some stair corners come out wrong there);
    --rules geometric gives the geometrically correct result (recommended for mirroring).

    Examples:

        mcb schem mirror house.schem --axis x -o house-flipped.schem

        mcb schem mirror house.schem -a z --rules geometric -o ns.schem --json
    """
    from mcb.commands.schem_edit_run import run_edit

    run_edit(
        terminal(ctx, json_),
        file,
        axis=axis,
        output=output,
        rules=rules,
        fmt=fmt,
        in_place=in_place,
        mc_version=mc_version,
        replace_unknown=replace_unknown,
    )


@summarised("schem_render")
def render(
    ctx: typer.Context,
    files: Annotated[
        list[Path],
        typer.Argument(metavar="FILE|DIR", readable=False, help="Schematic files in any format, or folders to walk."),
    ],
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            help="PNG file to write; a folder when rendering a folder or several files (one NAME.png each).",
        ),
    ],
    view: Annotated[
        str, typer.Option("--view", autocompletion=complete_view, help="top (height map), iso (isometric) or both.")
    ] = "both",
    scale: Annotated[
        int | None,
        typer.Option("--scale", help="Pixels per block (default: fit ~1400 px).", min=SCALE_MIN, max=SCALE_MAX),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Several files or a folder: -o names a folder (created if missing) and each schematic becomes
    NAME.png there (NAME.EXT.png when two share a name); files that are not schematics are passed by and listed,
    and a folder with none is an error.
    Exit 0; 1 when a file could not be read.

    Examples:

        mcb schem render house.schem -o house.png

        mcb schem render house.schem -o top.png --view top --scale 8

        mcb schem render schematics/ -o pictures/
    """
    from mcb.commands.stdio import output_target
    from mcb.fileio import refuse_input_as_output
    from mcb.schematics.render import render_file
    from mcb.schematics.render_limits import VIEWS
    from mcb.schematics.walk import each_schematic, is_single_file

    term = terminal(ctx, json_)
    if view not in VIEWS:
        raise UsageError(f"--view must be top, iso or both, not {view!r}")

    def said(summary: dict) -> str:
        views = "top and iso views" if summary["view"] == "both" else f"{summary['view']} view"
        return f"wrote {shown(summary['output'])} ({dimensions(summary['width'], summary['height'])} px, {views})"

    if is_single_file(files):
        output = output_target(term, output)
        refuse_input_as_output(output, files, hint="write the PNG to a new file")
        summary = render_file(files[0], output, view, scale)
        term.emit(summary, lambda: term.line(said(summary)))
        return
    if output.exists() and not output.is_dir():
        raise UsageError(
            f"-o {shown(output)} is a file; rendering several schematics writes one PNG each into a folder",
            hint="give -o a folder (it is created if missing)",
        )
    output.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()

    def picture(path: Path) -> Path:
        """NAME.png; a second schematic of the same name keeps its extension (house.litematic.png), then a number,
        so no picture overwrites another one of this walk."""
        for name in (
            f"{path.stem}.png",
            f"{path.name}.png",
            *(f"{path.name}-{n}.png" for n in range(2, len(taken) + 3)),
        ):
            if name not in taken:
                taken.add(name)
                return output / name
        raise AssertionError("unreachable: one more candidate than names taken")

    walked = each_schematic(files, lambda path: render_file(path, picture(path), view, scale))
    term.emit(walked, lambda: [term.line(said(summary)) for summary in walked["files"]])
    from mcb.commands.schem_group import _walk_tail

    _walk_tail(term, walked)


def register(app: typer.Typer) -> None:
    """Attach rotate/mirror/render to the `mcb schem` group owned by mcb.commands.schem."""
    from mcb.commands.schem_group import schem_app

    # Idempotent: mcb.commands.schem also calls this, and app.py lists this module too.
    present = {info.name for info in schem_app.registered_commands}
    for name, function in (("rotate", rotate), ("mirror", mirror), ("render", render)):
        if name not in present:
            schem_app.command(name)(function)
