"""The offline actions: schematics, recipes, block states and terrain previews, no server needed (spec §2.2).

Each ``run`` is a thin adapter over the core function the matching `mcb` command calls, with the same argument
rules (mcb.schematics.edit_request, the core's own checks); what differs is only the face: results are dicts with
the pagination contract (MCP-40), pictures are :class:`Image` items, files this call creates are reported through
``ctx.created``, and mcb's errors become :class:`Refusal` values with a remedy. Core code: no typer/rich/mcp.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from mcb.blocks.transform import MIRROR_AXES, ROTATIONS, RULE_SETS
from mcb.catalog.base import Action, Context, Hints, Image, Outcome, Refusal
from mcb.recipes.compile import DEFAULT_MAX_BLOCKS, SCAN_BUDGET_CAP  # the compiler's own limits (no numpy)

# Annotations per spec §2.2: every offline tool is closed-world; file writers are destructive (MCP-24).
READER = Hints(read_only=True, destructive=False, idempotent=True, open_world=False)
WRITER = Hints(read_only=False, destructive=True, idempotent=True, open_world=False)

# The codes these actions refuse with, and the remedy each carries (for the manifest's refusal table, MCP-33).
REFUSAL_CODES = {
    "invalid_argument": "field names the argument; retry_with where the fix is known",
    "not_found": "field names the path argument that does not exist",
    "output_exists": "retry_with {overwrite: true}, or another output",
    "invalid_input": "the file's content is at fault: field names it; next_call when a checker explains more",
    "io_error": "field names the path; no_remedy when the file system refuses",
}

MAX_PATH = 1024  # MCP-22: paths


def _bounded_path(value: Any) -> Any:
    if isinstance(value, str) and not 1 <= len(value) <= MAX_PATH:
        raise ValueError(f"a path has 1 to {MAX_PATH} characters")
    return value


# A Path annotation is how the face finds the arguments to keep inside the workspace root (MCP-35).
Path_ = Annotated[Path, BeforeValidator(_bounded_path),
                  WithJsonSchema({"type": "string", "minLength": 1, "maxLength": MAX_PATH})]
McVersion = Annotated[str | None, Field(None, min_length=1, max_length=64, description=(
    "Minecraft release (e.g. 1.20.4) or DataVersion whose block list is used; default 26.2 (or, for schematics, "
    "what the command would pick)."))]
Offset = Annotated[int, Field(0, ge=0, description="First item to return (pagination).")]
Globs = Annotated[list[Annotated[str, Field(min_length=1, max_length=256)]] | None,
                  Field(None, max_length=16, description="File-name patterns when walking directories.")]


class Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _refusal(error: Exception, field: str | None = None, usage_field: str | None = None) -> Refusal:
    """mcb's error model (McbError: message, hint, code, details) as a refusal with a remedy: ``field`` is the
    argument at fault unless the error names one; a usage error points at ``usage_field`` when given."""
    from mcb.errors import McbError, UsageError

    if isinstance(error, McbError):
        details = dict(error.details or {})
        field = details.pop("field", field)
        suggestions = details.pop("suggestions", None)
        data: dict[str, Any] = {"rule": error.code} if error.code != error.kind else {}
        for key in ("pointer", "position", "losses", "known", "release"):
            if key in details:
                data[key] = details[key]
        usage = isinstance(error, UsageError)
        field = usage_field if usage and usage_field else field
        if field is None:
            data["no_remedy"] = "the inputs themselves are at fault; see the message"
        remedy = error.hint or ("correct the argument" if usage else "correct the file")
        return Refusal("invalid_argument" if usage else "invalid_input", error.message, remedy=remedy, field=field,
                       did_you_mean=suggestions, data=data)
    if isinstance(error, OSError):
        name = error.filename or field or "file"
        return Refusal("io_error", f"{name}: {error.strerror or error}", remedy="check the path and permissions",
                       field=field, data={"no_remedy": "the file system refused the operation"})
    raise error


@contextlib.contextmanager
def _refusing(field: str | None = None, usage_field: str | None = None):
    """Turn mcb's errors raised by the core into refusals (programming errors stay exceptions: `internal`)."""
    from mcb.errors import McbError

    try:
        yield
    except (McbError, OSError) as error:
        raise _refusal(error, field, usage_field) from None


