"""The offline actions: schematics, recipes, block states and terrain previews, no server needed (spec §2.2).

Each ``run`` is a thin adapter over the core function the matching `mcb` command calls, with the same argument
rules (mcb.schematics.edit_request, the core's own checks); what differs is only the face: results are dicts with
the pagination contract (MCP-40), pictures are :class:`Image` items, files this call creates are reported through
``ctx.created``, and mcb's errors become :class:`Refusal` values with a remedy. Core code: no typer/rich/mcp.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from mcb.blocks.transform import MIRROR_AXES, ROTATIONS, RULE_SETS
from mcb.catalog.adapters import REFUSAL_CODES  # noqa: F401  (re-exported for the manifest's refusal table)
from mcb.catalog.adapters import (READER, WRITER, Arguments, Excludes, FileProgress, FilesLimit, FilesOffset, Globs,
                                  McVersion, Offset, Path_, existing_input, new_output, page, refusal_from, refusing,
                                  report_page)
from mcb.catalog.base import Action, Context, Image, Outcome, Refusal
from mcb.recipes.compile import DEFAULT_MAX_BLOCKS, SCAN_BUDGET_CAP  # the compiler's own limits (no numpy)
from mcb.schematics.render_limits import SCALE_MAX, SCALE_MIN
from mcb.terrain.limits import DEFAULT_RESOLUTION, DEFAULT_TILE_BUDGET, RESOLUTION_MAX, RESOLUTION_MIN
from mcb.summaries import SUMMARIES

# -- schematics ---------------------------------------------------------------------------------------------------


class ValidateArgs(Arguments):
    paths: list[Path_] = Field(min_length=1, max_length=256, description="Schematic files or directories to walk.")
    profile: Literal["server", "spec"] = Field("server", description=(
        "server: the plugin's import subset; spec: the Sponge spec + WorldEdit interoperability."))
    mc_version: McVersion
    strict: bool = Field(False, description="Warnings count as failures too.")
    glob: Globs
    exclude: Excludes
    offset: Offset
    limit: int = Field(100, ge=1, le=1000, description="Diagnostics per page.")
    files_offset: FilesOffset
    files_limit: FilesLimit


def schem_validate(args: ValidateArgs, ctx: Context) -> Outcome:
    from mcb.schematics.rules import validate_paths

    for index, value in enumerate(args.paths):
        existing_input(value, "paths", index)
    with refusing("paths", usage_field="mc_version"):
        reports = validate_paths(args.paths, profile=args.profile, mc_version=args.mc_version, globs=args.glob,
                                 excludes=args.exclude, jobs=1, progress=FileProgress(ctx))
    return Outcome(report_page(reports, args.strict, args.offset, args.limit, args.files_offset,
                               args.files_limit))


class InfoArgs(Arguments):
    path: Path_ = Field(description="Schematic file in any format (Sponge, Litematica, structure .nbt, legacy).")
    mc_version: McVersion
    offset: Offset
    limit: int = Field(256, ge=1, le=4096, description="Palette entries per page.")


def schem_info(args: InfoArgs, ctx: Context) -> Outcome:
    from mcb.schematics.inspect import describe_schematic

    with refusing("path", usage_field="mc_version"):
        data = describe_schematic(existing_input(args.path, "path"), args.mc_version)
    palette = data.pop("palette")
    return Outcome({**data, **page(palette, args.offset, args.limit, "palette")})


SchematicFormat = Literal["sponge2", "sponge3", "litematic", "structure", "v2", "v3"]
ReplaceUnknown = Annotated[str | None, Field(None, min_length=1, max_length=1024, description=(
    "A block state to put where the file has a block the target release does not know; default: refuse, naming "
    "them."))]


class _EditArgs(Arguments):
    path: Path_ = Field(description="Schematic in any format (Sponge, Litematica, structure .nbt, legacy).")
    output: Path_ | None = Field(None, description="File to write (atomically); or set in_place.")
    in_place: bool = Field(False, description="Overwrite the input file instead of writing output.")
    overwrite: bool = Field(False, description="Replace output when it exists.")
    rules: Literal[RULE_SETS] = Field("vanilla", description=(  # type: ignore[valid-type]
        "vanilla: what the server's rotation produces; geometric: WorldEdit-like, also turns connections and, on "
        "mirror, swaps chest halves and stair corners."))
    format: SchematicFormat | None = Field(None, description=(
        "Format to write: sponge2, sponge3, litematic or structure; default: the output's extension, else the "
        "input's format."))
    replace_unknown: ReplaceUnknown
    mc_version: McVersion


class RotateArgs(_EditArgs):
    degrees: Literal[tuple(d for d in ROTATIONS if d)] = Field(  # type: ignore[valid-type]
        description="Clockwise turn seen from above.")


class MirrorArgs(_EditArgs):
    axis: Literal[MIRROR_AXES] = Field(  # type: ignore[valid-type]
        description="x swaps east and west; z swaps north and south.")


def _edit(args, ctx: Context, *, degrees: int | None = None, axis: str | None = None) -> Outcome:
    from mcb.schematics.edit_request import check_edit_request

    source = existing_input(args.path, "path")
    try:
        target, rules, fmt = check_edit_request(source, degrees=degrees, axis=axis, output=args.output,
                                                in_place=args.in_place, rules=args.rules, fmt=args.format)
    except Exception as error:
        refusal = refusal_from(error)
        if refusal.field == "output":  # the core's hint names the CLI's flags
            refusal.remedy = "give output (a new file) or in_place: true, not both"
        raise refusal from None
    ctx.check_cancelled()
    ctx.progress(0, 1, "rotating" if axis is None else "mirroring")
    if not args.in_place:  # checks the name first: target.exists() below cannot fail on it
        new_output(ctx, target, inputs=[source], overwrite=args.overwrite)
    created = not args.in_place and not target.exists()
    from mcb.schematics.transform import transform_file

    with refusing("path", usage_field="mc_version"):
        summary = transform_file(source, target, degrees=degrees, mirror_axis=axis, rules=rules, fmt=fmt,
                                 mc_version=args.mc_version, replace_unknown=args.replace_unknown)
    if created:  # a cancel that came during the work removes the new file (ctx.created); in place it is done
        ctx.check_cancelled()
    ctx.progress(1, 1, "written")
    return Outcome(summary)


def schem_rotate(args: RotateArgs, ctx: Context) -> Outcome:
    return _edit(args, ctx, degrees=args.degrees)


def schem_mirror(args: MirrorArgs, ctx: Context) -> Outcome:
    return _edit(args, ctx, axis=args.axis)


class ConvertArgs(Arguments):
    path: Path_ = Field(description="Schematic in any format (Sponge, Litematica, structure .nbt, legacy).")
    output: Path_ = Field(description="File to write (atomically).")
    format: SchematicFormat | None = Field(None, description=(
        "sponge2 (the server's format; the default for .schem), sponge3, litematic or structure (the default for "
        ".litematic and .nbt outputs)."))
    drop_extras: bool = Field(False, description=(
        "Drop what the target format cannot hold (sponge2: block entities, entities, biomes; cells the file leaves "
        "unchanged become air) instead of refusing."))
    replace_unknown: ReplaceUnknown
    overwrite: bool = Field(False, description="Replace output when it exists.")
    mc_version: McVersion


def schem_convert(args: ConvertArgs, ctx: Context) -> Outcome:
    from mcb.schematics.outputs import parse_format

    source = existing_input(args.path, "path")
    target = new_output(ctx, args.output, inputs=[source], overwrite=args.overwrite)
    ctx.check_cancelled()
    ctx.progress(0, 1, "converting")
    from mcb.schematics.inspect import convert_schematic

    with refusing("path", usage_field="mc_version"):
        result = convert_schematic(source, target, fmt=parse_format(args.format), drop_extras=args.drop_extras,
                                   mc_version=args.mc_version, replace_unknown=args.replace_unknown)
    ctx.check_cancelled()
    ctx.progress(1, 1, "written")
    return Outcome(result)


class RenderArgs(Arguments):
    path: Path_ = Field(description="Schematic in any format (Sponge, Litematica, structure .nbt, legacy).")
    view: Literal["top", "iso", "both"] = Field("both", description="top (height map), iso (isometric) or both.")
    scale: int | None = Field(None, ge=SCALE_MIN, le=SCALE_MAX, description="Pixels per block (default: fit ~1400 px).")
    max_side: int | None = Field(None, ge=64, le=4096, description="Shrink the picture to at most this many pixels "
                                                                    "on its longest side.")


def schem_render(args: RenderArgs, ctx: Context) -> Outcome:
    from mcb.schematics.render import render_png

    source = existing_input(args.path, "path")
    ctx.check_cancelled()
    ctx.progress(0, 2, "rendering")
    with refusing("path"):
        png, summary = render_png(source, args.view, args.scale)
    ctx.check_cancelled()
    if args.max_side and max(summary["width"], summary["height"]) > args.max_side:
        png, summary["width"], summary["height"] = _shrink(png, args.max_side)
    ctx.progress(2, 2, "rendered")
    caption = f"{summary['view']} view of {source.name}, {summary['width']}x{summary['height']} px"
    return Outcome({**summary, "image": {"mime_type": "image/png", "bytes": len(png)}}, [Image(png, caption)])


def _shrink(png: bytes, max_side: int) -> tuple[bytes, int, int]:
    import io

    from PIL import Image as PILImage

    from mcb.schematics.render import png_bytes

    picture = PILImage.open(io.BytesIO(png))
    picture.thumbnail((max_side, max_side), PILImage.Resampling.NEAREST)
    return png_bytes(picture), picture.width, picture.height


# -- recipes ------------------------------------------------------------------------------------------------------

MaxPlanBlocks = Annotated[int, Field(DEFAULT_MAX_BLOCKS, ge=1, le=SCAN_BUDGET_CAP, description=(
    f"The server's max_plan_blocks: block limit, and 16x that (at most {SCAN_BUDGET_CAP:,}) scan budget."))]


class LintArgs(Arguments):
    paths: list[Path_] = Field(min_length=1, max_length=256, description="Recipe files or directories to walk.")
    mc_version: McVersion
    max_plan_blocks: MaxPlanBlocks
    strict: bool = Field(False, description="Warnings count as failures too.")
    glob: Globs
    exclude: Excludes
    mcp_bridge: bool = Field(False, description="Also warn where the MCP bridge's stricter schema would refuse.")
    offset: Offset
    limit: int = Field(100, ge=1, le=1000, description="Diagnostics per page.")
    files_offset: FilesOffset
    files_limit: FilesLimit


def recipe_lint(args: LintArgs, ctx: Context) -> Outcome:
    from mcb.recipes.lint_files import lint_paths

    for index, value in enumerate(args.paths):
        existing_input(value, "paths", index)
    with refusing("paths", usage_field="mc_version"):
        reports = lint_paths(args.paths, mc_version=args.mc_version, max_blocks=args.max_plan_blocks,
                             globs=args.glob, excludes=args.exclude, jobs=1, progress=FileProgress(ctx),
                             mcp_bridge=args.mcp_bridge)
    return Outcome(report_page(reports, args.strict, args.offset, args.limit, args.files_offset,
                               args.files_limit))


class CompileArgs(Arguments):
    path: Path_ = Field(description="Recipe file (build_prepare.recipe as JSON).")
    mc_version: McVersion
    max_plan_blocks: MaxPlanBlocks
    output: Path_ | None = Field(None, description="Write the bounding box as a Sponge v2 schematic (.schem).")
    overwrite: bool = Field(False, description="Replace output when it exists.")
    png: bool = Field(False, description="Add a rendering of the result as an image.")
    view: Literal["iso", "top", "both"] = Field("iso", description="Picture view.")
    offset: Offset
    limit: int = Field(256, ge=0, le=4096, description="Blocks per page, in the order the plan applies them.")


def recipe_compile(args: CompileArgs, ctx: Context) -> Outcome:
    from mcb.blocks.registry import load_registry
    from mcb.recipes.source import compile_file

    source = existing_input(args.path, "path")
    target = None if args.output is None else new_output(ctx, args.output, inputs=[source], overwrite=args.overwrite)
    steps = 1 + args.png + (args.output is not None)
    ctx.check_cancelled()
    ctx.progress(0, steps, "compiling")
    with refusing("mc_version"):
        registry = load_registry(args.mc_version)
    with refusing("path"):
        try:
            compiled = compile_file(source, registry, max_blocks=args.max_plan_blocks)
        except Exception as error:
            refusal = refusal_from(error, "path")
            refusal.remedy = "call recipe_lint on the file for every problem with hints, fix it, compile again"
            refusal.data["next_call"] = {"tool": "recipe_lint", "arguments": {"paths": [str(args.path)]},
                                         "reason": "every problem of the recipe, with line:column and hints"}
            raise refusal from None
    summary: dict[str, Any] = {"file": str(source), "release": registry.release, **compiled.summary()}
    images = []
    ctx.progress(1, steps, "compiled")
    if args.png:
        ctx.check_cancelled()
        from mcb.recipes.outputs import recipe_picture
        from mcb.schematics.render import png_bytes

        with refusing("png"):
            images.append(Image(png_bytes(recipe_picture(compiled, registry.data_version, args.view)),
                                f"{args.view} view of {source.name}"))
        ctx.progress(2, steps, "rendered")
    if args.output is not None:
        ctx.check_cancelled()
        from mcb.recipes.outputs import write_outputs

        created = not Path(args.output).exists()
        with refusing("output"):
            summary["outputs"] = write_outputs(compiled, registry.data_version, schem=target, name=source.stem)
        if created:
            ctx.check_cancelled()
        ctx.progress(steps, steps, "written")
    blocks = [{"pos": {"x": x, "y": y, "z": z}, "state": state} for (x, y, z), state in compiled.blocks()]
    return Outcome({**summary, **page(blocks, args.offset, args.limit, "blocks")}, images)


# -- block states -------------------------------------------------------------------------------------------------


class CheckArgs(Arguments):
    states: list[Annotated[str, Field(min_length=1, max_length=256)]] = Field(
        min_length=1, max_length=1000, description="Block states, e.g. oak_stairs[facing=east].")
    mc_version: McVersion
    recipe: bool = Field(False, description="Also apply the recipe grammar (minecraft: prefix, [a-z0-9_=,]).")


def block_check(args: CheckArgs, ctx: Context) -> Outcome:
    from mcb.blocks.checks import check_states

    with refusing("mc_version"):
        report = check_states(args.states, args.mc_version, recipe_grammar=args.recipe, suggestions=True)
    invalid = sum(1 for item in report["results"] if not item["ok"])
    return Outcome({**report, "ok": invalid == 0, "invalid": invalid})


class DescribeArgs(Arguments):
    block_id: str = Field(min_length=1, max_length=256, description="Block id, e.g. oak_stairs.")
    mc_version: McVersion


def block_describe(args: DescribeArgs, ctx: Context) -> Outcome:
    from mcb.blocks.checks import describe_block
    from mcb.errors import UsageError

    try:
        return Outcome(describe_block(args.block_id, args.mc_version))
    except UsageError as error:  # only the release can be wrong before the id is read
        raise refusal_from(error, "mc_version") from None
    except Exception as error:
        refusal = refusal_from(error, "block_id")
        if refusal.did_you_mean:
            refusal.retry_with = {**args.model_dump(exclude_none=True), "block_id": next(iter(
                refusal.did_you_mean.values()))}
        raise refusal from None


# -- terrain ------------------------------------------------------------------------------------------------------


class TerrainPreviewArgs(Arguments):
    path: Path_ = Field(description="Terrain recipe JSON file.")
    resolution: int = Field(DEFAULT_RESOLUTION, ge=RESOLUTION_MIN, le=RESOLUTION_MAX, description="Samples per axis.")
    budget: int = Field(DEFAULT_TILE_BUDGET, ge=1, le=DEFAULT_TILE_BUDGET,
                        description="Tile budget (the server's max-plan-blocks).")


def terrain_preview_offline(args: TerrainPreviewArgs, ctx: Context) -> Outcome:
    from mcb.terrain.offline import offline_picture

    source = existing_input(args.path, "path")
    ctx.check_cancelled()
    ctx.progress(0, 1, "sampling")
    with refusing("path"):
        # the same picture `mcb terrain preview --offline -o` writes: scaled up, with a height key and scale bar
        result, png, box = offline_picture(source, args.resolution, args.budget)
    result["picture"] = {"map": box.to_json()}
    wire_id = result.pop("wire_terrain_id")
    result["world_verified"] = False
    if wire_id != result["terrain_id"]:
        result["wire_terrain_id"] = wire_id
        result["hint"] = "JSON tools rewrite this recipe's number literals; sent by mcb it gets wire_terrain_id"
    ctx.progress(1, 1, "rendered")
    return Outcome(result, [Image(png, f"terrain preview {result['terrain_id'][:12]}")])


def _action(name, title, details, model, hints, run, group) -> Action:
    """The description is the tool's one summary (mcb.summaries, which the CLI's help starts with too), then
    ``details``: what only MCP says (argument names, pagination, the next call)."""
    return Action(name=name, title=title, description=f"{SUMMARIES[name]} {details}", input_model=model,
                  hints=hints, run=run, group=group)


OFFLINE_ACTIONS: list[Action] = [
    _action("schem_validate", "Validate schematics", (
        "Files or folders; profile server (default) or spec. Every finding has rule, severity, message, file, "
        "pointer (NBT path) and hint; diagnostics are paginated with offset/limit, per-file verdicts with "
        "files_offset/files_limit. No server needed. Next: schem_convert or schem_info to fix or inspect, then "
        "schematic_import_prepare (Sponge v2 up to 4096 cells) or schem_build (any file)."),
        ValidateArgs, READER, schem_validate, "schematics"),
    _action("schem_info", "Describe schematic", (
        "The palette is paginated with offset/limit. Next: schem_validate for every finding, or schem_render to"
        " see it."), InfoArgs, READER, schem_info, "schematics"),
    _action("schem_rotate", "Rotate schematic", (
        "Writes output atomically (an existing file only with overwrite), or the input with in_place (each "
        "in_place call turns the file again); the input is otherwise never modified. Next: schem_render to "
        "check, schem_validate."), RotateArgs, WRITER, schem_rotate, "schematics"),
    _action("schem_mirror", "Mirror schematic", (
        "rules=geometric gives the geometrically correct result (vanilla reproduces Minecraft's own mirror). "
        "Writes output atomically (an existing file only with overwrite), or the input with in_place (each "
        "in_place call mirrors it again). Next: schem_render to check."),
        MirrorArgs, WRITER, schem_mirror, "schematics"),
    _action("schem_convert", "Convert schematic", (
        "Refuses when the target would lose data (v2: block entities, entities, biomes) unless drop_extras; "
        "refuses an existing output unless overwrite. Next: schem_validate on the output."),
        ConvertArgs, WRITER, schem_convert, "schematics"),
    _action("schem_render", "Render schematic", (
        "The image comes back as image content beside a summary; writes no file. scale sets pixels per block, "
        "max_side bounds the picture. Next: schem_rotate or schem_mirror, then render again."),
        RenderArgs, READER, schem_render, "schematics"),
    _action("recipe_lint", "Lint recipes", (
        "Files or folders. Each finding has rule, severity, message, file, pointer, line and column and a hint;"
        " diagnostics paginated with offset/limit, per-file verdicts with files_offset/files_limit. mcp_bridge "
        "adds the bridge's stricter limits. Next: recipe_compile."), LintArgs, READER, recipe_lint, "recipes"),
    _action("recipe_compile", "Compile recipe", (
        "The blocks are paginated. png adds a picture; output writes a Sponge v2 schematic (at most 4096 cells;"
        " an existing file only with overwrite, never the recipe itself). A recipe the server would refuse is "
        "refused with its message and line:column. Next: build_prepare with the same recipe."),
        CompileArgs, WRITER, recipe_compile, "recipes"),
    _action("block_check", "Check block states", (
        "Invalid ones carry an error with a hint (did you mean, allowed values). Next: block_describe for a "
        "block's properties."), CheckArgs, READER, block_check, "blocks"),
    _action("block_describe", "Describe block", (
        "Default release 26.2. Unknown ids are refused with did_you_mean. Next: block_check with a full state."),
        DescribeArgs, READER, block_describe, "blocks"),
    _action("terrain_preview_offline", "Preview terrain offline", (
        "terrain_id, sampled heights, clipped samples and tile layout, with the picture as an image; "
        "world_verified is false because no world was read. Next: terrain_preview against the server, then "
        "terrain_prepare."), TerrainPreviewArgs, READER, terrain_preview_offline, "terrain"),
]
