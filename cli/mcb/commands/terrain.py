"""`mcb terrain`: lint, offline/online heightmap preview, tile layout, tile prepare/apply and brushes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcb.options import (
    WAIT_TIMEOUT,
    ExcludeOpt,
    FormatOpt,
    GlobOpt,
    JobsOpt,
    JsonOpt,
    PngOutputOpt,
    StrictOpt,
    WaitTimeoutOpt,
    summarised,
    terminal,
)
from mcb.terrain.limits import DEFAULT_RESOLUTION, DEFAULT_TILE_BUDGET, RESOLUTION_MAX, RESOLUTION_MIN
from mcb.wording import dimensions, plural, shown

terrain_app = typer.Typer(
    help="Terrain recipes and brushes: lint, preview (offline or via the server), tiles, prepare/apply, brush.",
    no_args_is_help=True,
)

RecipeArg = Annotated[str, typer.Argument(metavar="RECIPE", help="Terrain recipe JSON file ('-' = stdin).")]
BudgetOpt = Annotated[
    int,
    typer.Option(
        "--budget",
        min=1,
        max=DEFAULT_TILE_BUDGET,
        help="Tile budget offline (the server's max-plan-blocks, 1..4096); a server always uses its own.",
    ),
]
ResolutionOpt = Annotated[
    int | None,
    typer.Option(
        "--resolution",
        "-r",
        min=RESOLUTION_MIN,
        max=RESOLUTION_MAX,
        help="Samples per axis, 32..256, at most one per block (offline default 256, server default 128).",
    ),
]


@terrain_app.command("lint")
def lint(
    ctx: typer.Context,
    paths: Annotated[
        list[str],
        typer.Argument(
            metavar="FILE|DIR", help="Recipes/brushes or directories (walked for *.json; *.schema.json skipped)."
        ),
    ],
    fmt: FormatOpt = None,
    strict: StrictOpt = False,
    globs: GlobOpt = None,
    excludes: ExcludeOpt = None,
    jobs: JobsOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Check terrain recipes and brushes exactly as the server validates them, with line numbers.

    Reports the first error the server would answer (same message) plus warnings: number literals that make
    terrain_id depend on formatting, features that never reach the envelope, a surface outside the envelope.
    Exit 0 when no file has errors (warnings fail only with --strict), 1 otherwise.

    Examples:

        mcb terrain lint recipes/terrain/

        mcb terrain lint hill.json --format github --strict

        mcb terrain lint recipes/ --exclude 'build/*' \\
            --format sarif > terrain.sarif
    """
    from mcb.commands.reporting import choose_format, print_reports
    from mcb.recipes.lint_files import collect_recipe_files
    from mcb.reports.runner import check_files
    from mcb.terrain.lint import RULES, lint_file

    term = terminal(ctx, json_)
    fmt_name = choose_format(term, fmt)
    files = collect_recipe_files(paths, globs or ["*.json"], list(excludes or []))
    reports = check_files(files, lint_file, jobs=jobs, progress=term.progress)
    print_reports(
        term,
        reports,
        fmt_name,
        tool="mcb terrain lint",
        strict=strict,
        rules=RULES,
        noun="file",
        code="terrain.lint.failed",
    )


@terrain_app.command("preview")
@summarised("terrain_preview")
def preview(
    ctx: typer.Context,
    recipe: RecipeArg,
    output: PngOutputOpt = None,
    offline: Annotated[bool, typer.Option("--offline", help="Compute locally, no server needed.")] = False,
    resolution: ResolutionOpt = None,
    budget: BudgetOpt = DEFAULT_TILE_BUDGET,
    json_: JsonOpt = False,
) -> None:
    """With --offline the numbers and cell colours are computed locally and equal the server's (same terrain_id for
    the same recipe text). Without it the recipe is sent to the server, which caches it for `terrain prepare`.
    --json prints the result fields (no base64 image) plus "image" (the PNG path or null).
    Offline the PNG is a picture to look at: the cells scaled up, a height key, the
    materials, preserve boxes, a scale bar ("picture.map" says where the map is).

    Examples:

        mcb terrain preview recipes/terrain/small-hill.json --offline -o hill.png

        mcb terrain preview massif.json -r 128 -o massif.png --json
    """
    from mcb.commands.rpc_support import check_output
    from mcb.commands.stdio import output_target

    term = terminal(ctx, json_)
    output = output_target(term, output)
    check_output(output, recipe)
    if offline:
        from mcb.terrain.offline import offline_picture

        result, png, box = offline_picture(recipe, resolution or DEFAULT_RESOLUTION, budget, picture=output is not None)
        result["picture"] = {"map": box.to_json()} if box is not None else None
        wire_id = result.pop("wire_terrain_id")
        if wire_id != result["terrain_id"]:
            term.warn(
                f"number literals in this recipe are rewritten by JSON tools; sent by mcb it gets the ID "
                f"{wire_id} (see `mcb terrain lint`)"
            )
    else:
        result, png = _server_preview(ctx, term, recipe, resolution)
    if output is not None:
        from mcb.commands.rpc_support import write_text_atomic

        write_text_atomic(output, png)
    result["image"] = str(output) if output is not None else None
    term.emit(result, lambda: _show_preview(term, result))