def _existing(value: Path, field: str, index: int | None = None) -> Path:
    path = Path(value)
    where = {} if index is None else {"pointer": f"/{field}/{index}"}
    if str(value) == "-":  # the CLI's stdin; here stdin carries the protocol itself
        raise Refusal("invalid_argument", f"{field}: '-' (standard input) cannot be read by a tool",
                      remedy="give a file path", field=field, data=where)
    if not path.exists():
        raise Refusal("not_found", f"{field}: {value} does not exist", remedy="give an existing file or folder",
                      field=field, data=where)
    return path


def _new_output(ctx: Context, value: Path, field: str = "output") -> Path:
    """``value`` as the file to write; registered with ctx.created unless it exists already (then it is the
    user's file, which a cancel must not delete)."""
    path = Path(value)
    if path.is_dir():
        raise Refusal("invalid_argument", f"{field}: {value} is a directory", remedy="name a file", field=field)
    if not path.parent.is_dir():
        raise Refusal("not_found", f"{field}: the folder {path.parent} does not exist", field=field,
                      remedy="write into an existing folder")
    if not path.exists():
        ctx.created(path)
    return path


def _page(items: list, offset: int, limit: int, unit: str) -> dict:
    """The pagination contract (MCP-40): returned, has_more, total_<unit>, and next_offset + hint when more."""
    chosen = items[offset:offset + limit]
    page = {unit: chosen, "returned": len(chosen), "has_more": offset + len(chosen) < len(items),
            f"total_{unit}": len(items)}
    if page["has_more"]:
        page["next_offset"] = offset + len(chosen)
        page["hint"] = f"call again with offset={page['next_offset']} until has_more is false"
    return page


class _FileProgress:
    """The ``progress`` hook of mcb.reports.runner.check_files: one unit per file, a cancel check between files."""

    def __init__(self, ctx: Context):
        self.ctx, self.done, self.total = ctx, 0, None

    def __call__(self, label: str, total: int | None = None):
        self.total = total
        return self

    def __enter__(self):
        self.ctx.check_cancelled()
        self.ctx.progress(0, self.total, "checking")
        return self

    def __exit__(self, *exc) -> bool:
        return False

    def advance(self, step: int = 1) -> None:
        self.done += step
        self.ctx.progress(self.done, self.total, f"{self.done} of {self.total} files")
        self.ctx.check_cancelled()


def _reports(reports, strict: bool, offset: int, limit: int) -> dict:
    """Validation/lint reports in the diagnostic model: per-file verdicts, then the findings paginated."""
    single = len(reports) == 1  # a folder's per-file facts would crowd out its findings; schem_info has them
    files = [{"file": r.file, "ok": not r.failed(strict), "errors": r.errors, "warnings": r.warnings,
              **({"facts": r.facts} if single and r.facts else {})} for r in reports]
    findings = [d.to_json() for r in reports for d in r.diagnostics]
    failed = sum(1 for r in reports if r.failed(strict))
    return {"ok": failed == 0, "summary": {"files": len(reports), "failed": failed,
                                           "errors": sum(r.errors for r in reports),
                                           "warnings": sum(r.warnings for r in reports)},
            "files": files, **_page(findings, offset, limit, "diagnostics")}


# -- schematics ---------------------------------------------------------------------------------------------------


