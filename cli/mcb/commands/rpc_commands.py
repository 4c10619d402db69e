"""Read-only RPC commands: `mcb health`, `context`, `inspect`, `changes`, and the raw `mcb rpc METHOD`."""

from __future__ import annotations

from typing import Annotated

import typer

from mcb.commands.rpc_support import (
    EXIT_CODES_HELP,
    id_table,
    json_terminal,
    open_client,
    parse_position,
    read_json_source,
)
from mcb.errors import InputError, UsageError
from mcb.options import JsonOpt, summarised


def health(ctx: typer.Context, json_: JsonOpt = False) -> None:
    """Check that the server answers `GET /health` (no token needed).

    Examples:

        mcb health

        mcb --server http://127.0.0.1:18765 health --json
    """
    term = json_terminal(ctx, json_)
    with open_client(ctx, term) as client:
        result = client.health()
    from mcb.redact import redact_url

    term.emit(
        result.wire(),
        lambda: term.line(f"{result.service} {result.version}: {result.status} ({redact_url(client.server)})"),
    )


@summarised("project_context")
def context(ctx: typer.Context, json_: JsonOpt = False) -> None:
    """Examples:

    mcb context

    mcb context --json | jq .region
    """
    term = json_terminal(ctx, json_)
    with open_client(ctx, term) as client:
        result = client.project_context()

    def human() -> None:
        catalog = result.material_catalog
        term.kv(
            [
                ("project", result.project_id),
                ("world", result.world_id),
                ("epoch", result.world_epoch),
                ("project area", result.region.text() if result.region else "?"),
                ("max plan blocks", result.max_plan_blocks),
                ("materials", _materials(catalog) if catalog else "?"),
                ("parts", _listed_of(result.parts_total, len(result.parts), "listed below")),
                ("operations", _listed_of(result.operations_total, len(result.operations), "most recent below")),
            ]
        )
        if result.parts:
            id_table(
                term,
                ["part", "name", "blocks", "protected"],
                [(p.part_id, p.name, f"{p.block_count:,}", "yes" if p.protected else "") for p in result.parts],
            )
        if result.operations:
            id_table(
                term,
                ["operation", "status", "written", "plan"],
                [(o.operation_id, o.status, _written(o), o.plan_id) for o in result.operations],
            )

    term.emit(result.wire(), human)


