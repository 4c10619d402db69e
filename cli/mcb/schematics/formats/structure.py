"""Vanilla structure ``.nbt`` (structure blocks, ``/place template``, datapacks), read into the one model and written.

Facts (spec formats-and-building.md §A.2): ``size`` is a list of three ints; ``palette`` is one list of
``{Name, Properties?}``, or ``palettes`` a list of them (the game picks one per placement; the first is read unless
another is asked for); ``blocks`` lists ``{state, pos, nbt?}`` where ``nbt`` is the block entity without x/y/z;
``entities`` lists ``{pos, blockPos, nbt}``. A position absent from ``blocks``, or holding
``minecraft:structure_void``, is left unchanged by the game: the model marks it void. The anchor is the (0,0,0) corner.
"""

from __future__ import annotations

import struct

import numpy as np

from mcb.schematics.formats import ReadOptions
from mcb.schematics.formats.common import Fields, compound_from_state, dense_palette, state_from_compound, without
from mcb.schematics.formats.structure_blocks import place_blocks
from mcb.schematics.model import Entity, Schematic, SourceInfo
from mcb.schematics.nbt import (
    TAG_COMPOUND,
    TAG_LIST,
    Compound,
    Double,
    Encoded,
    Int,
    List,
    String,
    is_list_of,
)
from mcb.wording import plural

AIR = "minecraft:air"


def read_structure(doc, options: ReadOptions | None = None) -> Schematic:
    """The model of a recognised structure document; ``options.palette_index`` picks one of ``palettes``."""
    palette_index = options.palette_index if options is not None else 0
    fields = Fields(doc, "structure")
    root = doc.root
    data_version = fields.integer(root, "DataVersion", required=False)
    size = fields.triple(fields.get(root, "size", (TAG_LIST,)), "size")
    if any(s < 0 for s in size):
        raise fields.fail(f"size {list(size)} is negative", "size.negative", "size")
    fields.check_cells(size, "size")
    width, height, length = size
    palette, count = _palette(fields, root, palette_index)
    placed = place_blocks(fields, root, palette, size)
    blocks, void, repeated = placed.blocks, placed.void, placed.repeated
    entities = [_entity(fields, entry, i) for i, entry in enumerate(fields.compounds(root, "entities"))]
    notes = []
    if repeated:
        notes.append(
            f"{plural(repeated, 'block entry', 'block entries')} repeat{'s' if repeated == 1 else ''} a position: the later entry is read, as the game places them"
        )
    if count > 1:
        notes.append(
            f"the file offers {count} palettes (the game picks one at random per placement): palette "
            f"{palette_index} was read"
        )
    source = SourceInfo(
        version=None,
        compressed=doc.stats.compressed,
        format="structure",
        palettes=count,
        compressed_size=doc.stats.compressed_size,
        inflated_size=doc.stats.inflated_size,
        data_version_assumed=data_version is None,
        notes=notes,
    )
    if void.any():  # a void cell holds air: nothing places it, and counts and pictures skip it
        blocks[void] = _index(palette, AIR)
    return Schematic(
        width=width,
        height=height,
        length=length,
        palette=palette,
        blocks=blocks,
        data_version=data_version if data_version is not None else 0,
        block_entities=placed.block_entities,
        entities=entities,
        metadata=Compound(),
        source=source,
        void=void if void.any() else None,
    )


def _index(palette: list[str], state: str) -> int:
    if state not in palette:
        palette.append(state)
    return palette.index(state)


def _palette(fields: Fields, root, index: int) -> tuple[list[str], int]:
    if "palette" in root:
        return [
            state_from_compound(fields, e, "palette", i) for i, e in enumerate(fields.compounds(root, "palette"))
        ], 1
    palettes = fields.get(root, "palettes", (TAG_LIST,))
    if not palettes or not is_list_of(palettes, TAG_LIST):
        raise fields.fail("palettes must be a non-empty list of palettes", "field.type", "palettes")
    if not 0 <= index < len(palettes):
        raise fields.fail(
            f"the file has {len(palettes)} palettes; there is no palette {index}",
            "palette.index",
            "palettes",
            hint=f"choose 0 to {len(palettes) - 1}",
        )
    chosen = palettes[index]
    if not is_list_of(chosen, TAG_COMPOUND):
        raise fields.fail("a palette must be a list of compounds", "field.type", "palettes", index)
    return [state_from_compound(fields, e, "palettes", index, i) for i, e in enumerate(chosen)], len(palettes)


