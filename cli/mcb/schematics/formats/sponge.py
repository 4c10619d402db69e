"""Reading Sponge v1/v2/v3 files (gzip or raw) into :class:`~mcb.schematics.model.Schematic`; the writer is
:mod:`mcb.schematics.formats.sponge_writer`.

    read_schematic(source, limits=None) -> Schematic          # path, or the file's bytes; Sponge only

Every failure is an ``InputError`` subclass (``SchematicError``/``NbtError``) with ``rule`` and ``pointer``.
"""

from __future__ import annotations

import os

import numpy as np

from mcb.schematics.cells import decode_cells
from mcb.schematics.document import Document, SchematicError, load_document, not_sponge_error, with_file
from mcb.schematics.formats import ReadOptions
from mcb.schematics.model import BlockEntity, Entity, Schematic, SourceInfo
from mcb.schematics.nbt import (
    TAG_COMPOUND,
    Byte,
    Compound,
    Int,
    IntArray,
    Long,
    ReadLimits,
    Short,
    String,
    gc_paused,
    is_list_of,
    tag_type,
)

DATA_VERSION_1_13_2 = 1631  # what WorldEdit assumes for v1 files without DataVersion
WE_OFFSET_KEYS = ("WEOffsetX", "WEOffsetY", "WEOffsetZ")
INT_TAGS = (1, 2, 3, 4)
_INT_CLASSES = (Byte, Short, Int, Long)  # the integer tag types (a palette index is one)


def read_schematic(
    source: str | os.PathLike | bytes, limits: ReadLimits | None = None, *, compact: bool = False
) -> Schematic:
    """Read a Sponge v1/v2/v3 file (gzip or raw NBT, detected by content) into the model, every tag decoded.

    ``compact=True`` may give ``blocks``/``biomes`` as uint16 rather than the model's int32, for callers that only
    move and write the cells (rotate/mirror): half the memory to fill.
    """
    return read_sponge(load_document(source, limits), ReadOptions(compact=compact))


def read_sponge(doc: Document, options: ReadOptions | None = None) -> Schematic:
    """The model of a recognised Sponge document (read without ``fast``, or with no block entities and entities: a
    fast read leaves their contents out); ``options.compact``: see :func:`read_schematic`."""
    if doc.kind != "sponge":
        raise not_sponge_error(doc)
    with gc_paused(), with_file(doc.path):
        return _Builder(doc, bool(options and options.compact)).build()


