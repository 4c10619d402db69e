"""Rotate and mirror whole schematics (spec sponge-rotation-blockdata.md §C.2, protocol §6.5).

The server places local cell (x, y, z) at ``target + R(Offset + (x, y, z))``, turning (dx, dz) -> (-dz, dx) per
clockwise quarter turn. :func:`rotate_schematic` bakes that turn into the file: importing the result at 0° puts
every block exactly where importing the original at ``degrees`` would. Mirrors likewise keep the anchor fixed.

Block states are transformed once per palette entry (:mod:`mcb.blocks.transform`); the cells move with one numpy
rotation/flip of the index array. Block entities, entities (position, yaw, hanging-entity facing) and biomes move
with their blocks. ``world_origin`` (the WorldEdit copy position) never moves, exactly like WorldEdit's baking.
Rotating a file (read, upgrade, turn, write) is :func:`mcb.schematics.rewrite.transform_file`.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from mcb.blocks.transform import MIRROR_AXES, ROTATIONS, transform_palette
from mcb.errors import UsageError
from mcb.schematics.model import BlockEntity, Entity, Schematic
from mcb.schematics.nbt import TAG_COMPOUND, TAG_FLOAT, Compound, Float, IntArray, List

# Hanging entities: ``Facing`` as a 3-D data value (item frames) and ``facing`` as a 2-D one (paintings).
_FACING_3D = ("down", "up", "north", "south", "west", "east")
_FACING_2D = ("south", "west", "north", "east")
_HORIZONTAL_CW = ("north", "east", "south", "west")


class _Move:
    """A horizontal symmetry of a W x L box: mirror (None/'x'/'z') first, then ``turns`` clockwise quarter turns."""

    def __init__(self, width: int, length: int, turns: int = 0, mirror: str | None = None):
        self.width, self.length, self.turns, self.mirror = width, length, turns % 4, mirror

    @property
    def new_size(self) -> tuple[int, int]:
        return (self.length, self.width) if self.turns % 2 else (self.width, self.length)

    def cell(self, x: int, z: int) -> tuple[int, int]:
        """Local block column after the move (§C.2 table)."""
        w, l = self.width, self.length
        if self.mirror == "x":
            x = w - 1 - x
        elif self.mirror == "z":
            z = l - 1 - z
        if self.turns == 1:
            return l - 1 - z, x
        if self.turns == 2:
            return w - 1 - x, l - 1 - z
        if self.turns == 3:
            return z, w - 1 - x
        return x, z

    def point(self, x: float, z: float) -> tuple[float, float]:
        """Continuous local position (block (0,0,0) spans [0,1)); the pivot is the anchor block's centre."""
        w, l = self.width, self.length
        if self.mirror == "x":
            x = w - x
        elif self.mirror == "z":
            z = l - z
        if self.turns == 1:
            return l - z, x
        if self.turns == 2:
            return w - x, l - z
        if self.turns == 3:
            return z, w - x
        return x, z

    def offset(self, offset: tuple[int, int, int]) -> tuple[int, int, int]:
        """New paste offset such that pasting at 0° equals pasting the original with this move about the anchor."""
        ox, oy, oz = offset
        if self.mirror == "x":
            ox = -(ox + self.width - 1)
        elif self.mirror == "z":
            oz = -(oz + self.length - 1)
        w, l = self.width, self.length  # mirroring keeps the box size
        if self.turns == 1:
            return -(oz + l - 1), oy, ox
        if self.turns == 2:
            return -(ox + w - 1), oy, -(oz + l - 1)
        if self.turns == 3:
            return oz, oy, -(ox + w - 1)
        return ox, oy, oz

    def array(self, grid: np.ndarray, contiguous: bool = True) -> np.ndarray:
        """Move a [y, z, x] array; the result is C-contiguous (``ravel()`` is the Sponge cell order) unless
        ``contiguous=False``, which gives a view (the writer reads it piece by piece: no 67 MB copy for 256^3)."""
        if self.mirror == "x":
            grid = grid[:, :, ::-1]
        elif self.mirror == "z":
            grid = grid[:, ::-1, :]
        if self.turns:
            grid = np.rot90(grid, k=-self.turns, axes=(1, 2))  # k<0: clockwise seen from above (+z south)
        return np.ascontiguousarray(grid) if contiguous else grid

    def direction(self, d: str) -> str:
        if self.mirror == "x":
            d = {"east": "west", "west": "east"}.get(d, d)
        elif self.mirror == "z":
            d = {"north": "south", "south": "north"}.get(d, d)
        if d in _HORIZONTAL_CW:
            d = _HORIZONTAL_CW[(_HORIZONTAL_CW.index(d) + self.turns) % 4]
        return d

    def yaw(self, yaw: float) -> float:
        """Yaw 0 = south, 90 = west (clockwise seen from above); result wrapped to [-180, 180)."""
        if self.mirror == "x":
            yaw = -yaw
        elif self.mirror == "z":
            yaw = 180.0 - yaw
        yaw += 90.0 * self.turns
        return math.fmod(math.fmod(yaw + 180.0, 360.0) + 360.0, 360.0) - 180.0


