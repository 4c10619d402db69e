"""`mcb terrain`: lint, offline/online heightmap preview, tile layout, tile prepare/apply and brushes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcb.options import FormatOpt, JsonOpt, terminal

terrain_app = typer.Typer(
    help="Terrain recipes and brushes: lint, preview (offline or via the server), tiles, prepare/apply, brush.",
    no_args_is_help=True,
)

RecipeArg = Annotated[str, typer.Argument(metavar="RECIPE", help="Terrain recipe JSON file ('-' = stdin).")]
BudgetOpt = Annotated[int, typer.Option("--budget", min=1, max=4096,
                                        help="Tile budget (the server's max-plan-blocks, 1..4096).")]
ResolutionOpt = Annotated[int | None, typer.Option("--resolution", "-r", min=32, max=256,
                                                   help="Samples per axis, 32..256 (offline default 256, "
                                                        "server default 128).")]
OutputOpt = Annotated[Path | None, typer.Option("--output", "-o", help="Write the PNG image here.")]


@terrain_app.command("lint")
def lint(
    ctx: typer.Context,
    paths: Annotated[list[str], typer.Argument(metavar="FILE|DIR...", help="Recipes/brushes or directories "
                                               "(walked for *.json; *.schema.json skipped).")],
    fmt: FormatOpt = None,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail too.")] = False,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Parallel checks.")] = None,
    json_: JsonOpt = False,
) -> None:
    """Check terrain recipes and brushes exactly as the server validates them, with line numbers.

    Reports the first error the server would answer (same message) plus warnings: number literals that make
    terrain_id depend on formatting, features that never reach the envelope, a surface outside the envelope.
    Exit 0 when no file has errors (warnings fail only with --strict), 1 otherwise.

    Examples:

        mcb terrain lint recipes/terrain/

        mcb terrain lint hill.json --format github --strict
    """
    from mcb.errors import FindingsError
    from mcb.reports.formatters import render_reports, resolve_format
    from mcb.reports.runner import check_files, collect_files
    from mcb.terrain.lint import RULES, lint_file

    term = terminal(ctx, json_)
    files = [f for f in collect_files(paths, ["*.json"])
             if not (f.name.endswith(".schema.json") and not any(str(f) == p for p in paths))]
    reports = check_files(files, lint_file, jobs=jobs, progress=term.progress)
    fmt_name = "json" if (json_ or term.json_mode) and fmt is None else resolve_format(fmt)
    term.line(render_reports(reports, fmt_name, tool="mcb terrain lint", strict=strict, rules=RULES).rstrip("\n"))
    failed = sum(1 for r in reports if r.failed(strict))
    if failed:
        raise FindingsError(f"{failed} of {len(reports)} files have errors", code="terrain.lint.failed")


@terrain_app.command("preview")
def preview(
    ctx: typer.Context,
    recipe: RecipeArg,
    output: OutputOpt = None,
    offline: Annotated[bool, typer.Option("--offline", help="Compute locally, no server needed.")] = False,
    resolution: ResolutionOpt = None,
    budget: BudgetOpt = 4096,
    json_: JsonOpt = False,
) -> None:
    """Preview a recipe's heightmap: terrain_id, sampled height range, clipped samples, tile layout, PNG.

    With --offline the numbers and cell colours are computed locally and equal the server's (same terrain_id for
    the same recipe text). Without it the recipe is sent to the server, which caches it for `terrain prepare`.
    --json prints the result fields (no base64 image) plus "image" (the PNG path or null).

    Examples:

        mcb terrain preview recipes/terrain/small-hill.json --offline -o hill.png

        mcb terrain preview massif.json -r 128 -o massif.png --json
    """
    term = terminal(ctx, json_)
    if offline:
        from mcb.terrain.offline import offline_preview

        result = offline_preview(recipe, resolution or 256, budget)
        png = result.pop("png")
        wire_id = result.pop("wire_terrain_id")
        if wire_id != result["terrain_id"]:
            term.warn(f"number literals in this recipe are rewritten by JSON tools; sent by mcb it gets the ID "
                      f"{wire_id} (see `mcb terrain lint`)")
    else:
        result, png = _server_preview(ctx, term, recipe, resolution)
    if output is not None:
        from mcb.commands.rpc_support import write_text_atomic

        write_text_atomic(output, png)
    result["image"] = str(output) if output is not None else None
    term.emit(result, lambda: _show_preview(term, result))


def _server_preview(ctx, term, recipe_path: str, resolution: int | None) -> tuple[dict, bytes]:
    import base64

    from mcb.commands.rpc_support import open_client
    from mcb.terrain.jsontext import to_plain
    from mcb.terrain.offline import load_recipe

    obj, _ = load_recipe(recipe_path)  # refuse locally what the server would refuse, with the same message
    with open_client(ctx, term) as client:
        raw = client.call("terrain_preview", {"recipe": to_plain(obj),
                                              **({"resolution": resolution} if resolution else {})})
    png = base64.b64decode(raw.pop("imageBase64", "") or b"")
    return raw, png


def _show_preview(term, r: dict) -> None:
    b = r["bounds"]
    lo, hi = b["min"], b["max"]
    term.kv([
        ("terrain id", r["terrain_id"]),
        ("envelope", f"{lo['x']},{lo['y']},{lo['z']} .. {hi['x']},{hi['y']},{hi['z']} ({r['mode']})"),
        ("samples", f"{r['sample_grid']['width']} x {r['sample_grid']['height']}"),
        ("surface", f"{r['sampled_height_min']} .. {r['sampled_height_max']} "
                    f"({r['clipped_samples']} samples outside the envelope's Y range)"),
        ("tiles", f"{r['tile_count']} of edge {r['tile_edge']} (budget {r['tile_budget']}, {r['tile_order']})"),
        ("image", r.get("image") or "(not written; use -o FILE)"),
    ])


@terrain_app.command("tiles")
def tiles(
    ctx: typer.Context,
    recipe: RecipeArg,
    budget: BudgetOpt = 4096,
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
    data = {"terrain_id": parsed.terrain_id, "tile_edge": grid.edge, "tile_count": grid.count,
            "tile_budget": budget, "grid": {"x": grid.nx, "z": grid.nz, "y": grid.ny}, "tiles": rows}

    def human() -> None:
        term.kv([("terrain id", parsed.terrain_id),
                 ("tiles", f"{grid.count} = {grid.nx} x {grid.nz} x {grid.ny} (x, z, y) of edge {grid.edge}")])
        term.table(["index", "min", "max", "targets"], [
            (r["index"], _xyz(r["bounds"]["min"]), _xyz(r["bounds"]["max"]), r["targets"] or "0 (empty)")
            for r in rows])

    term.emit(data, human)


def _xyz(p: dict) -> str:
    return f"{p['x']},{p['y']},{p['z']}"


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.add_typer(terrain_app, name="terrain")
