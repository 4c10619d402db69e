"""The stream of plans of one build: walk the passes and tiles from a cursor, diff, pack into plans.

    planner = BuildPlanner(client, placement, capacity=4096)
    while (plan := planner.next_plan()) is not None:
        summary = client.build_prepare(**plan.params(planner.table))
    planner.close()

A cursor is ``(pass, tile index)``; ``plan.start`` is where its first position's tile was, ``plan.end`` where its
last one's. Once a plan has applied, every tile before its ``end`` is built, so a later run (or a re-plan after a
conflict) walks again from there: reading first makes positions already written drop out by themselves.

What is left to change (:meth:`BuildPlanner.remaining`) starts at the positions the file places and only shrinks:
a tile not read yet counts every position it owns, a read one exactly the positions that differ.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from mcb.building.boxes import merge_boxes, prepare_params, request_size
from mcb.building.passes import PASS_NAMES
from mcb.building.reading import StateTable, WorldReader
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
    def __init__(self, client, placement, *, capacity: int = 4096, cursor: Cursor = (0, 0),
                 request_limit: int = REQUEST_LIMIT, reader: WorldReader | None = None,
                 start: bool = True):  # fmt: skip
        self.walker = TileWalker(client, placement, reader=reader)
        self.table = self.walker.table
        self.capacity = capacity
        self.request_limit = request_limit
        self.tiles_read = 0
        self.position: Cursor = tuple(cursor)
        self.pending: list[tuple[Cursor, Changes]] = []
        self.serial = 0
        if start:  # else the first rewind starts reading
            self.walker.start(self.position)

    def rewind(self, cursor: Cursor, *, world_changed: bool = True) -> None:
        """Walk again from ``cursor``; what is pending is dropped and, when the world changed, read afresh."""
        self.position = tuple(cursor)
        self.pending = []
        if world_changed:
            self.walker.forget(self.position)
        else:
            self.walker.start(self.position)

    def close(self) -> None:
        self.walker.close()

    @property
    def done(self) -> bool:
        return self.position[0] >= len(PASS_NAMES) and not self.pending

    def pending_count(self) -> int:
        return sum(len(c) for _, c in self.pending)

    def next_plan(self) -> PlannedChanges | None:
        """Diff tiles until a plan is full (or the walk ends) and return it; None when nothing is left."""
        while self.pending_count() < self.capacity and self.position[0] < len(PASS_NAMES):
            self._walk_next()
        if not self.pending:
            return None
        return self._take()

    def _unwalked(self):
        """(pass, tile) of every step still ahead of the walk that owns positions."""
        pass_no, index = self.position
        walker = self.walker
        for p in range(pass_no, len(PASS_NAMES)):
            for tile in walker.tiles[index if p == pass_no else 0 :]:
                if walker.owned[tile.index, p]:
                    yield p, tile

    def remaining(self) -> tuple[int, bool]:
        """(positions left to change, whether that is an estimate): pending positions, the exact changes of tiles
        read, every owned position of tiles not read yet (or, for a tile read before the world changed, its count
        then)."""
        total, estimated = self.pending_count(), False
        for pass_no, tile in self._unwalked():
            exact = self.walker.exact_count(pass_no, tile)
            if exact is None:
                total += self.walker.estimate_count(pass_no, tile)
                estimated = True
            else:
                total += exact
        return total, estimated

    def likely_remaining(self) -> int:
        """Positions left to change as a time left should count them: :meth:`remaining` with a tile not read yet
        counted as on empty land."""
        total = self.pending_count()
        for pass_no, tile in self._unwalked():
            exact = self.walker.exact_count(pass_no, tile)
            total += self.walker.likely_count(pass_no, tile) if exact is None else exact
        return total

    def _walk_next(self) -> None:
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
        self.position = (pass_no, index + 1)
        if len(changes):
            self.pending.append(((pass_no, index), changes))

    def _take(self) -> PlannedChanges:
        changes = Changes.concat([c for _, c in self.pending])
        part, boxes, size = first_plan(changes, self.table, self.capacity, self.request_limit)
        count = len(part)
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


def first_plan(changes: Changes, table: StateTable, capacity: int, request_limit: int = REQUEST_LIMIT):
    """``(part, boxes, request bytes)``: the first changes that fit one plan — at most ``capacity`` positions, a
    request under ``request_limit`` bytes, and never the two halves of a pair apart."""
    count = min(capacity, len(changes))
    name_lengths = np.array([len(n) for n in table.names], dtype=np.int64)
    while True:
        count = _whole_pairs(changes.unit, count)
        part = changes.slice(0, count)
        boxes = merge_boxes(part.x, part.y, part.z, part.want)
        size = request_size(boxes, part.x, part.y, part.z, part.have, len(part.snapshots), name_lengths)
        if size <= request_limit or count <= 1:
            return part, boxes, size
        count = max(1, int(count * request_limit / size * 0.97))


def _whole_pairs(unit: np.ndarray, count: int) -> int:
    """``count``, lowered by one when it would cut between the two halves of a pair."""
    if 0 < count < len(unit) and unit[count - 1] >> 1 == unit[count] >> 1:
        return count - 1
    return count
