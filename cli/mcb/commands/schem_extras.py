"""`mcb schem extras`: the block-entity and entity data a build leaves out, as a datapack function."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcb.options import JsonOpt, MirrorOpt, RotationOpt, summarised, terminal


@summarised("schem_extras")
def extras(
    ctx: typer.Context,
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE", readable=False, help="Schematic in any format (.schem, .litematic, .nbt, .schematic)."
        ),
    ],
    target: Annotated[
        str, typer.Option("--target", metavar="X,Y,Z", help="Where the build put the file's anchor (as mcb build).")
    ],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="The .mcfunction to write (atomically); - for stdout.")
    ],
    rotation: RotationOpt = 0,
    mirror: MirrorOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Give the options the build had: positions, entity yaw and item-frame facing turn as its blocks did. Data
    of older releases is upgraded to 26.2 (sign text, items, ...); what cannot be is counted, never hidden.
    Block entities that hold only defaults (empty chests, blank signs) need no command. A container too long for
    one command (32,500 characters) gets its items in further lines. Run the function once, after the build:
    the file's header says how. --json prints {file, output, function, target, rotation, mirror, release,
    data_version, commands, longest_command, limit, block_entities: {in_file, written, defaults_only,
    left_out}, entities: {in_file, written, left_out}, box, upgraded, not_upgraded, notes}. Exit 0; 1 for an
    unreadable file.

    Examples:

        mcb schem extras house.schem --target 100,64,200 -o house.mcfunction

        mcb schem extras ship.nbt --target 0,64,0 --rotation 90 -o ship.mcfunction

        mcb schem extras ship.nbt --target 0,64,0 --mirror x -o ship.mcfunction

        mcb schem extras house.schem --target 0,64,0 -o extras.mcfunction --json
    """
    from mcb.building.extras import write_extras_function
    from mcb.building.extras_file import summary_lines
    from mcb.commands.rpc_support import parse_position
    from mcb.commands.stdio import output_target
    from mcb.fileio import refuse_input_as_output

    term = terminal(ctx, json_)
    anchor = parse_position(target, "--target")
    output = output_target(term, output)
    refuse_input_as_output(output, [file], hint="write the function to a new .mcfunction file")
    summary = write_extras_function(file, anchor, rotation=rotation, mirror=mirror, output=output)

    def human() -> None:
        first, *rest = summary_lines(summary)
        term.line(first)
        for line in rest:
            term.info(line)

    term.emit(summary, human)


def register(app: typer.Typer) -> None:
    """Attach `extras` to the `mcb schem` group owned by mcb.commands.schem."""
    from mcb.commands.schem_group import schem_app

    if "extras" not in {info.name for info in schem_app.registered_commands}:
        schem_app.command("extras")(extras)
