"""`mcb verify FILE --target X,Y,Z`: compare the world with a schematic placed as `mcb build` places it."""

from __future__ import annotations

from typing import Annotated

import typer

from mcb.commands.rpc_support import EXIT_CODES_HELP, json_terminal, open_client
from mcb.options import (
    FormatOpt,
    JsonOpt,
    MirrorOpt,
    ReplaceUnknownOpt,
    RotationOpt,
    SkipAirOpt,
    TargetOpt,
)


def verify(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(metavar="FILE", help="Schematic file (.schem, .litematic, .nbt, .schematic).")],
    target: TargetOpt = None,
    rotation: RotationOpt = 0,
    mirror: MirrorOpt = None,
    skip_air: SkipAirOpt = False,
    drop_extras: Annotated[
        bool,
        typer.Option("--drop-extras", help="Accepted as `mcb build` takes it (verify compares block states only)."),
    ] = False,
    replace_unknown: ReplaceUnknownOpt = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", metavar="BLOCK", help="A block that may differ, e.g. grass_block (repeatable)."),
    ] = None,
    format_: FormatOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Compare the world with a schematic file placed as `mcb build` places it: missing, wrong-block, wrong-state
    and extra positions, with counts and the first positions.

    Reads the world tile by tile (`region_inspect`) and makes no operation. Block-entity data is not
    compared (the protocol shows only its hash). --ignore leaves out positions where the file or the world has
    that block. The report comes as text, --json, or --format github|sarif|junit for CI, like `schem
    validate`'s. Exit 0 when the world matches, 1 when it differs.

    Examples:

        mcb verify ship.schem --target 0,64,0

        mcb verify ship.schem --target 0,64,0 --rotation 90 --json

        mcb verify ship.schem --target 0,64,0 --ignore grass_block

        mcb verify ship.schem --target 0,64,0 --format junit > verify.xml
    """
    from mcb.building.placement import check_fits, load_placement
    from mcb.building.verify import verification_report, verify_placement
    from mcb.client.progress import ProgressView
    from mcb.commands.reporting import choose_format
    from mcb.commands.rpc_support import placement_options
    from mcb.errors import FindingsError
    from mcb.reports.formatters import render_reports
    from mcb.wording import plural, shown

    term = json_terminal(ctx, json_)
    fmt = choose_format(term, format_)
    _refuse_folder(file, target)
    options = placement_options(target, rotation, mirror, skip_air=skip_air, drop_extras=True,
                                replace_unknown=replace_unknown)  # fmt: skip
    with open_client(ctx, term) as client:
        placement = load_placement(file, options)
        check_fits(placement, client.project_context().region, reading=True)
        with term.operation_progress("verify") as bar:

            def on_tile(done: int, total: int, counter) -> None:
                bar.show(ProgressView(done=done, total=total, written=done, noun="tiles compared"))

            result = verify_placement(client, placement, ignore=ignore or (), on_tile=on_tile)
    box = placement.world_box()
    facts = {**options.to_json(), "box": None if box is None else [list(box[0]), list(box[1])]}
    facts.pop("drop_extras")
    facts.pop("keep_existing")
    facts["reads"] = result.reads
    if placement.dropped.get("block_entities"):
        facts["block_entities_not_compared"] = placement.dropped["block_entities"]
    report = verification_report(result, file, facts)
    term.line(render_reports([report], fmt, tool="mcb verify", rules=_RULES).rstrip("\n"))
    if result.differences:
        raise FindingsError(
            f"the world differs from {shown(file)} at {plural(result.differences, 'position')} "
            f"of {result.compared:,} compared",
            code="verify.differs",
            hint=f"`mcb build {shown(file)}` with the same --target and options writes them",
        )


def _refuse_folder(file: str, target: str) -> None:
    """verify compares one file: a folder gets the command to run for a file in it."""
    from pathlib import Path

    from mcb.errors import InputError
    from mcb.schematics.formats import extensions_text, schematic_globs
    from mcb.wording import plural, shown

    folder = Path(file)
    if file == "-" or not folder.is_dir():
        return
    found = sorted({p for pattern in schematic_globs() for p in folder.glob(pattern) if p.is_file()})
    if found:
        hint = (
            f"it holds {plural(len(found), 'schematic')}; pass one, e.g. "
            f"`mcb verify {shown(found[0])} --target {target or 'X,Y,Z'}` (with the options its build used)"
        )
    else:
        hint = f"pass the schematic file the build placed ({extensions_text()})"
    raise InputError(
        f"{shown(file)} is a folder: verify compares the world with one schematic file",
        code="file.not_regular",
        hint=hint,
    )


_RULES = {
    "verify.missing": "the file has a block where the world has air",
    "verify.wrong_block": "the world holds another block",
    "verify.wrong_state": "the world holds the block with other properties",
    "verify.extra": "the world holds a block where the file has air",
}


def register(app: typer.Typer) -> None:
    app.command("verify", epilog=EXIT_CODES_HELP)(verify)