def _server_preview(ctx, term, recipe_path: str, resolution: int | None) -> tuple[dict, bytes]:
    from mcb.commands.rpc_support import open_client
    from mcb.terrain.jsontext import to_plain
    from mcb.terrain.offline import load_recipe

    obj, _ = load_recipe(recipe_path)  # refuse locally what the server would refuse, with the same message
    with open_client(ctx, term) as client:
        preview = client.terrain_preview(to_plain(obj), resolution=resolution or None)
    png = preview.png()
    result = preview.wire()
    result.pop("imageBase64", None)
    return result, png


def _show_preview(term, r: dict) -> None:
    b = r["bounds"]
    lo, hi = b["min"], b["max"]
    term.kv(
        [
            ("terrain id", r["terrain_id"]),
            ("envelope", f"{lo['x']},{lo['y']},{lo['z']} .. {hi['x']},{hi['y']},{hi['z']} ({r['mode']})"),
            ("samples", dimensions(r["sample_grid"]["width"], r["sample_grid"]["height"])),
            (
                "surface",
                f"{r['sampled_height_min']} .. {r['sampled_height_max']} "
                f"({plural(r['clipped_samples'], 'sample')} outside the envelope's Y range)",
            ),
            ("tiles", f"{r['tile_count']:,} of edge {r['tile_edge']} (budget {r['tile_budget']:,}, {r['tile_order']})"),
            ("image", shown(r.get("image") or "(not written; use -o FILE)")),
        ]
    )


@terrain_app.command("tiles")
def tiles(
    ctx: typer.Context,
    recipe: RecipeArg,
    budget: BudgetOpt = DEFAULT_TILE_BUDGET,
    start: Annotated[int, typer.Option("--start", min=0, help="First tile index.")] = 0,
    count: Annotated[int | None, typer.Option("--count", min=1, help="How many tiles (default all).")] = None,
    json_: JsonOpt = False,
) -> None:
    """List the tiles of a recipe: index, bounds and target cell count (0 = the tile writes nothing).

    Tiles run x fastest, then z, then y from the envelope minimum; numbering changes with the budget, so
    never resume a batch under a different budget.

    Examples:

        mcb terrain tiles recipes/terrain/small-hill.json

        mcb terrain tiles massif.json --start 100 --count 20 --json
    """
    from mcb.terrain.offline import load_recipe, tile_table
    from mcb.terrain.tiling import tile_grid

    term = terminal(ctx, json_)
    _, parsed = load_recipe(recipe)
    grid = tile_grid(parsed, budget)
    rows = tile_table(parsed, budget, start=start, count=count)
    data = {
        "terrain_id": parsed.terrain_id,
        "tile_edge": grid.edge,
        "tile_count": grid.count,
        "tile_budget": budget,
        "grid": {"x": grid.nx, "z": grid.nz, "y": grid.ny},
        "tiles": rows,
    }

    def human() -> None:
        term.kv(
            [
                ("terrain id", parsed.terrain_id),
                ("tiles", f"{grid.count:,} = {dimensions(grid.nx, grid.nz, grid.ny)} (x, z, y) of edge {grid.edge}"),
            ]
        )
        term.table(
            ["index", "min", "max", "targets"],
            [
                (r["index"], _xyz(r["bounds"]["min"]), _xyz(r["bounds"]["max"]), r["targets"] or "0 (empty)")
                for r in rows
            ],
        )

    term.emit(data, human)


def _xyz(p: dict) -> str:
    return f"{p['x']},{p['y']},{p['z']}"


@terrain_app.command("prepare")
@summarised("terrain_prepare")
def prepare(
    ctx: typer.Context,
    terrain_id: Annotated[str, typer.Argument(metavar="TERRAIN_ID", help="ID from `mcb terrain preview`.")],
    tile: Annotated[
        int | None, typer.Argument(metavar="TILE", min=0, help="Tile index (see `mcb terrain tiles`).")
    ] = None,
    all_tiles: Annotated[bool, typer.Option("--all", help="Every tile in order (from --start).")] = False,
    apply: Annotated[bool, typer.Option("--apply", help="Apply each plan and wait for it.")] = False,
    recipe: Annotated[
        Path | None,
        typer.Option(
            "--recipe", help="Re-preview this recipe first (the server forgets IDs on restart); must have TERRAIN_ID."
        ),
    ] = None,
    state: Annotated[
        Path | None, typer.Option("--state", help="Resume file for --all --apply (default terrain-<id12>.state.json).")
    ] = None,
    start: Annotated[int, typer.Option("--start", min=0, help="First tile for --all.")] = 0,
    wait_timeout: WaitTimeoutOpt = WAIT_TIMEOUT,
    json_: JsonOpt = False,
) -> None:
    """With --apply, also applies them. One TILE prints its plan, or "empty" when nothing would change. --all --apply runs every tile in order:
    prepare, apply, wait; tiles that are empty are skipped. Each phase is saved in the state file first, so re-running
    the same command resumes where it stopped without writing any tile twice. It stops at the first conflict or
    error (exit 7 for conflicts, 5 for server errors). Never resume under a different tile budget.

    Examples:

        mcb terrain prepare 5f0c33cd...aabf8 0

        mcb terrain prepare 5f0c33cd...aabf8 0 --apply

        mcb terrain prepare 5f0c33cd...aabf8 --all --apply --recipe massif.json
    """
    from mcb.commands.rpc_support import open_client
    from mcb.errors import UsageError

    term = terminal(ctx, json_)
    check_terrain_id(terrain_id)
    if (tile is None) == (not all_tiles):
        raise UsageError("give either a TILE index or --all", hint="e.g. `mcb terrain prepare ID 0` or `--all`")
    recipe_obj = _load_plain_recipe(recipe) if recipe is not None else None
    with open_client(ctx, term) as client:
        if all_tiles:
            _prepare_all(term, client, terrain_id, recipe_obj, state, start, apply, wait_timeout)
        else:
            _prepare_one(term, client, terrain_id, tile, recipe_obj, apply, wait_timeout)


