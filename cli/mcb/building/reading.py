"""Read the world box by box with ``region_inspect`` (protocol §3.4), reading no more than needed.

The ``summary`` detail comes first: a box holding one state without a block entity (all air, say) needs nothing
more. Only other boxes are read again with ``blocks`` detail, which carries each position's state and, where a block
entity stands, its ``snapshot_id`` (what ``expected_blocks`` must repeat, §4.7).

States are kept as small integer codes of one :class:`StateTable` per build, so comparing the world with a file is an
array comparison.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mcb.blocks.behavior import has_block_entity
from mcb.blocks.state import AIR_STATES
from mcb.errors import ServerError

MAX_READ_CELLS = 4096  # region_inspect's fixed limit (§3.4)
Vec3 = tuple[int, int, int]


class StateTable:
    """Block-state strings <-> int codes; code 0 is ``minecraft:air``."""

    def __init__(self):
        self.names: list[str] = []
        self._codes: dict[str, int] = {}
        self._air: list[bool] = []
        self.code("minecraft:air")

    def code(self, name: str) -> int:
        code = self._codes.get(name)
        if code is None:
            code = self._codes[name] = len(self.names)
            self.names.append(name)
            self._air.append(name in AIR_STATES)
        return code

    def codes(self, names) -> np.ndarray:
        return np.fromiter((self.code(n) for n in names), dtype=np.int32, count=len(names))

    def air_mask(self) -> np.ndarray:
        """bool per code: is it one of the three airs."""
        return np.array(self._air, dtype=bool)


@dataclass
class WorldRead:
    """The states of a world box ``lo .. hi`` (inclusive), as codes on [y, z, x] axes."""

    lo: Vec3
    hi: Vec3
    codes: np.ndarray
    snapshots: dict = field(default_factory=dict)  # (x, y, z) -> snapshot_id where a block entity stands
    requests: int = 0
    detailed: bool = False


@dataclass
class ReadCounter:
    summary: int = 0
    blocks: int = 0
    cells: int = 0

    def to_json(self) -> dict:
        return {"summary_reads": self.summary, "block_reads": self.blocks, "cells_read": self.cells}


def read_box(client, table: StateTable, lo: Vec3, hi: Vec3, counter: ReadCounter | None = None) -> WorldRead:
    """The world's states in ``lo .. hi`` (inclusive, at most 4096 cells): summary first, blocks when needed."""
    shape = (hi[1] - lo[1] + 1, hi[2] - lo[2] + 1, hi[0] - lo[0] + 1)
    volume = shape[0] * shape[1] * shape[2]
    if volume > MAX_READ_CELLS:
        raise ValueError(f"read of {volume} cells")
    uniform = read_uniform(client, table, lo, hi, counter)
    if uniform is not None:
        return WorldRead(lo, hi, np.full(shape, uniform, dtype=np.int32), requests=1)
    return read_blocks(client, table, lo, hi, counter)


def read_uniform(client, table: StateTable, lo: Vec3, hi: Vec3, counter: ReadCounter | None = None) -> int | None:
    """The one state (code) of a box that holds one state without a block entity, from a ``summary`` read; None
    when it holds more (or a block entity, whose snapshot id only a ``blocks`` read gives)."""
    summary = client.call("region_inspect", {"min": _pos(lo), "max": _pos(hi), "detail": "summary"})
    if counter is not None:
        counter.summary += 1
    palette = summary.get("palette") if isinstance(summary, dict) else None
    if not isinstance(palette, dict):
        raise ServerError("region_inspect: the answer has no palette", code="invalid_response")
    if len(palette) == 1:
        (state,) = palette
        if not has_block_entity(state.partition("[")[0]):
            return table.code(state)
    return None


def read_blocks(client, table: StateTable, lo: Vec3, hi: Vec3, counter: ReadCounter | None = None) -> WorldRead:
    """Every state of a box (at most 4096 cells) with ``blocks`` detail, and the block entities' snapshot ids."""
    shape = (hi[1] - lo[1] + 1, hi[2] - lo[2] + 1, hi[0] - lo[0] + 1)
    volume = shape[0] * shape[1] * shape[2]
    answer = client.call("region_inspect", {"min": _pos(lo), "max": _pos(hi), "detail": "blocks"})
    blocks = answer.get("blocks") if isinstance(answer, dict) else None
    if not isinstance(blocks, list) or len(blocks) != volume:
        raise ServerError(
            f"region_inspect: expected {volume} blocks, got {len(blocks) if isinstance(blocks, list) else 'none'}",
            code="invalid_response",
        )
    if counter is not None:
        counter.blocks += 1
        counter.cells += volume
    codes = table.codes([entry["state"] for entry in blocks]).reshape(shape)  # y, then z, then x (§3.4)
    snapshots = {}
    for entry in blocks:
        snapshot = entry.get("snapshot_id")
        if snapshot:
            pos = entry["pos"]
            snapshots[(pos["x"], pos["y"], pos["z"])] = snapshot
    return WorldRead(lo, hi, codes, snapshots, requests=2, detailed=True)


def read_large_box(
    client, table: StateTable, lo: Vec3, hi: Vec3, counter: ReadCounter | None = None, on_read=None
) -> WorldRead:
    """Like :func:`read_box` for a box of any size: read in slabs of at most 4096 cells, bottom-up."""
    shape = (hi[1] - lo[1] + 1, hi[2] - lo[2] + 1, hi[0] - lo[0] + 1)
    codes = np.zeros(shape, dtype=np.int32)
    snapshots: dict = {}
    for part_lo, part_hi in split_box(lo, hi):
        part = read_box(client, table, part_lo, part_hi, counter)
        ys = slice(part_lo[1] - lo[1], part_hi[1] - lo[1] + 1)
        zs = slice(part_lo[2] - lo[2], part_hi[2] - lo[2] + 1)
        xs = slice(part_lo[0] - lo[0], part_hi[0] - lo[0] + 1)
        codes[ys, zs, xs] = part.codes
        snapshots.update(part.snapshots)
        if on_read is not None:
            on_read(part)
    return WorldRead(lo, hi, codes, snapshots)


def split_box(lo: Vec3, hi: Vec3, tile: int = 16):
    """``(lo, hi)`` pieces of at most 16 x 16 x 16 cells covering the box, bottom-up (y, then z, then x)."""
    for y in range(lo[1], hi[1] + 1, tile):
        for z in range(lo[2], hi[2] + 1, tile):
            for x in range(lo[0], hi[0] + 1, tile):
                yield (x, y, z), (min(x + tile - 1, hi[0]), min(y + tile - 1, hi[1]), min(z + tile - 1, hi[2]))


def _pos(p: Vec3) -> dict:
    return {"x": int(p[0]), "y": int(p[1]), "z": int(p[2])}
