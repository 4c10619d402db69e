"""Tiles of a placement, the world under each (read once, ahead of the walk), and what differs in each: the
read-and-diff half of a build and of its dry run.

Tiles are disjoint 16 x 16 x 16 boxes of the placed cells (region_inspect reads at most 4096 cells), walked
bottom-up: by layer, then z, then x. Two-block things are never split: the half in the later tile (above, south or
east) belongs to the tile of the earlier half; its own tile leaves it out.

:class:`~mcb.building.reading.TileReads` reads every tile with placed cells in the background through the one :class:`WorldReader` (two
requests in flight), in walk order from the build's cursor, while plans are prepared and applied. Each pass of the
walk (:mod:`mcb.building.passes`) looks at its own positions only, and no pass writes another's, so one read of a
tile serves all three.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mcb.building.passes import PASS_NAMES
from mcb.building.reading import Box, StateTable, TileReads, WorldRead, WorldReader

TILE = 16
Vec3 = tuple[int, int, int]


@dataclass(frozen=True)
class Tile:
    index: int
    lo: Vec3  # local (schematic) coordinates, inclusive
    hi: Vec3  # exclusive

    def slices(self) -> tuple[slice, slice, slice]:
        return slice(self.lo[1], self.hi[1]), slice(self.lo[2], self.hi[2]), slice(self.lo[0], self.hi[0])


@dataclass
class Changes:
    """Positions to write (world coordinates), the state wanted and the state there now (codes of a StateTable).

    ``unit`` is equal for the two halves of a pair, which are adjacent; a plan is never cut between them."""

    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    want: np.ndarray
    have: np.ndarray
    unit: np.ndarray
    snapshots: dict = field(default_factory=dict)  # (x, y, z) -> snapshot_id of the block entity there now

    def __len__(self) -> int:
        return len(self.x)

    @classmethod
    def empty(cls) -> Changes:
        none = np.zeros(0, dtype=np.int64)
        return cls(none, none, none, none, none, none)

    @classmethod
    def concat(cls, parts: list[Changes]) -> Changes:
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        if len(parts) == 1:
            return parts[0]
        snapshots: dict = {}
        for part in parts:
            snapshots.update(part.snapshots)
        names = ("x", "y", "z", "want", "have", "unit")
        return cls(*(np.concatenate([getattr(p, name) for p in parts]) for name in names), snapshots)

    def slice(self, start: int, stop: int | None = None) -> Changes:
        return self.take(slice(start, stop))

    def take(self, which) -> Changes:
        """The changes at ``which`` (a slice, an index array or a bool mask), snapshots kept for them."""
        part = Changes(self.x[which], self.y[which], self.z[which], self.want[which], self.have[which],
                       self.unit[which])  # fmt: skip
        if self.snapshots:
            part.snapshots = {p: s for p in zip(part.x.tolist(), part.y.tolist(), part.z.tolist())
                              if (s := self.snapshots.get(p)) is not None}  # fmt: skip
        return part

    def with_serial(self, serial: int) -> Changes:
        """The same changes with their units moved into walk step ``serial`` (units of two tiles never meet)."""
        return Changes(self.x, self.y, self.z, self.want, self.have, self.unit + (serial << 20), self.snapshots)


def tile_grid(placement, size: int = TILE) -> list[Tile]:
    """Tiles over the placed cells' box, bottom-up (layer, then z, then x)."""
    if placement.lo is None:
        return []
    (x0, y0, z0), (x1, y1, z1) = placement.lo, placement.hi
    tiles = []
    for y in range(y0, y1, size):
        for z in range(z0, z1, size):
            for x in range(x0, x1, size):
                tiles.append(Tile(len(tiles), (x, y, z), (min(x + size, x1), min(y + size, y1), min(z + size, z1))))
    return tiles


