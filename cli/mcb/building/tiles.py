"""Tiles of a placement, and what differs in each: the read-and-diff half of a build (and of ``mcb verify``).

Tiles are disjoint 16 x 16 x 16 boxes of the placed cells (region_inspect reads at most 4096 cells), walked
bottom-up: by layer, then z, then x. Two-block things are never split: the half in the later tile (above, south or
east) belongs to the tile of the earlier half, which reads it with a small extra read; its own tile leaves it out.

``TileWalker.changes(pass_no, tile)`` reads the world under one tile and returns the positions of that pass whose
state differs from the file, with the states read there (the plan's ``expected_blocks``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mcb.building.passes import PASS_NAMES
from mcb.building.reading import ReadCounter, StateTable, WorldRead, read_blocks, read_box, read_uniform

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
        return cls(
            *(np.concatenate([getattr(p, name) for p in parts]) for name in ("x", "y", "z", "want", "have", "unit")),
            snapshots,
        )

    def slice(self, start: int, stop: int | None = None) -> Changes:
        part = Changes(
            self.x[start:stop],
            self.y[start:stop],
            self.z[start:stop],
            self.want[start:stop],
            self.have[start:stop],
            self.unit[start:stop],
        )
        if self.snapshots:
            part.snapshots = {
                p: s
                for p in zip(part.x.tolist(), part.y.tolist(), part.z.tolist())
                if (s := self.snapshots.get(p)) is not None
            }
        return part


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


class TileWalker:
    """Reads and diffs tiles of one placement against the world behind ``client``."""

    def __init__(self, client, placement, table: StateTable | None = None):
        self.client = client
        self.placement = placement
        self.table = table or StateTable()
        self.want_codes = self.table.codes(placement.states)
        self.tiles = tile_grid(placement)
        self.counter = ReadCounter()
        self.has_pairs = bool(placement.partner.any())
        self.pass_counts = self._pass_counts()
        self.uniform: dict[int, int] = {}  # tile index -> the one state a summary read found there

    def _pass_counts(self) -> np.ndarray:
        """Placed cells of each pass in each tile, and of them the non-air ones ((2, tiles, 3))."""
        counts = np.zeros((2, len(self.tiles), len(PASS_NAMES)), dtype=np.int64)
        placement = self.placement
        for tile in self.tiles:
            ys, zs, xs = tile.slices()
            indices = placement.blocks[ys, zs, xs][placement.placed_mask(ys, zs, xs)]
            counts[0, tile.index] = np.bincount(placement.pass_of[indices], minlength=3)
            solid = indices[~placement.air[indices]]
            counts[1, tile.index] = np.bincount(placement.pass_of[solid], minlength=3)
        return counts

    def has_cells(self, pass_no: int, index: int) -> bool:
        return bool(self.pass_counts[0, index, pass_no])

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
        """Read the world under the tile's cells of ``pass_no`` and return the positions that differ, in build
        order with each pair's halves next to each other (``serial`` keeps units of different tiles apart)."""
        mask, pulled, anchors = self.cells(pass_no, tile)
        parts = []
        if mask.any():
            parts.append(self._diff_tile(tile, mask, anchors, serial))
        if pulled:
            parts.append(self._diff_pulled(tile, pulled, serial))
        changes = Changes.concat(parts)
        if len(changes) > 1 and (pulled or anchors):
            changes = _take(changes, np.argsort(changes.unit, kind="stable"))
        return changes

    def _diff_tile(self, tile: Tile, mask, anchors: dict, serial: int) -> Changes:
        placement = self.placement
        ys, zs, xs = tile.slices()
        box = _bbox(mask)
        (by0, bz0, bx0), (by1, bz1, bx1) = box
        ox, oy, oz = placement.origin
        world = self.read_tile(
            tile,
            (ox + tile.lo[0] + bx0, oy + tile.lo[1] + by0, oz + tile.lo[2] + bz0),
            (ox + tile.lo[0] + bx1 - 1, oy + tile.lo[1] + by1 - 1, oz + tile.lo[2] + bz1 - 1),
        )
        sub_mask = mask[by0:by1, bz0:bz1, bx0:bx1]
        want = self.want_codes[placement.blocks[ys, zs, xs][by0:by1, bz0:bz1, bx0:bx1]]
        changed = sub_mask & (world.codes != want)
        changed &= self._writable(world.codes)
        ly, lz, lx = np.nonzero(changed)
        shape = mask.shape
        flat = ((ly + by0) * shape[1] + (lz + bz0)) * shape[2] + (lx + bx0)
        unit = flat.astype(np.int64) * 2
        if anchors:
            for i, f in enumerate(flat.tolist()):
                anchor = anchors.get(f)
                if anchor is not None:
                    unit[i] = anchor * 2 + (f != anchor)
        x = lx + tile.lo[0] + bx0 + placement.origin[0]
        y = ly + tile.lo[1] + by0 + placement.origin[1]
        z = lz + tile.lo[2] + bz0 + placement.origin[2]
        result = Changes(
            x.astype(np.int64),
            y.astype(np.int64),
            z.astype(np.int64),
            want[changed].astype(np.int64),
            world.codes[changed].astype(np.int64),
            unit + (serial << 20),
        )
        result.snapshots = _snapshots_at(world, result)
        return result

    def _diff_pulled(self, tile: Tile, pulled: list, serial: int) -> Changes:
        """The later halves of pairs whose earlier half is in this tile (local coordinates in ``pulled``): one
        thin read per upper face of the tile."""
        placement = self.placement
        ox, oy, oz = placement.origin
        faces: dict[int, list] = {}
        for cell in pulled:
            faces.setdefault(next(i for i in range(3) if cell[i] >= tile.hi[i]), []).append(cell)
        rows = []
        for cells in faces.values():
            lo = tuple(min(c[i] for c in cells) for i in range(3))
            hi = tuple(max(c[i] for c in cells) for i in range(3))
            world = self.read((lo[0] + ox, lo[1] + oy, lo[2] + oz), (hi[0] + ox, hi[1] + oy, hi[2] + oz))
            writable = self._writable(world.codes)
            for x, y, z, anchor in cells:
                have = int(world.codes[y - lo[1], z - lo[2], x - lo[0]])
                want = int(self.want_codes[int(placement.blocks[y, z, x])])
                if have != want and writable[y - lo[1], z - lo[2], x - lo[0]]:
                    snapshot = world.snapshots.get((x + ox, y + oy, z + oz))
                    rows.append((x + ox, y + oy, z + oz, want, have, anchor * 2 + 1, snapshot))
        if not rows:
            return Changes.empty()
        columns = list(zip(*rows))
        result = Changes(
            *(np.array(columns[i], dtype=np.int64) for i in range(5)),
            np.array(columns[5], dtype=np.int64) + (serial << 20),
        )
        result.snapshots = {(r[0], r[1], r[2]): r[6] for r in rows if r[6]}
        return result

    def _writable(self, world_codes: np.ndarray) -> np.ndarray:
        """Where a build may write: everywhere, or with keep_existing only where the world is air now."""
        if not self.placement.options.keep_existing:
            return np.ones(world_codes.shape, dtype=bool)
        return self.table.air_mask()[world_codes]

    def read(self, lo: Vec3, hi: Vec3) -> WorldRead:
        return read_box(self.client, self.table, lo, hi, self.counter)

    def read_tile(self, tile: Tile, lo: Vec3, hi: Vec3) -> WorldRead:
        """The world in ``lo .. hi`` (inside ``tile``): a summary of the whole tile first — one state there
        answers every later pass too, since no pass writes another's positions — then blocks where needed."""
        shape = (hi[1] - lo[1] + 1, hi[2] - lo[2] + 1, hi[0] - lo[0] + 1)
        code = self.uniform.get(tile.index)
        if code is None:
            ox, oy, oz = self.placement.origin
            code = read_uniform(
                self.client,
                self.table,
                (ox + tile.lo[0], oy + tile.lo[1], oz + tile.lo[2]),
                (ox + tile.hi[0] - 1, oy + tile.hi[1] - 1, oz + tile.hi[2] - 1),
                self.counter,
            )
            if code is not None:
                self.uniform[tile.index] = code
        if code is not None:
            return WorldRead(lo, hi, np.full(shape, code, dtype=np.int32))
        return read_blocks(self.client, self.table, lo, hi, self.counter)

    def forget(self) -> None:
        """Read afresh from now on (after the world changed under a plan)."""
        self.uniform.clear()


def _take(changes: Changes, order: np.ndarray) -> Changes:
    return Changes(
        changes.x[order],
        changes.y[order],
        changes.z[order],
        changes.want[order],
        changes.have[order],
        changes.unit[order],
        changes.snapshots,
    )


def _bbox(mask: np.ndarray) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    ys = np.flatnonzero(mask.any(axis=(1, 2)))
    zs = np.flatnonzero(mask.any(axis=(0, 2)))
    xs = np.flatnonzero(mask.any(axis=(0, 1)))
    return (int(ys[0]), int(zs[0]), int(xs[0])), (int(ys[-1]) + 1, int(zs[-1]) + 1, int(xs[-1]) + 1)


def _snapshots_at(world: WorldRead, changes: Changes) -> dict:
    if not world.snapshots:
        return {}
    return {
        p: s
        for p in zip(changes.x.tolist(), changes.y.tolist(), changes.z.tolist())
        if (s := world.snapshots.get(p)) is not None
    }
