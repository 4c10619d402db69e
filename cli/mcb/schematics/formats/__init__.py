"""Every schematic format mcb reads and writes, detected by content (never by file extension).

    read_any(source) -> Schematic             # Sponge v1-v3, Litematica, structure .nbt, legacy .schematic
    write_any(schem, path, fmt) -> Path       # fmt: sponge2 | sponge3 | litematic | structure

Each format has a reader and a writer on the one NBT walker (:mod:`mcb.schematics.nbt`); all of them load into the
one model (:class:`mcb.schematics.model.Schematic`). To put a file into a world or compare it with one, follow
:func:`read_any` with :func:`mcb.schematics.upgrade.upgrade_schematic` (names and states of the target release).
"""

from __future__ import annotations

import os
from pathlib import Path

from mcb.schematics.document import Document, load_document, not_sponge_error
from mcb.schematics.model import Schematic
from mcb.schematics.nbt import ReadLimits

WRITE_FORMATS = ("sponge2", "sponge3", "litematic", "structure")
FORMAT_NAMES = {"sponge": "Sponge", "litematica": "Litematica", "structure": "structure", "mcedit": "legacy"}


def read_any(
    source: str | os.PathLike | bytes, limits: ReadLimits | None = None, *, palette_index: int = 0
) -> Schematic:
    """The model of a schematic file in any supported format (raises ``InputError`` subclasses with ``rule``).

    ``palette_index`` picks one of a structure file's ``palettes`` (the first by default)."""
    return from_document(load_document(source, limits), palette_index=palette_index)


def from_document(doc: Document, *, palette_index: int = 0, compact: bool = False) -> Schematic:
    """The model of a document already read (any recognised format). ``compact``: Sponge cells may come as
    uint16 (see :func:`mcb.schematics.sponge.read_schematic`)."""
    from mcb.schematics.nbt import gc_paused

    with gc_paused():
        if doc.kind == "sponge":
            from mcb.schematics.sponge import schematic_from_document

            return schematic_from_document(doc, compact=compact)
        if doc.kind == "litematica":
            from mcb.schematics.formats.litematic import read_litematic

            return read_litematic(doc)
        if doc.kind == "structure":
            from mcb.schematics.formats.structure import read_structure

            return read_structure(doc, palette_index)
        if doc.kind == "mcedit":
            from mcb.schematics.formats.legacy import read_legacy

            return read_legacy(doc)
    error = not_sponge_error(doc)
    error.message = error.message.replace("not a Sponge schematic", "not a schematic")  # no format reads it
    if doc.path is not None:
        error.message = f"{doc.path}: {error.message}"
    raise error


def write_any(schem: Schematic, path: str | os.PathLike, fmt: str) -> Path:
    """Write ``schem`` atomically as ``fmt`` (one of :data:`WRITE_FORMATS`)."""
    from mcb.schematics.writer import write_bytes_atomic

    return write_bytes_atomic(path, encode_any(schem, fmt))


def encode_any(schem: Schematic, fmt: str) -> bytes:
    """The file bytes of ``schem`` as ``fmt``."""
    if fmt in ("sponge2", "sponge3"):
        from mcb.schematics.writer import encode_schematic

        return encode_schematic(schem, int(fmt[-1]))
    if fmt == "litematic":
        from mcb.schematics.formats.litematic import litematic_tree as tree
    elif fmt == "structure":
        from mcb.schematics.formats.structure import structure_tree as tree
    else:
        raise ValueError(f"unknown format {fmt!r}")
    import gzip

    from mcb.schematics.writer import encode_nbt

    name, root = tree(schem)
    return gzip.compress(encode_nbt(root, name), compresslevel=6, mtime=0)
