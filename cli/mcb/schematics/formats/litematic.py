"""Litematica ``.litematic`` (Version 5-7): regions of packed palette indices, read into the one model and written.

Facts (spec formats-and-building.md §A.1): a region's ``Size`` may be negative on any axis (its cells then run from
``Position`` back towards ``Position + Size + 1``); ``BlockStates`` packs each cell's palette index in
``max(2, bit_length(len(palette) - 1))`` bits, little end first, and an entry **may span two longs**; cell ``i`` of a
region is ``(y * Z + z) * X + x`` from its minimum corner. Block entities carry x/y/z from the region's minimum
corner, entities a ``Pos`` from the region's ``Position``.

The model is the box enclosing every region, in ``Position`` space: the schematic's origin (0,0,0) is the anchor, so
``offset`` is the enclosing box's minimum corner. Cells no region covers are void (left unchanged). Where regions
overlap, the later region's non-air cells win (a warning says so).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mcb.schematics.formats.common import Fields, compound_from_state, dense_palette, state_from_compound, without
from mcb.schematics.model import BlockEntity, Entity, Schematic, SourceInfo
from mcb.schematics.nbt import (
    TAG_COMPOUND,
    TAG_LONG_ARRAY,
    Compound,
    Double,
    Int,
    List,
    Long,
    NumericArray,
    String,
    tag_type,
)

READ_VERSIONS = range(1, 8)  # 5, 6 and 7 are what Litematica writes today; older ones share the layout
AIR = "minecraft:air"
_STEP = 1 << 20  # cells unpacked per numpy pass: bounded temporaries for any size


def bits_for(palette_size: int) -> int:
    return max(2, (max(palette_size, 1) - 1).bit_length())


def unpack_indices(longs: np.ndarray, bits: int, count: int) -> np.ndarray:
    """``count`` entries of ``bits`` bits each from little-endian-packed unsigned 64-bit words (entries may span
    two words)."""
    out = np.empty(count, dtype=np.int32)
    words = np.append(longs.astype(np.uint64, copy=False), np.uint64(0))  # a zero word past the end: no bounds test
    mask = np.uint64((1 << bits) - 1)
    for start in range(0, count, _STEP):
        bit = np.arange(start, min(count, start + _STEP), dtype=np.uint64) * np.uint64(bits)
        word = (bit >> np.uint64(6)).astype(np.intp)
        shift = bit & np.uint64(63)
        low = words[word] >> shift
        # the high part of an entry that runs into the next word (a shift of 64 never survives the mask)
        high = np.where(
            shift + np.uint64(bits) > 64, words[word + 1] << ((np.uint64(64) - shift) & np.uint64(63)), np.uint64(0)
        )
        out[start : start + word.size] = ((low | high) & mask).astype(np.int32)
    return out


def pack_indices(values: np.ndarray, bits: int) -> np.ndarray:
    """The inverse of :func:`unpack_indices`: int64 words (as NBT stores them, signed)."""
    count = values.size
    total = -(-count * bits // 64)
    words = np.zeros(total + 1, dtype=np.uint64)
    for start in range(0, count, _STEP):
        chunk = values[start : start + _STEP].astype(np.uint64)
        bit = np.arange(start, start + chunk.size, dtype=np.uint64) * np.uint64(bits)
        word = (bit >> np.uint64(6)).astype(np.intp)
        shift = bit & np.uint64(63)
        # bits of different entries never overlap, so adding the pieces of one word is or-ing them
        _add_runs(words, word, chunk << shift)
        crossing = shift + np.uint64(bits) > 64
        if crossing.any():
            _add_runs(words, word[crossing] + 1, chunk[crossing] >> (np.uint64(64) - shift[crossing]))
    return words[:total].view(np.int64)


def _add_runs(words: np.ndarray, index: np.ndarray, parts: np.ndarray) -> None:
    """``words[index[k]] += parts[k]`` for a non-decreasing ``index`` (one sum per run of equal indices)."""
    if not index.size:
        return
    starts = np.flatnonzero(np.r_[True, index[1:] != index[:-1]])
    words[index[starts]] += np.add.reduceat(parts, starts)


def region_box(position, size) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(minimum corner, dimensions) of a region from its Position and (possibly negative) Size."""
    low = tuple(p + s + 1 if s < 0 else p for p, s in zip(position, size))
    return low, tuple(abs(s) for s in size)  # type: ignore[return-value]