def _entity(fields: Fields, entry, i: int) -> Entity:
    where = ("entities", i)
    pos = fields.triple(fields.get(entry, "pos", (TAG_LIST,), *where), *where, "pos", floats=True)
    nbt = fields.get(entry, "nbt", (TAG_COMPOUND,), *where, required=False) or Compound()
    ident = nbt.get("id")
    return Entity(pos, str(ident) if ident is not None else "", without(nbt, "id", "Pos"))  # type: ignore[arg-type]


# --- writing ---------------------------------------------------------------------------------------------------


def structure_tree(schem: Schematic) -> tuple[str, Compound]:
    """(root name, root compound) of ``schem`` as a structure: void cells are left out of ``blocks``."""
    from mcb.schematics.formats.losses import writable_parts

    palette, cells = dense_palette(schem.blocks, schem.palette, schem.void)
    flat = cells.ravel()
    keep = np.ones(flat.size, dtype=bool) if schem.void is None else ~schem.void.ravel()
    block_entities, kept_entities = writable_parts(schem, "structure")  # the rest said by format_losses
    entries = _blocks_payload(np.flatnonzero(keep), flat, schem, block_entities)
    entities = List((), TAG_COMPOUND)
    for entity in kept_entities:
        nbt = Compound(id=String(entity.id)) if entity.id else Compound()
        nbt.update(without(entity.data or {}, "Pos", "id"))
        block = [Int(int(np.floor(p))) for p in entity.pos]
        entities.append(Compound(pos=List([Double(p) for p in entity.pos], 6), blockPos=List(block, 3), nbt=nbt))
    root = Compound(
        DataVersion=Int(schem.data_version),
        size=List([Int(schem.width), Int(schem.height), Int(schem.length)], 3),
        palette=List([compound_from_state(s) for s in palette], TAG_COMPOUND),
        blocks=entries,
        entities=entities,
    )
    return "", root


# One ``blocks`` entry without block entity: {state: Int, pos: [x, y, z]} and its end tag, 36 bytes whatever the
# values; 712k of them (an 86 x 82 x 101 build) are packed by numpy instead of built and walked as tags one by one.
_PLAIN_ENTRY = np.dtype(
    [("state_head", "S8"), ("state", ">i4"), ("pos_head", "S11"), ("pos", ">i4", (3,)), ("end", "S1")]
)


_PLAIN_TAGS = 6  # a plain entry as the reader counts it: the compound, state, pos and its 3 ints
_PLAIN_DEPTH = 2  # the compound and its pos list


def _blocks_payload(kept: np.ndarray, flat: np.ndarray, schem: Schematic, block_entities: list) -> Encoded:
    """The encoded ``blocks`` list: every kept cell in index order, with ``nbt`` where a block entity stands."""
    from mcb.schematics.nbt_encoder import encode_nbt, tree_facts

    width, length = schem.width, schem.length
    records = np.zeros(kept.size, dtype=_PLAIN_ENTRY)
    records["state_head"] = b"\x03\x00\x05state"
    records["pos_head"] = b"\x09\x00\x03pos\x03\x00\x00\x00\x03"
    records["state"] = flat[kept]
    records["pos"][:, 0] = kept % width
    records["pos"][:, 1] = kept // (width * length)
    records["pos"][:, 2] = (kept // width) % length
    # the end byte stays 0: TAG_End
    by_index = {}
    for be in block_entities:
        x, y, z = be.pos
        if 0 <= x < width and 0 <= z < length and 0 <= y < schem.height:
            by_index[(y * length + z) * width + x] = be
    spots = np.searchsorted(kept, sorted(by_index))
    pieces, start = [struct.pack(">bi", TAG_COMPOUND, kept.size)], 0
    tags, depth = 1 + _PLAIN_TAGS * kept.size, 1 + _PLAIN_DEPTH if kept.size else 1  # the list, its plain entries
    for spot in spots.tolist():
        if spot >= kept.size or int(kept[spot]) not in by_index:  # a block entity on a cell left unchanged
            continue
        index = int(kept[spot])
        be = by_index[index]
        pieces.append(records[start:spot].tobytes())
        nbt = Compound(id=String(be.id)) if be.id else Compound()
        nbt.update(without(be.data or {}, "x", "y", "z", "id"))
        x, y, z = (int(v) for v in records["pos"][spot])
        entry = Compound(state=Int(int(flat[index])), pos=List([Int(x), Int(y), Int(z)], 3), nbt=nbt)
        pieces.append(encode_nbt(entry, "")[3:])  # the payload: no tag id, no (empty) name
        facts = tree_facts(entry)
        tags, depth = tags - _PLAIN_TAGS + facts[0], max(depth, 1 + facts[1])
        start = spot + 1
    pieces.append(records[start:].tobytes())
    return Encoded(TAG_LIST, b"".join(pieces), tags, depth)
