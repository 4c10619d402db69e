"""Litematica ``.litematic`` (Version 5-7): regions of packed palette indices, read into the one model (the writer is
:mod:`mcb.schematics.formats.litematic_writer`, the packing :mod:`mcb.schematics.formats.bit_packing`).

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

from mcb.schematics.formats.bit_packing import bits_for, unpack_indices
from mcb.schematics.formats.common import Fields, state_from_compound, without
from mcb.schematics.model import BlockEntity, Entity, Schematic, SourceInfo
from mcb.schematics.nbt import TAG_COMPOUND, TAG_LONG_ARRAY, Compound, Int, tag_type
from mcb.wording import dimensions, plural

READ_VERSIONS = range(1, 8)  # 5, 6 and 7 are what Litematica writes today; older ones share the layout
AIR = "minecraft:air"


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
    palette: list[str] = [AIR]
    index_of = {AIR: 0}
    for region in regions:
        for state in region.palette:
            if state not in index_of:
                index_of[state] = len(palette)
                palette.append(state)
    blocks, void, overlaps = _blocks(fields, regions, palette, index_of, low, dims)
    block_entities: list[BlockEntity] = []
    entities: list[Entity] = []
    for region in regions:
        shift = tuple(region.low[a] - low[a] for a in range(3))
        block_entities += _block_entities(fields, region, shift)
        entities += [_entity(fields, region, entry, low, i) for i, entry in enumerate(region.entities)]
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
    width, height, length = dims
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
        void=void,
    )


def _blocks(fields: Fields, regions: list, palette: list[str], index_of: dict, low, dims):
    """(the model's cells, its void mask or None, the names of regions that overlap earlier ones)."""
    width, height, length = dims
    if len(regions) == 1:  # the common case: the region is the box, its cells are the model's (no copy)
        (region,) = regions
        return _region_cells(fields, region, index_of).reshape(height, length, width), None, []
    blocks = np.zeros((height, length, width), dtype=np.int32)
    void = np.ones((height, length, width), dtype=bool)
    overlaps: list[str] = []
    for region in regions:
        x0, y0, z0 = (region.low[a] - low[a] for a in range(3))
        rx, ry, rz = region.dims
        cells = _region_cells(fields, region, index_of).reshape(ry, rz, rx)
        window = (slice(y0, y0 + ry), slice(z0, z0 + rz), slice(x0, x0 + rx))
        taken = ~void[window]
        if taken.any():
            overlaps.append(region.name)
            keep = taken & (cells == index_of[AIR])  # an earlier region's block stays under this one's air
            cells = np.where(keep, blocks[window], cells)
        blocks[window] = cells
        void[window] = False
    return blocks, (void if void.any() else None), overlaps


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

    def __post_init__(self):
        self.low, self.dims = region_box(self.position, self.size)

    @property
    def where(self) -> tuple[str, str]:
        """The NBT path of the region, for messages."""
        return ("Regions", self.name)

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


def _region_cells(fields: Fields, region: Region, index_of: dict) -> np.ndarray:
    """The region's cells (int32, flat) as indices of the model's palette (``index_of``)."""
    bits = bits_for(len(region.palette))
    volume = region.volume
    expected = -(-volume * bits // 64)
    longs = region.states
    if len(longs) != expected:
        raise fields.fail(
            f"BlockStates holds {plural(len(longs), 'long')}; {plural(volume, 'cell')} of {bits} bits need {expected:,}",
            "blockstates.length",
            *region.where,
            "BlockStates",
        )
    words = longs.numpy() if hasattr(longs, "numpy") else np.array(longs, dtype=">i8")
    values = unpack_indices(words, bits, volume)
    if values.size and int(values.max()) >= len(region.palette):
        bad = int(values[values >= len(region.palette)][0])
        raise fields.fail(
            f"BlockStates refers to palette index {bad}, which the palette "
            f"({plural(len(region.palette), 'entry', 'entries')}) does not define",
            "blockstates.index",
            *region.where,
            "BlockStates",
        )
    remap = np.array([index_of[state] for state in region.palette], dtype=np.int32)
    if np.array_equal(remap, np.arange(remap.size)):  # Litematica's own order (air first): nothing to renumber
        return values
    return remap[values]


def _block_entities(fields: Fields, region: Region, shift) -> list[BlockEntity]:
    """The region's block entities in the model's frame (``shift``: the region's minimum corner in it)."""
    rx, ry, rz = region.dims
    sx, sy, sz = shift
    result = []
    for i, entry in enumerate(region.tile_entities):
        data = Compound(entry)
        x, y, z = data.pop("x", None), data.pop("y", None), data.pop("z", None)
        if not (type(x) is Int and type(y) is Int and type(z) is Int and 0 <= x < rx and 0 <= y < ry and 0 <= z < rz):
            x, y, z = _block_entity_position(fields, region, entry, i)  # another integer tag, or refused
        ident, other = data.pop("id", None), data.pop("Id", None)
        ident = ident if ident is not None else other
        result.append(BlockEntity((x + sx, y + sy, z + sz), str(ident) if ident is not None else "", data))
    return result


def _block_entity_position(fields: Fields, region: Region, entry, i: int) -> tuple[int, int, int]:
    where = (*region.where, "TileEntities", i)
    x, y, z = (fields.integer(entry, axis, *where) for axis in "xyz")
    rx, ry, rz = region.dims
    if not (0 <= x < rx and 0 <= y < ry and 0 <= z < rz):
        raise fields.fail(
            f"block entity at {x},{y},{z} lies outside its region ({dimensions(rx, ry, rz)})",
            "block_entity.position",
            *where,
        )
    return x, y, z


def _entity(fields: Fields, region: Region, entry, low, i: int) -> Entity:
    where = (*region.where, "Entities", i)
    pos = fields.triple(fields.get(entry, "Pos", (9,), *where), *where, "Pos", floats=True)
    ident = entry.get("id", entry.get("Id"))
    local = tuple(p + (o - lo) for p, o, lo in zip(pos, region.position, low))  # integers first: exact
    return Entity(local, str(ident) if ident is not None else "", without(entry, "Pos", "id", "Id"))  # type: ignore[arg-type]