def read_litematic(doc, options=None) -> Schematic:
    """The model of a recognised Litematica document."""
    fields = Fields(doc, "litematic")
    root = doc.root
    version = fields.integer(root, "Version")
    if version not in READ_VERSIONS:
        raise fields.fail(
            f"Litematica Version {version} is not one mcb reads (1 to 7)",
            "version.unsupported",
            "Version",
            hint="save it again with a current Litematica",
        )
    data_version = fields.integer(root, "MinecraftDataVersion", required=False)
    regions_tag = fields.get(root, "Regions", (TAG_COMPOUND,))
    regions = [_read_region(fields, name, tag) for name, tag in regions_tag.items()]
    regions = [r for r in regions if r.volume]
    if not regions:
        raise fields.fail("the schematic has no region with cells", "regions.empty", "Regions")
    low = tuple(min(r.low[a] for r in regions) for a in range(3))
    high = tuple(max(r.low[a] + r.dims[a] for r in regions) for a in range(3))
    dims = tuple(h - lo for h, lo in zip(high, low))
    fields.check_cells(dims, "Regions")
    width, height, length = dims
    palette: list[str] = [AIR]
    index_of = {AIR: 0}
    blocks = np.zeros((height, length, width), dtype=np.int32)
    void = np.ones((height, length, width), dtype=bool)
    overlaps: list[str] = []
    block_entities: list[BlockEntity] = []
    entities: list[Entity] = []
    for region in regions:
        for state in region.palette:
            if state not in index_of:
                index_of[state] = len(palette)
                palette.append(state)
        remap = np.array([index_of[state] for state in region.palette], dtype=np.int32)
        x0, y0, z0 = (region.low[a] - low[a] for a in range(3))
        rx, ry, rz = region.dims
        cells = remap[_cells(fields, region)].reshape(ry, rz, rx)
        window = (slice(y0, y0 + ry), slice(z0, z0 + rz), slice(x0, x0 + rx))
        taken = ~void[window]
        if taken.any():
            overlaps.append(region.name)
            keep = taken & (cells == index_of[AIR])  # an earlier region's block stays under this one's air
            cells = np.where(keep, blocks[window], cells)
        blocks[window] = cells
        void[window] = False
        for i, entry in enumerate(region.tile_entities):
            block_entities.append(_block_entity(fields, region, entry, (x0, y0, z0), i))
        for i, entry in enumerate(region.entities):
            entities.append(_entity(fields, region, entry, low, i))
    metadata = root.get("Metadata")
    source = SourceInfo(
        version=version,
        compressed=doc.stats.compressed,
        producer="litematica",
        format="litematic",
        compressed_size=doc.stats.compressed_size,
        inflated_size=doc.stats.inflated_size,
        data_version_assumed=data_version is None,
        regions=[{"name": r.name, "position": list(r.position), "size": list(r.size)} for r in regions],
        notes=[
            f"regions overlap ({', '.join(overlaps)} over earlier ones): the later region's blocks win, an "
            "earlier region's block stays where the later one has air"
        ]
        if overlaps
        else [],
    )
    return Schematic(
        width=width,
        height=height,
        length=length,
        palette=palette,
        blocks=blocks,
        data_version=data_version if data_version is not None else 0,
        offset=low,
        block_entities=block_entities,
        entities=entities,
        metadata=Compound(metadata) if tag_type(metadata) == TAG_COMPOUND else Compound(),
        source=source,
        void=void if void.any() else None,
    )


