"""What a format cannot hold of a model, with counts: each format's record names its kinds
(:attr:`mcb.schematics.formats.SchematicFormat.cannot_hold`), this module measures them.

    losses = format_losses(schem, "litematic")   # [{"what", "count", "detail", "data"}]: empty when nothing is lost

``data`` False marks what changes no block (the anchor): a conversion says it, and refuses only for the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcb.wording import dimensions, plural

if TYPE_CHECKING:
    from mcb.schematics.model import Schematic


def outside_block_entities(schem: Schematic) -> list:
    """Block entities whose position lies outside the box (a Sponge file may hold them; no block carries them)."""
    width, height, length = schem.size
    outside = []
    for be in schem.block_entities:  # 42,010 in a big build: no generator per entry
        x, y, z = be.pos
        if not (0 <= int(x) < width and 0 <= int(y) < height and 0 <= int(z) < length):
            outside.append(be)
    return outside


def without_id(items) -> list:
    """Block entities or entities with no id: no format can say what they are (the readers name a block entity
    after its block where the block has one kind, :mod:`mcb.schematics.block_entities`)."""
    return [item for item in items if not item.id]


def _void(schem: Schematic, label: str) -> dict | None:
    import numpy as np

    void = int(np.count_nonzero(schem.void)) if schem.void is not None else 0
    return _void_as_air(void, f"{label} has no 'leave unchanged' cell")


def _region_void(schem: Schematic, label: str) -> dict | None:
    """Litematica leaves the cells outside its regions unchanged, not those inside one."""
    from mcb.schematics.formats.litematic_regions import void_written_as_air

    return _void_as_air(void_written_as_air(schem), f"a {label} region has no 'leave unchanged' cell")


def _void_as_air(void: int, why: str) -> dict | None:
    if not void:
        return None
    return {
        "what": "void cells",
        "count": void,
        "data": True,
        "detail": f"{plural(void, 'cell')} the file leaves unchanged are written as air ({why})",
    }


def _anchor(schem: Schematic, label: str) -> dict | None:
    if not any(schem.offset):
        return None
    return {
        "what": "anchor",
        "count": 1,
        "data": False,
        "detail": f"the paste offset {', '.join(map(str, schem.offset))} is not kept: a structure is placed from "
        "its corner",
    }


def _outside(schem: Schematic, label: str) -> dict | None:
    outside = outside_block_entities(schem)
    if not outside:
        return None
    kinds = ", ".join(sorted({be.id for be in outside}))
    one = len(outside) == 1
    return {
        "what": "block entities outside the box",
        "count": len(outside),
        "data": True,
        "detail": f"{plural(len(outside), 'block entity', 'block entities')} ({kinds}) outside the "
        f"{dimensions(*schem.size)} box {'is' if one else 'are'} not written ({label} keeps block entities "
        "on their blocks)",
    }


def _biomes(schem: Schematic, label: str) -> dict | None:
    if schem.biome_palette is None or schem.biomes is None:
        return None
    return {
        "what": "biomes",
        "count": len(schem.biome_palette),
        "data": True,
        "detail": f"biomes are not written ({label} has none)",
    }


def _biomes_3d(schem: Schematic, label: str) -> dict | None:
    biomes = schem.biomes
    if schem.biome_palette is None or biomes is None or biomes.shape[0] < 2 or not (biomes != biomes[:1]).any():
        return None
    return {
        "what": "biomes",
        "count": len(schem.biome_palette),
        "data": True,
        "detail": f"3-D biomes keep only their lowest layer ({label} biomes are 2-D)",
    }


def _without_id(schem: Schematic, label: str) -> dict | None:
    blocks, others = without_id(schem.block_entities), without_id(schem.entities)
    if not blocks and not others:
        return None
    parts = [
        plural(len(items), one, many)
        for items, one, many in ((blocks, "block entity", "block entities"), (others, "entity", "entities"))
        if items
    ]
    where = ", ".join(",".join(str(int(p)) for p in be.pos) for be in blocks[:3])
    return {
        "what": "without id",
        "count": len(blocks) + len(others),
        "data": True,
        "detail": f"{' and '.join(parts)} without an id "
        + (
            f"({'block entity' if len(blocks) == 1 else 'block entities'} at {where}"
            f"{', ...' if len(blocks) > 3 else ''}) "
            if blocks
            else ""
        )
        + (
            "is not written: no format can say what it is"
            if len(blocks) + len(others) == 1
            else "are not written: no format can say what they are"
        ),
    }


LOSSES = {
    "void": _void,
    "region_void": _region_void,
    "anchor": _anchor,
    "outside_block_entities": _outside,
    "biomes": _biomes,
    "biomes_3d": _biomes_3d,
    "without_id": _without_id,
}


def format_losses(schem: Schematic, fmt: str) -> list[dict]:
    """What ``fmt`` cannot hold of ``schem``: ``{"what", "count", "detail", "data"}`` each, in the record's order."""
    from mcb.schematics.formats import by_name

    record = by_name(fmt)
    found = (LOSSES[kind](schem, record.label) for kind in record.cannot_hold)
    return [loss for loss in found if loss is not None]


def writable_parts(schem: Schematic, fmt: str) -> tuple[list, list]:
    """(the block entities, the entities) a writer of ``fmt`` writes: the ones its format can hold."""
    from mcb.schematics.formats import by_name

    cannot = by_name(fmt).cannot_hold
    drop = {id(be) for be in outside_block_entities(schem)} if "outside_block_entities" in cannot else set()
    block_entities = [be for be in schem.block_entities if be.id and id(be) not in drop]
    return block_entities, [entity for entity in schem.entities if entity.id]
