"""Writing within what mcb's readers read: reading and writing have one policy of limits (``ReadLimits``, every cap
scaled by the cell limit), and a writer refuses, before anything is written, a file the readers would refuse.

    data = encode_within(schem, fmt)      # the file's bytes, or InputError naming the limit and a format that holds it

The writer counts what the reader counts: cells, tags and nesting (:func:`mcb.schematics.nbt_encoder.encode_counted`,
exact), the bytes of NBT and of the file. A structure spends 6 tags and 36 bytes of NBT on a cell, so a big one
passes the tag cap long before Sponge or Litematica, which spend a few bytes and no tag: the refusal names one that
holds the schematic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcb.errors import InputError
from mcb.wording import plural

if TYPE_CHECKING:
    from mcb.schematics.formats import SchematicFormat
    from mcb.schematics.model import Schematic
    from mcb.schematics.nbt import ReadLimits


class _TooBig(Exception):
    def __init__(self, what: str, value: int, limit: int, unit: tuple[str, str], at_least: bool = False):
        super().__init__(what)
        self.what, self.value, self.limit, self.unit, self.at_least = what, value, limit, unit, at_least


def _encode(schem: Schematic, fmt: SchematicFormat, limits: ReadLimits) -> bytes:
    """The file bytes, or _TooBig at the first cap they pass (in the order the reader meets them)."""
    from mcb.schematics.nbt import gc_paused
    from mcb.schematics.nbt_encoder import compress, encode_counted

    _check_at_a_glance(schem, fmt, limits)
    with gc_paused():
        name, root = fmt.tree(schem)
        raw, (tags, depth) = encode_counted(root, name)  # counted as it is encoded: one walk of the tree
    del root
    if tags > limits.max_tags:
        raise _TooBig("tags", tags, limits.max_tags, ("tag", "tags"))
    if depth > limits.max_depth:
        raise _TooBig("depth", depth, limits.max_depth, ("level", "levels"))
    if len(raw) > limits.max_inflated:
        raise _TooBig("nbt", len(raw), limits.max_inflated, ("byte", "bytes"))
    data = compress(raw)
    if len(data) > limits.max_compressed:
        raise _TooBig("file", len(data), limits.max_compressed, ("byte", "bytes"))
    return data


def _check_at_a_glance(schem: Schematic, fmt: SchematicFormat, limits: ReadLimits) -> None:
    """_TooBig when the box, or what each placed cell costs ``fmt`` at least, passes a cap: no tree is built."""
    if schem.volume > limits.max_cells:
        raise _TooBig("cells", schem.volume, limits.max_cells, ("cell", "cells"))
    placed = _placed(schem)  # what each placed cell costs at least: refused before a tree that size is built
    if fmt.cell_tags * placed > limits.max_tags:
        raise _TooBig("tags", fmt.cell_tags * placed, limits.max_tags, ("tag", "tags"), at_least=True)
    if fmt.cell_bytes * placed > limits.max_inflated:
        raise _TooBig("nbt", fmt.cell_bytes * placed, limits.max_inflated, ("byte", "bytes"), at_least=True)


def may_hold(schem: Schematic, fmt: SchematicFormat, limits: ReadLimits | None = None) -> bool:
    """Whether a ``fmt`` file of ``schem`` can be within what mcb reads, by the cheap estimate (cells, and the tags and
    bytes each placed cell costs at least), without encoding anything: False means :func:`encode_within` refuses
    it for sure; True is all a suggestion needs (the rare file refused beyond the estimate is refused when written,
    naming a format that holds it)."""
    from mcb.schematics.nbt import ReadLimits

    try:
        _check_at_a_glance(schem, fmt, limits or ReadLimits())
    except _TooBig:
        return False
    return True


def _placed(schem: Schematic) -> int:
    import numpy as np

    return schem.volume - (int(np.count_nonzero(schem.void)) if schem.void is not None else 0)


_SAYS = {
    "cells": "would hold {value} in its box, above the {limit} mcb reads",
    "file": "would be {value}, above the {limit} mcb reads",
    "nbt": "would inflate to {value} of NBT, above the {limit} mcb reads",
    "depth": "would nest {value} deep, above the {limit} mcb reads",
    "tags": "would hold {value}, above the {limit} mcb reads",
}


def encode_within(schem: Schematic, fmt: SchematicFormat, limits: ReadLimits | None = None) -> bytes:
    """The gzip file bytes of ``schem`` as ``fmt``, refused (InputError ``schem.write.limit``) when mcb's readers
    would refuse them under ``limits``: the message names the limit, the hint a format that holds the schematic."""
    from mcb.schematics.nbt import ReadLimits

    limits = limits or ReadLimits()
    try:
        return _encode(schem, fmt, limits)
    except _TooBig as too_big:
        value, limit = (plural(n, *too_big.unit) for n in (too_big.value, too_big.limit))
        value = f"at least {value}" if too_big.at_least else value
        holder = None if too_big.what == "cells" else _holder(schem, fmt, limits)
        raise InputError(
            f"a {fmt.label} file of this schematic " + _SAYS[too_big.what].format(value=value, limit=limit),
            code="schem.write.limit",
            hint=f"write it as {holder} (a {_label(holder)} file holds it)"
            if holder
            else "split it into smaller schematics: no format mcb writes holds it within what its readers read",
            details={
                "format": fmt.name,
                "limit": too_big.what,
                "value": too_big.value,
                "max": too_big.limit,
                "holds": holder,
            },
        ) from None


def _label(name: str) -> str:
    from mcb.schematics.formats import by_name

    return by_name(name).label


def _holder(schem: Schematic, refused: SchematicFormat, limits: ReadLimits) -> str | None:
    """A writable format whose file of ``schem`` mcb reads back: one that loses nothing more first, the compact
    ones first (tried for real: a refusal is rare, and the answer must hold)."""
    from mcb.schematics.formats import FORMATS
    from mcb.schematics.formats.losses import format_losses

    compact = ("litematic", "sponge3", "sponge2", "structure")
    others = [fmt for fmt in FORMATS if fmt.writable and fmt is not refused]
    others.sort(key=lambda fmt: (sum(loss["data"] for loss in format_losses(schem, fmt.name)), compact.index(fmt.name)))
    for fmt in others:
        try:
            _encode(schem, fmt, limits)
        except _TooBig:
            continue
        return fmt.name
    return None
