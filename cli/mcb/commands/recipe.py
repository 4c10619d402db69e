"""`mcb recipe`: lint, compile, format and describe build recipes offline (protocol §4)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from mcb.options import (
    ExcludeOpt,
    FormatOpt,
    GlobOpt,
    JobsOpt,
    JsonOpt,
    McVersionOpt,
    StrictOpt,
    complete_view,
    summarised,
    terminal,
)

recipe_app = typer.Typer(
    help="Build recipes (build_prepare.recipe) offline: lint with line numbers, compile exactly as the server "
    "does, format, print the JSON Schema.",
    no_args_is_help=True,
)

MaxBlocksOpt = Annotated[
    int,
    typer.Option(
        "--max-plan-blocks",
        min=1,
        max=2_000_000,
        help="The server's max_plan_blocks: block limit, and 16x that (at most 2,000,000) scan budget.",
    ),
]


@recipe_app.command("lint")
@summarised("recipe_lint")
def lint(
    ctx: typer.Context,
    paths: Annotated[
        list[Path],
        typer.Argument(metavar="FILE|DIR", readable=False, help="Recipe files, directories to walk, or - for stdin."),
    ],
    mc_version: McVersionOpt = None,
    max_plan_blocks: MaxBlocksOpt = 4096,
    format_: FormatOpt = None,
    strict: StrictOpt = False,
    globs: GlobOpt = None,
    excludes: ExcludeOpt = None,
    jobs: JobsOpt = None,
    mcp_bridge: Annotated[
        bool,
        typer.Option(
            "--mcp-bridge",
            help="Also warn where the MCP bridge's stricter schema "
            "would refuse (256 operations, radius 128, no nested repeat, ...).",
        ),
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Every finding has a rule id, a JSON pointer, line:column, the server's own message and a hint. Exit 0 when no
    file has errors (warnings fail only with --strict), 1 otherwise.

    Examples:

        mcb recipe lint recipes/

        mcb recipe lint tower.json --format github

        cat tower.json | mcb recipe lint -

        mcb recipe lint recipes/ --exclude 'terrain/*' \\
            --format sarif > recipes.sarif
    """
    from mcb.commands.reporting import choose_format, print_reports
    from mcb.recipes.lint_files import lint_paths
    from mcb.recipes.rules import DESCRIPTIONS

    term = terminal(ctx, json_)
    fmt = choose_format(term, format_)
    reports = lint_paths(
        paths,
        mc_version=mc_version,
        max_blocks=max_plan_blocks,
        globs=globs,
        excludes=excludes,
        jobs=jobs,
        progress=term.progress,
        mcp_bridge=mcp_bridge,
    )
    print_reports(
        term,
        reports,
        fmt,
        tool="mcb recipe lint",
        strict=strict,
        rules=DESCRIPTIONS,
        noun="recipe file",
        code="recipe.lint.failed",
    )


@recipe_app.command("compile")
@summarised("recipe_compile")
def compile_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE", readable=False, help="Recipe file, or - for stdin.")],
    mc_version: McVersionOpt = None,
    max_plan_blocks: MaxBlocksOpt = 4096,
    schem: Annotated[
        Path | None,
        typer.Option("--schem", help="Write the bounding box as a Sponge v2 schematic (unset cells become air)."),
    ] = None,
    png: Annotated[Path | None, typer.Option("--png", help="Render the result to a PNG image.")] = None,
    view: Annotated[
        str, typer.Option("--view", autocompletion=complete_view, help="PNG view: iso, top or both.")
    ] = "iso",
    json_: JsonOpt = False,
) -> None:
    """Prints the block count, bounds, palette with counts and the budgets used; --json adds every block as
    {pos: {x, y, z}, state} in the order the plan applies them (y, then z, then x).

    --schem writes the bounding box as a Sponge v2 schematic the server accepts (at most 4096 cells). Cells the
    recipe does not set are air, and an import writes every cell: importing clears what stands there. Import it
    with target = the printed min corner to place blocks where the recipe would.

    Exit 1 when the server would refuse the recipe (the message is the server's, with file:line:column).

    Examples:

        mcb recipe compile recipes/tower.json

        mcb recipe compile recipes/tower.json --json | jq '.blocks | length'

        mcb recipe compile recipes/silo.json --schem silo.schem --png silo.png

        python make_wall.py | mcb recipe compile - --json
    """
    from mcb.blocks.registry import load_registry
    from mcb.commands.stdio import output_target
    from mcb.errors import UsageError
    from mcb.fileio import is_dash, refuse_input_as_output
    from mcb.recipes.source import compile_file

    term = terminal(ctx, json_)
    if is_dash(schem) and is_dash(png):
        raise UsageError("--schem - and --png - would both write to stdout", hint="send one of them to a file")
    schem, png = output_target(term, schem, "--schem"), output_target(term, png, "--png")
    refuse_input_as_output(schem, [file], field="schem")
    refuse_input_as_output(png, [file], field="png")
    if (
        schem is not None
        and png is not None
        and not is_dash(schem)
        and not is_dash(png)
        and Path(os.path.abspath(schem)) == Path(os.path.abspath(png))
    ):
        raise UsageError("--schem and --png name the same file", hint="give each output its own name")
    registry = load_registry(mc_version)
    compiled = compile_file(file, registry, max_blocks=max_plan_blocks)
    summary = {"file": str(file) if str(file) != "-" else "<stdin>", "release": registry.release, **compiled.summary()}
    if schem is not None or png is not None:
        from mcb.recipes.outputs import write_outputs

        summary["outputs"] = write_outputs(
            compiled,
            registry.data_version,
            schem=schem,
            png=png,
            view=view,
            name=file.stem if str(file) != "-" else "recipe",
        )
    if term.json_mode:
        blocks = [{"pos": {"x": x, "y": y, "z": z}, "state": state} for (x, y, z), state in compiled.blocks()]
        term.json({**summary, "blocks": blocks})
        return
    _print_summary(term, summary)


