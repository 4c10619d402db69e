"""The one reader of the world: ``region_inspect`` box by box (protocol §3.4), two requests in flight.

Verify, export, the dry run and a build's planning all read through :class:`WorldReader`: boxes of at most 4,096
cells, each read once, in the order asked, ``in_flight`` at a time — the plugin runs two requests at once and each
waits a tick or two for the main thread (formats-and-building §C2), so two in flight halve the wait.

A box is read with ``blocks`` detail (each position's state and, where a block entity stands, its ``snapshot_id``,
which ``expected_blocks`` must repeat, §4.7), except where a ``summary`` is likely to say "one state" and so save
the bytes of 4,096 entries: above a box that held one state (air over flat land, stone under it). A summary that
finds more than one state costs a second read; that is rare by this rule.

States are kept as small integer codes of one :class:`StateTable` per build, so comparing the world with a file is an
array comparison. :class:`TileReads` keeps a build's reads in flight in the background, in the order its walk will
want them.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from mcb.blocks.behavior import has_block_entity
from mcb.blocks.state import AIR_STATES
from mcb.errors import ServerError

MAX_READ_CELLS = 4096  # region_inspect's fixed limit (§3.4)
IN_FLIGHT = 2  # the plugin's HTTP executor runs two requests at once (§C2)
Vec3 = tuple[int, int, int]
Box = tuple[Vec3, Vec3]


class StateTable:
    """Block-state strings <-> int codes; code 0 is ``minecraft:air``. Safe to share between reading threads."""

    def __init__(self):
        self.names: list[str] = []
        self._codes: dict[str, int] = {}
        self._air: list[bool] = []
        self._lock = threading.Lock()
        self.code("minecraft:air")

    def code(self, name: str) -> int:
        code = self._codes.get(name)
        if code is None:
            with self._lock:
                code = self._codes.get(name)
                if code is None:
                    self._air.append(name in AIR_STATES)
                    self.names.append(name)
                    code = self._codes[name] = len(self.names) - 1
        return code

    def codes(self, names) -> np.ndarray:
        return np.fromiter((self.code(n) for n in names), dtype=np.int32, count=len(names))

    def air_mask(self) -> np.ndarray:
        """bool per code: is it one of the three airs."""
        return np.array(self._air[: len(self.names)], dtype=bool)


@dataclass
class WorldRead:
    """The states of a world box ``lo .. hi`` (inclusive), as codes on [y, z, x] axes."""

    lo: Vec3
    hi: Vec3
    codes: np.ndarray
    snapshots: dict = field(default_factory=dict)  # (x, y, z) -> snapshot_id where a block entity stands
    uniform: bool = False  # one state, no block entity


@dataclass
class ReadCounter:
    summary: int = 0
    blocks: int = 0
    cells: int = 0

    def to_json(self) -> dict:
        return {"summary_reads": self.summary, "block_reads": self.blocks, "cells_read": self.cells}


def box_shape(lo: Vec3, hi: Vec3) -> tuple[int, int, int]:
    """[y, z, x] shape of the inclusive box ``lo .. hi``."""
    return (hi[1] - lo[1] + 1, hi[2] - lo[2] + 1, hi[0] - lo[0] + 1)


class WorldReader:
    """Reads boxes of the world for one build (or verify, or export), sharing one :class:`StateTable`."""

    def __init__(self, client, table: StateTable | None = None, *, in_flight: int = IN_FLIGHT,
                 counter: ReadCounter | None = None):  # fmt: skip
        self.client = client
        self.table = table or StateTable()
        self.in_flight = max(1, in_flight)
        self.counter = counter or ReadCounter()
        self._one_state_tops: set[tuple[int, int, int]] = set()  # (x, z, top y) of boxes that held one state
        self._lock = threading.Lock()

    def read(self, boxes: Iterable[Box]) -> Iterator[WorldRead]:
        """Each box (``lo, hi`` inclusive, at most 4,096 cells), in the order given, ``in_flight`` at a time. Stop
        iterating whenever you like: what is still in flight is waited for, nothing more is sent."""
        if self.in_flight == 1:
            for lo, hi in boxes:
                yield self.read_box(lo, hi)
            return
        pool = ThreadPoolExecutor(self.in_flight, thread_name_prefix="mcb-read")
        pending: deque = deque()
        try:
            for lo, hi in boxes:
                pending.append(pool.submit(self.read_box, lo, hi))
                if len(pending) >= self.in_flight:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def read_box(self, lo: Vec3, hi: Vec3) -> WorldRead:
        """The world's states in ``lo .. hi`` (inclusive, at most 4,096 cells)."""
        shape = box_shape(lo, hi)
        if shape[0] * shape[1] * shape[2] > MAX_READ_CELLS:
            raise ValueError(f"read of {shape[0] * shape[1] * shape[2]} cells")
        if (lo[0], lo[2], lo[1] - 1) in self._one_state_tops:
            code = self._summary(lo, hi)
            if code is not None:
                self._note(lo, hi, True)
                return WorldRead(lo, hi, np.full(shape, code, dtype=np.int32), uniform=True)
        read = self._blocks(lo, hi, shape)
        read.uniform = not read.snapshots and bool((read.codes == read.codes.flat[0]).all())
        self._note(lo, hi, read.uniform)
        return read

    def _note(self, lo: Vec3, hi: Vec3, one_state: bool) -> None:
        if one_state:
            with self._lock:
                self._one_state_tops.add((lo[0], lo[2], hi[1]))

    def _summary(self, lo: Vec3, hi: Vec3) -> int | None:
        """The one state (code) of a box that holds one state without a block entity; None when it holds more (or
        a block entity, whose snapshot id only a ``blocks`` read gives)."""
        answer = self.client.call("region_inspect", {"min": _pos(lo), "max": _pos(hi), "detail": "summary"})
        with self._lock:
            self.counter.summary += 1
        palette = answer.get("palette") if isinstance(answer, dict) else None
        if not isinstance(palette, dict):
            raise ServerError("region_inspect: the answer has no palette", code="invalid_response")
        if len(palette) == 1:
            (state,) = palette
            if not has_block_entity(state.partition("[")[0]):
                return self.table.code(state)
        return None

    def _blocks(self, lo: Vec3, hi: Vec3, shape) -> WorldRead:
        volume = shape[0] * shape[1] * shape[2]
        answer = self.client.call("region_inspect", {"min": _pos(lo), "max": _pos(hi), "detail": "blocks"})
        blocks = answer.get("blocks") if isinstance(answer, dict) else None
        if not isinstance(blocks, list) or len(blocks) != volume:
            raise ServerError(
                f"region_inspect: expected {volume} blocks, got {len(blocks) if isinstance(blocks, list) else 'none'}",
                code="invalid_response",
            )
        with self._lock:
            self.counter.blocks += 1
            self.counter.cells += volume
        codes = self.table.codes([entry["state"] for entry in blocks]).reshape(shape)  # y, then z, then x (§3.4)
        snapshots = {}
        for entry in blocks:
            snapshot = entry.get("snapshot_id")
            if snapshot:
                pos = entry["pos"]
                snapshots[(pos["x"], pos["y"], pos["z"])] = snapshot
        return WorldRead(lo, hi, codes, snapshots)

    def read_large_box(self, lo: Vec3, hi: Vec3, on_read=None) -> WorldRead:
        """A box of any size, read in pieces of at most 16³ cells, bottom-up; ``on_read(piece)`` after each."""
        codes = np.zeros(box_shape(lo, hi), dtype=np.int32)
        snapshots: dict = {}
        for part in self.read(split_box(lo, hi)):
            ys = slice(part.lo[1] - lo[1], part.hi[1] - lo[1] + 1)
            zs = slice(part.lo[2] - lo[2], part.hi[2] - lo[2] + 1)
            xs = slice(part.lo[0] - lo[0], part.hi[0] - lo[0] + 1)
            codes[ys, zs, xs] = part.codes
            snapshots.update(part.snapshots)
            if on_read is not None:
                on_read(part)
        return WorldRead(lo, hi, codes, snapshots)


