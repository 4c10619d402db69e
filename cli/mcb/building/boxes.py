"""Positions -> few boxes, and one plan's ``build_prepare`` request (recipe + ``expected_blocks``).

A recipe may hold at most 4096 operations and scan 65,536 cells (protocol §4.1), and a request at most 1 MiB:
4096 one-block boxes with their ``expected_blocks`` come near that. Merging runs along x, then rows along z, then
layers along y (positions of one state only) keeps every box exactly on the positions to write, so the scan charge
equals the positions and the operations are usually far fewer.
"""

from __future__ import annotations

import json

import numpy as np

# Bytes of JSON around the numbers and the state (json.dumps with separators (",", ":")).
_BOX_FIXED = len('{"type":"box","min":{"x":,"y":,"z":},"max":{"x":,"y":,"z":},"block":""},')
_EXPECTED_FIXED = len('{"pos":{"x":,"y":,"z":},"state":""},')
_SNAPSHOT_FIXED = len(',"snapshot_id":""') + 64
REQUEST_OVERHEAD = 600  # envelope, scope, requestId, recipe wrapper


def merge_boxes(x: np.ndarray, y: np.ndarray, z: np.ndarray, state: np.ndarray) -> np.ndarray:
    """Boxes ``[x0, y0, z0, x1, y1, z1, state]`` (inclusive) covering exactly the given distinct positions."""
    if len(x) == 0:
        return np.zeros((0, 7), dtype=np.int64)
    order = np.lexsort((x, z, y, state))
    s, yy, zz, xx = state[order], y[order], z[order], x[order]
    # 1. runs along x
    start = np.ones(len(xx), dtype=bool)
    start[1:] = (s[1:] != s[:-1]) | (yy[1:] != yy[:-1]) | (zz[1:] != zz[:-1]) | (xx[1:] != xx[:-1] + 1)
    first = np.flatnonzero(start)
    last = np.append(first[1:], len(xx)) - 1
    runs = np.stack([s[first], yy[first], zz[first], xx[first], xx[last]], axis=1)  # s, y, z, x0, x1
    # 2. rows: equal runs on consecutive z
    runs = runs[np.lexsort((runs[:, 2], runs[:, 4], runs[:, 3], runs[:, 1], runs[:, 0]))]
    key = runs[:, [0, 1, 3, 4]]
    start = np.ones(len(runs), dtype=bool)
    start[1:] = (key[1:] != key[:-1]).any(axis=1) | (runs[1:, 2] != runs[:-1, 2] + 1)
    first = np.flatnonzero(start)
    last = np.append(first[1:], len(runs)) - 1
    rects = np.stack(
        [runs[first, 0], runs[first, 1], runs[first, 3], runs[first, 4], runs[first, 2], runs[last, 2]], axis=1
    )  # s, y, x0, x1, z0, z1
    # 3. boxes: equal rectangles on consecutive y
    rects = rects[np.lexsort((rects[:, 1], rects[:, 5], rects[:, 4], rects[:, 3], rects[:, 2], rects[:, 0]))]
    key = rects[:, [0, 2, 3, 4, 5]]
    start = np.ones(len(rects), dtype=bool)
    start[1:] = (key[1:] != key[:-1]).any(axis=1) | (rects[1:, 1] != rects[:-1, 1] + 1)
    first = np.flatnonzero(start)
    last = np.append(first[1:], len(rects)) - 1
    return np.stack(
        [
            rects[first, 2],
            rects[first, 1],
            rects[first, 4],
            rects[last, 3],
            rects[last, 1],
            rects[last, 5],
            rects[first, 0],
        ],
        axis=1,
    ).astype(np.int64)


def _digits(values: np.ndarray) -> int:
    """Total characters of the decimal integers in ``values``."""
    a = np.abs(values)
    count = (values < 0).astype(np.int64) + 1
    for power in (10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000):
        count += a >= power
    return int(count.sum())


def request_size(boxes: np.ndarray, x, y, z, have, snapshots: int, name_lengths: np.ndarray) -> int:
    """Bytes of the ``build_prepare`` request for these boxes and expected positions (an upper bound)."""
    size = REQUEST_OVERHEAD
    size += len(boxes) * _BOX_FIXED + _digits(boxes[:, :6]) + int(name_lengths[boxes[:, 6]].sum())
    size += len(x) * _EXPECTED_FIXED + _digits(x) + _digits(y) + _digits(z) + int(name_lengths[have].sum())
    return size + snapshots * _SNAPSHOT_FIXED


def prepare_params(boxes: np.ndarray, x, y, z, have, snapshots: dict, names: list[str]) -> dict:
    """``build_prepare`` params: the boxes as a recipe, and every position's state now as ``expected_blocks``.

    Both are JSON text already (:class:`~mcb.client.transport.RawJson`): 4096 entries written straight out cost a
    fraction of building dicts for the encoder to walk again."""
    from mcb.client.transport import RawJson

    quoted = [json.dumps(name) for name in names]
    operations = ",".join(
        f'{{"type":"box","min":{{"x":{x0},"y":{y0},"z":{z0}}},"max":{{"x":{x1},"y":{y1},"z":{z1}}},'
        f'"block":{quoted[s]}}}'
        for x0, y0, z0, x1, y1, z1, s in boxes.tolist()
    )
    entries = [
        f'{{"pos":{{"x":{px},"y":{py},"z":{pz}}},"state":{quoted[state]}'
        for px, py, pz, state in zip(x.tolist(), y.tolist(), z.tolist(), have.tolist())
    ]
    if snapshots:
        for i, pos in enumerate(zip(x.tolist(), y.tolist(), z.tolist())):
            snapshot = snapshots.get(pos)
            if snapshot is not None:
                entries[i] += f',"snapshot_id":{json.dumps(snapshot)}'
    return {
        "recipe": RawJson('{"version":1,"operations":[' + operations + "]}"),
        "expected_blocks": RawJson("[" + "},".join(entries) + ("}]" if entries else "]")),
    }
