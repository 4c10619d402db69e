"""A structure's ``blocks`` list into the model's cells: ``{state, pos: [x, y, z], nbt?}`` entries, millions of them
read as columns (:mod:`mcb.schematics.nbt_columns`) and placed with numpy; an entry of another shape is read as the
compound it is. Every entry is checked in list order, so the first fault named is the first in the file.

The game places the list in order: where two entries name one position, the later one wins (and a block entity
stands only where its entry won).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mcb.schematics.formats.common import INT_TAGS, Fields, without
from mcb.schematics.model import BlockEntity
from mcb.schematics.nbt import TAG_COMPOUND, TAG_LIST, tag_type
from mcb.schematics.nbt_columns import ColumnList, Run
from mcb.wording import dimensions, plural

STRUCTURE_VOID = "minecraft:structure_void"


@dataclass
class Placed:
    """What the entries put into a box: ``blocks`` and ``void`` (axes y, z, x), block entities, and how many
    entries a later one overrode."""

    blocks: np.ndarray
    void: np.ndarray
    block_entities: list[BlockEntity]
    repeated: int


def place_blocks(fields: Fields, root, palette: list[str], size: tuple[int, int, int]) -> Placed:
    """The cells ``root``'s ``blocks`` list places into a box of ``size``, each entry checked."""
    width, height, length = size
    entries = _Entries(fields, palette, size)
    tag = root.get("blocks")
    if isinstance(tag, ColumnList):
        parts = [(run.start, run) for run in tag.runs] + [(index, entry) for index, entry in tag.others]
        for start, part in sorted(parts, key=lambda item: item[0]):
            if isinstance(part, Run) and _plain(part):
                entries.run(start, part.columns["state"], part.columns["pos"])
            elif isinstance(part, Run):  # another shape, many times: read as the compounds they are
                for i in range(part.count):
                    entries.entry(start + i, part.entry(i))
            else:
                entries.entry(start, part)
    else:
        for i, entry in enumerate(fields.compounds(root, "blocks")):
            entries.entry(i, entry)
    index, state, flat = entries.arrays()
    volume = width * height * length
    blocks = np.zeros(volume, dtype=np.int32)
    void = np.ones(volume, dtype=bool)
    seen = np.zeros(volume, dtype=bool)
    seen[flat] = True
    repeated = int(flat.size - np.count_nonzero(seen))
    if repeated:  # the later entry wins: keep the last of each position
        _, last = np.unique(flat[::-1], return_index=True)
        won = np.sort(flat.size - 1 - last)
        index, state, flat = index[won], state[won], flat[won]
    blocks[flat] = state
    void[flat] = np.array([p == STRUCTURE_VOID for p in palette] or [False])[state]
    standing = set(index.tolist()) if repeated else None
    block_entities = [be for i, be in entries.block_entities if standing is None or i in standing]
    shape = (height, length, width)
    return Placed(blocks.reshape(shape), void.reshape(shape), block_entities, repeated)


def _plain(run: Run) -> bool:
    """A run of ``{state: integer, pos: [3 integers]}`` entries (in any order, other numbers beside them, as the
    game ignores them): placed as columns."""
    shape = {f.name: (f.tag, f.element, f.count) for f in run.layout.fields}
    state, pos = shape.get("state"), shape.get("pos")
    return (
        state is not None
        and state[0] in INT_TAGS
        and pos is not None
        and pos[0] == TAG_LIST
        and pos[1] in INT_TAGS
        and pos[2] == 3
    )


class _Entries:
    """Checked entries gathered in list order: columns of index, state and cell, and the block entities."""

    def __init__(self, fields: Fields, palette: list[str], size):
        self.fields, self.palette, self.size = fields, palette, size
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.single: list[
            tuple[int, int, int]
        ] = []  # (index, state, cell) of entries read one by one, not yet in parts
        self.block_entities: list[tuple[int, BlockEntity]] = []

    def _flush(self) -> None:
        if self.single:
            index, state, flat = zip(*self.single)
            self.parts.append((np.array(index, np.int64), np.array(state, np.int32), np.array(flat, np.int64)))
            self.single = []

    def run(self, start: int, state: np.ndarray, pos: np.ndarray) -> None:
        width, height, length = self.size
        x, y, z = (pos[:, axis].astype(np.int64) for axis in range(3))
        bad_state = (state < 0) | (state >= len(self.palette))
        outside = (x < 0) | (x >= width) | (y < 0) | (y >= height) | (z < 0) | (z >= length)
        bad = bad_state | outside
        if bad.any():
            i = int(np.argmax(bad))
            if bad_state[i]:
                raise self._bad_state(start + i, int(state[i]))
            raise self._outside(start + i, int(x[i]), int(y[i]), int(z[i]))
        self._flush()
        index = np.arange(start, start + state.size, dtype=np.int64)
        self.parts.append((index, state.astype(np.int32, copy=False), (y * length + z) * width + x))

    def entry(self, i: int, entry) -> None:
        fields = self.fields
        where = ("blocks", i)
        state = fields.integer(entry, "state", *where)
        if not 0 <= state < len(self.palette):
            raise self._bad_state(i, state)
        x, y, z = fields.triple(fields.get(entry, "pos", (TAG_LIST,), *where), *where, "pos")
        width, height, length = self.size
        if not (0 <= x < width and 0 <= y < height and 0 <= z < length):
            raise self._outside(i, x, y, z)
        nbt = entry.get("nbt")
        if nbt is not None:
            if tag_type(nbt) != TAG_COMPOUND:
                raise fields.fail("nbt must be a compound", "field.type", *where, "nbt")
            ident = nbt.get("id")
            block_entity = BlockEntity(
                (x, y, z), str(ident) if ident is not None else "", without(nbt, "id", "x", "y", "z")
            )
            self.block_entities.append((i, block_entity))
        self.single.append((i, state, (y * length + z) * width + x))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        self._flush()
        if not self.parts:
            empty = np.zeros(0, dtype=np.int64)
            return empty, np.zeros(0, dtype=np.int32), empty
        return tuple(np.concatenate([part[k] for part in self.parts]) for k in range(3))  # type: ignore[return-value]

    def _bad_state(self, i: int, state: int):
        return self.fields.fail(
            f"state {state} is not an index of the palette ({plural(len(self.palette), 'entry', 'entries')})",
            "blocks.state",
            "blocks",
            i,
            "state",
        )

    def _outside(self, i: int, x: int, y: int, z: int):
        width, height, length = self.size
        return self.fields.fail(
            f"block at {x},{y},{z} lies outside the {dimensions(width, height, length)} size",
            "blocks.position",
            "blocks",
            i,
            "pos",
        )