class _Builder:
    def __init__(self, doc: Document, compact: bool = False):
        self.doc = doc
        self.compact = compact
        self.body = doc.body
        self.v3 = doc.is_v3

    def fail(self, message: str, rule: str, *where: str | int, hint: str | None = None) -> SchematicError:
        return SchematicError(message, rule=rule, pointer=self.doc.pointer(*where), hint=hint)

    def integer(self, key: str, required: bool = True) -> int | None:
        value = self.body.get(key)
        if value is None:
            if required:
                raise self.fail(f"required tag {key} is missing", "sponge.field.missing", key)
            return None
        if tag_type(value) not in INT_TAGS:
            raise self.fail(f"{key} must be an integer tag", "sponge.field.type", key)
        return int(value)

    def build(self) -> Schematic:
        doc, body = self.doc, self.body
        # unsigned shorts (spec v3: value & 0xFFFF)
        width, height, length = (self.integer(key) & 0xFFFF for key in ("Width", "Height", "Length"))
        from mcb.schematics.formats.common import check_cells

        check_cells(doc, (width, height, length), "sponge.size.limit", doc.body_pointer.strip("/"), "Width")
        data_version = self.integer("DataVersion", required=False)
        assumed = data_version is None
        if data_version is None:
            if doc.version not in (1, None):
                raise self.fail("required tag DataVersion is missing", "sponge.field.missing", "DataVersion")
            data_version = DATA_VERSION_1_13_2
        stored_offset = self.vector("Offset")
        metadata = body.get("Metadata")
        metadata = metadata if isinstance(metadata, dict) else Compound()
        we_values = [metadata.get(key) for key in WE_OFFSET_KEYS]
        we_offset = tuple(int(v) for v in we_values) if all(tag_type(v) in INT_TAGS for v in we_values) else None
        offset, origin = self.offsets(stored_offset, we_offset, metadata)
        if self.v3 and isinstance(body.get("Blocks"), dict):
            box, where, data_key = body["Blocks"], ("Blocks",), "Data"
            entity_list = box.get("BlockEntities")
        else:
            box, where, data_key = body, (), "BlockData"
            entity_list = body.get("BlockEntities", body.get("TileEntities"))
        palette, order = self.palette(box.get("Palette"), *where, "Palette")
        blocks = self.cells(box.get(data_key), order, (height, length, width), *where, data_key)
        biome_palette, biomes = self.biomes(width, height, length)
        producer = "worldedit" if we_offset is not None or "WorldEdit" in metadata else None
        kept_metadata = Compound((k, v) for k, v in metadata.items() if k not in WE_OFFSET_KEYS)
        source = SourceInfo(
            version=doc.version,
            compressed=doc.stats.compressed,
            producer=producer,
            stored_offset=stored_offset,
            we_offset=we_offset,
            compressed_size=doc.stats.compressed_size,
            inflated_size=doc.stats.inflated_size,
            nonconforming_v3=doc.nonconforming_v3,
            data_version_assumed=assumed,
        )
        # WorldEdit v2 writes absolute entity positions; make them local like everything else.
        entity_shift = stored_offset if (not self.v3 and we_offset is not None and stored_offset) else (0, 0, 0)
        return Schematic(
            width=width,
            height=height,
            length=length,
            palette=palette,
            blocks=blocks,
            data_version=data_version,
            offset=offset,
            world_origin=origin,
            block_entities=[
                self.block_entity(entry, i, *where, "BlockEntities")
                for i, entry in enumerate(self.entries(entity_list, *where, "BlockEntities"))
            ],
            entities=self.entities(body.get("Entities"), entity_shift),
            biome_palette=biome_palette,
            biomes=biomes,
            metadata=kept_metadata,
            source=source,
        )

    def vector(self, key: str, container: Compound | None = None, *where) -> tuple[int, int, int] | None:
        value = (self.body if container is None else container).get(key)
        if value is None:
            return None
        if tag_type(value) != 11 or len(value) != 3:
            raise self.fail(f"{key} must be an Int_Array of length 3", "sponge.offset.shape", *where, key)
        return (int(value[0]), int(value[1]), int(value[2]))

    def offsets(self, stored, we_offset, metadata) -> tuple[tuple[int, int, int], tuple[int, int, int] | None]:
        if self.v3 and not (self.doc.nonconforming_v3 and we_offset is not None):
            worldedit = metadata.get("WorldEdit")
            origin = self.vector("Origin", worldedit, "Metadata", "WorldEdit") if isinstance(worldedit, dict) else None
            return stored or (0, 0, 0), origin
        if we_offset is not None:
            # WorldEdit v1/v2: Offset is the absolute min corner; WEOffset = min - origin is the paste offset.
            origin = tuple(m - w for m, w in zip(stored, we_offset)) if stored is not None else None
            return we_offset, origin  # type: ignore[return-value]
        return stored or (0, 0, 0), None

    def palette(self, tag, *where) -> tuple[list[str], np.ndarray]:
        if tag is None:
            raise self.fail(
                "Palette is missing (global block ids are not supported by any tool)", "sponge.palette.missing", *where
            )
        if tag_type(tag) != 10:
            raise self.fail("Palette must be a compound", "sponge.field.type", *where)
        by_index: dict[int, str] = {}
        for state, index in tag.items():
            if type(index) not in _INT_CLASSES or index < 0:
                raise self.fail(f"palette entry {state!r} has no valid index", "sponge.palette.index", *where, state)
            if index in by_index:
                raise self.fail(
                    f"palette index {int(index)} is used by {by_index[index]!r} and {state!r}",
                    "sponge.palette.duplicate_index",
                    *where,
                    state,
                )
            by_index[index] = state
        # Indices may be sparse (the server allows any index below PaletteMax): renumber densely.
        order = sorted(by_index)
        return [by_index[i] for i in order], np.array(order, dtype=np.int64)  # ints: the tags compare as ints

    def cells(self, tag, order: np.ndarray, shape, *where) -> np.ndarray:
        if tag is None:
            raise self.fail("block data is missing", "sponge.blockdata.missing", *where)
        if tag_type(tag) != 7:
            raise self.fail("block data must be a Byte_Array", "sponge.field.type", *where)
        volume = shape[0] * shape[1] * shape[2]
        values, problem, top = decode_cells(tag, volume, self.compact)
        if problem is not None:
            raise self.fail(problem.message, f"sponge.blockdata.{problem.kind}", *where)
        if not values.size:
            return values.astype(np.int32).reshape(shape)
        if order.size and int(order[-1]) == order.size - 1:  # contiguous 0..n-1: indices are already dense
            # the decoder's maximum instead of a 16M-cell mask; the mask only when something is out of range
            dense = values
            bad = values >= order.size if top >= order.size else np.zeros(1, dtype=bool)
        else:  # sparse palette indices: position of each value in the sorted index list
            dense = np.searchsorted(order, values)
            bad = (
                (dense >= order.size) | (order[np.minimum(dense, max(order.size - 1, 0))] != values)
                if order.size
                else np.ones(values.size, dtype=bool)
            )
        if bad.any():
            raise self.fail(
                f"block data refers to palette index {int(values[bad][0])}, which the palette does not define",
                "sponge.blockdata.index",
                *where,
            )
        if dense.dtype == np.uint16:  # compact: only the fast decoder gives these
            return dense.reshape(shape)
        return dense.astype(np.int32, copy=False).reshape(shape)

    def block_entity(self, entry, i: int, *where) -> BlockEntity:
        if not self.v3:  # the common case first: 42k entries in a big build
            data = Compound(entry)
            pos, ident = data.pop("Pos", None), data.pop("Id", None)
            if type(pos) is IntArray and len(pos) == 3 and type(ident) is String:
                data.pop("ContentVersion", None)
                return BlockEntity(tuple(pos), str(ident), data)
        pos = self.vector("Pos", entry, *where, i)
        ident = entry.get("Id", entry.get("id"))
        if pos is None or tag_type(ident) != 8:
            raise self.fail(
                "block entity needs Pos (Int_Array[3]) and Id (String)", "sponge.block_entity.shape", *where, i
            )
        nested = entry.get("Data")
        if self.v3 and tag_type(nested) == 10:
            data = nested
        else:
            data = Compound((k, v) for k, v in entry.items() if k not in ("Pos", "Id", "ContentVersion"))
        return BlockEntity(pos, str(ident), data)

    def entities(self, tag, shift) -> list[Entity]:
        result = []
        for i, entry in enumerate(self.entries(tag, "Entities")):
            pos, ident = entry.get("Pos"), entry.get("Id", entry.get("id"))
            if tag_type(pos) != 9 or len(pos) != 3 or pos.subtype not in (5, 6) or tag_type(ident) != 8:
                raise self.fail("entity needs Pos (3 doubles) and Id (String)", "sponge.entity.shape", "Entities", i)
            nested = entry.get("Data")
            if tag_type(nested) == 10:
                data = nested
            else:
                data = Compound((k, v) for k, v in entry.items() if k not in ("Pos", "Id", "Extra"))
                extra = entry.get("Extra")
                if tag_type(extra) == 10:  # a literal reading of the v2 spec's "Extra" field
                    data.update(extra)
            local = tuple(float(p) - s for p, s in zip(pos, shift))
            result.append(Entity(local, str(ident), data))  # type: ignore[arg-type]
        return result

    def entries(self, tag, *where) -> list[Compound]:
        if tag is None:
            return []
        if not is_list_of(tag, TAG_COMPOUND):
            raise self.fail("must be a list of compounds", "sponge.field.type", *where)
        return list(tag)

    def biomes(self, width: int, height: int, length: int):
        body = self.body
        if self.v3:
            box = body.get("Biomes")
            if not isinstance(box, dict):
                return None, None
            palette, order = self.palette(box.get("Palette"), "Biomes", "Palette")
            return palette, self.cells(box.get("Data"), order, (height, length, width), "Biomes", "Data")
        if "BiomeData" not in body and "BiomePalette" not in body:
            return None, None
        palette, order = self.palette(body.get("BiomePalette"), "BiomePalette")
        return palette, self.cells(body.get("BiomeData"), order, (1, length, width), "BiomeData")
