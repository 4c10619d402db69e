"""`mcb schem rotate`, `mcb schem mirror` and `mcb schem render`: offline edits and pictures of .schem files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcb.errors import InputError, UsageError
from mcb.options import JsonOpt, McVersionOpt, terminal

FileArg = Annotated[Path, typer.Argument(metavar="FILE", readable=False, help="Sponge schematic (.schem, v1/v2/v3).")]
OutOpt = Annotated[Path | None, typer.Option("--output", "-o", help="Where to write the result.")]
RulesOpt = Annotated[str, typer.Option(
    "--rules", help="Block-state rules: 'vanilla' (what the server's rotation produces) or 'geometric' "
                    "(WorldEdit-like: also turns chorus/fire connections; on mirror swaps chest halves, stair "
                    "corners, shelf chains).")]
SpongeFormatOpt = Annotated[str | None, typer.Option(
    "--format", help="Sponge version to write: v2 or v3 (default: the input's version).")]
InPlaceOpt = Annotated[bool, typer.Option("--in-place", help="Overwrite FILE instead of writing -o.")]


def _check_paths(source: Path, output: Path | None, in_place: bool, suffix: str = ".schem") -> Path:
    if not source.is_file():
        raise InputError(f"no such schematic file: {source}")
    if in_place and output is not None:
        raise UsageError("give either -o/--output or --in-place, not both")
    if in_place:
        return source
    if output is None:
        raise UsageError("missing -o/--output", hint=f"e.g. -o rotated{suffix}, or --in-place to overwrite FILE")
    if output.resolve() == source.resolve():
        raise UsageError("the output is the input file", hint="use --in-place to overwrite it on purpose")
    return output


def _sponge_version(value: str | None) -> int | None:
    if value is None:
        return None
    versions = {"v2": 2, "2": 2, "v3": 3, "3": 3}
    if value.lower() not in versions:
        raise UsageError(f"unknown schematic format {value!r}", hint="use v2 or v3")
    return versions[value.lower()]


def _one_shot_numpy() -> None:
    """Settings for numpy in these one-shot rewrites, made before it is imported (a value the user set wins):
    small pages (see ``prefer_small_pages``) and one OpenBLAS thread: nothing here does linear algebra, and
    starting a BLAS thread pool at import costs ~60 ms of CPU on a 2-core machine (import numpy 150 -> 90 ms)."""
    import os

    from mcb.commands.schem import prefer_small_pages

    prefer_small_pages()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _rules(value: str) -> str:
    if value not in ("vanilla", "geometric"):
        raise UsageError(f"unknown rule set {value!r}", hint="use vanilla or geometric")
    return value


def _print_edit(term, summary: dict) -> None:
    def human() -> None:
        what = (f"rotated {summary['degrees']}°" if summary["operation"] == "rotate"
                else f"mirrored across {summary['axis']}")
        term.line(f"{what} ({summary['rules']} rules, Minecraft {summary['release']}): {summary['output']}")
        term.kv([
            ("size (W x H x L)", " x ".join(str(v) for v in summary["size"])),
            ("offset", ", ".join(str(v) for v in summary["offset"])),
            ("format", summary["format"]),
            ("palette", f"{summary['palette_size']} states, {summary['palette_changed']} changed"),
        ])

    term.emit(summary, human)
    differ = summary["other_rules_differ"] if summary["other_rules"] == "geometric" else []
    if differ and not term.json_mode:
        shown = ", ".join(differ[:3]) + (f" and {len(differ) - 3} more" if len(differ) > 3 else "")
        term.warn(f"{len(differ)} block state(s) come out geometrically wrong with vanilla rules: {shown}; "
                  "use --rules geometric for a geometrically exact result")


def rotate(
    ctx: typer.Context,
    file: FileArg,
    degrees: Annotated[int, typer.Option("--degrees", "-d", help="Clockwise turn seen from above: 90, 180 or 270.")],
    output: OutOpt = None,
    rules: RulesOpt = "vanilla",
    fmt: SpongeFormatOpt = None,
    in_place: InPlaceOpt = False,
    mc_version: McVersionOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Rotate a schematic clockwise (seen from above), blocks, states, block entities, entities and biomes.

    The paste offset is rotated with the server's formula, so importing the result at rotation 0 places every
    block exactly where importing the original at --degrees would. Block states follow the vanilla rules by
    default (what `schematic_import_prepare` applies), checked against the release matching the file's
    DataVersion unless --mc-version is given. The input is never modified unless --in-place.

    Examples:

        mcb schem rotate house.schem --degrees 90 -o house-90.schem

        mcb schem rotate house.schem -d 270 --rules geometric -o house-270.schem

        mcb schem rotate house.schem -d 180 --in-place --json
    """
    _one_shot_numpy()
    from mcb.schematics.transform import ROTATIONS, transform_file

    term = terminal(ctx, json_)
    if degrees not in ROTATIONS:
        raise UsageError(f"--degrees must be 90, 180 or 270, not {degrees}")
    target = _check_paths(file, output, in_place)
    summary = transform_file(file, target, degrees=degrees, rules=_rules(rules), version=_sponge_version(fmt),
                             mc_version=mc_version)
    _print_edit(term, summary)


