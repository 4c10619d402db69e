"""Export a box of the world of any size to a local schematic file (``mcb export --min --max -o FILE``).

The server's own ``schematic_export`` stops at ``max_plan_blocks`` cells and refuses block entities (protocol §6.3);
this reads the box tile by tile with ``region_inspect`` (bottom-up, summary first) and writes one file atomically
with :func:`mcb.schematics.formats.write_any`. Block entities keep their states; their data is not readable over
the protocol (only a snapshot hash), so they are counted for a warning.
"""

from __future__ import annotations

import os

import numpy as np

from mcb.building.reading import WorldReader

Vec3 = tuple[int, int, int]


def region_schematic(
    client, low: Vec3, high: Vec3, *, origin: Vec3 | None = None, name: str | None = None, on_read=None
):
    """``(Schematic, facts)`` of the world box ``low .. high`` (inclusive); ``origin`` is the paste anchor
    (default ``low``), so the file's paste offset is ``low - origin``."""
    from mcb.blocks.registry import load_registry
    from mcb.schematics.model import Schematic

    check_export_box(client, low, high)
    reader = WorldReader(client)
    table, counter = reader.table, reader.counter
    world = reader.read_large_box(low, high, on_read=on_read)
    used, blocks = np.unique(world.codes, return_inverse=True)
    blocks = blocks.reshape(world.codes.shape).astype(np.int32)
    origin = origin or low
    height, length, width = blocks.shape
    schem = Schematic(
        width=width,
        height=height,
        length=length,
        palette=[table.names[i] for i in used],
        blocks=blocks,
        data_version=load_registry(None).data_version,
        offset=tuple(a - b for a, b in zip(low, origin)),
    )
    schem = schem.compact_palette()  # indices in first-appearance order, as the server's exporter numbers them
    if name:
        from mcb.schematics.nbt import Compound, String

        schem.metadata = Compound({"Name": String(name)})
    facts = {
        "size": {"width": width, "height": height, "length": length},
        "cells": int(blocks.size),
        "palette": len(schem.palette),
        "block_entities": len(world.snapshots),
        **counter.to_json(),
    }
    return schem, facts


def check_export_box(client, low: Vec3, high: Vec3) -> None:
    """Refuse, before anything is read or allocated, a box outside the project area (one ``project_context``) or
    larger than a schematic mcb reads back (:class:`mcb.schematics.nbt.ReadLimits`' cell limit)."""
    from mcb.errors import InputError
    from mcb.schematics.nbt import ReadLimits
    from mcb.wording import plural

    region = client.project_context().region
    if region is not None:
        area = (region.min.x, region.min.y, region.min.z), (region.max.x, region.max.y, region.max.z)
        outside = [a for a in range(3) if low[a] < area[0][a] or high[a] > area[1][a]]
        if outside:
            corner = "min" if any(low[a] < area[0][a] for a in outside) else "max"
            raise InputError(
                f"the box {_xyz(low)} .. {_xyz(high)} leaves the project area {_xyz(area[0])} .. {_xyz(area[1])} "
                f"on {' and '.join('xyz'[a] for a in outside)}: nothing was read",
                code="out_of_bounds",
                hint="keep the corners inside the project area ({project_context} shows it)",
                details={"field": corner, "area": [list(area[0]), list(area[1])]},
            )
    cells = (high[0] - low[0] + 1) * (high[1] - low[1] + 1) * (high[2] - low[2] + 1)
    limit = ReadLimits().max_cells
    if cells > limit:
        raise InputError(
            f"the box {_xyz(low)} .. {_xyz(high)} holds {plural(cells, 'cell')}, more than a schematic mcb reads "
            f"back ({limit:,}): nothing was read",
            code="export.too_large",
            hint="export it in parts of at most that many cells",
            details={"field": "max", "cells": cells, "limit": limit},
        )


def _xyz(pos) -> str:
    return ",".join(str(v) for v in pos)


def export_region(
    client,
    low: Vec3,
    high: Vec3,
    output: str | os.PathLike,
    fmt: str = "sponge2",
    *,
    origin: Vec3 | None = None,
    name: str | None = None,
    on_read=None,
) -> dict:
    from mcb.schematics.formats import name_mismatch, write_any

    schem, facts = region_schematic(client, low, high, origin=origin, name=name, on_read=on_read)
    written = write_any(schem, output, fmt)  # mcb.fileio.STDOUT (the CLI's `-o -`) writes to stdout
    mismatch = name_mismatch(fmt, output)  # as `schem convert` says it: x.litematic holding Sponge data
    return {"file": str(written), "format": fmt, **facts, "notes": [mismatch] if mismatch else []}
