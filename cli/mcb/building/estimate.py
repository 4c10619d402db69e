"""What a build will do, before it does anything (``mcb build FILE --dry-run``).

The estimate reads the world exactly as the build will (each tile once, two reads in flight), packs the same plans and
prepares none of them: positions to change, how many of those replace a block (by block, so a user sees what a paste
would destroy), plans, the plugin's time at 20 TPS, and the journal it will add (1.5-2 MB per 4,096 positions).
"""

from __future__ import annotations

from collections import Counter

from mcb.building.planner import BuildPlanner
from mcb.client.operations import build_seconds, plan_seconds

JOURNAL_BYTES_PER_POSITION = (1.5e6 / 4096, 2.0e6 / 4096)  # formats-and-building §C


def estimate_build(client, placement, *, capacity: int = 4096, on_plan=None) -> dict:
    planner = BuildPlanner(client, placement, capacity=capacity)
    plans = positions = 0
    seconds = 0.0
    largest = 0
    replaced: Counter = Counter()
    try:
        while (plan := planner.next_plan()) is not None:
            plans += 1
            positions += len(plan)
            seconds += plan_seconds(len(plan))
            largest = max(largest, plan.size)
            replaced.update(plan.replaced(planner.table))
            if on_plan is not None:
                on_plan(plans, positions, planner)
    finally:
        planner.close()
    box = placement.world_box()
    return {
        "positions_to_change": positions,
        "replaces_blocks": sum(replaced.values()),
        "replaced": dict(replaced.most_common()),
        "plans": plans,
        "seconds_at_20_tps": round(seconds, 1),
        "journal_bytes": {
            "low": round(positions * JOURNAL_BYTES_PER_POSITION[0]),
            "high": round(positions * JOURNAL_BYTES_PER_POSITION[1]),
        },
        "largest_request_bytes": largest,
        "box": None if box is None else {"min": _pos(box[0]), "max": _pos(box[1])},
        "reads": {**planner.walker.counter.to_json(), "tiles": planner.tiles_read},
    }


def file_estimate(placement, capacity: int = 4096) -> dict:
    """What the file alone says (no reads): the most positions a build can change, its plans and time."""
    counts = placement.placed_counts()
    blocks = counts["blocks"]
    return {
        "cells": counts["cells"],
        "blocks": blocks,
        "plans": -(-blocks // capacity),
        "seconds_at_20_tps": round(build_seconds(blocks, capacity), 1),
    }


def _pos(p) -> dict:
    return {"x": p[0], "y": p[1], "z": p[2]}