@dataclass
class Region:
    """One region as stored: its name, ``Position`` and ``Size`` (negative along an axis whose cells run back from
    ``Position``), palette, packed ``BlockStates`` and its block entities and entities (raw compounds)."""

    name: str
    position: tuple[int, int, int]
    size: tuple[int, int, int]
    palette: list[str]
    states: object  # the BlockStates long array (None for a region without cells)
    tile_entities: list
    entities: list

    @property
    def where(self) -> tuple[str, str]:
        """The NBT path of the region, for messages."""
        return ("Regions", self.name)

    @property
    def low(self) -> tuple[int, int, int]:
        return region_box(self.position, self.size)[0]

    @property
    def dims(self) -> tuple[int, int, int]:
        return region_box(self.position, self.size)[1]

    @property
    def volume(self) -> int:
        x, y, z = self.dims
        return x * y * z


def _read_region(fields: Fields, name: str, tag) -> Region:
    where = ("Regions", name)
    if tag_type(tag) != TAG_COMPOUND:
        raise fields.fail("a region must be a compound", "field.type", *where)
    position = fields.xyz(tag, "Position", *where)
    size = fields.xyz(tag, "Size", *where)
    volume = fields.check_cells(region_box(position, size)[1], *where)
    palette = [
        state_from_compound(fields, entry, *where, "BlockStatePalette", i)
        for i, entry in enumerate(fields.compounds(tag, "BlockStatePalette", *where))
    ]
    if volume and not palette:
        raise fields.fail("BlockStatePalette is empty", "palette.empty", *where, "BlockStatePalette")
    return Region(
        name,
        position,
        size,
        palette,
        fields.get(tag, "BlockStates", (TAG_LONG_ARRAY,), *where, required=bool(volume)),
        fields.compounds(tag, "TileEntities", *where),
        fields.compounds(tag, "Entities", *where),
    )