class ValidateArgs(Arguments):
    paths: list[Path_] = Field(min_length=1, max_length=256, description="Schematic files or directories to walk.")
    profile: Literal["server", "spec"] = Field("server", description=(
        "server: the plugin's import subset; spec: the Sponge spec + WorldEdit interoperability."))
    mc_version: McVersion
    strict: bool = Field(False, description="Warnings count as failures too.")
    glob: Globs
    offset: Offset
    limit: int = Field(100, ge=1, le=1000, description="Diagnostics per page.")


def schem_validate(args: ValidateArgs, ctx: Context) -> Outcome:
    from mcb.schematics.rules import validate_paths

    for index, value in enumerate(args.paths):
        _existing(value, "paths", index)
    with _refusing("paths", usage_field="mc_version"):
        reports = validate_paths(args.paths, profile=args.profile, mc_version=args.mc_version, globs=args.glob,
                                 jobs=1, progress=_FileProgress(ctx))
    return Outcome(_reports(reports, args.strict, args.offset, args.limit))


class InfoArgs(Arguments):
    path: Path_ = Field(description="Schematic file.")
    mc_version: McVersion
    offset: Offset
    limit: int = Field(256, ge=1, le=4096, description="Palette entries per page.")


def schem_info(args: InfoArgs, ctx: Context) -> Outcome:
    from mcb.schematics.inspect import describe_schematic

    with _refusing("path", usage_field="mc_version"):
        data = describe_schematic(_existing(args.path, "path"), args.mc_version)
    palette = data.pop("palette")
    return Outcome({**data, **_page(palette, args.offset, args.limit, "palette")})


class _EditArgs(Arguments):
    path: Path_ = Field(description="Sponge schematic (v1/v2/v3).")
    output: Path_ | None = Field(None, description="File to write (atomically); or set in_place.")
    in_place: bool = Field(False, description="Overwrite the input file instead of writing output.")
    rules: Literal[RULE_SETS] = Field("vanilla", description=(  # type: ignore[valid-type]
        "vanilla: what the server's rotation produces; geometric: WorldEdit-like, also turns connections and, on "
        "mirror, swaps chest halves and stair corners."))
    format: Literal["v2", "v3"] | None = Field(None, description="Sponge version to write; default: the input's.")
    mc_version: McVersion


class RotateArgs(_EditArgs):
    degrees: Literal[tuple(d for d in ROTATIONS if d)] = Field(  # type: ignore[valid-type]
        description="Clockwise turn seen from above.")


class MirrorArgs(_EditArgs):
    axis: Literal[MIRROR_AXES] = Field(  # type: ignore[valid-type]
        description="x swaps east and west; z swaps north and south.")


def _edit(args, ctx: Context, *, degrees: int | None = None, axis: str | None = None) -> Outcome:
    from mcb.schematics.edit_request import check_edit_request

    source = _existing(args.path, "path")
    try:
        target, rules, version = check_edit_request(source, degrees=degrees, axis=axis, output=args.output,
                                                    in_place=args.in_place, rules=args.rules, fmt=args.format)
    except Exception as error:
        refusal = _refusal(error)
        if refusal.field == "output":  # the core's hint names the CLI's flags
            refusal.remedy = "give output (a new file) or in_place: true, not both"
        raise refusal from None
    ctx.check_cancelled()
    ctx.progress(0, 1, "rotating" if axis is None else "mirroring")
    created = not args.in_place and not target.exists()
    if not args.in_place:
        _new_output(ctx, target)
    from mcb.schematics.transform import transform_file

    with _refusing("path", usage_field="mc_version"):
        summary = transform_file(source, target, degrees=degrees, mirror_axis=axis, rules=rules, version=version,
                                 mc_version=args.mc_version)
    if created:  # a cancel that came during the work removes the new file (ctx.created); in place it is done
        ctx.check_cancelled()
    ctx.progress(1, 1, "written")
    return Outcome(summary)


def schem_rotate(args: RotateArgs, ctx: Context) -> Outcome:
    return _edit(args, ctx, degrees=args.degrees)


def schem_mirror(args: MirrorArgs, ctx: Context) -> Outcome:
    return _edit(args, ctx, axis=args.axis)


