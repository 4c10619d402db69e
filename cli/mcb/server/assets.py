"""The schematic library of ``mcb serve``: ``asset_list``, ``schematic_export``, ``schematic_import_prepare``
(protocol §3.12, §6).

The library is ``<data dir>/schematics/``; an asset is ``<asset id>.schem`` there. Files are decoded with the
server's strict Sponge v2 subset (§6.4) and exports are written in the plugin's exact layout (§6.3); both live in
the schematic codec (:mod:`mcb.server.asset_codec` adapts it). Every file and format problem is ``invalid_request``
with the plugin's message, as in the plugin.
"""

from __future__ import annotations

import math
import os
import re
import threading
import uuid
from pathlib import Path

from mcb.fileio import write_atomic as write_file_atomic
from mcb.server.api import (
    RpcError,
    blockpos_text,
    integer_param,
    invalid,
    now_ms,
    optional_string,
    pos_param,
    required_string,
)
from mcb.server.catalog import is_iso_control, utf16_length

ASSET_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
MAX_LIBRARY_FILES = 64
MAX_COMPRESSED_BYTES = 1_048_576
ROTATIONS = (0, 90, 180, 270)
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
EXPORT_AUTHOR = "minecraft-builder-mcp"
_LIBRARY_WRITE = threading.Lock()


# -- the library folder ------------------------------------------------------------------------------------------
def library_dir(state) -> Path:
    """``<data dir>/schematics``, created on first use; refused if it or any parent is a symlink."""
    folder = Path(state.data_dir) / "schematics"
    folder.mkdir(parents=True, exist_ok=True)
    for path in (folder, *folder.parents):
        if path.is_symlink():
            raise invalid("Schematic library path must not contain symbolic links")
    return folder


def library_files(folder: Path) -> list[tuple[str, Path]]:
    """``(asset_id, path)`` of every ``*.schem``, sorted by file name, after the naming and file-type rules."""
    names = sorted(entry.name for entry in os.scandir(folder) if entry.name.endswith(".schem"))
    if len(names) > MAX_LIBRARY_FILES:
        raise invalid("Asset library holds more than 64 files")
    files = []
    for name in names:
        asset_id = name[: -len(".schem")]
        if not ASSET_ID_RE.fullmatch(asset_id):
            raise invalid(f"Invalid schematic file name: {name}")
        path = folder / name
        if path.is_symlink() or not path.is_file():
            raise invalid(f"Schematic asset is not a regular file: {name}")
        files.append((asset_id, path))
    return files


def read_asset_file(path: Path) -> bytes:
    """The file's bytes, never more than 1 MiB + 1 (the decoder refuses anything over 1 MiB)."""
    with open(path, "rb") as handle:
        return handle.read(MAX_COMPRESSED_BYTES + 1)


def asset_record(state, asset_id: str, data: bytes) -> dict:
    """The Asset record (camelCase, as the plugin's Java record serializes)."""
    from mcb.server import asset_codec

    decoded = asset_codec.decode(data, state)
    return asset_codec.record(asset_id, decoded, data)


# -- asset_list --------------------------------------------------------------------------------------------------
def asset_list(ctx, params):
    state = ctx.state
    query = optional_string(params, "query")
    needle = None if query is None else query.lower()
    assets = []
    for asset_id, path in library_files(library_dir(state)):
        record = asset_record(state, asset_id, read_asset_file(path))
        if needle is None or needle in record["name"].lower():
            assets.append(record)
    return {"assets": assets}


# -- schematic_export --------------------------------------------------------------------------------------------
def schematic_export(ctx, params):
    state = ctx.state
    with state.main_thread():  # the plugin reads the box on the main thread; the file work happens after
        low, size, cells = _read_export_box(state, params)
    name = required_string(params, "name")
    if not valid_asset_name(name):
        raise invalid("Asset name must contain 1..64 printable characters")
    origin = pos_param(params, "origin") if params.get("origin") is not None else low
    offset = tuple(_int32(a - b) for a, b in zip(low, origin))
    from mcb.server import asset_codec

    data = asset_codec.encode_export(
        size=size,
        offset=offset,
        cells=cells,
        data_version=state.config.data_version,
        name=name,
        author=EXPORT_AUTHOR,
        date_ms=now_ms(),
    )
    with _LIBRARY_WRITE:  # two exports must not both pass the 64-file check
        folder = library_dir(state)
        if len(library_files(folder)) >= MAX_LIBRARY_FILES:
            raise invalid("Asset library is full (64 files maximum)")
        if len(data) > MAX_COMPRESSED_BYTES:
            raise invalid("Compressed asset exceeds 1 MiB")
        asset_id = str(uuid.uuid4())
        path = write_atomic(folder, f"{asset_id}.schem", data)
    return asset_record(state, asset_id, read_asset_file(path))