def placed_tiles(reader: WorldReader, placement):
    """Every tile of ``placement`` with placed cells, with the world under it, each read once (two reads in flight):
    ``(tile, mask, want, world)`` — the placed cells (bool [y, z, x]), the state codes the file places there and the
    world's read of the tile's box. Verify and the material list compare the two."""
    want_codes = reader.table.codes(placement.states)
    tiles = []
    for tile in tile_grid(placement):
        ys, zs, xs = tile.slices()
        mask = placement.placed_mask(ys, zs, xs)
        if mask.any():
            tiles.append((tile, mask))
    ox, oy, oz = placement.origin
    boxes = [((ox + t.lo[0], oy + t.lo[1], oz + t.lo[2]), (ox + t.hi[0] - 1, oy + t.hi[1] - 1, oz + t.hi[2] - 1))
             for t, _ in tiles]  # fmt: skip
    for (tile, mask), world in zip(tiles, reader.read(boxes)):
        ys, zs, xs = tile.slices()
        yield tile, mask, want_codes[placement.blocks[ys, zs, xs]], world


class TileWalker:
    """Reads and diffs tiles of one placement against the world behind ``client``."""

    def __init__(self, client, placement, table: StateTable | None = None, reader: WorldReader | None = None):
        self.client = client
        self.placement = placement
        self.reader = reader or WorldReader(client, table)
        self.table = self.reader.table
        self.counter = self.reader.counter
        self.want_codes = self.table.codes(placement.states)
        self.tiles = tile_grid(placement)
        self.has_pairs = bool(placement.partner.any())
        self.placed = np.zeros(len(self.tiles), dtype=bool)  # tiles with any placed cell: the ones to read
        self.owned = self._owned_counts()
        self.reads = TileReads(self.reader, {t.index: self.world_box(t) for t in self.tiles if self.placed[t.index]})
        self._exact: dict[tuple[int, int], Changes] = {}  # (pass, tile) -> changes, once computed
        self._last: dict[tuple[int, int], int] = {}  # (pass, tile) -> its count when last read: kept by forget

    def world_box(self, tile: Tile) -> Box:
        ox, oy, oz = self.placement.origin
        return ((ox + tile.lo[0], oy + tile.lo[1], oz + tile.lo[2]),
                (ox + tile.hi[0] - 1, oy + tile.hi[1] - 1, oz + tile.hi[2] - 1))  # fmt: skip

    def _owned_counts(self) -> np.ndarray:
        """(tiles, passes): the positions each tile owns in each pass — its placed cells, less the halves an earlier
        tile writes, plus the halves it writes for a later one. A tile's changes are at most these."""
        counts = np.zeros((len(self.tiles), len(PASS_NAMES)), dtype=np.int64)
        self.blocks_owned = np.zeros_like(counts)  # the same without air: what empty land would change
        placement = self.placement
        for tile in self.tiles:
            ys, zs, xs = tile.slices()
            indices = placement.blocks[ys, zs, xs][placement.placed_mask(ys, zs, xs)]
            counts[tile.index] = np.bincount(placement.pass_of[indices], minlength=len(PASS_NAMES))
            solid = indices[~placement.air[indices]]
            self.blocks_owned[tile.index] = np.bincount(placement.pass_of[solid], minlength=len(PASS_NAMES))
            self.placed[tile.index] = len(indices) > 0
            if self.has_pairs and placement.partner[indices].any():
                for pass_no in range(len(PASS_NAMES)):
                    if counts[tile.index, pass_no]:
                        mask, pulled, _ = self.cells(pass_no, tile)
                        counts[tile.index, pass_no] = int(mask.sum()) + len(pulled)
        return counts

    def has_cells(self, pass_no: int, index: int) -> bool:
        return bool(self.owned[index, pass_no])

    def start(self, cursor: tuple[int, int]) -> None:
        """Read ahead from ``cursor`` (pass, tile): the tiles from there, then those before it a later pass needs."""
        self.reads.prefetch(self._order(cursor))

    def forget(self, cursor: tuple[int, int]) -> None:
        """The world changed under the walk at ``cursor``: read its tiles from there afresh."""
        later = [t.index for t in self.tiles if t.index >= cursor[1]]
        for key in [k for k in self._exact if k[1] >= cursor[1]]:
            del self._exact[key]
        self.reads.forget(later, self._order(cursor))

    def _order(self, cursor: tuple[int, int]) -> list[int]:
        pass_no, index = cursor
        if pass_no >= len(PASS_NAMES):
            return []
        order = [t.index for t in self.tiles[index:] if self.placed[t.index]]
        if pass_no + 1 < len(PASS_NAMES):
            order += [t.index for t in self.tiles[:index] if self.placed[t.index]]
        return order

    def close(self) -> None:
        self.reads.close()

    # -- one tile -------------------------------------------------------------------------------------------------
    def cells(self, pass_no: int | None, tile: Tile):
        """(mask of the tile's cells of ``pass_no`` (None: every pass) that this tile owns, pulled partners as
        local (x, y, z, anchor flat index) tuples, anchor flat index of in-tile pair halves {flat: anchor})."""
        placement = self.placement
        ys, zs, xs = tile.slices()
        sub = placement.blocks[ys, zs, xs]
        mask = placement.placed_mask(ys, zs, xs)
        if pass_no is not None:
            mask &= placement.pass_of[sub] == pass_no
        pulled: list[tuple[int, int, int, int]] = []
        anchors: dict[int, int] = {}
        if self.has_pairs:
            self._pairs(tile, sub, mask, pulled, anchors)
        return mask, pulled, anchors

    def _pairs(self, tile: Tile, sub, mask, pulled, anchors) -> None:
        placement = self.placement
        shape = sub.shape
        offsets = placement.partner[sub]
        for ly, lz, lx in np.argwhere(mask & offsets.any(axis=-1)).tolist():
            dx, dy, dz = offsets[ly, lz, lx].tolist()
            x, y, z = tile.lo[0] + lx, tile.lo[1] + ly, tile.lo[2] + lz
            if not self._valid_pair((x, y, z), (x + dx, y + dy, z + dz)):
                continue
            flat = (ly * shape[1] + lz) * shape[2] + lx
            qx, qy, qz = lx + dx, ly + dy, lz + dz
            inside = 0 <= qx < shape[2] and 0 <= qy < shape[0] and 0 <= qz < shape[1]
            if inside:
                other = (qy * shape[1] + qz) * shape[2] + qx
                anchors[flat] = anchors[other] = min(flat, other)
            elif dx + dy + dz > 0:  # the other half is in a later tile: this tile writes it too
                pulled.append((x + dx, y + dy, z + dz, flat))
            else:  # an earlier tile writes this half with its other half
                mask[ly, lz, lx] = False

    def _valid_pair(self, a: Vec3, b: Vec3) -> bool:
        """Both halves placed and each pointing at the other (a broken pair is two single blocks)."""
        placement = self.placement
        schem = placement.schem
        x, y, z = b
        if not (0 <= x < schem.width and 0 <= y < schem.height and 0 <= z < schem.length):
            return False
        index = int(placement.blocks[y, z, x])
        if not placement.placed[index] or (placement.void is not None and placement.void[y, z, x]):
            return False
        back = placement.partner[index].tolist()
        return (x + back[0], y + back[1], z + back[2]) == a and placement.pass_of[index] == placement.pass_of[
            int(placement.blocks[a[1], a[2], a[0]])
        ]

    def changes(self, pass_no: int, tile: Tile, serial: int = 0) -> Changes:
        """The positions of ``pass_no`` the tile owns whose state in the world differs from the file, in build order
        with each pair's halves next to each other (``serial`` keeps units of different tiles apart)."""
        key = (pass_no, tile.index)
        found = self._exact.pop(key, None)
        if found is None:
            found = self._diff(pass_no, tile)
            self._last[key] = len(found)
        return found.with_serial(serial)

    def exact_count(self, pass_no: int, tile: Tile) -> int | None:
        """How many positions of ``pass_no`` the tile changes, once the world under it (and under the halves it
        pulls) has been read; None before."""
        key = (pass_no, tile.index)
        if key not in self._exact:
            if not self.reads.has(tile.index):
                return None
            _, pulled, _ = self.cells(pass_no, tile)
            if any(not self.reads.has(self._tile_of(cell)) for cell in pulled):
                return None
            self._exact[key] = self._diff(pass_no, tile)
            self._last[key] = len(self._exact[key])
        return len(self._exact[key])

    def estimate_count(self, pass_no: int, tile: Tile) -> int:
        """Before a tile is read (again): its count when last read (the world changed there only by a few edits),
        else every position of ``pass_no`` it owns."""
        return self._last.get((pass_no, tile.index), int(self.owned[tile.index, pass_no]))

    def likely_count(self, pass_no: int, tile: Tile) -> int:
        """Before a tile is read: its count when last read, else what it would change on empty land (its blocks, not
        its air) — for a time left, not for a total (a total is an upper bound)."""
        return self._last.get(
            (pass_no, tile.index), int(min(self.blocks_owned[tile.index, pass_no], self.owned[tile.index, pass_no]))
        )

    def _diff(self, pass_no: int, tile: Tile) -> Changes:
        mask, pulled, anchors = self.cells(pass_no, tile)
        parts = []
        if mask.any():
            parts.append(self._diff_tile(tile, mask, anchors))
        if pulled:
            parts.append(self._diff_pulled(pulled))
        changes = Changes.concat(parts)
        if len(changes) > 1 and (pulled or anchors):
            changes = changes.take(np.argsort(changes.unit, kind="stable"))
        return changes

    def _diff_tile(self, tile: Tile, mask, anchors: dict) -> Changes:
        placement = self.placement
        ys, zs, xs = tile.slices()
        world = self.reads.get(tile.index)
        want = self.want_codes[placement.blocks[ys, zs, xs]]
        changed = mask & (world.codes != want) & self._writable(world.codes)
        ly, lz, lx = np.nonzero(changed)
        shape = mask.shape
        flat = (ly * shape[1] + lz) * shape[2] + lx
        unit = flat.astype(np.int64) * 2
        if anchors:
            for i, f in enumerate(flat.tolist()):
                anchor = anchors.get(f)
                if anchor is not None:
                    unit[i] = anchor * 2 + (f != anchor)
        ox, oy, oz = placement.origin
        result = Changes(
            (lx + tile.lo[0] + ox).astype(np.int64),
            (ly + tile.lo[1] + oy).astype(np.int64),
            (lz + tile.lo[2] + oz).astype(np.int64),
            want[changed].astype(np.int64),
            world.codes[changed].astype(np.int64),
            unit,
        )
        result.snapshots = _snapshots_at(world, result)
        return result

    def _tile_of(self, cell) -> int:
        """The index of the tile holding local cell ``(x, y, z, ...)``."""
        lo, hi = self.placement.lo, self.placement.hi
        nx = -(-(hi[0] - lo[0]) // TILE)
        nz = -(-(hi[2] - lo[2]) // TILE)
        tx, ty, tz = ((cell[i] - lo[i]) // TILE for i in range(3))
        return (ty * nz + tz) * nx + tx

    def _diff_pulled(self, pulled: list) -> Changes:
        """The later halves of pairs whose earlier half is in this tile (local coordinates in ``pulled``), looked up
        in the reads of the tiles they stand in."""
        placement = self.placement
        ox, oy, oz = placement.origin
        rows = []
        for x, y, z, anchor in pulled:
            world = self.reads.get(self._tile_of((x, y, z)))
            at = (y + oy - world.lo[1], z + oz - world.lo[2], x + ox - world.lo[0])
            have = int(world.codes[at])
            want = int(self.want_codes[int(placement.blocks[y, z, x])])
            if have != want and self._writable(world.codes[at]):
                snapshot = world.snapshots.get((x + ox, y + oy, z + oz))
                rows.append((x + ox, y + oy, z + oz, want, have, anchor * 2 + 1, snapshot))
        if not rows:
            return Changes.empty()
        columns = list(zip(*rows))
        result = Changes(*(np.array(columns[i], dtype=np.int64) for i in range(6)))
        result.snapshots = {(r[0], r[1], r[2]): r[6] for r in rows if r[6]}
        return result

    def _writable(self, world_codes):
        """Where a build may write: everywhere, or with keep_existing only where the world is air now."""
        if not self.placement.options.keep_existing:
            return np.ones(np.shape(world_codes), dtype=bool)
        return self.table.air_mask()[world_codes]


def _snapshots_at(world: WorldRead, changes: Changes) -> dict:
    if not world.snapshots:
        return {}
    return {p: s for p in zip(changes.x.tolist(), changes.y.tolist(), changes.z.tolist())
            if (s := world.snapshots.get(p)) is not None}  # fmt: skip
