"""Export a box of the world of any size to a local schematic file (``mcb export --min --max -o FILE``).

The server's own ``schematic_export`` stops at ``max_plan_blocks`` cells and refuses block entities (protocol §6.3);
this reads the box tile by tile with ``region_inspect`` (bottom-up, summary first) and writes one file atomically
with :func:`mcb.schematics.formats.write_any`. Block entities keep their states; their data is not readable over
the protocol (only a snapshot hash), so they are counted for a warning.
"""

from __future__ import annotations

import os
from pathlib import Path

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
    from mcb.schematics.formats import write_any

    schem, facts = region_schematic(client, low, high, origin=origin, name=name, on_read=on_read)
    written = write_any(schem, Path(output), fmt)
    return {"file": str(written), "format": fmt, **facts}
