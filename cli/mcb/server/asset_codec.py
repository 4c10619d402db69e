"""The schematic codec as the server uses it: strict decode (§6.4), exact export encoding (§6.3), rotation (§6.6).

Thin glue over :mod:`mcb.schematics` (reader/validator/writer) and :mod:`mcb.blocks.transform`; every refusal
becomes the plugin's ``invalid_request`` with the plugin's message.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import numpy as np

from mcb.server.api import invalid

DEFAULT_ASSET_NAME = "Imported schematic"


def decode(data: bytes, state, *, for_import: bool = False):
    """The accepted :class:`~mcb.schematics.model.Schematic` with canonical palette states, or ``invalid_request``.

    Listing does not compare ``DataVersion`` with the server's; import does (§6.2, §6.4 rule 6).
    """
    from mcb.schematics.server_rules import check_server_subset

    verdict = check_server_subset(
        data,
        server_data_version=state.config.data_version if for_import else None,
        registry=state.registry,
    )
    if not verdict.accepted:
        raise invalid(verdict.message or "Malformed schematic")
    return verdict.schematic


def record(asset_id: str, schem, data: bytes) -> dict:
    """The Asset record, camelCase like the plugin's Java record."""
    metadata = schem.metadata if isinstance(schem.metadata, dict) else {}
    name = metadata.get("Name")
    ox, oy, oz = schem.offset
    return {
        "assetId": asset_id,
        "name": str(name) if name is not None else DEFAULT_ASSET_NAME,
        "width": schem.width,
        "height": schem.height,
        "length": schem.length,
        "blockCount": schem.width * schem.height * schem.length,
        "dataVersion": int(schem.data_version),
        "offset": {"x": int(ox), "y": int(oy), "z": int(oz)},
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
    }


def encode_export(*, size, offset, cells: list[str], data_version: int, name: str, author: str, date_ms: int) -> bytes:
    """File bytes of an export: ``cells`` are canonical states in y, z, x order (§6.3)."""
    from mcb.schematics.formats.sponge_writer import encode_schematic
    from mcb.schematics.model import Schematic

    width, height, length = size
    index: dict[str, int] = {}
    flat = np.fromiter((index.setdefault(cell, len(index)) for cell in cells), dtype=np.int32, count=len(cells))
    schem = Schematic(
        width, height, length, list(index), flat.reshape(height, length, width), data_version, offset=tuple(offset)
    )
    return encode_schematic(schem, 2, name=name, author=author, date_ms=date_ms)


def rotated_palette(schem, rotation: int, state) -> list[str]:
    """Every palette state turned clockwise by ``rotation`` degrees with vanilla rules (``BlockData.rotate``)."""
    if rotation == 0:
        return list(schem.palette)
    from mcb.blocks.transform import rotate_state

    turned = []
    for block in schem.palette:
        try:
            turned.append(rotate_state(block, rotation // 90, "vanilla", state.registry))
        except Exception:
            raise invalid("Invalid runtime schematic block state") from None
    return turned


def cells(schem) -> Iterator[tuple[tuple[int, int, int], int]]:
    """``((x, y, z), palette index)`` for every cell, air included, in file order (y, then z, then x)."""
    blocks = schem.blocks
    for y in range(schem.height):
        for z in range(schem.length):
            row = blocks[y, z]
            for x in range(schem.width):
                yield (x, y, z), int(row[x])
