"""``schem_materials``: the items a schematic file takes (mcb.building.materials, the core `mcb materials` calls),
offline, or placed at a target in the live world, minus what the world holds there."""

from __future__ import annotations

from pydantic import Field

from mcb.building.placement_options import Mirror, Rotation
from mcb.mcp.actions import Context, Hints, Outcome
from mcb.mcp.tools.adapters import Arguments, Offset, Path_, existing_input, page, refusing
from mcb.mcp.tools.rpc_arguments import Position
from mcb.summaries import PLACEMENT_FIELDS

# Reads only; with a target it reads the live world (open world), offline it reads the file alone.
MATERIALS_HINTS = Hints(read_only=True, destructive=False, idempotent=True, open_world=True)


class MaterialsArgs(Arguments):
    path: Path_ = Field(description="Schematic file in any format (Sponge, Litematica, structure .nbt, legacy).")
    target: Position = Field(
        None,
        description="Where the file's anchor goes in the live world (as for schem_build): count only what is still "
        "to place there. Default: no world is read.",
    )
    rotation: Rotation = Field(0, description=PLACEMENT_FIELDS["rotation"])
    mirror: Mirror = Field(None, description=PLACEMENT_FIELDS["mirror"])
    replace_unknown: str = Field(None, min_length=1, max_length=1024, description=PLACEMENT_FIELDS["replace_unknown"])
    offset: Offset
    limit: int = Field(100, ge=1, le=2000, description="Items per page, most to gather first.")


def schem_materials(args: MaterialsArgs, ctx: Context) -> Outcome:
    from mcb.building.materials import count_materials, materials_json
    from mcb.building.placement import PlacementOptions, load_placement

    source = existing_input(args.path, "path")
    anchor = (args.target.x, args.target.y, args.target.z) if args.target is not None else (0, 0, 0)
    given = {"mirror": args.mirror, "replace_unknown": args.replace_unknown}
    options = PlacementOptions(target=anchor, rotation=args.rotation, drop_extras=True,
                               **{k: v for k, v in given.items() if v is not None})  # fmt: skip
    ctx.check_cancelled()
    with refusing("path", usage_field="replace_unknown"):
        placement = load_placement(source, options)
    if args.target is None:
        data = materials_json(count_materials(placement))
    else:
        data = materials_json(_count_in_world(placement, ctx))
    items = data.pop("items")
    data.pop("shown")
    return Outcome({**data, **page(items, args.offset, args.limit, "items")})


def _count_in_world(placement, ctx: Context):
    from mcb.building.materials import count_materials
    from mcb.building.placement import check_fits
    from mcb.errors import InputError, McbError
    from mcb.mcp.refusals import refusal_for
    from mcb.mcp.tools.adapters import refusal_from

    def on_tile(done: int, total: int, counter) -> None:
        ctx.check_cancelled()
        ctx.progress(done, total, f"tile {done:,}/{total:,}: {counter.cells:,} cells read")

    try:
        client = ctx.client()
        check_fits(placement, client.project_context().region, reading=True)
        return count_materials(placement, world=client, on_tile=on_tile)
    except McbError as error:
        ctx.check_cancelled()
        if isinstance(error, InputError):  # the build's box outside the project area
            raise refusal_from(error, "target") from None
        raise refusal_for(error, "schem_materials", {}, server=getattr(ctx, "server", None)) from None