class ConvertArgs(Arguments):
    path: Path_ = Field(description="Sponge v1/v2/v3 schematic.")
    output: Path_ = Field(description="File to write (atomically).")
    format: Literal["v2", "v3"] = Field("v2", description="v2 (the server's format) or v3.")
    drop_extras: bool = Field(False, description="v2: drop block entities, entities and biomes instead of refusing.")
    overwrite: bool = Field(False, description="Replace output when it exists.")
    mc_version: McVersion


def schem_convert(args: ConvertArgs, ctx: Context) -> Outcome:
    from mcb.schematics.edit_request import sponge_version

    source = _existing(args.path, "path")
    if Path(args.output).exists() and not args.overwrite:
        raise Refusal("output_exists", f"output: {args.output} exists", remedy="overwrite it or choose another file",
                      field="output", retry_with={"overwrite": True})
    if Path(args.output).resolve() == source.resolve():
        raise Refusal("invalid_argument", "output: the output is the input file", field="output",
                      remedy="write a new file (convert never rewrites its input)")
    ctx.check_cancelled()
    ctx.progress(0, 1, "converting")
    target = _new_output(ctx, args.output)
    from mcb.schematics.inspect import convert_schematic

    with _refusing("path", usage_field="mc_version"):
        result = convert_schematic(source, target, version=sponge_version(args.format),
                                   drop_extras=args.drop_extras, mc_version=args.mc_version)
    ctx.check_cancelled()
    ctx.progress(1, 1, "written")
    return Outcome(result)


class RenderArgs(Arguments):
    path: Path_ = Field(description="Sponge schematic (v1/v2/v3).")
    view: Literal["top", "iso", "both"] = Field("both", description="top (height map), iso (isometric) or both.")
    scale: int | None = Field(None, ge=1, le=64, description="Pixels per block (default: fit ~1400 px).")
    max_side: int | None = Field(None, ge=64, le=4096, description="Shrink the picture to at most this many pixels "
                                                                    "on its longest side.")


def schem_render(args: RenderArgs, ctx: Context) -> Outcome:
    from mcb.schematics.render import render_png

    source = _existing(args.path, "path")
    ctx.check_cancelled()
    ctx.progress(0, 2, "rendering")
    with _refusing("path"):
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
    exclude: Globs
    mcp_bridge: bool = Field(False, description="Also warn where the MCP bridge's stricter schema would refuse.")
    offset: Offset
    limit: int = Field(100, ge=1, le=1000, description="Diagnostics per page.")


def recipe_lint(args: LintArgs, ctx: Context) -> Outcome:
    from mcb.recipes.lint_files import lint_paths

    for index, value in enumerate(args.paths):
        _existing(value, "paths", index)
    with _refusing("paths", usage_field="mc_version"):
        reports = lint_paths(args.paths, mc_version=args.mc_version, max_blocks=args.max_plan_blocks,
                             globs=args.glob, excludes=args.exclude, jobs=1, progress=_FileProgress(ctx),
                             mcp_bridge=args.mcp_bridge)
    return Outcome(_reports(reports, args.strict, args.offset, args.limit))


class CompileArgs(Arguments):
    path: Path_ = Field(description="Recipe file (build_prepare.recipe as JSON).")
    mc_version: McVersion
    max_plan_blocks: MaxPlanBlocks
    output: Path_ | None = Field(None, description="Write the bounding box as a Sponge v2 schematic (.schem).")
    png: bool = Field(False, description="Add a rendering of the result as an image.")
    view: Literal["iso", "top", "both"] = Field("iso", description="Picture view.")
    offset: Offset
    limit: int = Field(256, ge=0, le=4096, description="Blocks per page, in the order the plan applies them.")