def _cells(fields: Fields, region: Region) -> np.ndarray:
    bits = bits_for(len(region.palette))
    volume = region.volume
    expected = -(-volume * bits // 64)
    longs = region.states
    if len(longs) != expected:
        raise fields.fail(
            f"BlockStates holds {len(longs)} longs; {volume} cells of {bits} bits need {expected}",
            "blockstates.length",
            *region.where,
            "BlockStates",
        )
    words = longs.numpy() if hasattr(longs, "numpy") else np.array(longs, dtype=">i8")
    values = unpack_indices(words.astype(np.int64).view(np.uint64), bits, volume)
    if values.size and int(values.max()) >= len(region.palette):
        bad = int(values[values >= len(region.palette)][0])
        raise fields.fail(
            f"BlockStates refers to palette index {bad}, which the palette "
            f"({len(region.palette)} entries) does not define",
            "blockstates.index",
            *region.where,
            "BlockStates",
        )
    return values


def _block_entity(fields: Fields, region: Region, entry, shift, i: int) -> BlockEntity:
    where = (*region.where, "TileEntities", i)
    x, y, z = (fields.integer(entry, axis, *where) for axis in "xyz")
    rx, ry, rz = region.dims
    if not (0 <= x < rx and 0 <= y < ry and 0 <= z < rz):
        raise fields.fail(
            f"block entity at {x},{y},{z} lies outside its region ({rx} x {ry} x {rz})", "block_entity.position", *where
        )
    ident = entry.get("id", entry.get("Id"))
    return BlockEntity(
        (x + shift[0], y + shift[1], z + shift[2]),
        str(ident) if ident is not None else "",
        without(entry, "x", "y", "z", "id", "Id"),
    )


def _entity(fields: Fields, region: Region, entry, low, i: int) -> Entity:
    where = (*region.where, "Entities", i)
    pos = fields.triple(fields.get(entry, "Pos", (9,), *where), *where, "Pos", floats=True)
    ident = entry.get("id", entry.get("Id"))
    local = tuple(p + (o - lo) for p, o, lo in zip(pos, region.position, low))  # integers first: exact
    return Entity(local, str(ident) if ident is not None else "", without(entry, "Pos", "id", "Id"))  # type: ignore[arg-type]


# --- writing ---------------------------------------------------------------------------------------------------

COMPONENTS_DATA_VERSION = 3837  # 1.20.5: item data became components; Litematica marks such files Version 7
TALL_WORLDS = 2860  # 1.18: Litematica files of 1.18 to 1.20.4 are Version 6; older releases' Litematica reads 5


def litematic_tree(
    schem: Schematic, *, name: str | None = None, author: str | None = None, date_ms: int | None = None
) -> tuple[str, Compound]:
    """(root name, root compound) of ``schem`` as one Litematica region covering the whole box (void cells are
    air: the format has no "leave unchanged" cell; :func:`mcb.schematics.formats.losses.format_losses` says so first)."""
    import time

    from mcb.schematics.formats.losses import writable_parts

    used, cells = dense_palette(schem.blocks, schem.palette, schem.void)
    palette = [AIR, *(state for state in used if state != AIR)]  # Litematica puts air first; readers rely on it
    order = {state: i for i, state in enumerate(palette)}
    table = np.array([order[state] for state in used] or [0], dtype=np.int64)
    indices = table[cells.ravel()]
    if schem.void is not None:
        indices[schem.void.ravel()] = 0
    bits = bits_for(len(palette))
    block_entities, entities = writable_parts(schem, "litematic")  # the rest said by format_losses
    meta_in = schem.metadata if isinstance(schem.metadata, dict) else {}
    region_name = str(name or meta_in.get("Name") or "Main")
    now = int(date_ms if date_ms is not None else time.time() * 1000)
    size = Compound(x=Int(schem.width), y=Int(schem.height), z=Int(schem.length))
    region = Compound(
        Position=Compound(x=Int(schem.offset[0]), y=Int(schem.offset[1]), z=Int(schem.offset[2])),
        Size=size,
        BlockStatePalette=List([compound_from_state(s) for s in palette], TAG_COMPOUND),
        BlockStates=NumericArray(TAG_LONG_ARRAY, pack_indices(indices, bits).astype(">i8").tobytes()),
        TileEntities=List([_tile_entity(be) for be in block_entities], TAG_COMPOUND),
        Entities=List([_entity_entry(e, schem.offset) for e in entities], TAG_COMPOUND),
        PendingBlockTicks=List((), TAG_COMPOUND),
        PendingFluidTicks=List((), TAG_COMPOUND),
    )
    non_air = int(np.count_nonzero(indices))
    metadata = Compound(
        Name=String(region_name),
        Author=String(author or str(meta_in.get("Author") or "mcb")),
        Description=String(str(meta_in.get("Description") or "")),
        RegionCount=Int(1),
        TotalVolume=Int(schem.volume),
        TotalBlocks=Int(non_air),
        EnclosingSize=Compound(size),
        TimeCreated=Long(int(meta_in.get("TimeCreated") or now)),
        TimeModified=Long(now),
    )
    version = 7 if schem.data_version >= COMPONENTS_DATA_VERSION else 6 if schem.data_version >= TALL_WORLDS else 5
    root = Compound(
        MinecraftDataVersion=Int(schem.data_version),
        Version=Int(version),
        SubVersion=Int(1),
        Metadata=metadata,
        Regions=Compound({region_name: region}),
    )
    return "", root


def _tile_entity(be: BlockEntity) -> Compound:
    entry = Compound(x=Int(be.pos[0]), y=Int(be.pos[1]), z=Int(be.pos[2]))
    if be.id:
        entry["id"] = String(be.id)
    entry.update(without(be.data or {}, "x", "y", "z", "id"))
    return entry


def _entity_entry(entity: Entity, offset) -> Compound:
    # The region's Position is the box's minimum corner here, so Pos from Position is the model's local position.
    entry = Compound(Pos=List([Double(p) for p in entity.pos], 6))
    if entity.id:
        entry["id"] = String(entity.id)
    entry.update(without(entity.data or {}, "Pos", "id"))
    return entry