def _print_summary(term, summary: dict) -> None:
    bounds = summary["bounds"]
    budgets = summary["budgets"]
    from mcb.wording import dimensions, shown

    pairs = [("file", shown(summary["file"])), ("blocks", f"{summary['block_count']:,}")]
    if bounds:
        lo, hi, size = bounds["min"], bounds["max"], bounds["size"]
        pairs.append(
            (
                "bounds",
                f"({lo['x']}, {lo['y']}, {lo['z']}) .. ({hi['x']}, {hi['y']}, {hi['z']})  "
                f"size {dimensions(size['x'], size['y'], size['z'])}",
            )
        )
    for name in ("blocks", "scan", "operations", "nesting"):
        used, limit = budgets[name]["used"], budgets[name]["limit"]
        pairs.append((f"{name} budget", f"{used:,} / {limit:,} ({100 * used / limit:.1f}%)"))
    for kind, path in summary.get("outputs", {}).items():
        pairs.append((kind, shown(path)))
    if "schematic" in summary.get("outputs", {}) and bounds:
        lo = bounds["min"]
        pairs.append(
            ("import at", f"target {{x: {lo['x']}, y: {lo['y']}, z: {lo['z']}}} (air cells clear what is there)")
        )
    term.kv(pairs)
    if summary["palette"]:
        term.line()
        term.line("palette:")
        width = max(len(f"{p['count']:,}") for p in summary["palette"])
        for entry in summary["palette"]:
            term.line(f"  {entry['count']:>{width},}  {entry['state']}")


@recipe_app.command("fmt")
def fmt(
    ctx: typer.Context,
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE", readable=False, help="Recipe files (several with -i or --check); - reads stdin."
        ),
    ],
    in_place: Annotated[bool, typer.Option("--in-place", "-i", help="Rewrite the files (atomically).")] = False,
    check: Annotated[bool, typer.Option("--check", help="Change nothing; exit 1 if a file is not formatted.")] = False,
    json_: JsonOpt = False,
) -> None:
    """Print a recipe in canonical layout: schema key order, inline positions, one short shape per line.

    Values and number spellings are kept exactly (a later duplicate key replaces the earlier one, as parsers do).
    --json prints {files: [{file, changed, text?}], changed: N}.

    Examples:

        mcb recipe fmt tower.json

        mcb recipe fmt -i tower.json silo.json

        mcb recipe fmt --check recipes/tower.json recipes/silo.json
    """
    from mcb.errors import FindingsError, UsageError
    from mcb.recipes.source import format_files

    term = terminal(ctx, json_)
    if in_place and check:
        raise UsageError("--in-place and --check exclude each other")
    if not (in_place or check) and len(files) != 1:
        raise UsageError("printing formats one file", hint="use -i to rewrite several files, or --check")
    if in_place and any(str(f) == "-" for f in files):
        raise UsageError("stdin cannot be rewritten in place", hint="drop -i to print the formatted text")
    results = format_files(files, write=in_place)
    changed = [r for r in results if r["changed"]]
    if not (in_place or check):
        term.emit({"files": results, "changed": len(changed)}, lambda: term.line(results[0]["text"].rstrip("\n")))
        return
    for result in results:
        result.pop("text")
    verb = "reformatted" if in_place else "would reformat"
    term.emit(
        {"files": results, "changed": len(changed)},
        lambda: [term.info(f"{r['file']}: {verb if r['changed'] else 'unchanged'}") for r in results],
    )
    if check and changed:
        from mcb.wording import plural

        verb = "is" if len(changed) == 1 else "are"
        raise FindingsError(
            f"{len(changed):,} of {plural(len(results), 'file')} {verb} not formatted",
            hint="run `mcb recipe fmt -i FILE...`",
            code="recipe.fmt",
        )


@recipe_app.command("schema")
def schema(ctx: typer.Context, json_: JsonOpt = False) -> None:
    """Print the recipe JSON Schema (draft 2020-12), the same text as recipes/recipe.schema.json.

    Point your editor at it through its settings (the server refuses a "$schema" key inside a recipe).

    Examples:

        mcb recipe schema > recipe.schema.json
    """
    from mcb.recipes.model import schema_text

    terminal(ctx, json_).line(schema_text().rstrip("\n"))


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.add_typer(recipe_app, name="recipe")