def check_terrain_id(text: str) -> None:
    """Refuse what cannot be a terrain id before asking the server, whose only answer would be "expired or server
    restarted" (a short or mistyped id is neither)."""
    import re

    from mcb.errors import UsageError
    from mcb.terrain.limits import TERRAIN_ID_PATTERN

    if not re.fullmatch(TERRAIN_ID_PATTERN, text):
        shown = text if len(text) <= 72 else text[:69] + "..."
        raise UsageError(
            f"{shown!r} is not a terrain id: a terrain id is 64 hex digits (0-9, a-f), this has {len(text)} characters",
            hint="run `mcb terrain preview RECIPE` (it also tells the server the recipe) and copy "
            "the whole `terrain id` it prints",
        )


def _load_plain_recipe(path: Path) -> dict:
    from mcb.terrain.jsontext import to_plain
    from mcb.terrain.offline import load_recipe

    obj, _ = load_recipe(path)
    return to_plain(obj)


def _prepare_one(term, client, terrain_id, tile, recipe_obj, apply, wait_timeout) -> None:
    from mcb.batch.kinds import register_recipe
    from mcb.commands.build import write_one_plan
    from mcb.commands.rpc_support import show_plan

    if recipe_obj is not None:
        register_recipe(client, recipe_obj, terrain_id)
    result = client.terrain_prepare(terrain_id, tile)
    plan = result.plan()
    if plan is None:
        term.emit(result.wire(), lambda: term.line(f"tile {tile}: empty ({result.reason})"))
        return
    if not apply:
        term.emit(result.wire(), lambda: show_plan(term, plan))
        return
    term.info(f"tile {tile}: {plural(plan.changed_blocks, 'block')} to change; applying")
    prepared = [plan]  # the plan just prepared; an expired one is prepared again
    write_one_plan(
        term,
        client,
        {"terrain_tile": [terrain_id, tile]},
        lambda: prepared.pop() if prepared else client.terrain_prepare(terrain_id, tile).plan(),
        timeout=wait_timeout,
        command=f"mcb terrain prepare {terrain_id} {tile} --apply",
        status_only=True,
    )


def _prepare_all(term, client, terrain_id, recipe_obj, state, start, apply, wait_timeout) -> None:
    from mcb.batch.source import StopRequest
    from mcb.batch.terrain_run import run_all_tiles
    from mcb.commands.rpc_support import ctrl_c
    from mcb.waiting import WaitPolicy

    state_path = state or Path(f"terrain-{terrain_id[:12]}.state.json")

    def on_tile(index: int, result: str, fields: dict) -> None:
        from mcb.wording import positions_written

        progress = positions_written(fields.get("written"), fields.get("total_changes"), fields.get("processed"))
        term.info(f"tile {index}: {result.replace('_', ' ')}" + (f" ({progress})" if fields.get("written") is not None
                                                                   else ""))  # fmt: skip

    stop = StopRequest()
    with term.operation_progress("terrain") as bar, ctrl_c(stop, term):
        summary = run_all_tiles(client, terrain_id, state_path, recipe=recipe_obj, start=start, dry_run=not apply,
                                on_tile=on_tile, wait=WaitPolicy(timeout=wait_timeout), stop=stop,
                                on_view=bar.show)  # fmt: skip
    error = summary.pop("error")
    if not apply:
        summary.pop("state_file")
    counts: dict[str, int] = {}
    for entry in summary["tiles"]:
        counts[entry["result"]] = counts.get(entry["result"], 0) + 1

    def human() -> None:
        term.kv(
            [
                ("terrain id", terrain_id),
                ("status", summary["status"]),
                ("tiles", ", ".join(f"{n:,} {k.replace('_', ' ')}" for k, n in sorted(counts.items())) or "none"),
                *([("state file", summary["state_file"])] if apply else []),
            ]
        )

    term.emit({**summary, "error": error.to_json() if error else None}, human)
    if error is not None:
        raise error


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app (the brush comes from mcb.commands.terrain_brush)."""
    from mcb.commands import terrain_brush

    terrain_brush.register(terrain_app)
    app.add_typer(terrain_app, name="terrain")