def mirror(
    ctx: typer.Context,
    file: FileArg,
    axis: Annotated[str, typer.Option("--axis", "-a", help="x: swap east and west; z: swap north and south.")],
    output: OutOpt = None,
    rules: RulesOpt = "vanilla",
    fmt: SpongeFormatOpt = None,
    in_place: InPlaceOpt = False,
    mc_version: McVersionOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Mirror a schematic across a vertical plane through its paste anchor.

    Vanilla rules reproduce Minecraft's own mirror (double chests and some stair corners come out wrong there);
    --rules geometric gives the geometrically correct result (recommended for mirroring).

    Examples:

        mcb schem mirror house.schem --axis x -o house-flipped.schem

        mcb schem mirror house.schem -a z --rules geometric -o ns.schem --json
    """
    _one_shot_numpy()
    from mcb.schematics.transform import transform_file

    term = terminal(ctx, json_)
    if axis not in ("x", "z"):
        raise UsageError(f"--axis must be x or z, not {axis!r}", hint="x swaps east/west, z swaps north/south")
    target = _check_paths(file, output, in_place)
    summary = transform_file(file, target, mirror_axis=axis, rules=_rules(rules), version=_sponge_version(fmt),
                             mc_version=mc_version)
    _print_edit(term, summary)


def render(
    ctx: typer.Context,
    file: FileArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="PNG file to write.")],
    view: Annotated[str, typer.Option("--view", help="top (height map), iso (isometric) or both.")] = "both",
    scale: Annotated[int | None, typer.Option("--scale", help="Pixels per block (default: fit ~1400 px).",
                                              min=1, max=64)] = None,
    json_: JsonOpt = False,
) -> None:
    """Draw a schematic as a PNG: a top-down map shaded by height and/or an isometric view from the south-east.

    Examples:

        mcb schem render house.schem -o house.png

        mcb schem render house.schem -o top.png --view top --scale 8
    """
    from mcb.schematics.render import VIEWS, render_file

    term = terminal(ctx, json_)
    if view not in VIEWS:
        raise UsageError(f"--view must be top, iso or both, not {view!r}")
    summary = render_file(file, output, view, scale)
    term.emit(summary, lambda: term.line(f"wrote {summary['output']} ({summary['width']}x{summary['height']} px, "
                                         f"{summary['view']} view)"))


def register(app: typer.Typer) -> None:
    """Attach rotate/mirror/render to the `mcb schem` group owned by mcb.commands.schem."""
    from mcb.commands.schem import schem_app

    # Idempotent: mcb.commands.schem also calls this, and app.py lists this module too.
    present = {info.name for info in schem_app.registered_commands}
    for name, function in (("rotate", rotate), ("mirror", mirror), ("render", render)):
        if name not in present:
            schem_app.command(name)(function)
