"""Writing Litematica ``.litematic`` files from the model (the reader is :mod:`mcb.schematics.formats.litematic`):
every region the model has.

Which regions (the model's own Litematica regions while they describe it, else one covering the box) is
:mod:`mcb.schematics.formats.litematic_regions`. A region's palette is the states its cells use, air first, in
order of first use (Litematica's own order); cells the model leaves unchanged inside a region are written as air
(:func:`mcb.schematics.formats.losses.format_losses` says so first).
"""

from __future__ import annotations

import struct
import time

import numpy as np

from mcb.schematics.cells import first_seen_order
from mcb.schematics.formats.bit_packing import bits_for, pack_indices
from mcb.schematics.formats.common import encoded_states, without
from mcb.schematics.formats.litematic import AIR
from mcb.schematics.formats.litematic_regions import OutRegion, written_regions
from mcb.schematics.formats.losses import writable_parts
from mcb.schematics.model import BlockEntity, Entity, Schematic
from mcb.schematics.nbt import (
    TAG_COMPOUND,
    TAG_LIST,
    TAG_LONG_ARRAY,
    Compound,
    Double,
    Int,
    List,
    Long,
    NumericArray,
    String,
)
from mcb.schematics.nbt_encoder import EncodedPieces, EncodingMemo, encode_payload

COMPONENTS_DATA_VERSION = 3837  # 1.20.5: item data became components; Litematica marks such files Version 7
TALL_WORLDS = 2860  # 1.18: Litematica files of 1.18 to 1.20.4 are Version 6; older releases' Litematica reads 5