def recipe_compile(args: CompileArgs, ctx: Context) -> Outcome:
    from mcb.blocks.registry import load_registry
    from mcb.recipes.source import compile_file

    source = _existing(args.path, "path")
    steps = 1 + args.png + (args.output is not None)
    ctx.check_cancelled()
    ctx.progress(0, steps, "compiling")
    with _refusing("mc_version"):
        registry = load_registry(args.mc_version)
    with _refusing("path"):
        try:
            compiled = compile_file(source, registry, max_blocks=args.max_plan_blocks)
        except Exception as error:
            refusal = _refusal(error, "path")
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

        with _refusing("png"):
            images.append(Image(png_bytes(recipe_picture(compiled, registry.data_version, args.view)),
                                f"{args.view} view of {source.name}"))
        ctx.progress(2, steps, "rendered")
    if args.output is not None:
        ctx.check_cancelled()
        from mcb.recipes.outputs import write_outputs

        created = not Path(args.output).exists()
        target = _new_output(ctx, args.output)
        with _refusing("output"):
            summary["outputs"] = write_outputs(compiled, registry.data_version, schem=target, name=source.stem)
        if created:
            ctx.check_cancelled()
        ctx.progress(steps, steps, "written")
    blocks = [{"pos": {"x": x, "y": y, "z": z}, "state": state} for (x, y, z), state in compiled.blocks()]
    return Outcome({**summary, **_page(blocks, args.offset, args.limit, "blocks")}, images)


# -- block states -------------------------------------------------------------------------------------------------


class CheckArgs(Arguments):
    states: list[Annotated[str, Field(min_length=1, max_length=256)]] = Field(
        min_length=1, max_length=1000, description="Block states, e.g. oak_stairs[facing=east].")
    mc_version: McVersion
    recipe: bool = Field(False, description="Also apply the recipe grammar (minecraft: prefix, [a-z0-9_=,]).")


def block_check(args: CheckArgs, ctx: Context) -> Outcome:
    from mcb.blocks.checks import check_states

    with _refusing("mc_version"):
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
        raise _refusal(error, "mc_version") from None
    except Exception as error:
        refusal = _refusal(error, "block_id")
        if refusal.did_you_mean:
            refusal.retry_with = {"block_id": refusal.did_you_mean[0]}
        raise refusal from None


# -- terrain ------------------------------------------------------------------------------------------------------


class TerrainPreviewArgs(Arguments):
    path: Path_ = Field(description="Terrain recipe JSON file.")
    resolution: int = Field(256, ge=32, le=256, description="Samples per axis.")  # the CLI's --resolution range
    budget: int = Field(4096, ge=1, le=4096, description="Tile budget (the server's max-plan-blocks).")


def terrain_preview_offline(args: TerrainPreviewArgs, ctx: Context) -> Outcome:
    from mcb.terrain.offline import offline_preview

    source = _existing(args.path, "path")
    ctx.check_cancelled()
    ctx.progress(0, 1, "sampling")
    with _refusing("path"):
        result = offline_preview(source, args.resolution, args.budget)
    png = result.pop("png")
    wire_id = result.pop("wire_terrain_id")
    result["world_verified"] = False
    if wire_id != result["terrain_id"]:
        result["wire_terrain_id"] = wire_id
        result["hint"] = "JSON tools rewrite this recipe's number literals; sent by mcb it gets wire_terrain_id"
    ctx.progress(1, 1, "rendered")
    return Outcome(result, [Image(png, f"terrain preview {result['terrain_id'][:12]}")])


def _action(name, title, description, model, hints, run, group) -> Action:
    return Action(name=name, title=title, description=description, input_model=model, hints=hints, run=run,
                  group=group)


