"""Compare the world with a schematic placed as a build would place it (``mcb verify``): the build's own read and
diff, reported instead of planned. Reads only; makes no operation.

Every placed cell is one of: equal; ``missing`` (the file has a block, the world air); ``wrong_block`` (another
block); ``wrong_state`` (the same block, other properties); ``extra`` (the file has air, the world a block).
Block-entity data is not compared: the protocol shows only its hash.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mcb.building.reading import StateTable, WorldReader
from mcb.building.tiles import placed_tiles, tile_grid
from mcb.reports.model import Diagnostic, FileReport, Severity
from mcb.wording import plural

KINDS = ("missing", "wrong_block", "wrong_state", "extra")
_WORDS = {
    "missing": ("is missing", "are missing", " (the file has a block, the world air)"),
    "wrong_block": ("holds", "hold", " another block"),
    "wrong_state": ("holds", "hold", " the block with other properties"),
    "extra": ("holds", "hold", " a block where the file has air"),
}


@dataclass
class Verification:
    compared: int = 0
    ignored: int = 0
    counts: dict = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    first: dict = field(default_factory=lambda: {kind: [] for kind in KINDS})
    reads: dict = field(default_factory=dict)  # summary_reads, block_reads, cells_read

    @property
    def differences(self) -> int:
        return sum(self.counts.values())


def verify_placement(client, placement, *, ignore=(), first: int = 20, on_tile=None) -> Verification:
    """Read every tile of ``placement`` (each once, two reads in flight) and classify each placed cell against the
    world. ``on_tile(tiles_compared, tiles_to_compare, counter)`` after each tile."""
    reader = WorldReader(client)
    ignored_names = {name if ":" in name else f"minecraft:{name}" for name in ignore}
    result = Verification()
    total = sum(1 for tile in tile_grid(placement) if placement.placed_mask(*tile.slices()).any())
    for done, (_tile, mask, want, world) in enumerate(placed_tiles(reader, placement), 1):
        _classify(result, reader.table, mask, want, world.codes, world.lo, ignored_names, first)
        if on_tile is not None:
            on_tile(done, total, reader.counter)
    result.reads = reader.counter.to_json()
    return result


def _classify(result: Verification, table: StateTable, mask, want, have, lo, ignored: set, first: int) -> None:
    names = table.names
    blocks = np.array([n.partition("[")[0] for n in names])
    air = table.air_mask()
    if ignored:
        skip = np.isin(blocks, list(ignored))
        dropped = mask & (skip[want] | skip[have])
        result.ignored += int(dropped.sum())
        mask = mask & ~dropped
    result.compared += int(mask.sum())
    differ = mask & (want != have)
    if not differ.any():
        return
    kinds = {
        "missing": differ & ~air[want] & air[have],
        "extra": differ & air[want] & ~air[have],
    }
    both = differ & ~air[want] & ~air[have]
    same_block = blocks[want] == blocks[have]
    kinds["wrong_block"] = both & ~same_block
    kinds["wrong_state"] = both & same_block
    for kind in KINDS:
        cells = kinds.get(kind)
        if cells is None or not cells.any():
            continue
        result.counts[kind] += int(cells.sum())
        room = first - len(result.first[kind])
        for y, z, x in np.argwhere(cells)[: max(0, room)].tolist():
            result.first[kind].append(
                {
                    "pos": {"x": lo[0] + x, "y": lo[1] + y, "z": lo[2] + z},
                    "want": names[want[y, z, x]],
                    "have": names[have[y, z, x]],
                }
            )


def verification_report(result: Verification, file: str, facts: dict, *, shown_positions: int = 5) -> FileReport:
    """One :class:`FileReport` (the checkers' shape): a diagnostic per kind of difference, with counts and the
    first positions."""
    diagnostics = []
    for kind in KINDS:
        count = result.counts[kind]
        if not count:
            continue
        examples = "; ".join(_example(kind, e) for e in result.first[kind][:shown_positions])
        more = f"; and {count - shown_positions:,} more" if count > shown_positions else ""
        diagnostics.append(
            Diagnostic(
                f"verify.{kind}",
                Severity.ERROR,
                f"{plural(count, 'position')} {_WORDS[kind][count != 1]}{_WORDS[kind][2]}: {examples}{more}",
                file,
                pointer=_pos(result.first[kind][0]["pos"]),
                hint="`mcb build` with the same file and options writes what differs" if kind != "extra" else None,
            )
        )
    report = FileReport(file, diagnostics)
    report.facts = {
        **facts,
        "compared": result.compared,
        "ignored": result.ignored,
        "differences": result.differences,
        **result.counts,
        "first": result.first,
    }
    return report


def _example(kind: str, entry: dict) -> str:
    where = _pos(entry["pos"])
    if kind == "missing":
        return f"{where} wants {entry['want']}"
    if kind == "extra":
        return f"{where} has {entry['have']}"
    return f"{where} has {entry['have']}, wants {entry['want']}"


def _pos(pos: dict) -> str:
    return f"{pos['x']},{pos['y']},{pos['z']}"