@summarised("region_inspect")
def inspect(
    ctx: typer.Context,
    min_: Annotated[str, typer.Option("--min", metavar="X,Y,Z", help="Lowest corner x,y,z (inclusive).")],
    max_: Annotated[str, typer.Option("--max", metavar="X,Y,Z", help="Highest corner x,y,z (inclusive).")],
    blocks: Annotated[
        bool, typer.Option("--blocks", help="Return every block (y, z, x order), not just the palette.")
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """`--blocks --json` output can be saved and passed to `mcb prepare --expected` so the plan is refused if the
    world changed in between.

    Examples:

        mcb inspect --min 0,64,0 --max 9,70,9

        mcb inspect --min 0,64,0 --max 4,64,4 --blocks --json > before.json
    """
    term = json_terminal(ctx, json_)
    low, high = parse_position(min_, "--min"), parse_position(max_, "--max")
    with open_client(ctx, term) as client:
        result = client.region_inspect(low, high, blocks=blocks)

    def human() -> None:
        total = sum(result.palette.values())
        from mcb.wording import plural

        term.line(f"{result.region.text()}: {plural(total, 'block')}, {plural(len(result.palette), 'state')}")
        palette = sorted(result.palette.items(), key=lambda kv: (-kv[1], kv[0]))
        id_table(term, ["count", "state"], [(f"{count:,}", state) for state, count in palette])
        if blocks:
            id_table(term, ["pos", "state"], [(b.pos.text(), b.state) for b in result.blocks])

    term.emit(result.wire(), human)


def changes(ctx: typer.Context, json_: JsonOpt = False) -> None:
    """Ask for world changes since the last read (`region_changes`; the plugin always answers resync_required).

    Examples:

        mcb changes --json
    """
    term = json_terminal(ctx, json_)
    with open_client(ctx, term) as client:
        result = client.region_changes()
    term.emit(result.wire(), lambda: term.line(f"{result.status}: {result.reason or ''}"))


def rpc(
    ctx: typer.Context,
    method: Annotated[str, typer.Argument(help="RPC method name, e.g. project_context.")],
    params: Annotated[str | None, typer.Argument(help="Params as a JSON object, or - to read it from stdin.")] = None,
    admin: Annotated[
        bool, typer.Option("--admin", help="Use the admin token (chat_* and recovery_* always do).")
    ] = False,
    no_scope: Annotated[bool, typer.Option("--no-scope", help="Do not add player_id/project_id to params.")] = False,
    json_: JsonOpt = False,
) -> None:
    """Call any RPC method with raw JSON params and print the raw result (always JSON).

    player_id/project_id are added to params like the plugin's bridge does, unless --no-scope.
    Writes are sent once: a lost answer is never repeated blindly (build_apply is, with the same key).

    Examples:

        mcb rpc project_context

        mcb rpc material_describe '{"id": "minecraft:oak_stairs"}'

        echo '{"query":"oak","limit":5}' | mcb rpc material_search -
    """
    term = json_terminal(ctx, json_)
    term.json_mode = True
    if not method.replace("_", "").isalnum() or not method.islower():
        raise UsageError(f"method name {method!r} must be lowercase letters and underscores")
    if params is None:
        body = {}
    elif params == "-":
        body = read_json_source("-", "params")
    else:
        from mcb.fileio import parse_json_input

        try:
            body = parse_json_input(
                params, "PARAMS", "argument", empty_hint="give a JSON object such as '{}', or - to read it from stdin"
            )
        except InputError as error:  # a bad argument is a usage error (exit 2)
            raise UsageError(error.message, hint=error.hint) from None
    if not isinstance(body, dict):
        raise UsageError("PARAMS must be a JSON object")
    from mcb.errors import McbError

    with open_client(ctx, term) as client:
        try:
            result = client.call(method, body, admin=True if admin else None, scoped=False if no_scope else None)
        except McbError as error:
            if not admin and error.details.get("reason") == "admin_required":  # the refusal table's reason
                error.hint = "add --admin: the call then carries the administrator token (MCB_TOKEN)"
            raise
    term.json(result)


def register(app: typer.Typer) -> None:
    for name, function in (
        ("health", health),
        ("context", context),
        ("inspect", inspect),
        ("changes", changes),
        ("rpc", rpc),
    ):
        app.command(name, epilog=EXIT_CODES_HELP)(function)


def _materials(catalog) -> str:
    """Every catalog material is a block, an item or both (protocol §3.2), so the two kinds overlap: say by how
    much, or the three numbers do not add up."""
    both = catalog.blocks + catalog.items - catalog.materials
    text = f"{catalog.materials:,} ({catalog.blocks:,} blocks, {catalog.items:,} items"
    if both > 0:
        text += f"; {both:,} are both"
    return f"{text}), catalog {catalog.version}"


def _listed_of(total: int, listed: int, which: str) -> str:
    """``81 (the 20 most recent below)`` when the answer lists fewer than there are (protocol §3.1 caps the
    lists at 64 parts and 20 operations)."""
    if listed >= total:
        return f"{total:,}"
    return f"{total:,} (the {listed:,} {which})" if listed else f"{total:,} (none listed)"


def _written(operation) -> str:
    """The listing carries no cursor, but an applied operation passed every position (protocol §3.8)."""
    from mcb.wording import positions_written

    processed = operation.total_changes if operation.status == "applied" else None
    return positions_written(operation.written, operation.total_changes, processed)
