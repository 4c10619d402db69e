"""Parts, materials and schematic assets: `mcb part`, `material`, `asset list`, `import-prepare`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcb.commands.rpc_support import (
    EXIT_CODES_HELP,
    check_output,
    id_table,
    json_terminal,
    open_client,
    parse_position,
    show_plan,
)
from mcb.errors import UsageError
from mcb.options import JsonOpt, complete_rotation, summarised
from mcb.wording import dimensions

part_app = typer.Typer(help="Named parts: the exact blocks an applied operation wrote.", no_args_is_help=True)
material_app = typer.Typer(help="Search and describe the server's material catalog.", no_args_is_help=True)
asset_app = typer.Typer(help="The server's schematic library.", no_args_is_help=True)


@part_app.command("define", epilog=EXIT_CODES_HELP)
@summarised("part_define")
def part_define(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Part name (at most 64 characters).")],
    operation_id: Annotated[str, typer.Argument(help="An applied operation whose written blocks form the part.")],
    json_: JsonOpt = False,
) -> None:
    """Examples:

    mcb part define north-tower 0b6d...-uuid
    """
    term = json_terminal(ctx, json_)
    with open_client(ctx, term) as client:
        result = client.part_define(name, operation_id)
    term.emit(
        result.wire(),
        lambda: term.kv([("part", result.part_id), ("name", result.name), ("blocks", result.block_count)]),
    )


@part_app.command("get", epilog=EXIT_CODES_HELP)
@summarised("part_get")
def part_get(
    ctx: typer.Context,
    part_id: Annotated[str, typer.Argument(help="Part id.")],
    json_: JsonOpt = False,
) -> None:
    """Examples:

    mcb part get 7c2e...-uuid --json
    """
    term = json_terminal(ctx, json_)
    with open_client(ctx, term) as client:
        result = client.part_get(part_id)
    term.emit(
        result.wire(),
        lambda: term.kv(
            [
                ("part", result.part_id),
                ("name", result.name),
                ("blocks", result.block_count),
                ("protected", "yes" if result.protected else "no"),
                ("operation", result.operation_id),
                ("bounds", result.bounds.text() if result.bounds else "?"),
            ]
        ),
    )


@material_app.command("search", epilog=EXIT_CODES_HELP)
@summarised("material_search")
def material_search(
    ctx: typer.Context,
    words: Annotated[
        list[str] | None, typer.Argument(metavar="QUERY", help="Substrings that must all occur in the id.")
    ] = None,
    kind: Annotated[str, typer.Option("--kind", help="block, item or all.")] = "block",
    limit: Annotated[int | None, typer.Option("--limit", help="Results per page (1..32).", min=1, max=32)] = None,
    all_pages: Annotated[bool, typer.Option("--all", help="Follow cursors and return every match.")] = False,
    json_: JsonOpt = False,
) -> None:
    """With --all every page is fetched and --json prints one object {catalog_version, query, kind, total, results}.

    Examples:

        mcb material search oak stairs

        mcb material search glass --kind all --all --json
    """
    if kind not in {"block", "item", "all"}:
        raise UsageError("--kind must be block, item or all")
    term = json_terminal(ctx, json_)
    query = " ".join(words or [])
    with open_client(ctx, term) as client:
        if all_pages:
            pages = list(client.material_search_pages(query, kind=kind, limit=limit))
            first = pages[0]
            data = {
                "catalog_version": first.catalog_version,
                "query": first.query,
                "kind": first.kind,
                "total": first.total,
                "results": [r.wire() for p in pages for r in p.results],
            }
        else:
            page = client.material_search(query, kind=kind, limit=limit)
            data = page.wire()

    def human() -> None:
        id_table(term, ["id", "block", "item"], [(r["id"], _yes(r["block"]), _yes(r["item"])) for r in data["results"]])
        more = " (more: use --all)" if data.get("next_cursor") else ""
        term.info(f"{len(data['results']):,} of {data['total']:,} shown{more}")

    term.emit(data, human)


@material_app.command("describe", epilog=EXIT_CODES_HELP)
@summarised("material_describe")
def material_describe(
    ctx: typer.Context,
    material_id: Annotated[str, typer.Argument(metavar="ID", help="Material id, e.g. minecraft:oak_stairs.")],
    json_: JsonOpt = False,
) -> None:
    """Examples:

    mcb material describe minecraft:oak_stairs
    """
    term = json_terminal(ctx, json_)
    with open_client(ctx, term) as client:
        result = client.material_describe(material_id)

    def human() -> None:
        term.kv(
            [
                ("id", result.id),
                ("block", "yes" if result.block else "no"),
                ("item", "yes" if result.item else "no"),
                ("default state", result.default_state or "-"),
                ("behavior", ", ".join(result.behavior or []) or "-"),
            ]
        )
        if result.properties:
            term.table(["property", "values"], [(k, ", ".join(v)) for k, v in result.properties.items()])

    term.emit(result.wire(), human)


@asset_app.command("list", epilog=EXIT_CODES_HELP)
@summarised("asset_list")
def asset_list(
    ctx: typer.Context,
    query: Annotated[str | None, typer.Option("--query", help="Case-insensitive substring of the asset name.")] = None,
    json_: JsonOpt = False,
) -> None:
    """Examples:

    mcb asset list --query tower
    """
    term = json_terminal(ctx, json_)
    with open_client(ctx, term) as client:
        result = client.asset_list(query)
    term.emit(
        result.wire(),
        lambda: id_table(
            term,
            ["asset", "name", "size (W x H x L)", "blocks", "data version"],
            [
                (a.assetId, a.name, dimensions(a.width, a.height, a.length), a.blockCount, a.dataVersion)
                for a in result.assets
            ],
        ),
    )


@summarised("schematic_import_prepare")
def import_prepare(
    ctx: typer.Context,
    asset_id: Annotated[str, typer.Argument(metavar="ASSET", help="Asset id from `mcb asset list`.")],
    target: Annotated[str, typer.Option("--target", metavar="X,Y,Z", help="Anchor position x,y,z.")],
    rotation: Annotated[
        int, typer.Option("--rotation", autocompletion=complete_rotation, help="Clockwise degrees: 0, 90, 180 or 270.")
    ] = 0,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Save the plan summary for `mcb apply`.")
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Apply the plan with `mcb apply`.

    Examples:

        mcb import-prepare 5d0c...-uuid --target 10,64,10 --rotation 90 \\
            -o plan.json && mcb apply plan.json --wait
    """
    from mcb.commands.plan_commands import save_plan

    if rotation not in (0, 90, 180, 270):
        raise UsageError("--rotation must be 0, 90, 180 or 270")
    term = json_terminal(ctx, json_)
    check_output(output)
    anchor = parse_position(target, "--target")
    with open_client(ctx, term) as client:
        plan = client.schematic_import_prepare(asset_id, anchor, rotation)
        if output is not None:
            save_plan(output, plan, client, f"asset {asset_id}")
    term.emit(plan.wire(), lambda: show_plan(term, plan))


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def register(app: typer.Typer) -> None:
    app.add_typer(part_app, name="part")
    app.add_typer(material_app, name="material")
    app.add_typer(asset_app, name="asset")
    app.command("import-prepare", epilog=EXIT_CODES_HELP)(import_prepare)
