"""Writing Sponge v2 and v3 files from the model.

A schematic inside the server's subset (no block entities, entities or biomes) comes out byte-for-byte in the
layout the server's own exporter writes (protocol §6.3): root ``Schematic`` with ``Version``, ``DataVersion``,
``Width``, ``Height``, ``Length``, ``Offset``, ``PaletteMax``, ``Palette`` (first-seen y-z-x order),
``BlockData``, empty ``BlockEntities`` and ``Entities`` lists of compounds, then ``Metadata`` {``Name``,
``Author``, ``Date``}. ``Offset`` is always the paste offset (the server's meaning, §A.6).
"""

from __future__ import annotations

import gzip
import os
import struct
from pathlib import Path

import numpy as np

from mcb.schematics.cells import encode_cells
from mcb.schematics.model import Schematic
from mcb.schematics.nbt import (
    TAG_LIST,
    ByteArray,
    Compound,
    Double,
    Encoded,
    Int,
    IntArray,
    List,
    Long,
    NumericArray,
    Short,
    String,
    encode_mutf8,
    gc_paused,
    tag_type,
)

SERVER_AUTHOR = "minecraft-builder-mcp"


# --- NBT encoding ---------------------------------------------------------------------------------------------


def _infer(value):
    """Tag id for a value: our tag classes carry ``tag_id``; plain Python values are inferred."""
    tid = tag_type(value)
    if tid > 0:
        return tid
    if isinstance(value, bool) or isinstance(value, int):
        return 3
    if isinstance(value, float):
        return 6
    if isinstance(value, str):
        return 8
    if isinstance(value, dict):
        return 10
    if isinstance(value, (bytes, bytearray)):
        return 7
    if isinstance(value, np.ndarray):
        return {1: 7, 4: 11, 8: 12}[value.dtype.itemsize]
    if isinstance(value, (list, tuple)):
        return 9
    raise TypeError(f"cannot encode {type(value).__name__} as NBT")


def _list_subtype(value) -> int:
    sub = getattr(value, "subtype", None)
    if isinstance(sub, int):
        return sub
    return _infer(value[0]) if len(value) else 0


_SCALAR_FMT = {1: ">b", 2: ">h", 3: ">i", 4: ">q", 5: ">f", 6: ">d"}


class _Encoded:
    """A payload already encoded as pieces (the 12.9 MB of a big build's block entities): copied into the output
    piece by piece instead of being joined first. Private to this writer."""

    __slots__ = ("tag_id", "pieces")

    def __init__(self, tag_id: int, pieces: list[bytes]):
        self.tag_id, self.pieces = tag_id, pieces


def _payload(out: list[bytes], tid: int, value) -> None:
    if type(value) is _Encoded:
        out += value.pieces
        return
    if type(value) is Encoded:  # a container read as its bytes and never looked into: copied
        out.append(value.payload)
        return
    fmt = _SCALAR_FMT.get(tid)
    if fmt:
        out.append(struct.pack(fmt, value))
    elif tid == 8:
        raw = encode_mutf8(str(value))
        if len(raw) > 0xFFFF:
            raise ValueError("NBT string longer than 65535 bytes")
        out.append(struct.pack(">H", len(raw)) + raw)
    elif tid == 10:
        for key, item in value.items():
            _named(out, str(key), item)
        out.append(b"\x00")
    elif tid == 9:
        sub = _list_subtype(value)
        out.append(struct.pack(">bi", sub, len(value)))
        for item in value:
            _payload(out, sub, item)
    elif tid == 7:
        # bytes (and ByteArray) go into the output as they are: BlockData of a 256^3 build is 17 MB, not worth copying
        raw = (
            value
            if isinstance(value, bytes)
            else (bytes(value) if not isinstance(value, np.ndarray) else value.astype(np.int8).tobytes())
        )
        out.append(struct.pack(">i", len(raw)))
        out.append(raw)
    elif tid in (11, 12) and type(value) is NumericArray:  # read as its bytes: written as they were
        out.append(struct.pack(">i", len(value)) + value.raw)
    elif tid in (11, 12):
        arr = np.asarray(value, dtype=">i4" if tid == 11 else ">i8")
        out.append(struct.pack(">i", arr.size) + arr.tobytes())
    else:
        raise ValueError(f"cannot encode tag type {tid}")


_HEADERS: dict[tuple[int, str], bytes] = {}


def _named(out: list[bytes], name: str, value) -> None:
    tid = _infer(value)
    header = _HEADERS.get((tid, name))
    if header is None:
        raw = encode_mutf8(name)
        header = struct.pack(">bH", tid, len(raw)) + raw
        if len(_HEADERS) < 4096:  # tag names repeat: encode each once
            _HEADERS[(tid, name)] = header
    out.append(header)
    _payload(out, tid, value)


