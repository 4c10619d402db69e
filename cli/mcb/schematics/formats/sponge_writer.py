"""Writing Sponge v2 and v3 files from the model.

A schematic inside the server's subset (no block entities, entities or biomes) comes out byte-for-byte in the
layout the server's own exporter writes (protocol §6.3): root ``Schematic`` with ``Version``, ``DataVersion``,
``Width``, ``Height``, ``Length``, ``Offset``, ``PaletteMax``, ``Palette`` (first-seen y-z-x order),
``BlockData``, empty ``BlockEntities`` and ``Entities`` lists of compounds, then ``Metadata`` {``Name``,
``Author``, ``Date``}. ``Offset`` is always the paste offset (the server's meaning, §A.6).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np

from mcb.schematics import nbt_encoder
from mcb.schematics.cells import encode_cells
from mcb.schematics.model import Schematic
from mcb.schematics.nbt import (
    TAG_LIST,
    ByteArray,
    Compound,
    Double,
    Int,
    IntArray,
    List,
    Long,
    Short,
    String,
    gc_paused,
    tag_type,
)
from mcb.schematics.nbt_encoder import EncodedPieces, EncodingMemo, encode_nbt, encode_payload

SERVER_AUTHOR = "minecraft-builder-mcp"


def _metadata(schem: Schematic, name, author, date_ms, worldedit_offsets: bool, version: int) -> Compound:
    source = schem.metadata if isinstance(schem.metadata, dict) else {}
    meta = Compound()
    for key, value in (("Name", name), ("Author", author)):
        value = value if value is not None else source.get(key)
        if value is not None:
            meta[key] = String(value)
    date = date_ms if date_ms is not None else source.get("Date")
    if date is not None:
        meta["Date"] = Long(int(date))
    for key, value in source.items():
        if key not in meta and not (version == 3 and key == "WorldEdit"):
            meta[key] = value
    if version == 2 and worldedit_offsets:
        for axis, value in zip("XYZ", schem.offset):
            meta[f"WEOffset{axis}"] = Int(value)
    if version == 3 and schem.world_origin is not None:
        worldedit = Compound(source.get("WorldEdit") or {})
        worldedit["Origin"] = IntArray(schem.world_origin)
        meta["WorldEdit"] = worldedit
    return meta


def _entity_entries(schem: Schematic, version: int):
    from mcb.schematics.formats.losses import writable_parts

    block_entities, kept = writable_parts(schem, f"sponge{version}")  # the rest said by format_losses
    entities = List((), 10)
    for entity in kept:
        entities.append(_entry(List([Double(p) for p in entity.pos], 6), entity.id, entity.data, version))
    return _block_entity_list(block_entities, version), entities


_POS_HEAD = b"\x0b\x00\x03Pos\x00\x00\x00\x03"  # Int_Array "Pos" of length 3
_POS = struct.Struct(">3i")


def _block_entity_list(block_entities, version: int) -> EncodedPieces:
    """The encoded ``BlockEntities`` list payload.

    Entries with equal id and data differ only in their Pos payload (40k comparators and barrels in a big build):
    everything after Pos is encoded once per distinct (id, data) (:class:`~mcb.schematics.nbt_encoder.EncodingMemo`)
    and spliced behind each packed Pos, instead of walking every tag again. Bytes are identical to encoding each
    entry on its own.
    """
    out = [struct.pack(">bi", 10, len(block_entities))]
    append = out.append
    memo = EncodingMemo()
    pack = _POS.pack
    tags, depth = 1, 1  # the list; then each entry as tree_facts counts it
    for be in block_entities:
        rest, facts, _ = memo.get(be.id, be.data, _after_pos, be, version)
        tags, depth = tags + facts[0], max(depth, 1 + facts[1])
        try:
            append(_POS_HEAD + pack(*be.pos))
        except (struct.error, TypeError):  # not three int32s: let the general encoder convert or refuse it
            encoded: list[bytes] = []
            encode_payload(encoded, 10, _entry(IntArray(be.pos), be.id, be.data, version))
            append(b"".join(encoded))
            continue
        append(rest)
    return EncodedPieces(TAG_LIST, out, tags, depth)


def _after_pos(be, version: int) -> tuple[bytes, tuple[int, int]]:
    """A block entity's entry after its Pos, and the entry's (tags, depth)."""
    encoded: list[bytes] = []
    facts = encode_payload(encoded, 10, _entry(IntArray((0, 0, 0)), be.id, be.data, version))
    return b"".join(encoded)[len(_POS_HEAD) + _POS.size :], facts


def _entry(pos, ident: str, data, version: int) -> Compound:
    """One block-entity/entity entry: v3 nests ``data`` under ``Data``, v2 inlines it (lazy data stays raw)."""
    entry = Compound(Pos=pos, Id=String(ident))
    if data is None:
        data = Compound()
    if version == 3:
        entry["Data"] = data if tag_type(data) == 10 else Compound(data)
        return entry
    for key, value in data.items():
        if key not in ("Pos", "Id"):
            entry[key] = value
    return entry


def build_tree(
    schem: Schematic,
    version: int = 2,
    *,
    name: str | None = None,
    author: str | None = None,
    date_ms: int | None = None,
    worldedit_offsets: bool = False,
) -> tuple[str, Compound]:
    """(root name, root compound) for ``schem`` as Sponge ``version`` 2 or 3."""
    if version not in (2, 3):
        raise ValueError("only Sponge v2 and v3 can be written")
    if not all(1 <= size <= 0xFFFF for size in schem.size):  # the input's box (Width/Height/Length 0 reads)
        from mcb.errors import InputError
        from mcb.wording import dimensions

        raise InputError(
            "a Sponge schematic is 1 to 65535 blocks along each side; this box is " + dimensions(*schem.size),
            code="sponge.size",
            hint="there is nothing to write: check the file's Width, Height and Length",
        )
    palette, data = encode_cells(schem.blocks, schem.palette)  # plain bytes encode as a Byte_Array (no copy)
    palette_tag = Compound((state, Int(i)) for i, state in enumerate(palette))
    block_entities, entities = _entity_entries(schem, version)
    meta = _metadata(schem, name, author, date_ms, worldedit_offsets, version)
    sizes = dict(
        Width=Short(_signed16(schem.width)),
        Height=Short(_signed16(schem.height)),
        Length=Short(_signed16(schem.length)),
    )
    if version == 2:
        body = Compound(
            Version=Int(2),
            DataVersion=Int(schem.data_version),
            **sizes,
            Offset=IntArray(schem.offset),
            PaletteMax=Int(len(palette)),
            Palette=palette_tag,
            BlockData=data,
            BlockEntities=block_entities,
            Entities=entities,
        )
        if schem.biomes is not None and schem.biome_palette is not None:
            biome_palette, biome_data = _biome_layer(schem, two_d=True)
            body["BiomePaletteMax"] = Int(len(biome_palette))
            body["BiomePalette"] = Compound((b, Int(i)) for i, b in enumerate(biome_palette))
            body["BiomeData"] = ByteArray(biome_data)
        body["Metadata"] = meta
        return "Schematic", body
    body = Compound(Version=Int(3), DataVersion=Int(schem.data_version))
    if meta:
        body["Metadata"] = meta
    body.update(sizes)
    body["Offset"] = IntArray(schem.offset)
    body["Blocks"] = Compound(Palette=palette_tag, Data=data, BlockEntities=block_entities)
    if schem.biomes is not None and schem.biome_palette is not None:
        biome_palette, biome_data = _biome_layer(schem, two_d=False)
        body["Biomes"] = Compound(
            Palette=Compound((b, Int(i)) for i, b in enumerate(biome_palette)), Data=ByteArray(biome_data)
        )
    if entities:
        body["Entities"] = entities
    return "", Compound(Schematic=body)


def sponge2_tree(schem: Schematic) -> tuple[str, Compound]:
    return build_tree(schem, 2)


def sponge3_tree(schem: Schematic) -> tuple[str, Compound]:
    return build_tree(schem, 3)


def _signed16(value: int) -> int:
    return value - 0x10000 if value >= 0x8000 else value


def _biome_layer(schem: Schematic, two_d: bool) -> tuple[list[str], bytes]:
    biomes = schem.biomes
    if two_d:
        biomes = biomes[:1]  # v2 biomes are 2-D; WorldEdit samples the lowest layer too
    elif biomes.shape[0] == 1 and schem.height > 1:
        biomes = np.broadcast_to(biomes, (schem.height,) + biomes.shape[1:])
    return encode_cells(biomes, list(schem.biome_palette))


def encode_schematic(
    schem: Schematic,
    version: int = 2,
    *,
    compress: bool = True,
    name: str | None = None,
    author: str | None = None,
    date_ms: int | None = None,
    worldedit_offsets: bool = False,
    compresslevel: int | None = None,
) -> bytes:
    """The file bytes of ``schem`` as Sponge v2 (default) or v3.

    ``name``/``author``/``date_ms`` override ``Metadata.Name/Author/Date`` (the server's exporter passes the asset
    name, ``SERVER_AUTHOR`` and the current time). ``worldedit_offsets=True`` (v2 only) also writes
    ``Metadata.WEOffsetX/Y/Z`` = ``offset`` so WorldEdit pastes the file where the server would.
    ``compresslevel`` (1-9) overrides the gzip level (:func:`mcb.schematics.nbt_encoder.compress`);
    ``compress=False`` gives the raw NBT.
    """
    with gc_paused():
        root_name, root = build_tree(
            schem, version, name=name, author=author, date_ms=date_ms, worldedit_offsets=worldedit_offsets
        )
        raw = encode_nbt(root, root_name)
    return nbt_encoder.compress(raw, compresslevel) if compress else raw


def write_schematic(schem: Schematic, path: str | os.PathLike, version: int = 2, **options) -> Path:
    """Encode (see :func:`encode_schematic`) and write atomically (:func:`mcb.fileio.write_atomic`)."""
    from mcb.fileio import write_atomic

    return write_atomic(path, encode_schematic(schem, version, **options))