def _read_export_box(state, params):
    """§6.3 steps 1-3: bounds, volume, entities, then every block in y, z, x order (no block entities)."""
    world = state.world
    low, high = pos_param(params, "min"), pos_param(params, "max")
    if any(a > b for a, b in zip(low, high)):
        raise invalid("Invalid inclusive region bounds")
    if not (world.in_region(low) and world.in_region(high)):
        raise RpcError("out_of_bounds", "Export exceeds project region")
    size = tuple(b - a + 1 for a, b in zip(low, high))
    limit = state.config.max_plan_blocks
    if size[0] * size[1] * size[2] > limit:
        raise RpcError("budget_exceeded", f"Export at most {limit} blocks")
    for entity in entities(state):
        if entity["type"] != "minecraft:player" and all(
            a <= math.floor(p) <= b for a, p, b in zip(low, entity["pos"], high)
        ):
            raise RpcError("unsupported_entity", "Export region contains entities; this prototype exports blocks only")
    cells = []
    for y in range(low[1], high[1] + 1):
        for z in range(low[2], high[2] + 1):
            for x in range(low[0], high[0] + 1):
                block = world.read((x, y, z))
                if _has_block_entity(state, block):
                    raise RpcError(
                        "unsupported_block_entity",
                        f"Schematic export cannot retain block-entity data at {blockpos_text((x, y, z))}; "
                        "no asset was written",
                    )
                cells.append(block)
    return low, size, cells


def entities(state) -> list[dict]:
    """Entities standing in the world (``{type, pos:(x, y, z) floats}``); only the test hook adds them."""
    found = getattr(state, "peripheral_entities", None)
    if found is None:
        found = state.peripheral_entities = []
    return found


def hook_spawn_entity(ctx, params):
    """Test hook: put an entity (a mob, an item frame, a player...) at a position so exports can meet it."""
    kind = required_string(params, "type")
    pos = params.get("pos")
    if not isinstance(pos, dict) or not all(
        isinstance(pos.get(a), (int, float)) and not isinstance(pos.get(a), bool) for a in "xyz"
    ):
        raise invalid("pos {x,y,z} numbers required")
    entity = {"type": kind if ":" in kind else f"minecraft:{kind}", "pos": tuple(float(pos[a]) for a in "xyz")}
    entities(ctx.state).append(entity)
    return {"type": entity["type"], "pos": dict(zip("xyz", entity["pos"]))}


def valid_asset_name(name: str) -> bool:
    return 1 <= utf16_length(name) <= 64 and not any(is_iso_control(ch) for ch in name)


def _has_block_entity(state, block: str) -> bool:
    name = block.partition("[")[0]
    try:
        flags = state.registry.behavior(name)
    except Exception:
        return False
    return "block_entity" in (flags.get("behavior", []) if isinstance(flags, dict) else flags)


def write_atomic(folder: Path, file_name: str, data: bytes) -> Path:
    """Temp file in the library, fsync, rename into place, fsync the folder."""
    return write_file_atomic(folder / file_name, data, sync_dir=True)


# -- schematic_import_prepare ------------------------------------------------------------------------------------
def schematic_import_prepare(ctx, params):
    state = ctx.state
    asset_id = required_string(params, "asset_id")
    if not ASSET_ID_RE.fullmatch(asset_id):
        raise invalid("Invalid asset ID; paths are not accepted")
    target = pos_param(params, "target")
    rotation = integer_param(params, "rotation", 0)
    if rotation not in ROTATIONS:
        raise invalid("Rotation must be 0, 90, 180 or 270 degrees")
    path = library_dir(state) / f"{asset_id}.schem"
    if path.is_symlink() or not path.is_file():
        raise invalid("Asset not found or is not a regular file")
    from mcb.server import asset_codec

    schem = asset_codec.decode(read_asset_file(path), state, for_import=True)
    states = asset_codec.rotated_palette(schem, rotation, state)
    changes = [(place(cell, schem.offset, rotation, target), states[index]) for cell, index in asset_codec.cells(schem)]
    with state.main_thread():  # the file was read on the RPC thread, as in the plugin; the plan is main-thread work
        summary = state.create_plan("import", changes)
        state.latch_journal()
    return summary


def place(cell, offset, rotation: int, target) -> tuple[int, int, int]:
    """World position of schematic cell (x, y, z): target + R(offset + cell), with int32 overflow checks (§6.5)."""
    dx, dy, dz = (_int32(c + o) for c, o in zip(cell, offset))
    for _ in range(rotation // 90):
        dx, dz = _int32(-dz), dx
    return (_int32(target[0] + dx), _int32(target[1] + dy), _int32(target[2] + dz))


def _int32(value: int) -> int:
    if not INT32_MIN <= value <= INT32_MAX:
        raise invalid("integer overflow")  # Java's Math.addExact/negateExact message
    return value