def litematic_tree(
    schem: Schematic, *, name: str | None = None, author: str | None = None, date_ms: int | None = None
) -> tuple[str, Compound]:
    """(root name, root compound) of ``schem``: every region of :func:`written_regions`."""
    regions = written_regions(schem, name)
    block_entities, entities = writable_parts(schem, "litematic")  # the rest said by format_losses
    tags = Compound()
    non_air = 0
    for i, region in enumerate(regions):
        if len(regions) == 1:  # the box: every block entity written sits in it
            mine, theirs = block_entities, entities
        else:  # a block entity goes to the last region holding its block (whose cell wins where regions overlap),
            # an entity to the last holding its block, else the first
            mine = [be for be in block_entities if _last_holder(regions, be.pos) == i]
            theirs = [e for e in entities if max(_last_holder(regions, [int(p // 1) for p in e.pos]), 0) == i]
        tags[region.name], count = _region_tag(schem, region, mine, theirs)
        non_air += count
    meta_in = schem.metadata if isinstance(schem.metadata, dict) else {}
    now = int(date_ms if date_ms is not None else time.time() * 1000)
    metadata = Compound(
        Name=String(str(name or meta_in.get("Name") or regions[0].name)),
        Author=String(author or str(meta_in.get("Author") or "mcb")),
        Description=String(str(meta_in.get("Description") or "")),
        RegionCount=Int(len(regions)),
        TotalVolume=Int(sum(r.dims[0] * r.dims[1] * r.dims[2] for r in regions)),
        TotalBlocks=Int(non_air),
        EnclosingSize=_xyz(schem.size),
        TimeCreated=Long(int(meta_in.get("TimeCreated") or now)),
        TimeModified=Long(now),
    )
    version = 7 if schem.data_version >= COMPONENTS_DATA_VERSION else 6 if schem.data_version >= TALL_WORLDS else 5
    root = Compound(
        MinecraftDataVersion=Int(schem.data_version),
        Version=Int(version),
        SubVersion=Int(1),
        Metadata=metadata,
        Regions=tags,
    )
    return "", root


def _last_holder(regions: list[OutRegion], pos) -> int:
    return next((i for i in range(len(regions) - 1, -1, -1) if regions[i].holds(pos)), -1)


def _xyz(values) -> Compound:
    return Compound(x=Int(values[0]), y=Int(values[1]), z=Int(values[2]))


def _region_tag(schem: Schematic, region: OutRegion, block_entities, entities) -> tuple[Compound, int]:
    """(the region's compound, how many of its cells are not air)."""
    window = region.window
    palette, indices = region_palette(
        schem.blocks[window], schem.palette, schem.void[window] if schem.void is not None else None
    )
    words = pack_indices(indices, bits_for(len(palette)))
    words.byteswap(inplace=True)  # big-endian, as NBT stores them (the packer's own array: no copy)
    offset = tuple(p - o for p, o in zip(region.position, schem.offset))  # Position in the model's frame
    tag = Compound(
        Position=_xyz(region.position),
        Size=_xyz(region.size),
        BlockStatePalette=encoded_states(palette),
        BlockStates=NumericArray(TAG_LONG_ARRAY, words.tobytes()),
        TileEntities=tile_entity_list(block_entities, region.low),
        Entities=List([_entity_entry(e, offset) for e in entities], TAG_COMPOUND),
        PendingBlockTicks=List((), TAG_COMPOUND),
        PendingFluidTicks=List((), TAG_COMPOUND),
    )
    return tag, int(np.count_nonzero(indices))


def region_palette(cells: np.ndarray, palette: list[str], void: np.ndarray | None) -> tuple[list[str], np.ndarray]:
    """(the region's palette: the states its placed cells use, air first, then in order of first use; its cells as
    indices of it, void ones air). The model's cells come back as they are when they already are those indices
    (a model read from a Litematica file): no copy."""
    flat = cells.ravel() if void is None else cells[~void]
    order = first_seen_order(flat, len(palette)) if flat.size else np.zeros(0, dtype=np.int64)
    states = [palette[i] for i in order]
    written = [AIR, *(state for state in dict.fromkeys(states) if state != AIR)]
    index = {state: i for i, state in enumerate(written)}
    table = np.zeros(max(len(palette), 1), dtype=np.int32)  # entries no placed cell uses: never read
    table[order] = [index[state] for state in states]
    same = table.size == len(written) and np.array_equal(table, np.arange(table.size))
    indices = cells if same else table[cells]
    if void is not None and void.any():
        indices = np.where(void, 0, indices)
    return written, indices


# Int tags x, y and z of a block entity: a header each (tag 3, name length 1, the name) and the value
_XYZ_TAGS = struct.Struct(">4si4si4si")
_X, _Y, _Z = (b"\x03\x00\x01" + axis for axis in (b"x", b"y", b"z"))


def tile_entity_list(block_entities: list[BlockEntity], low) -> EncodedPieces:
    """The encoded ``TileEntities`` list payload: x, y, z from the region's minimum corner ``low``, then ``id`` and
    the data. Everything after the position is encoded once per distinct (id, data) (:class:`EncodingMemo`) and
    copied behind each position; the bytes are those of each entry encoded on its own."""
    out = [struct.pack(">bi", TAG_COMPOUND, len(block_entities))]
    append, pack = out.append, _XYZ_TAGS.pack
    memo = EncodingMemo()
    tags, depth = 1, 1  # the list's own; then each entry's as tree_facts counts it
    lx, ly, lz = low
    for be in block_entities:
        encoded, (below, deepest), _ = memo.get(be.id, be.data, _rest, be)
        x, y, z = be.pos
        append(pack(_X, x - lx, _Y, y - ly, _Z, z - lz))
        append(encoded)
        tags += below + 3  # and the three position tags
        if deepest + 1 > depth:
            depth = deepest + 1
    return EncodedPieces(TAG_LIST, out, tags, depth)


def _rest(be: BlockEntity) -> tuple[bytes, tuple[int, int]]:
    """A block entity's entry after its position (the rest of the compound payload) and its (tags, depth)."""
    rest = Compound(id=String(be.id)) if be.id else Compound()
    rest.update(without(be.data or {}, "x", "y", "z", "id"))
    encoded: list[bytes] = []
    facts = encode_payload(encoded, TAG_COMPOUND, rest)
    return b"".join(encoded), facts


def _entity_entry(entity: Entity, offset) -> Compound:
    """An entity: ``Pos`` from the region's Position (``offset``: that Position in the model's frame)."""
    entry = Compound(Pos=List([Double(p - o) for p, o in zip(entity.pos, offset)], 6))
    if entity.id:
        entry["id"] = String(entity.id)
    entry.update(without(entity.data or {}, "Pos", "id"))
    return entry