def rotate_schematic(schem: Schematic, degrees: int, rules: str = "vanilla", registry=None) -> Schematic:
    """A new schematic turned ``degrees`` (0/90/180/270) clockwise seen from above, about the paste anchor."""
    return _apply(schem, _rotation(schem, degrees), rules, registry)[0]


def mirror_schematic(schem: Schematic, axis: str, rules: str = "vanilla", registry=None) -> Schematic:
    """A new schematic mirrored across a vertical plane through the anchor: ``x`` swaps east/west, ``z`` north/south."""
    return _apply(schem, _mirroring(schem, axis), rules, registry)[0]


def _rotation(schem: Schematic, degrees: int) -> _Move:
    if degrees not in ROTATIONS:
        raise UsageError(
            f"rotation must be 0, 90, 180 or 270 degrees, not {degrees}",
            hint="the server accepts only quarter turns (protocol §6.5)",
        )
    return _Move(schem.width, schem.length, turns=degrees // 90)


def _mirroring(schem: Schematic, axis: str) -> _Move:
    if axis not in MIRROR_AXES:
        raise UsageError(
            f"mirror axis must be 'x' or 'z', not {axis!r}", hint="x flips east<->west, z flips north<->south"
        )
    return _Move(schem.width, schem.length, mirror=axis)


def _apply(schem: Schematic, move: _Move, rules: str, registry, contiguous: bool = True) -> tuple[Schematic, list[str]]:
    """(moved schematic, the transformed palette before duplicates were merged). ``contiguous=False``: the moved
    cells may be a view of the input's (for a result that is only written)."""
    if registry is None:
        from mcb.schematics.upgrade import target_registry

        registry = target_registry(schem)
    transformed = transform_palette(
        schem.palette, quarter_turns=move.turns, mirror_axis=move.mirror, rules=rules, registry=registry
    )
    palette, blocks = _merge_duplicates(transformed, move.array(schem.blocks, contiguous))
    width, length = move.new_size
    biomes = move.array(schem.biomes, contiguous) if schem.biomes is not None else None
    void = move.array(schem.void, contiguous) if schem.void is not None else None
    new_offset = move.offset(schem.offset)
    moved = replace(
        schem,
        width=width,
        length=length,
        palette=palette,
        blocks=blocks,
        offset=new_offset,
        metadata=_moved_metadata(schem.metadata, new_offset),
        block_entities=_move_block_entities(schem.block_entities, move, rules),
        entities=[_move_entity(entity, move, schem) for entity in schem.entities],
        biomes=biomes,
        void=void,
    )
    return moved, transformed


def _moved_metadata(metadata, new_offset: tuple[int, int, int]):
    """WorldEdit 7.3+ repeats the paste offset in ``Metadata.WorldEdit.Offset``; keep it equal to the new one."""
    worldedit = metadata.get("WorldEdit") if isinstance(metadata, dict) else None
    if not isinstance(worldedit, dict) or "Offset" not in worldedit:
        return metadata
    moved = Compound(metadata)
    moved["WorldEdit"] = Compound(worldedit)
    moved["WorldEdit"]["Offset"] = IntArray(new_offset)
    return moved


def _merge_duplicates(palette: list[str], blocks: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Two entries can become one state (e.g. a defaulted and an explicit sign rotation); keep indices unique."""
    if len(set(palette)) == len(palette):
        return palette, blocks
    first: dict[str, int] = {}
    remap = np.empty(len(palette), dtype=np.int32)
    merged: list[str] = []
    for index, state in enumerate(palette):
        if state not in first:
            first[state] = len(merged)
            merged.append(state)
        remap[index] = first[state]
    return merged, remap[blocks]


def _move_block_entities(block_entities, move: _Move, rules: str) -> list[BlockEntity]:
    cell, books = move.cell, bool(move.mirror) and rules == "geometric"
    moved = []
    for be in block_entities:  # one loop, direct construction: 42k entries in a big build
        x, y, z = be.pos
        nx, nz = cell(x, z)
        data = be.data
        if books and be.id == "minecraft:chiseled_bookshelf" and data is not None:
            data = _mirror_bookshelf_items(data)
        moved.append(BlockEntity((nx, y, nz), be.id, data))
    return moved


def _mirror_bookshelf_items(data):
    """Keep the books matching the mirrored ``slot_N_occupied`` state: columns swap (0<->2, 3<->5)."""
    items = data.get("Items")
    if not items:
        return data
    swap = {0: 2, 2: 0, 3: 5, 5: 3}
    moved = []
    for item in items:
        item = Compound(item)
        if "Slot" in item:
            item["Slot"] = type(item["Slot"])(swap.get(int(item["Slot"]), int(item["Slot"])))
        moved.append(item)
    data = Compound(data)
    data["Items"] = List(moved, TAG_COMPOUND)
    return data


def _move_entity(entity: Entity, move: _Move, schem: Schematic) -> Entity:
    x, y, z = entity.pos
    nx, nz = move.point(x, z)
    data = entity.data
    if data is not None:
        data = _move_entity_data(data, entity.id, move, schem)
    return replace(entity, pos=(nx, y, nz), data=data)


def _move_entity_data(data, entity_id: str, move: _Move, schem: Schematic):
    """Yaw, hanging-entity facing and absolute block positions (when the file recorded a world origin)."""
    data = Compound(data)  # a shallow copy that stays a Compound (dict.copy() would not)
    rotation = data.get("Rotation")
    if rotation is not None and len(rotation) >= 1:
        yaw = move.yaw(float(rotation[0]))
        data["Rotation"] = List([Float(yaw), *(Float(v) for v in rotation[1:])], TAG_FLOAT)
    frame = entity_id.endswith("item_frame")  # item frames: 3-D ``Facing``; paintings: 2-D ``Facing``/``facing``
    for key in ("Facing", "facing"):
        value = data.get(key)
        table = _FACING_3D if frame else _FACING_2D
        if value is not None and 0 <= int(value) < len(table):
            data[key] = type(value)(table.index(move.direction(table[int(value)])))
    world_min = schem.world_min
    if world_min is not None:
        # Hanging entities store the absolute position of their block (TileX/Y/Z, or block_pos since 1.21);
        # move it like a cell around the same anchor.
        new_min = tuple(o + d for o, d in zip(schem.world_origin, move.offset(schem.offset)))

        def moved(wx: int, wz: int) -> tuple[int, int]:
            nx, nz = move.cell(wx - world_min[0], wz - world_min[2])
            return new_min[0] + nx, new_min[2] + nz

        if all(k in data for k in ("TileX", "TileY", "TileZ")):
            tx, tz = moved(int(data["TileX"]), int(data["TileZ"]))
            data["TileX"], data["TileZ"] = type(data["TileX"])(tx), type(data["TileZ"])(tz)
        block_pos = data.get("block_pos")
        if block_pos is not None and len(block_pos) == 3:
            bx, bz = moved(int(block_pos[0]), int(block_pos[2]))
            data["block_pos"] = IntArray((bx, int(block_pos[1]), bz))
    return data
