"""Positions -> boxes: the boxes cover exactly the positions (nothing more, nothing twice) with their states, and
the request size the planner budgets with is never below the real JSON's."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mcb.building.boxes import merge_boxes, prepare_params, request_size
from mcb.client.transport import encode_envelope

NAMES = [
    "minecraft:air",
    "minecraft:stone",
    "minecraft:oak_stairs[facing=north,half=bottom,shape=straight,waterlogged=false]",
    "minecraft:chest[facing=west,type=left,waterlogged=false]",
]


@st.composite
def positions(draw):
    cells = draw(
        st.sets(st.tuples(st.integers(-300, -290), st.integers(-64, -58), st.integers(1000, 1007)), max_size=250)
    )
    cells = sorted(cells)
    states = draw(st.lists(st.integers(0, len(NAMES) - 1), min_size=len(cells), max_size=len(cells)))
    x, y, z = (np.array([c[i] for c in cells], dtype=np.int64) for i in range(3))
    return x, y, z, np.array(states, dtype=np.int64)


@settings(max_examples=200, deadline=None)
@given(positions())
def test_boxes_cover_exactly_the_positions_with_their_states(data):
    x, y, z, states = data
    boxes = merge_boxes(x, y, z, states)
    covered = {}
    for x0, y0, z0, x1, y1, z1, s in boxes.tolist():
        assert x0 <= x1 and y0 <= y1 and z0 <= z1
        for cx in range(x0, x1 + 1):
            for cy in range(y0, y1 + 1):
                for cz in range(z0, z1 + 1):
                    assert (cx, cy, cz) not in covered, "a position in two boxes"
                    covered[(cx, cy, cz)] = s
    assert covered == {(a, b, c): s for a, b, c, s in zip(x.tolist(), y.tolist(), z.tolist(), states.tolist())}
    assert int(sum((b[3] - b[0] + 1) * (b[4] - b[1] + 1) * (b[5] - b[2] + 1) for b in boxes.tolist())) == len(x)


@settings(max_examples=100, deadline=None)
@given(positions(), st.data())
def test_the_request_size_is_an_upper_bound(data, more):
    x, y, z, states = data
    have = np.array(
        more.draw(st.lists(st.integers(0, len(NAMES) - 1), min_size=len(x), max_size=len(x))), dtype=np.int64
    )
    snapshots = {(int(a), int(b), int(c)): "ab" * 32 for a, b, c in zip(x[::3], y[::3], z[::3])}
    boxes = merge_boxes(x, y, z, states)
    params = prepare_params(boxes, x, y, z, have, snapshots, NAMES)
    envelope = {
        "method": "build_prepare",
        "params": {**params, "player_id": "console", "project_id": "default"},
        "requestId": "0" * 36,
    }
    real = len(encode_envelope(envelope))
    body = json.loads(encode_envelope(envelope))["params"]  # the JSON text is what the dicts would have been
    assert len(body["expected_blocks"]) == len(x) and len(body["recipe"]["operations"]) == len(boxes)
    assert [e.get("snapshot_id") for e in body["expected_blocks"]] == [
        snapshots.get((e["pos"]["x"], e["pos"]["y"], e["pos"]["z"])) for e in body["expected_blocks"]
    ]
    assert [NAMES.index(e["state"]) for e in body["expected_blocks"]] == have.tolist()
    lengths = np.array([len(n) for n in NAMES])
    assert request_size(boxes, x, y, z, have, len(snapshots), lengths) >= real


def test_a_solid_box_is_one_operation():
    grid = np.indices((4, 5, 6)).reshape(3, -1)
    boxes = merge_boxes(grid[0], grid[1], grid[2], np.ones(grid.shape[1], dtype=np.int64))
    assert boxes.tolist() == [[0, 0, 0, 3, 4, 5, 1]]
