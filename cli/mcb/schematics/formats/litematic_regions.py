"""The regions a Litematica file is written as (:mod:`mcb.schematics.formats.litematic_writer` writes them,
:mod:`mcb.schematics.formats.losses` counts the cells they turn into air).

A model read from a Litematica file keeps its regions (``SourceInfo.regions``: name, ``Position`` and ``Size`` as
stored). Written again, each is a region of its own holding the model's cells in its box, the block entities and
entities on them, and its ``Position`` and ``Size`` (a negative Size stays negative), moved with the model's
offset; cells outside every region stay out of the file (left unchanged, as read). When they no longer describe
the model (a rotation changed the box, or a block or block entity lies outside every region) the model is written
as one region covering its box, as a model from any other format is: named after the schematic, ``Main`` by default.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mcb.schematics.formats.litematic import region_box
from mcb.schematics.model import Schematic


@dataclass(frozen=True)
class OutRegion:
    """A region as written: ``name``, ``position`` and ``size`` as the file says them; ``low`` and ``dims`` its box
    in the model (local coordinates)."""

    name: str
    position: tuple[int, int, int]
    size: tuple[int, int, int]
    low: tuple[int, int, int]
    dims: tuple[int, int, int]

    @property
    def window(self) -> tuple[slice, slice, slice]:
        """The region's cells in the model's ``[y, z, x]`` arrays."""
        (x, y, z), (dx, dy, dz) = self.low, self.dims
        return slice(y, y + dy), slice(z, z + dz), slice(x, x + dx)

    def holds(self, pos) -> bool:
        return all(lo <= p < lo + d for p, lo, d in zip(pos, self.low, self.dims))


def written_regions(schem: Schematic, name: str | None = None) -> list[OutRegion]:
    """The regions the writer writes: the model's own Litematica regions while they describe it, else one region
    covering the box named ``name`` (else the schematic's name, else ``Main``)."""
    kept = _kept_regions(schem)
    if kept is not None:
        return kept
    meta = schem.metadata if isinstance(schem.metadata, dict) else {}
    return [OutRegion(str(name or meta.get("Name") or "Main"), schem.offset, schem.size, (0, 0, 0), schem.size)]


def _kept_regions(schem: Schematic) -> list[OutRegion] | None:
    stored = schem.source.regions if schem.source.format == "litematic" else None
    if not stored:
        return None
    boxes = [(entry, *region_box(entry["position"], entry["size"])) for entry in stored]
    low = tuple(min(box[a] for _, box, _ in boxes) for a in range(3))
    high = tuple(max(box[a] + dims[a] for _, box, dims in boxes) for a in range(3))
    if tuple(h - lo for h, lo in zip(high, low)) != schem.size:
        return None
    shift = tuple(o - lo for o, lo in zip(schem.offset, low))  # the regions move with the model's offset
    regions = [
        OutRegion(
            str(entry["name"]),
            tuple(p + s for p, s in zip(entry["position"], shift)),  # type: ignore[arg-type]
            tuple(entry["size"]),  # type: ignore[arg-type]
            tuple(b - lo for b, lo in zip(box, low)),  # type: ignore[arg-type]
            dims,
        )
        for entry, box, dims in boxes
    ]
    if len(regions) == 1 or not schem.blocks.size:  # one region is the box
        return regions
    covered = np.zeros(schem.blocks.shape, dtype=bool)
    for region in regions:
        covered[region.window] = True
    placed = ~covered if schem.void is None else ~covered & ~schem.void
    if placed.any():  # a block outside every region: the regions no longer fit
        return None
    inside = [be.pos for be in schem.block_entities if all(0 <= p < n for p, n in zip(be.pos, schem.size))]
    if any(not covered[y, z, x] for x, y, z in inside):  # nor do they for a block entity on a void cell
        return None
    return regions


def void_written_as_air(schem: Schematic) -> int:
    """Cells the model leaves unchanged that the written file makes air (those inside a written region)."""
    if schem.void is None:
        return 0
    regions = written_regions(schem)
    if len(regions) == 1:
        return int(np.count_nonzero(schem.void[regions[0].window]))
    covered = np.zeros(schem.void.shape, dtype=bool)
    for region in regions:
        covered[region.window] = True
    return int(np.count_nonzero(schem.void & covered))