def split_box(lo: Vec3, hi: Vec3, tile: int = 16) -> Iterator[Box]:
    """``(lo, hi)`` pieces of at most 16 x 16 x 16 cells covering the box, bottom-up (y, then z, then x)."""
    for y in range(lo[1], hi[1] + 1, tile):
        for z in range(lo[2], hi[2] + 1, tile):
            for x in range(lo[0], hi[0] + 1, tile):
                yield (x, y, z), (min(x + tile - 1, hi[0]), min(y + tile - 1, hi[1]), min(z + tile - 1, hi[2]))


def _pos(p: Vec3) -> dict:
    return {"x": int(p[0]), "y": int(p[1]), "z": int(p[2])}


class TileReads:
    """The world under each tile, read once in the background, in the order the walk will want it.

    ``get(i)`` waits for tile ``i`` (reading it at once if no prefetch is on its way to it); ``forget(indices, then)``
    drops reads the world has moved past and prefetches ``then`` afresh; ``close()`` stops reading."""

    def __init__(self, reader: WorldReader, boxes: dict[int, Box]):
        self.reader, self.boxes = reader, boxes
        self.cache: dict[int, WorldRead] = {}
        self.queued: set[int] = set()
        self.error: BaseException | None = None
        self.generation = 0
        self.cond = threading.Condition()

    def prefetch(self, order: list[int]) -> None:
        with self.cond:
            self.generation += 1
            self.error = None
            order = [i for i in order if i not in self.cache and i in self.boxes]
            self.queued = set(order)
            generation = self.generation
        if order:
            threading.Thread(target=self._run, args=(generation, order), name="mcb-prefetch", daemon=True).start()

    def _run(self, generation: int, order: list[int]) -> None:
        reads = self.reader.read(self.boxes[i] for i in order)
        try:
            for index, read in zip(order, reads):
                with self.cond:
                    if generation != self.generation:
                        return
                    self.cache[index] = read
                    self.queued.discard(index)
                    self.cond.notify_all()
        except BaseException as error:  # handed to the walk, which raises it where the user sees it
            with self.cond:
                if generation == self.generation:
                    self.error = error
                    self.queued.clear()
                    self.cond.notify_all()
        finally:
            reads.close()

    def has(self, index: int) -> bool:
        return index in self.cache

    def get(self, index: int) -> WorldRead:
        with self.cond:
            while index not in self.cache:
                if self.error is not None:
                    error, self.error = self.error, None
                    raise error
                if index not in self.queued:
                    break
                self.cond.wait(0.5)
            else:
                return self.cache[index]
        read = self.reader.read_box(*self.boxes[index])  # nothing on its way to it: read it now
        with self.cond:
            self.cache[index] = read
        return read

    def forget(self, indices, then: list[int]) -> None:
        with self.cond:
            for index in indices:
                self.cache.pop(index, None)
        self.prefetch(then)

    def close(self) -> None:
        with self.cond:
            self.generation += 1
            self.queued.clear()
            self.cond.notify_all()
