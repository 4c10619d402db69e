"""Writing within what mcb's readers read: the one policy of read and write limits."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcb.schematics.formats import SchematicFormat
    from mcb.schematics.model import Schematic
    from mcb.schematics.nbt import ReadLimits


def encode_within(schem: Schematic, fmt: SchematicFormat, limits: ReadLimits | None = None) -> bytes:
    """The gzip file bytes of ``schem`` as ``fmt``."""
    from mcb.schematics.nbt import gc_paused
    from mcb.schematics.nbt_encoder import compress, encode_nbt

    with gc_paused():
        name, root = fmt.tree(schem)
        raw = encode_nbt(root, name)
    return compress(raw)
