"""What restoring one plan's positions would change: the world now against what mcb recorded before writing.

An undo the plugin refuses (a player edited a block the operation wrote, an administrator abandoned the operation
after a restart) is done from mcb's own record of the plan (:class:`mcb.batch.log.ExpectedStates`): each position
still holding what the build wrote gets back what mcb read there before; one holding what was there before needs
nothing; one holding anything else was changed by someone else and is kept as it is, and named. A block entity the
build replaced gets its state back, but not its data (the protocol cannot read it): it is named too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mcb.building.reading import WorldReader
from mcb.building.tiles import TILE, Changes


@dataclass
class Restore:
    changes: Changes  # positions to set back: want = the state before, have = the state now
    kept: list[dict] = field(default_factory=list)  # {pos, now, wrote, before}: changed by someone else
    data_lost: list[dict] = field(default_factory=list)  # {pos, state}: a block entity whose data cannot come back
    already: int = 0  # positions that hold what was there before


def restore_changes(reader: WorldReader, expected) -> Restore:
    """Read the world at ``expected``'s positions (each 16³ tile once) and sort them as the module says."""
    table = reader.table
    n = len(expected)
    if n == 0:
        return Restore(Changes.empty())
    xs, ys, zs = expected.x, expected.y, expected.z
    keys = np.stack([ys // TILE, zs // TILE, xs // TILE], axis=1)
    tiles, which = np.unique(keys, axis=0, return_inverse=True)
    which = which.reshape(-1)
    # Each 16³ tile's read shrunk to the box of the positions in it: a whole tile can reach past the project area
    # (whose edges need not lie on the 16 grid); the positions never do.
    boxes = []
    for index in range(len(tiles)):
        at = which == index
        boxes.append(((int(xs[at].min()), int(ys[at].min()), int(zs[at].min())),
                      (int(xs[at].max()), int(ys[at].max()), int(zs[at].max()))))  # fmt: skip
    now = np.zeros(n, dtype=np.int64)
    snapshots: dict = {}
    for index, read in enumerate(reader.read(boxes)):
        at = np.flatnonzero(which == index)
        now[at] = read.codes[ys[at] - read.lo[1], zs[at] - read.lo[2], xs[at] - read.lo[0]]
        snapshots.update(read.snapshots)
    before = table.codes(expected.before).astype(np.int64)
    wrote = table.codes(expected.wrote).astype(np.int64)
    back = (now == wrote) & (wrote != before)
    other = (now != wrote) & (now != before)
    names = table.names
    result = Restore(Changes.empty(), already=int(((now == before) & ~back).sum()))
    for i in np.flatnonzero(other).tolist():
        result.kept.append({"pos": _pos(xs[i], ys[i], zs[i]), "now": names[now[i]], "wrote": expected.wrote[i],
                            "before": expected.before[i]})  # fmt: skip
    picked = np.flatnonzero(back)
    for i in picked[expected.block_entity[picked]].tolist():
        result.data_lost.append({"pos": _pos(xs[i], ys[i], zs[i]), "state": expected.before[i]})
    # Units keep the recorded order (pairs were recorded side by side, and restored together).
    changes = Changes(xs[picked].astype(np.int64), ys[picked].astype(np.int64), zs[picked].astype(np.int64),
                      before[picked], now[picked], picked.astype(np.int64) * 2)  # fmt: skip
    changes.snapshots = {p: s for p in zip(changes.x.tolist(), changes.y.tolist(), changes.z.tolist())
                         if (s := snapshots.get(p)) is not None}  # fmt: skip
    result.changes = changes
    return result


def _pos(x, y, z) -> dict:
    return {"x": int(x), "y": int(y), "z": int(z)}
