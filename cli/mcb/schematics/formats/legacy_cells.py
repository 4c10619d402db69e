"""Cells of a legacy read by position: the grid the completions of :mod:`.legacy_states` and :mod:`.legacy_shapes`
read and edit (1.13 states, parsed once per palette entry; a position outside the box is None)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from mcb.blocks.state import BlockState, parse_state
from mcb.schematics.model import Schematic


class Cells:
    """Cell edits by position, adding states to the palette as needed."""

    def __init__(self, schem: Schematic, counts: list[int], interesting: Callable[[str], bool]):
        self.schem = schem
        self.index = {state: i for i, state in enumerate(schem.palette)}
        self.parsed: dict[int, BlockState] = {}
        self.by_state: dict[BlockState, int] = {}  # palette index of a state set before
        self.counts = counts
        self.size = schem.size
        schem.blocks = np.ascontiguousarray(schem.blocks, dtype=np.int32)
        self.flat = memoryview(schem.blocks.reshape(-1))  # reads and set() share the one buffer
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
        width, height, length = self.size
        if not (0 <= x < width and 0 <= y < height and 0 <= z < length):
            return None
        index = self.flat[(y * length + z) * width + x]  # a Python int from the live cells, no numpy scalar
        found = self.parsed.get(index)
        return found if found is not None else self.parsed_at(index)

    def parsed_at(self, index: int) -> BlockState:
        if index not in self.parsed:
            self.parsed[index] = parse_state(self.schem.palette[index])
        return self.parsed[index]

    def set(self, x: int, y: int, z: int, state: BlockState) -> None:
        index = self.by_state.get(state)
        if index is None:
            text = str(state)
            index = self.index.get(text)
            if index is None:
                index = self.index[text] = len(self.schem.palette)
                self.schem.palette.append(text)
                self.parsed[index] = state
            self.by_state[state] = index
        self.schem.blocks[y, z, x] = index

    def where(self, test) -> list[tuple[int, int, int]]:
        """(x, y, z) of every cell of the read whose state passes ``test`` (of the interesting blocks), in the cells'
        order (y, z, x)."""
        found = [pos for i, found in self.found.items() if test(self.parsed_at(i)) for pos in found]
        return sorted(found, key=lambda pos: (pos[1], pos[2], pos[0]))


@lru_cache(maxsize=8192)  # the same few states change the same few ways, cell after cell
def with_values(state: BlockState, **values: str) -> BlockState:
    """``state`` with some property values changed (the others, and their order, kept)."""
    props = dict(state.properties)
    props.update(values)
    return BlockState(state.name, tuple(props.items()))
