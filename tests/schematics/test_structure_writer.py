"""The structure writer packs its `blocks` list in one go: the bytes are those of the obvious tag-by-tag encoding,
cells left unchanged and block entities (on a block, or on a cell left unchanged) included."""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "schematics"


def _plain_blocks_list(schem):
    """The structure's ``blocks`` list built tag by tag, the obvious way (the oracle of the packed encoder)."""
    import numpy as np

    from mcb.schematics.formats.common import dense_palette, without
    from mcb.schematics.nbt import TAG_COMPOUND, Compound, Int, List, String

    _, cells = dense_palette(schem.blocks, schem.palette, schem.void)
    by_pos = {be.pos: be for be in schem.block_entities}
    flat = cells.ravel()
    keep = np.ones(flat.size, dtype=bool) if schem.void is None else ~schem.void.ravel()
    entries = List((), TAG_COMPOUND)
    for i in np.flatnonzero(keep).tolist():
        x, z, y = i % schem.width, (i // schem.width) % schem.length, i // (schem.width * schem.length)
        entry = Compound(state=Int(int(flat[i])), pos=List([Int(x), Int(y), Int(z)], 3))
        be = by_pos.get((x, y, z))
        if be is not None:
            nbt = Compound(id=String(be.id)) if be.id else Compound()
            nbt.update(without(be.data or {}, "x", "y", "z", "id"))
            entry["nbt"] = nbt
        entries.append(entry)
    return entries


def test_structure_blocks_are_packed_byte_for_byte_as_tags_would_encode_them(corpus):
    # the packed writer turned an 86 x 82 x 101 legacy build into a structure in 0.9 s instead of 12 s (and the
    # 256^3 build at all: it ran out of memory); the bytes are those of the tag-by-tag encoding
    from dataclasses import replace

    import numpy as np

    from mcb.schematics.formats import read_any
    from mcb.schematics.formats.structure import structure_tree
    from mcb.schematics.model import BlockEntity
    from mcb.schematics.nbt_encoder import encode_nbt

    tower = read_any(SAMPLES / "watchtower.litematic")  # cells left unchanged, a chest
    y, z, x = (int(v) for v in np.argwhere(tower.void)[0])
    void_spot = (x, y, z)
    on_void = replace(tower, block_entities=[*tower.block_entities, BlockEntity(void_spot, "minecraft:barrel", {})])
    for schem in (
        read_any(corpus / "v2_prismarine_smallhouse1.schem"),
        tower,
        on_void,
        read_any(SAMPLES / "cabin.schematic"),
    ):
        name, root = structure_tree(schem)
        plain = dict(root, blocks=_plain_blocks_list(schem))
        assert encode_nbt(root, name) == encode_nbt(plain, name)
