"""The stream of plans of one build: walk the passes and tiles from a cursor, diff, pack into plans.

    planner = BuildPlanner(client, placement, capacity=4096)
    while (plan := planner.next_plan()) is not None:
        summary = client.build_prepare(**plan.params(planner.table))

A cursor is ``(pass, tile index)``; ``plan.start`` is where its first position's tile was, ``plan.end`` where its
last one's. Once a plan has applied, every tile before its ``end`` is built, so a later run (or a re-plan after a
conflict) walks again from there: reading first makes positions already written drop out by themselves.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from mcb.building.boxes import merge_boxes, prepare_params, request_size
from mcb.building.passes import PASS_NAMES
from mcb.building.reading import StateTable
from mcb.building.tiles import Changes, TileWalker

REQUEST_LIMIT = 1_000_000  # bytes of one build_prepare request; the server takes at most 1 MiB (protocol §1.2)
Cursor = tuple[int, int]


@dataclass
class PlannedChanges:
    """One plan's positions (before ``build_prepare``), with where the walk was when they were read."""

    changes: Changes
    boxes: np.ndarray
    size: int  # request bytes (upper bound)
    start: Cursor
    end: Cursor

    def __len__(self) -> int:
        return len(self.changes)

    def params(self, table: StateTable) -> dict:
        c = self.changes
        return prepare_params(self.boxes, c.x, c.y, c.z, c.have, c.snapshots, table.names)

    def replaced(self, table: StateTable) -> Counter:
        """How many non-air blocks of each state this plan replaces."""
        have = self.changes.have
        have = have[~table.air_mask()[have]]
        counts = np.bincount(have, minlength=len(table.names)) if len(have) else []
        return Counter({table.names[i]: int(n) for i, n in enumerate(counts) if n})


class BuildPlanner:
    def __init__(
        self,
        client,
        placement,
        *,
        capacity: int = 4096,
        cursor: Cursor = (0, 0),
        request_limit: int = REQUEST_LIMIT,
        walker: TileWalker | None = None,
    ):
        self.walker = walker or TileWalker(client, placement)
        self.table = self.walker.table
        self.capacity = capacity
        self.request_limit = request_limit
        self.tiles_read = 0
        self.read_air = self.read_air_changes = 0  # placed air cells in the tiles read, and how many changed
        self.rewind(cursor)

    def rewind(self, cursor: Cursor) -> None:
        """Walk again from ``cursor`` (what is pending is read afresh)."""
        self.position = tuple(cursor)
        self.pending: list[tuple[Cursor, Changes]] = []
        self.serial = 0
        self.walker.forget()

    @property
    def done(self) -> bool:
        return self.position[0] >= len(PASS_NAMES) and not self.pending

    def pending_count(self) -> int:
        return sum(len(c) for _, c in self.pending)

    def next_plan(self) -> PlannedChanges | None:
        """Read tiles until a plan is full (or the walk ends) and return it; None when nothing is left."""
        while self.pending_count() < self.capacity and self.position[0] < len(PASS_NAMES):
            self._read_next()
        if not self.pending:
            return None
        return self._take()

    def all_read(self) -> bool:
        """Every tile with cells to place has been read: what is left to change is known, not estimated."""
        pass_no, tile = self.position
        if pass_no >= len(PASS_NAMES):
            return True
        counts = self.walker.pass_counts
        return not (counts[0, tile:, pass_no].any() or counts[0, :, pass_no + 1 :].any())

    def remaining_blocks(self) -> int:
        """The positions left to change in the tiles not read yet, estimated: their placed non-air cells (exact on
        empty land), plus their placed air cells at the share of air cells that replaced a block in the tiles read
        so far (the world decides; so the total a bar shows settles early instead of growing tile by tile)."""
        pass_no, tile = self.position
        if pass_no >= len(PASS_NAMES):
            return 0
        counts = self.walker.pass_counts
        cells, solid = (int(counts[k, tile:, pass_no].sum() + counts[k, :, pass_no + 1 :].sum()) for k in (0, 1))
        share = self.read_air_changes / self.read_air if self.read_air else 0.0
        return solid + round((cells - solid) * min(1.0, share))

    def _read_next(self) -> None:
        pass_no, index = self.position
        walker = self.walker
        while index < len(walker.tiles) and not walker.has_cells(pass_no, index):
            index += 1
        if index >= len(walker.tiles):
            self.position = (pass_no + 1, 0)
            return
        self.serial += 1
        changes = walker.changes(pass_no, walker.tiles[index], self.serial)
        self.tiles_read += 1
        cells, solid = (int(walker.pass_counts[k, index, pass_no]) for k in (0, 1))
        self.read_air += cells - solid  # what the tiles read so far showed of air cells that change the world
        self.read_air_changes += max(0, len(changes) - solid)
        self.position = (pass_no, index + 1)
        if len(changes):
            self.pending.append(((pass_no, index), changes))

    def _take(self) -> PlannedChanges:
        changes = Changes.concat([c for _, c in self.pending])
        count = min(self.capacity, len(changes))
        name_lengths = np.array([len(n) for n in self.table.names], dtype=np.int64)
        while True:
            count = _whole_pairs(changes.unit, count)
            part = changes.slice(0, count)
            boxes = merge_boxes(part.x, part.y, part.z, part.want)
            size = request_size(boxes, part.x, part.y, part.z, part.have, len(part.snapshots), name_lengths)
            if size <= self.request_limit or count <= 1:
                break
            count = max(1, int(count * self.request_limit / size * 0.97))
        start, end, left, used = self.pending[0][0], None, [], 0
        for cursor, tile_changes in self.pending:
            if used >= count:
                left.append((cursor, tile_changes))
                continue
            end = cursor
            if used + len(tile_changes) > count:
                left.append((cursor, tile_changes.slice(count - used)))
            used += len(tile_changes)
        self.pending = left
        return PlannedChanges(part, boxes, size, start, end)


def _whole_pairs(unit: np.ndarray, count: int) -> int:
    """``count``, lowered by one when it would cut between the two halves of a pair."""
    if 0 < count < len(unit) and unit[count - 1] >> 1 == unit[count] >> 1:
        return count - 1
    return count