def encode_nbt(root: dict, root_name: str = "") -> bytes:
    """Uncompressed big-endian NBT of one root compound."""
    out: list[bytes] = []
    _named(out, root_name, root if tag_type(root) == 10 else Compound(root))
    return b"".join(out)


# --- schematic layout -------------------------------------------------------------------------------------------


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
    entities = List((), 10)
    for entity in schem.entities:
        entities.append(_entry(List([Double(p) for p in entity.pos], 6), entity.id, entity.data, version))
    return _block_entity_list(schem.block_entities, version), entities


_POS_HEAD = b"\x0b\x00\x03Pos\x00\x00\x00\x03"  # Int_Array "Pos" of length 3
_POS = struct.Struct(">3i")
_MEMO_LIMIT = 4096


def _block_entity_list(block_entities, version: int) -> _Encoded:
    """The encoded ``BlockEntities`` list payload.

    Entries with equal id and data differ only in their Pos payload (40k comparators and barrels in a big build):
    everything after Pos is encoded once per distinct (id, data) and spliced behind each packed Pos, instead of
    walking every tag again. Bytes are identical to encoding each entry on its own. Data is told apart by its tag
    names and the identity of its values (the reader shares equal values): the same objects encode the same, and
    the memo holds the data of its keys, so no id in them is reused by another object meanwhile.
    """
    out = [struct.pack(">bi", 10, len(block_entities))]
    append = out.append
    memo: dict = {}
    pack = _POS.pack
    for be in block_entities:
        data = be.data
        key = (be.id, *data, *map(id, data.values())) if isinstance(data, dict) else (be.id, id(data))
        found = memo.get(key)
        if found is None:
            encoded: list[bytes] = []
            _payload(encoded, 10, _entry(IntArray((0, 0, 0)), be.id, data, version))
            found = b"".join(encoded)[len(_POS_HEAD) + _POS.size :], data
            if len(memo) < _MEMO_LIMIT:
                memo[key] = found
        try:
            append(_POS_HEAD + pack(*be.pos))
        except (struct.error, TypeError):  # not three int32s: let the general encoder convert or refuse it
            encoded = []
            _payload(encoded, 10, _entry(IntArray(be.pos), be.id, data, version))
            append(b"".join(encoded))
            continue
        append(found[0])
    return _Encoded(TAG_LIST, out)


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

        raise InputError(
            "a Sponge schematic is 1 to 65535 blocks along each side; this box is "
            f"{schem.width} x {schem.height} x {schem.length}",
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


def _signed16(value: int) -> int:
    return value - 0x10000 if value >= 0x8000 else value


def _biome_layer(schem: Schematic, two_d: bool) -> tuple[list[str], bytes]:
    biomes = schem.biomes
    if two_d:
        biomes = biomes[:1]  # v2 biomes are 2-D; WorldEdit samples the lowest layer too
    elif biomes.shape[0] == 1 and schem.height > 1:
        biomes = np.broadcast_to(biomes, (schem.height,) + biomes.shape[1:])
    return encode_cells(biomes, list(schem.biome_palette))


# gzip level: WorldEdit's 6 for everything the server could import (<= 4 MiB of NBT, where the 1 MiB compressed
# limit makes size matter); above that a file is for WorldEdit only and level 3 compresses 3x faster (256^3 build:
# 30 MB of NBT, 232 -> 72 ms, 560 -> 711 KB).
DEFAULT_LEVEL = 6
FAST_LEVEL = 3
FAST_LEVEL_ABOVE = 4 * 1024 * 1024


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
    ``compresslevel`` (1-9) overrides the gzip level (default: 6, or 3 for NBT above 4 MiB).
    """
    with gc_paused():
        root_name, root = build_tree(
            schem, version, name=name, author=author, date_ms=date_ms, worldedit_offsets=worldedit_offsets
        )
        raw = encode_nbt(root, root_name)
    if not compress:
        return raw
    if compresslevel is None:
        compresslevel = FAST_LEVEL if len(raw) > FAST_LEVEL_ABOVE else DEFAULT_LEVEL
    return gzip.compress(raw, compresslevel=compresslevel, mtime=0)


def write_bytes_atomic(path: str | os.PathLike, payload: bytes) -> Path:
    """Write ``payload`` to ``path`` atomically (the project's one writer, :func:`mcb.fileio.write_atomic`: temp file
    in the same directory, fsync, os.replace; new files get normal permissions, replaced ones keep theirs)."""
    from mcb.fileio import write_atomic

    return write_atomic(path, payload)


def write_schematic(schem: Schematic, path: str | os.PathLike, version: int = 2, **options) -> Path:
    """Encode (see :func:`encode_schematic`) and write atomically; returns the path."""
    return write_bytes_atomic(path, encode_schematic(schem, version, **options))
