"""The material list of a schematic placement (``mcb materials``, MCP ``schem_materials``): the items a build takes,
counted as Litematica's material list counts them (mcb.blocks.items), and, against a world, what is still to place
and what stands in the way.

    placement = load_placement("ship.schem", PlacementOptions(target=(0, 0, 0), drop_extras=True))
    materials = count_materials(placement)                     # offline: every item the file needs
    materials = count_materials(placement, world=client)       # minus what the world holds already
    materials_json(materials, top=20)                          # the documented --json shape

Cells the file leaves unchanged (void) count nothing. Against a world, a cell's items are in place where the world
holds them there (a door in another state counts as in place, a single slab where the file has a double slab as
one of the two); a non-air block of another kind where the file wants something else (air included) is in the way.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from mcb.blocks.items import as_stacks, items_for_state


@dataclass
class Materials:
    file: str
    release: str
    options: dict  # placement facts: rotation, mirror, target (None offline)
    cells: int = 0  # placed cells (void left out)
    blocks: int = 0  # placed non-air cells
    needed: Counter = field(default_factory=Counter)  # item -> count the file takes
    world_read: bool = False
    in_place: Counter = field(default_factory=Counter)  # item -> count the world holds at the right positions
    in_the_way: Counter = field(default_factory=Counter)  # block id -> positions
    other_state: int = 0  # positions holding the file's block with other properties
    compared: int = 0
    reads: dict = field(default_factory=dict)

    @property
    def to_place(self) -> Counter:
        return Counter({item: n - self.in_place[item] for item, n in self.needed.items()})


def count_materials(placement, *, world=None, on_tile=None) -> Materials:
    """The items ``placement`` takes; with ``world`` (an RPC client), also what its world holds already."""
    box = placement.world_box() if world is not None else None  # offline the target is not a place in a world
    options = {
        "target": dict(zip("xyz", placement.options.target)) if world is not None else None,
        "rotation": placement.options.rotation,
        "mirror": placement.options.mirror,
        "box": None if box is None else {"min": dict(zip("xyz", box[0])), "max": dict(zip("xyz", box[1]))},
    }
    result = Materials(placement.path, placement.upgrade.release, options)
    counts = _cells_per_state(placement)
    for index in np.flatnonzero(counts).tolist():
        cells = int(counts[index])
        result.cells += cells
        if not placement.air[index]:
            result.blocks += cells
        for item, each in items_for_state(placement.states[index]):
            result.needed[item] += each * cells
    if world is not None:
        _subtract_world(result, world, placement, on_tile)
    return result


def _cells_per_state(placement) -> np.ndarray:
    counts = np.bincount(placement.blocks.ravel(), minlength=len(placement.states))
    if placement.void is not None:
        counts = counts - np.bincount(placement.blocks[placement.void], minlength=len(placement.states))
    return counts


def world_states(client, placement, on_tile=None) -> Iterator[tuple[np.ndarray, np.ndarray, list[str]]]:
    """The world behind ``client`` under ``placement``, tile by tile: ``(want, have, names)``, the state codes the
    file places and the world holds at each placed cell, and the state of each code (the one reader: each tile once,
    two reads in flight). ``on_tile(done, total, counter)`` after each tile (counter: the reads so far)."""
    from mcb.building.reading import WorldReader
    from mcb.building.tiles import placed_tiles, tile_grid

    reader = WorldReader(client)
    total = len(tile_grid(placement))
    for tile, mask, want, world in placed_tiles(reader, placement):
        yield want[mask], world.codes[mask], reader.table.names
        if on_tile is not None:
            on_tile(tile.index + 1, total, reader.counter)


def _subtract_world(result: Materials, client, placement, on_tile) -> None:
    result.world_read = True
    pairs: Counter = Counter()
    names: list[str] = []

    def tile_done(done: int, total: int, counter) -> None:
        result.reads = counter.to_json()
        if on_tile is not None:
            on_tile(done, total, counter)

    for want, have, names in world_states(client, placement, tile_done):
        result.compared += int(want.size)
        differ = want != have
        if differ.any():
            keys, counts = np.unique(np.stack([want[differ], have[differ]]), axis=1, return_counts=True)
            pairs.update({(w, h): n for w, h, n in zip(*keys.tolist(), counts.tolist())})
        same, same_counts = np.unique(want[~differ], return_counts=True)
        for code, n in zip(same.tolist(), same_counts.tolist()):
            for item, each in items_for_state(names[code]):
                result.in_place[item] += each * n
    for (want, have), n in pairs.items():
        _one_pair(result, names[want], names[have], n)


def _one_pair(result: Materials, want: str, have: str, cells: int) -> None:
    """``cells`` positions where the file places ``want`` and the world holds ``have`` (another state)."""
    held = dict(items_for_state(have))
    for item, each in items_for_state(want):
        result.in_place[item] += min(each, held.get(item, 0)) * cells
    want_block, have_block = want.partition("[")[0], have.partition("[")[0]
    if want_block == have_block:
        result.other_state += cells
    elif have_block not in ("minecraft:air", "minecraft:cave_air", "minecraft:void_air"):
        result.in_the_way[have_block] += cells


def item_rows(materials: Materials, top: int | None = None) -> list[dict]:
    """One row per item, most to gather first: ``count`` is what is still to gather (offline: all the file takes),
    in stacks and shulker boxes; ``needed`` and ``in_place`` when a world was read."""
    to_place = materials.to_place if materials.world_read else materials.needed
    order = sorted(materials.needed, key=lambda item: (-to_place[item], -materials.needed[item], item))
    rows = []
    for item in order[:top] if top else order:
        row = {"item": item}
        if materials.world_read:
            row["needed"] = materials.needed[item]
            row["in_place"] = materials.in_place[item]
        rows.append({**row, "count": to_place[item], **as_stacks(to_place[item], item)})
    return rows


def materials_json(materials: Materials, top: int | None = None) -> dict:
    """The documented --json shape (docs/building.md): totals over every item, ``items`` the first ``top``."""
    items = item_rows(materials, top)
    data = {
        "file": materials.file,
        "release": materials.release,
        **materials.options,
        "cells": materials.cells,
        "blocks": materials.blocks,
        "items_total": sum(materials.needed.values()),
        "kinds": len(materials.needed),
        "world": None,
        "items": items,
        "shown": len(items),
    }
    if materials.world_read:
        in_the_way = sorted(materials.in_the_way.items(), key=lambda pair: (-pair[1], pair[0]))
        data["world"] = {
            "compared": materials.compared,
            "in_place": sum(materials.in_place.values()),
            "to_place": sum(materials.to_place.values()),
            "other_state": materials.other_state,
            "in_the_way_total": sum(materials.in_the_way.values()),
            "in_the_way": [{"block": block, "count": count} for block, count in in_the_way],
            "reads": materials.reads,
        }
    return data


CSV_COLUMNS = ("item", "count", "stack_size", "stacks", "remainder", "shulker_boxes")
CSV_WORLD_COLUMNS = ("item", "needed", "in_place", "count", "stack_size", "stacks", "remainder", "shulker_boxes")


def materials_csv(materials: Materials, top: int | None = None) -> str:
    """A header row and one row per item, counts as plain integers (``count``: still to gather)."""
    columns = CSV_WORLD_COLUMNS if materials.world_read else CSV_COLUMNS
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(columns)
    for row in item_rows(materials, top):
        writer.writerow([row[column] for column in columns])
    return text.getvalue()
