"""The offline schematic tools (schem_validate, schem_info, schem_rotate, schem_mirror, schem_convert,
schem_extras, schem_render): thin adapters over the core functions the `mcb schem` commands call, with the same argument rules
(mcb.schematics.edit_request, the core's own checks). Their descriptions are in the table of offline.py."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mcb.blocks.transform import MIRROR_AXES, ROTATIONS, RULE_SETS
from mcb.building.placement_options import Mirror, Rotation
from mcb.mcp.actions import Context, Image, Outcome
from mcb.mcp.tools.adapters import (
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
from mcb.mcp.tools.rpc_arguments import Position
from mcb.schematics.formats import format_words
from mcb.schematics.render_limits import SCALE_MAX, SCALE_MIN
from mcb.summaries import PLACEMENT_FIELDS
from mcb.wording import dimensions


class ValidateArgs(Arguments):
    paths: list[Path_] = Field(min_length=1, max_length=256, description="Schematic files or directories to walk.")
    profile: Literal["server", "spec"] = Field(
        "server",
        description=("server: the plugin's import subset; spec: the Sponge spec + WorldEdit interoperability."),
    )
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
        reports = validate_paths(
            args.paths,
            profile=args.profile,
            mc_version=args.mc_version,
            globs=args.glob,
            excludes=args.exclude,
            jobs=1,
            progress=FileProgress(ctx),
        )
    return Outcome(report_page(reports, args.strict, args.offset, args.limit, args.files_offset, args.files_limit))


class InfoArgs(Arguments):
    path: Path_ = Field(description="Schematic file in any format (Sponge, Litematica, structure .nbt, legacy).")
    mc_version: McVersion
    offset: Offset
    limit: int = Field(256, ge=1, le=4096, description="Palette entries per page.")


def schem_info(args: InfoArgs, ctx: Context) -> Outcome:
    from mcb.schematics.info import describe_schematic

    with refusing("path", usage_field="mc_version"):
        data = describe_schematic(existing_input(args.path, "path"), args.mc_version)
    palette = data.pop("palette")
    return Outcome({**data, **page(palette, args.offset, args.limit, "palette")})


SchematicFormat = Literal[tuple(format_words())]  # the registry's writable names and their short aliases
ReplaceUnknown = Annotated[
    str,
    Field(
        None,
        min_length=1,
        max_length=1024,
        description=(
            "A block state to put where the file has a block the target release does not know; default: refuse, naming "
            "them."
        ),
    ),
]


class _EditArgs(Arguments):
    path: Path_ = Field(description="Schematic in any format (Sponge, Litematica, structure .nbt, legacy).")
    output: Path_ = Field(None, description="File to write (atomically); or set in_place.")
    in_place: bool = Field(False, description="Overwrite the input file instead of writing output.")
    overwrite: bool = Field(False, description="Replace output when it exists.")
    rules: Literal[RULE_SETS] = Field(
        "vanilla",
        description=(  # type: ignore[valid-type]
            "vanilla: what the server's rotation produces; geometric: WorldEdit-like, also turns connections and, on "
            "mirror, swaps chest halves and stair corners."
        ),
    )
    format: SchematicFormat = Field(
        None,
        description=(
            "Format to write: sponge2, sponge3, litematic or structure; default: the output's extension, else the "
            "input's format."
        ),
    )
    replace_unknown: ReplaceUnknown
    mc_version: McVersion


class RotateArgs(_EditArgs):
    degrees: Literal[tuple(d for d in ROTATIONS if d)] = Field(  # type: ignore[valid-type]
        description="Clockwise turn seen from above."
    )


class MirrorArgs(_EditArgs):
    axis: Literal[MIRROR_AXES] = Field(  # type: ignore[valid-type]
        description="x swaps east and west; z swaps north and south."
    )


def _edit(args, ctx: Context, *, degrees: int | None = None, axis: str | None = None) -> Outcome:
    from mcb.schematics.edit_request import check_edit_request

    source = existing_input(args.path, "path")
    try:
        target, rules, fmt = check_edit_request(
            source,
            degrees=degrees,
            axis=axis,
            output=args.output,
            in_place=args.in_place,
            rules=args.rules,
            fmt=args.format,
        )
    except Exception as error:
        raise refusal_from(error) from None
    ctx.check_cancelled()
    ctx.progress(0, 1, "rotating" if axis is None else "mirroring")
    if not args.in_place:  # checks the name first: target.exists() below cannot fail on it
        new_output(ctx, target, inputs=[source], overwrite=args.overwrite)
    created = not args.in_place and not target.exists()
    from mcb.schematics.rewrite import transform_file

    with refusing("path", usage_field="mc_version"):
        summary = transform_file(
            source,
            target,
            degrees=degrees,
            mirror_axis=axis,
            rules=rules,
            fmt=fmt,
            mc_version=args.mc_version,
            replace_unknown=args.replace_unknown,
        )
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
    format: SchematicFormat = Field(
        None,
        description=(
            "sponge2 (the server's format; the default for .schem), sponge3, litematic or structure (the default for "
            ".litematic and .nbt outputs)."
        ),
    )
    drop_extras: bool = Field(
        False,
        description=(
            "Drop what the target format cannot hold (sponge2: block entities, entities, biomes; cells the file leaves "
            "unchanged become air) instead of refusing."
        ),
    )
    replace_unknown: ReplaceUnknown
    overwrite: bool = Field(False, description="Replace output when it exists.")
    mc_version: McVersion


def schem_convert(args: ConvertArgs, ctx: Context) -> Outcome:
    from mcb.schematics.formats import parse_format

    source = existing_input(args.path, "path")
    target = new_output(ctx, args.output, inputs=[source], overwrite=args.overwrite)
    ctx.check_cancelled()
    ctx.progress(0, 1, "converting")
    from mcb.schematics.convert import convert_schematic

    with refusing("path", usage_field="mc_version"):  # a lossy target: retry_with drop_extras, or lossless_formats
        result = convert_schematic(
            source,
            target,
            fmt=parse_format(args.format),
            drop_extras=args.drop_extras,
            mc_version=args.mc_version,
            replace_unknown=args.replace_unknown,
        )
    ctx.check_cancelled()
    ctx.progress(1, 1, "written")
    return Outcome(result)


class ExtrasArgs(Arguments):
    path: Path_ = Field(description="Schematic in any format (Sponge, Litematica, structure .nbt, legacy).")
    target: Position = Field(description="Where the build put the file's anchor (as schem_build's target).")
    rotation: Rotation = Field(0, description=PLACEMENT_FIELDS["rotation"])
    mirror: Mirror = Field(None, description=PLACEMENT_FIELDS["mirror"])
    output: Path_ = Field(description="The .mcfunction file to write (atomically).")
    overwrite: bool = Field(False, description="Replace output when it exists.")


def schem_extras(args: ExtrasArgs, ctx: Context) -> Outcome:
    source = existing_input(args.path, "path")
    target = new_output(ctx, args.output, inputs=[source], overwrite=args.overwrite)
    ctx.check_cancelled()
    ctx.progress(0, 1, "writing the function")
    from mcb.building.extras import write_extras_function

    with refusing("path"):
        summary = write_extras_function(
            source, (args.target.x, args.target.y, args.target.z), args.rotation, args.mirror, target
        )
    ctx.check_cancelled()
    ctx.progress(1, 1, "written")
    return Outcome(summary)


class RenderArgs(Arguments):
    path: Path_ = Field(description="Schematic in any format (Sponge, Litematica, structure .nbt, legacy).")
    view: Literal["top", "iso", "both"] = Field("both", description="top (height map), iso (isometric) or both.")
    scale: int = Field(None, ge=SCALE_MIN, le=SCALE_MAX, description="Pixels per block (default: fit ~1400 px).")
    max_side: int = Field(
        None, ge=64, le=4096, description="Shrink the picture to at most this many pixels on its longest side."
    )


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
    caption = f"{summary['view']} view of {source.name}, {dimensions(summary['width'], summary['height'])} px"
    return Outcome({**summary, "image": {"mime_type": "image/png", "bytes": len(png)}}, [Image(png, caption)])


def _shrink(png: bytes, max_side: int) -> tuple[bytes, int, int]:
    import io

    from PIL import Image as PILImage

    from mcb.schematics.render import png_bytes

    picture = PILImage.open(io.BytesIO(png))
    picture.thumbnail((max_side, max_side), PILImage.Resampling.NEAREST)
    return png_bytes(picture), picture.width, picture.height
