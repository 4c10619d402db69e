"""`mcb materials FILE [--target X,Y,Z]`: the items a schematic takes, and with a target what is still to place."""

from __future__ import annotations

from typing import Annotated

import typer

from mcb.commands.rpc_support import EXIT_CODES_HELP, json_terminal, open_client
from mcb.options import JsonOpt, MirrorOpt, ReplaceUnknownOpt, RotationOpt, TargetOpt, summarised
from mcb.wording import plural, shown

FORMATS = ("text", "json", "csv")


def _complete_format(incomplete: str) -> list[str]:
    return [name for name in FORMATS if name.startswith(incomplete)]


@summarised("schem_materials")
def materials(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(metavar="FILE", help="Schematic file (.schem, .litematic, .nbt, .schematic).")],
    target: TargetOpt = None,
    rotation: RotationOpt = 0,
    mirror: MirrorOpt = None,
    replace_unknown: ReplaceUnknownOpt = None,
    format_: Annotated[
        str | None,
        typer.Option(
            "--format", "-f", metavar="FORMAT", autocompletion=_complete_format, help="text (default), json or csv."
        ),
    ] = None,
    top: Annotated[
        int | None,
        typer.Option("--top", metavar="N", min=0, help="List the N items most to gather (default, and 0: all)."),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Counts items as Litematica's material list does: a door, bed or tall plant once, a double slab as 2 slabs,
    redstone wire as redstone, tripwire as string, a fluid's source as a bucket (flowing fluid: nothing), snow
    layers, sea pickles, turtle eggs and candles by their count, a potted plant as a pot and the plant, farmland
    and dirt paths as dirt; piston heads, portals, fire and air as nothing. Cells the file leaves unchanged count
    nothing; block-entity contents (chest loot) are not counted. Stacks are of 64 (16 for signs and banners, 1 for
    beds, shulker boxes, cake and filled buckets); a shulker box holds 27 stacks.

    With --target the file is placed as `mcb build` places it (--rotation, --mirror) and the world is read tile by
    tile (`region_inspect`, no operation): an item already at its position is in place, the rest is still to
    place, and a block of another kind where the file wants something else is in the way.

    --format json (or --json) prints {"file", "release", "target", "rotation", "mirror", "box", "cells",
    "blocks", "items_total", "kinds", "world", "items": [{"item", "count", "stack_size", "stacks", "remainder",
    "shulker_boxes"}], "shown"}; with --target each item also has "needed" and "in_place" ("count": still to
    place) and "world" is {"compared", "in_place", "to_place", "other_state", "in_the_way_total", "in_the_way":
    [{"block", "count"}], "reads"}. --format csv prints a header row and one row per item. Exit 0.

    Examples:

        mcb materials ship.schem

        mcb materials ship.schem --top 10

        mcb materials ship.schem --format csv > ship-materials.csv

        mcb materials ship.schem --target 0,64,0 --json
    """
    from mcb.building.materials import count_materials, materials_csv, materials_json
    from mcb.building.placement import check_fits, load_placement
    from mcb.commands.rpc_support import placement_options
    from mcb.errors import UsageError

    term = json_terminal(ctx, json_)
    fmt = format_ or ("json" if term.json_mode else "text")
    if fmt not in FORMATS:
        raise UsageError(f"--format must be text, json or csv, not {fmt!r}", hint="see `mcb materials --help`")
    # a material list counts block states: chest contents are not building material (drop_extras)
    options = placement_options(target or "0,0,0", rotation, mirror, drop_extras=True, replace_unknown=replace_unknown)
    if target is None:
        result = count_materials(load_placement(file, options))
    else:
        with open_client(ctx, term) as client:
            placement = load_placement(file, options)
            check_fits(placement, client.project_context().region, reading=True)
            result = _count_with_progress(term, placement, client)
    top = top or None
    if fmt == "json":
        term.json(materials_json(result, top))
    elif fmt == "csv":
        term.line(materials_csv(result, top).rstrip("\n"))
    else:
        _print_text(term, materials_json(result, top))


def _count_with_progress(term, placement, client):
    """Count against the world, tiles read shown on stderr as `mcb verify` shows them."""
    from mcb.building.materials import count_materials
    from mcb.client.progress import ProgressView

    with term.operation_progress("materials") as bar:

        def on_tile(done: int, total: int, counter) -> None:
            bar.show(ProgressView(done=done, total=total, written=done, noun="tiles read", phase="reading"))

        return count_materials(placement, world=client, on_tile=on_tile)


def stacks_text(row: dict) -> str:
    """``78 x 64 + 8``, ``9 x 16``, ``12``: the count as full stacks and the rest."""
    stacks, rest, size = row["stacks"], row["remainder"], row["stack_size"]
    if not stacks:
        return f"{rest:,}"
    whole = f"{stacks:,} x {size}"
    return f"{whole} + {rest}" if rest else whole


def _print_text(term, data: dict) -> None:
    world = data["world"]
    kinds = plural(data["kinds"], "kind")
    if world is None:
        term.line(
            f"{shown(data['file'])}: {plural(data['items_total'], 'item')} of {kinds} for "
            f"{plural(data['blocks'], 'block')} (Minecraft {data['release']})"
        )
        columns = ["item", "count", "stacks", "shulker boxes"]
        rows = [[r["item"], f"{r['count']:,}", stacks_text(r), r["shulker_boxes"]] for r in data["items"]]
    else:
        target = data["target"]
        term.line(
            f"{shown(data['file'])} at {target['x']},{target['y']},{target['z']}: "
            f"{plural(world['to_place'], 'item')} still to place of {data['items_total']:,} ({kinds}); "
            f"{world['in_place']:,} in place (Minecraft {data['release']})"
        )
        if world["in_the_way_total"]:
            first = ", ".join(f"{entry['block']} {entry['count']:,}" for entry in world["in_the_way"][:5])
            more = ", ..." if len(world["in_the_way"]) > 5 else ""
            term.line(f"in the way: {plural(world['in_the_way_total'], 'block')} ({first}{more})")
        if world["other_state"]:
            verb = "holds" if world["other_state"] == 1 else "hold"
            term.line(f"other state: {plural(world['other_state'], 'position')} {verb} the block with other properties")
        columns = ["item", "needed", "in place", "to place", "stacks", "shulker boxes"]
        rows = [
            [r["item"], f"{r['needed']:,}", f"{r['in_place']:,}", f"{r['count']:,}", stacks_text(r), r["shulker_boxes"]]
            for r in data["items"]
        ]
    term.table(columns, rows)
    if data["shown"] < data["kinds"]:
        term.line(f"and {plural(data['kinds'] - data['shown'], 'more kind')} (--top 0 lists all)")


def register(app: typer.Typer) -> None:
    app.command("materials", epilog=EXIT_CODES_HELP)(materials)
