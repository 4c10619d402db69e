"""The offline tools: schematics (their adapters in schematics.py), recipes, block states and terrain previews, no
server needed (spec §2.2), and the table of all thirteen (schem_materials reads the live world too when
given a target).

Each ``run`` is a thin adapter over the core function the matching `mcb` command calls, with the same argument
rules (the core's own checks); what differs is only the face: results are dicts with
the pagination contract (MCP-40), pictures are :class:`Image` items, files this call creates are reported through
``ctx.created``, and mcb's errors become :class:`Refusal` values with a remedy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from mcb.mcp.actions import Action, Context, Image, Outcome
from mcb.mcp.tools import described
from mcb.mcp.tools.adapters import (
    READER,
    WRITER,
    Arguments,
    Excludes,
    FileProgress,
    FilesLimit,
    FilesOffset,
    Globs,
    McVersion,
    Offset,
    Path_,
    existing_input,
    new_output,
    page,
    refusal_from,
    refusing,
    report_page,
)
from mcb.mcp.tools.materials import MATERIALS_HINTS, MaterialsArgs, schem_materials
from mcb.mcp.tools.schematics import (
    ConvertArgs,
    ExtrasArgs,
    InfoArgs,
    MirrorArgs,
    RenderArgs,
    RotateArgs,
    ValidateArgs,
    schem_convert,
    schem_extras,
    schem_info,
    schem_mirror,
    schem_render,
    schem_rotate,
    schem_validate,
)
from mcb.recipes.compile import DEFAULT_MAX_BLOCKS, SCAN_BUDGET_CAP  # the compiler's own limits (no numpy)
from mcb.terrain.limits import DEFAULT_RESOLUTION, DEFAULT_TILE_BUDGET, RESOLUTION_MAX, RESOLUTION_MIN

# -- recipes ------------------------------------------------------------------------------------------------------

MaxPlanBlocks = Annotated[
    int,
    Field(
        DEFAULT_MAX_BLOCKS,
        ge=1,
        le=SCAN_BUDGET_CAP,
        description=(
            f"The server's max_plan_blocks: block limit, and 16x that (at most {SCAN_BUDGET_CAP:,}) scan budget."
        ),
    ),
]


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
        reports = lint_paths(
            args.paths,
            mc_version=args.mc_version,
            max_blocks=args.max_plan_blocks,
            globs=args.glob,
            excludes=args.exclude,
            jobs=1,
            progress=FileProgress(ctx),
            mcp_bridge=args.mcp_bridge,
        )
    return Outcome(report_page(reports, args.strict, args.offset, args.limit, args.files_offset, args.files_limit))


class CompileArgs(Arguments):
    path: Path_ = Field(description="Recipe file (build_prepare.recipe as JSON).")
    mc_version: McVersion
    max_plan_blocks: MaxPlanBlocks
    output: Path_ = Field(None, description="Write the bounding box as a Sponge v2 schematic (.schem).")
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
            refusal.data["next_call"] = {
                "tool": "recipe_lint",
                "arguments": {"paths": [str(args.path)]},
                "reason": "every problem of the recipe, with line:column and hints",
            }
            raise refusal from None
    summary: dict[str, Any] = {"file": str(source), "release": registry.release, **compiled.summary()}
    images = []
    ctx.progress(1, steps, "compiled")
    if args.png:
        ctx.check_cancelled()
        from mcb.recipes.outputs import recipe_picture
        from mcb.schematics.render import png_bytes

        with refusing("png"):
            images.append(
                Image(
                    png_bytes(recipe_picture(compiled, registry.data_version, args.view)),
                    f"{args.view} view of {source.name}",
                )
            )
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
        min_length=1, max_length=1000, description="Block states, e.g. oak_stairs[facing=east]."
    )
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
            refusal.retry_with = {
                **args.model_dump(exclude_none=True),
                "block_id": next(iter(refusal.did_you_mean.values())),
            }
        raise refusal from None


# -- terrain ------------------------------------------------------------------------------------------------------


class TerrainPreviewArgs(Arguments):
    path: Path_ = Field(description="Terrain recipe JSON file.")
    resolution: int = Field(DEFAULT_RESOLUTION, ge=RESOLUTION_MIN, le=RESOLUTION_MAX, description="Samples per axis.")
    budget: int = Field(
        DEFAULT_TILE_BUDGET, ge=1, le=DEFAULT_TILE_BUDGET, description="Tile budget (the server's max-plan-blocks)."
    )


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


OFFLINE_ACTIONS: list[Action] = [
    described(
        "schem_validate",
        "Validate schematics",
        (
            "Files or folders; profile server (default) or spec. Every finding has rule, severity, message, file, "
            "pointer (NBT path) and hint; diagnostics are paginated with offset/limit, per-file verdicts with "
            "files_offset/files_limit. No server needed. Next: schem_convert or schem_info to fix or inspect, then "
            "schematic_import_prepare (Sponge v2 up to 4096 cells) or schem_build (any file)."
        ),
        ValidateArgs,
        READER,
        schem_validate,
        "schematics",
    ),
    described(
        "schem_info",
        "Describe schematic",
        (
            "The palette is paginated with offset/limit. Next: schem_validate for every finding, or schem_render to"
            " see it."
        ),
        InfoArgs,
        READER,
        schem_info,
        "schematics",
    ),
    described(
        "schem_rotate",
        "Rotate schematic",
        (
            "Writes output atomically (an existing file only with overwrite), or the input with in_place (each "
            "in_place call turns the file again); the input is otherwise never modified. Next: schem_render to "
            "check, schem_validate."
        ),
        RotateArgs,
        WRITER,
        schem_rotate,
        "schematics",
    ),
    described(
        "schem_mirror",
        "Mirror schematic",
        (
            "rules=geometric gives the geometrically correct result (vanilla reproduces Minecraft's own mirror). "
            "Writes output atomically (an existing file only with overwrite), or the input with in_place (each "
            "in_place call mirrors it again). Next: schem_render to check."
        ),
        MirrorArgs,
        WRITER,
        schem_mirror,
        "schematics",
    ),
    described(
        "schem_convert",
        "Convert schematic",
        (
            "Refuses when the target would lose data (v2: block entities, entities, biomes) unless drop_extras; "
            "refuses an existing output unless overwrite. Next: schem_validate on the output."
        ),
        ConvertArgs,
        WRITER,
        schem_convert,
        "schematics",
    ),
    described(
        "schem_extras",
        "Write schematic extras",
        (
            "Give the build's target, rotation and mirror (as schem_build). Writes output atomically (an existing "
            "file only with overwrite); the summary counts what was written, left out, upgraded and kept as written. "
            "Run the function once after the build (its header says how). Next: schem_build, then the function."
        ),
        ExtrasArgs,
        WRITER,
        schem_extras,
        "schematics",
    ),
    described(
        "schem_render",
        "Render schematic",
        (
            "The image comes back as image content beside a summary; writes no file. scale sets pixels per block, "
            "max_side bounds the picture. Next: schem_rotate or schem_mirror, then render again."
        ),
        RenderArgs,
        READER,
        schem_render,
        "schematics",
    ),
    described(
        "schem_materials",
        "List schematic materials",
        (
            "Without target no server is needed; with target the file is placed as schem_build places it and the "
            "world is read (no operation): each item has needed, in_place and count (still to place), and world "
            "lists the blocks in the way. Items are paginated with offset/limit, most to gather first. Next: "
            "schem_build to place it."
        ),
        MaterialsArgs,
        MATERIALS_HINTS,
        schem_materials,
        "schematics",
    ),
    described(
        "recipe_lint",
        "Lint recipes",
        (
            "Files or folders. Each finding has rule, severity, message, file, pointer, line and column and a hint;"
            " diagnostics paginated with offset/limit, per-file verdicts with files_offset/files_limit. mcp_bridge "
            "adds the bridge's stricter limits. Next: recipe_compile."
        ),
        LintArgs,
        READER,
        recipe_lint,
        "recipes",
    ),
    described(
        "recipe_compile",
        "Compile recipe",
        (
            "The blocks are paginated. png adds a picture; output writes a Sponge v2 schematic (at most 4096 cells;"
            " an existing file only with overwrite, never the recipe itself). A recipe the server would refuse is "
            "refused with its message and line:column. Next: build_prepare with the same recipe."
        ),
        CompileArgs,
        WRITER,
        recipe_compile,
        "recipes",
    ),
    described(
        "block_check",
        "Check block states",
        (
            "Invalid ones carry an error with a hint (did you mean, allowed values). Next: block_describe for a "
            "block's properties."
        ),
        CheckArgs,
        READER,
        block_check,
        "blocks",
    ),
    described(
        "block_describe",
        "Describe block",
        ("Default release 26.2. Unknown ids are refused with did_you_mean. Next: block_check with a full state."),
        DescribeArgs,
        READER,
        block_describe,
        "blocks",
    ),
    described(
        "terrain_preview_offline",
        "Preview terrain offline",
        (
            "terrain_id, sampled heights, clipped samples and tile layout, with the picture as an image; "
            "world_verified is false because no world was read. Next: terrain_preview against the server, then "
            "terrain_prepare."
        ),
        TerrainPreviewArgs,
        READER,
        terrain_preview_offline,
        "terrain",
    ),
]