OFFLINE_ACTIONS: list[Action] = [
    _action("schem_validate", "Validate schematics", (
        "Check Sponge schematics (files or folders) the way the server imports them (profile server) or against the "
        "Sponge spec (profile spec). Every finding has rule, severity, message, file, pointer (NBT path) and hint; "
        "diagnostics are paginated with offset/limit. No server needed. Next: schem_convert or schem_info to fix "
        "or inspect, then schematic_import_prepare."), ValidateArgs, READER, schem_validate, "schematics"),
    _action("schem_info", "Describe schematic", (
        "Describe one schematic: format and version, DataVersion, size, offsets, block entities, entities, the "
        "palette with counts (paginated with offset/limit) and whether the server would import it. Next: "
        "schem_validate for every finding, or schem_render to see it."), InfoArgs, READER, schem_info, "schematics"),
    _action("schem_rotate", "Rotate schematic", (
        "Rotate a schematic clockwise (90/180/270, seen from above): blocks, block states, block entities, entities "
        "and biomes, with the paste offset turned by the server's formula. Writes output atomically, or the input "
        "with in_place; the input is otherwise never modified. Next: schem_render to check, schem_validate."),
        RotateArgs, WRITER, schem_rotate, "schematics"),
    _action("schem_mirror", "Mirror schematic", (
        "Mirror a schematic across a vertical plane through its paste anchor (axis x or z). rules=geometric gives "
        "the geometrically correct result (vanilla reproduces Minecraft's own mirror). Writes output atomically, or "
        "the input with in_place. Next: schem_render to check."), MirrorArgs, WRITER, schem_mirror, "schematics"),
    _action("schem_convert", "Convert schematic", (
        "Rewrite a schematic as Sponge v2 in the server's layout (WorldEdit's absolute Offset normalised) or as v3. "
        "Refuses when v2 would lose block entities, entities or biomes unless drop_extras; refuses an existing "
        "output unless overwrite. Next: schem_validate on the output."), ConvertArgs, WRITER, schem_convert,
        "schematics"),
    _action("schem_render", "Render schematic", (
        "Draw a schematic as a PNG image (top-down height map, isometric view, or both) returned as image content "
        "beside a summary; writes no file. scale sets pixels per block, max_side bounds the picture. Next: "
        "schem_rotate or schem_mirror, then render again."), RenderArgs, READER, schem_render, "schematics"),
    _action("recipe_lint", "Lint recipes", (
        "Check build recipes (files or folders) the way the server will: JSON syntax, the schema, block states, "
        "bounds and every budget. Each finding has rule, severity, message, file, pointer, line and column and a "
        "hint; paginated with offset/limit. mcp_bridge adds the bridge's stricter limits. Next: recipe_compile."),
        LintArgs, READER, recipe_lint, "recipes"),
    _action("recipe_compile", "Compile recipe", (
        "Compile a recipe offline exactly as build_prepare does: block count, bounds, palette, budgets, and the "
        "blocks in plan order (paginated). png adds a picture; output writes a Sponge v2 schematic (at most 4096 "
        "cells). A recipe the server would refuse is refused with its message and line:column. Next: "
        "build_prepare with the same recipe."), CompileArgs, WRITER, recipe_compile, "recipes"),
    _action("block_check", "Check block states", (
        "Validate block states against a Minecraft release and return each one's canonical form (every property, "
        "defaults filled); invalid ones carry an error with a hint (did you mean, allowed values). Next: "
        "block_describe for a block's properties."), CheckArgs, READER, block_check, "blocks"),
    _action("block_describe", "Describe block", (
        "A block's properties with their allowed values, defaults, default state and behavior flags for one of the "
        "packaged releases (default 26.2). Unknown ids are refused with did_you_mean. Next: block_check with a full "
        "state."), DescribeArgs, READER, block_describe, "blocks"),
    _action("terrain_preview_offline", "Preview terrain offline", (
        "Compute a terrain recipe's heightmap preview locally, shaped like terrain_preview (terrain_id, sampled "
        "heights, clipped samples, tile layout) with the picture as an image; world_verified is false because no "
        "world was read. Next: terrain_preview against the server, then terrain_prepare."),
        TerrainPreviewArgs, READER, terrain_preview_offline, "terrain"),
]
