"""Cells of a legacy read by position: the grid the completions of :mod:`.legacy_states` and :mod:`.legacy_shapes`
read and edit (1.13 states, parsed once per palette entry; a position outside the box is None)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mcb.blocks.state import BlockState, parse_state
from mcb.schematics.model import Schematic


class Cells:
    """Cell edits by position, adding states to the palette as needed."""

    def __init__(self, schem: Schematic, counts: list[int], interesting: Callable[[str], bool]):
        self.schem = schem
        self.index = {state: i for i, state in enumerate(schem.palette)}
        self.parsed: dict[int, BlockState] = {}
        self.counts = counts
        self.names = [state.split("[", 1)[0].partition(":")[2] for state in schem.palette]
        # Where the few blocks a completion needs stand (``interesting``: by id without namespace), found in one pass
        # over the cells, by palette index
        interesting = np.array([interesting(name) for name in self.names] or [False])
        self.found: dict[int, list[tuple[int, int, int]]] = {int(i): [] for i in np.flatnonzero(interesting)}
        if self.found:
            flat = schem.blocks.ravel()
            at = np.flatnonzero(interesting[flat])
            width, length = schem.width, schem.length
            for i, index in zip(at.tolist(), flat[at].tolist()):
                self.found[index].append((i % width, i // (width * length), (i // width) % length))

    def state(self, x: int, y: int, z: int) -> BlockState | None:
        s = self.schem
        if not (0 <= x < s.width and 0 <= y < s.height and 0 <= z < s.length):
            return None
        return self.parsed_at(int(s.blocks[y, z, x]))

    def parsed_at(self, index: int) -> BlockState:
        if index not in self.parsed:
            self.parsed[index] = parse_state(self.schem.palette[index])
        return self.parsed[index]

    def set(self, x: int, y: int, z: int, state: BlockState) -> None:
        text = str(state)
        if text not in self.index:
            self.index[text] = len(self.schem.palette)
            self.schem.palette.append(text)
        self.schem.blocks[y, z, x] = self.index[text]

    def where(self, test) -> list[tuple[int, int, int]]:
        """(x, y, z) of every cell of the read whose state passes ``test`` (of the interesting blocks), in the cells'
        order (y, z, x)."""
        found = [pos for i, found in self.found.items() if test(self.parsed_at(i)) for pos in found]
        return sorted(found, key=lambda pos: (pos[1], pos[2], pos[0]))


def with_values(state: BlockState, **values: str) -> BlockState:
    """``state`` with some property values changed (the others, and their order, kept)."""
    props = dict(state.properties)
    props.update(values)
    return BlockState(state.name, tuple(props.items()))
