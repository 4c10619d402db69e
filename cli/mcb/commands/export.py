"""`mcb export`: a box of the live world as a schematic — in the server's library (`schematic_export`, at most
`max_plan_blocks` cells), or with -o FILE locally, any size, tile by tile."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcb.commands.rpc_support import EXIT_CODES_HELP, check_output, json_terminal, open_client, parse_position
from mcb.errors import UsageError
from mcb.options import JsonOpt, summarised
from mcb.schematics.formats import writable_names
from mcb.wording import dimensions


def _complete_format(incomplete: str) -> list[str]:
    return [name for name in writable_names() if name.startswith(incomplete)]


@summarised("schematic_export")
def export(
    ctx: typer.Context,
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="NAME",
            help="Asset name (1..64 printable characters); with -o, the name stored in the file (optional).",
        ),
    ] = None,
    min_: Annotated[str | None, typer.Option("--min", metavar="X,Y,Z", help="Lowest corner x,y,z.")] = None,
    max_: Annotated[str | None, typer.Option("--max", metavar="X,Y,Z", help="Highest corner x,y,z.")] = None,
    origin: Annotated[
        str | None, typer.Option("--origin", metavar="X,Y,Z", help="Anchor x,y,z (default: --min).")
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write a local file instead of a library asset (any size); - for stdout."),
    ] = None,
    format_: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            autocompletion=_complete_format,
            help="With -o: sponge2, sponge3, litematic or structure (default: -o's extension, .litematic or .nbt, else sponge2).",
        ),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """With -o FILE the box may be any size: mcb reads it tile by tile (`region_inspect`, summary first) and
    writes one file atomically. Block entities keep their states; their data cannot be read over the protocol
    (only a hash), so they are counted in a warning. Without -o the server saves the box (at most
    max_plan_blocks cells, no block entities) in its library. --json prints the asset, or {"file", "format",
    "size", "cells", "palette", "block_entities", ...} with -o (block_entities: how many the box holds; the file
    has their blocks, not their data).

    Examples:

        mcb export --min -64,64,-64 --max 63,81,63 -o house.schem

        mcb export --min 0,64,0 --max 40,90,40 -o tower.litematic

        mcb export "gate house" --min 0,64,0 --max 8,72,8
    """
    term = json_terminal(ctx, json_)
    if min_ is None or max_ is None:
        raise UsageError("export needs --min x,y,z and --max x,y,z")
    low, high = parse_position(min_, "--min"), parse_position(max_, "--max")
    if any(low[a] > high[a] for a in "xyz"):
        raise UsageError(f"--min {min_} is above --max {max_} on some axis", hint="swap the corners")
    anchor = parse_position(origin, "--origin") if origin else None
    if output is None:
        if name is None:
            raise UsageError("give an asset NAME for the server's library, or -o FILE for a local file")
        with open_client(ctx, term) as client:
            asset = client.schematic_export(name, low, high, anchor)
        term.emit(
            asset.wire(),
            lambda: term.kv(
                [
                    ("asset", asset.assetId),
                    ("name", asset.name),
                    ("size", dimensions(asset.width, asset.height, asset.length)),
                    ("offset", asset.offset.text() if asset.offset else "0,0,0"),
                    ("sha256", asset.sha256),
                    ("bytes", asset.size_bytes),
                ]
            ),
        )
        return
    from mcb.commands.stdio import output_target
    from mcb.schematics.formats import output_format, parse_format

    format_ = parse_format(format_)
    output = output_target(term, output)  # -o -: the file on stdout, this summary on stderr
    check_output(output)

    # as `schem convert -o` does: a file named .litematic or .nbt is written in that format unless --format says
    fmt = output_format(format_, output, None, default="sponge2")
    _export_file(ctx, term, name, low, high, anchor, output, fmt)


def _export_file(ctx, term, name, low, high, anchor, output, fmt: str) -> None:
    from mcb.building.export import export_region
    from mcb.client.progress import ProgressView
    from mcb.wording import plural, shown

    def xyz(p):
        return (p["x"], p["y"], p["z"])

    cells = (high["x"] - low["x"] + 1) * (high["y"] - low["y"] + 1) * (high["z"] - low["z"] + 1)
    with open_client(ctx, term) as client, term.operation_progress("export") as bar:
        done = {"cells": 0}

        def on_read(part) -> None:
            done["cells"] += part.codes.size
            bar.show(ProgressView(done=done["cells"], total=cells, written=done["cells"], noun="cells read"))

        result = export_region(
            client, xyz(low), xyz(high), output, fmt, origin=xyz(anchor) if anchor else None, name=name, on_read=on_read
        )
    for note in result["notes"]:
        term.warn(note)
    if result["block_entities"]:
        term.warn(
            f"{plural(result['block_entities'], 'block entity', 'block entities')} exported as block states "
            "only: their data (chest contents, sign text) cannot be read over the protocol"
        )
    size = result["size"]
    term.emit(
        result,
        lambda: term.kv(
            [
                ("file", shown(result["file"])),
                ("format", fmt),
                ("size", dimensions(size["width"], size["height"], size["length"])),
                ("palette", plural(result["palette"], "state")),
                ("block entities", _block_entities(result["block_entities"])),
                ("reads", f"{result['summary_reads']:,} summary, {result['block_reads']:,} with blocks"),
            ]
        ),
    )


def _block_entities(in_box: int) -> str:
    """The file holds none: the box's are written as their block states (their data is not readable)."""
    return f"none in the file (the box's {in_box:,} written as block states only)" if in_box else "none"


def register(app: typer.Typer) -> None:
    from mcb.commands import COMMANDS

    # the listing names both ways: the library (schematic_export's summary opens the help) and -o (region_export)
    app.command("export", epilog=EXIT_CODES_HELP, short_help=COMMANDS["export"][2])(export)
