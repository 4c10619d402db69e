"""Rotate and mirror whole schematics (spec sponge-rotation-blockdata.md §C.2, protocol §6.5).

The server places local cell (x, y, z) at ``target + R(Offset + (x, y, z))``, turning (dx, dz) -> (-dz, dx) per
clockwise quarter turn. :func:`rotate_schematic` bakes that turn into the file: importing the result at 0° puts
every block exactly where importing the original at ``degrees`` would. Mirrors likewise keep the anchor fixed.

Block states are transformed once per palette entry (:mod:`mcb.blocks.transform`); the cells move with one numpy
rotation/flip of the index array. Block entities, entities (position, yaw, hanging-entity facing) and biomes move
with their blocks. ``world_origin`` (the WorldEdit copy position) never moves, exactly like WorldEdit's baking.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from mcb.blocks.transform import MIRROR_AXES, ROTATIONS, transform_palette
from mcb.errors import InputError, McbError, UsageError
from mcb.schematics.cells import present_values, used_indices
from mcb.schematics.model import BlockEntity, Entity, Schematic
from mcb.schematics.nbt import RAW, TAG_COMPOUND, TAG_FLOAT, Compound, Encoded, Float, IntArray, List

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
        raise UsageError(f"rotation must be 0, 90, 180 or 270 degrees, not {degrees}",
                         hint="the server accepts only quarter turns (protocol §6.5)")
    return _Move(schem.width, schem.length, turns=degrees // 90)


def _mirroring(schem: Schematic, axis: str) -> _Move:
    if axis not in MIRROR_AXES:
        raise UsageError(f"mirror axis must be 'x' or 'z', not {axis!r}",
                         hint="x flips east<->west, z flips north<->south")
    return _Move(schem.width, schem.length, mirror=axis)


def _apply(schem: Schematic, move: _Move, rules: str, registry,
           contiguous: bool = True) -> tuple[Schematic, list[str]]:
    """(moved schematic, the transformed palette before duplicates were merged). ``contiguous=False``: the moved
    cells may be a view of the input's (for a result that is only written)."""
    if registry is None:
        from mcb.schematics.upgrade import target_registry

        registry = target_registry(schem)
    transformed = transform_palette(schem.palette, quarter_turns=move.turns, mirror_axis=move.mirror,
                                    rules=rules, registry=registry)
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


def transform_file(source, output, *, degrees: int | None = None, mirror_axis: str | None = None,
                   rules: str = "vanilla", fmt: str | None = None, mc_version: str | None = None,
                   replace_unknown: str | None = None, document=None) -> dict:
    """Read ``source`` (any format), upgrade, rotate or mirror it, write ``output`` atomically; a summary.

    ``fmt`` (sponge2, sponge3, litematic, structure) picks the format written; None: ``output``'s extension, else
    the input's format. ``mc_version`` picks the release the states are upgraded to and transformed with; None
    uses the schematic's DataVersion. ``output`` may equal ``source`` (in-place edit). ``document``: ``source``
    already read by :func:`mcb.schematics.document.load_document`.
    """
    from mcb.schematics.document import load_document
    from mcb.schematics.formats import from_document
    from mcb.schematics.outputs import format_losses, output_format
    from mcb.schematics.sponge import refuse_duplicate_names
    from mcb.schematics.outputs import name_mismatch
    from mcb.schematics.upgrade import check_replacement, target_registry, upgrade_schematic

    check_replacement(replace_unknown, mc_version)
    if document is None:
        # Block-entity contents only move with their blocks: kept as their bytes, checked, copied when written
        # (the 256^3 corpus file's 10^6 item tags are never built). Private to this rewrite: the model it builds
        # never leaves this function.
        document = load_document(source, keep=_contents_as_bytes)
    refuse_duplicate_names(document)
    schem = from_document(document, compact=True)  # the cells are only moved and written: uint16 fits
    document = None  # its tree (a 17 MB BlockData among it) is not needed while the result is encoded
    in_place = _in_place_format(source, output, schem, fmt)
    written = in_place or output_format(fmt, output, schem)
    if _needs_contents(schem, written, mirror_axis, rules):
        schem = from_document(load_document(source), compact=True)
    registry = target_registry(schem, mc_version)
    schem, upgrade = upgrade_schematic(schem, registry, replace_unknown=replace_unknown)
    move = _mirroring(schem, mirror_axis) if mirror_axis is not None else _rotation(schem, degrees or 0)
    result, transformed = _apply(schem, move, rules, registry, contiguous=False)  # only written, never edited
    losses = format_losses(result, written)
    lost = [loss["detail"] for loss in losses if loss["data"]]
    if in_place and lost:  # the file itself would be replaced by less than it holds
        raise InputError("--in-place would lose data: " + "; ".join(lost), code="schem.edit.lossy",
                         hint="write the result as a new file with -o NEW_NAME (the original stays as it is)",
                         details={"losses": lost, "field": "in_place"})
    mismatch = name_mismatch(written, output)
    if mismatch:
        losses.append({"what": "name", "count": 1, "data": False, "detail": mismatch})
    _write_atomically(result, output, written)
    changed = len(set(result.palette) - set(schem.palette))  # states the transform produced anew
    turns = 0 if mirror_axis is not None else (degrees or 0) // 90
    other = "geometric" if rules == "vanilla" else "vanilla"
    differ = rule_set_differences(schem, turns, mirror_axis, registry, rules, other, transformed)
    return {
        "input": str(source),
        "output": str(output),
        "operation": "mirror" if mirror_axis is not None else "rotate",
        "degrees": None if mirror_axis is not None else (degrees or 0),
        "axis": mirror_axis,
        "rules": rules,
        "release": registry.release,
        "format": written,
        "size": list(result.size),
        "offset": list(result.offset),
        "palette_size": len(result.palette),
        "palette_changed": changed,
        "block_entities": len(result.block_entities),
        "entities": len(result.entities),
        "other_rules": other,
        "other_rules_differ": differ,  # used input states the other rule set would transform differently
        "upgrade": upgrade.to_json(),
        "losses": losses,
    }


def _in_place_format(source, output, schem: Schematic, requested: str | None) -> str | None:
    """The format an edit in place writes, the file's own (None: not in place). Another one under the old name
    (Sponge data in a .schematic or a .litematic) would replace the user's file with one its tools no longer read."""
    import os

    from mcb.fileio import is_dash
    from mcb.schematics.outputs import LABELS, output_format

    if is_dash(source) or is_dash(output) or os.path.abspath(source) != os.path.abspath(output):
        return None
    if schem.source.format == "legacy":
        raise UsageError("--in-place cannot rewrite a legacy .schematic file: mcb does not write that format",
                         hint="write the result as a new file with -o NAME.schem (or .litematic, .nbt)",
                         details={"field": "in_place"})
    own = output_format(None, None, schem)
    if requested is not None and requested != own:
        raise UsageError(f"--in-place keeps the file's format ({LABELS[own]}); --to {requested} would put "
                         f"{LABELS[requested]} data under its old name",
                         hint=f"write the {LABELS[requested]} file with -o NEW_NAME, or leave out --to",
                         details={"field": "in_place"})
    return own


def _contents_as_bytes(path: list[str]):
    """``keep`` for a rewrite: the containers inside block entities stay encoded bytes; everything else is built."""
    if len(path) >= 3 and path[-1] != "Pos" and path[-3] in ("BlockEntities", "TileEntities"):
        return RAW
    return True


def _needs_contents(schem: Schematic, written: str, mirror_axis: str | None, rules: str) -> bool:
    """Whether this rewrite must look into block-entity contents read as bytes: a v3 ``Data`` compound written
    any other way than as v3, or the books of chiseled bookshelves under a geometric mirror."""
    if written != "sponge3" and any(type(be.data) is Encoded for be in schem.block_entities):
        return True
    return bool(mirror_axis and rules == "geometric" and any(
        be.id == "minecraft:chiseled_bookshelf" for be in schem.block_entities))


def rule_set_differences(schem: Schematic, turns: int, mirror_axis: str | None, registry, rules: str,
                         other: str, transformed: list[str] | None = None) -> list[str]:
    """Used palette states that the other rule set would transform differently (palette-level, cheap).

    ``transformed``: the whole palette already transformed with ``rules``. With it, the other rule set is applied to
    the whole palette first and the cells are searched only for the few entries that differ (none at all for most
    rotations), instead of listing every used index of 16M cells."""
    if not schem.blocks.size:
        return []
    if transformed is not None and len(transformed) == len(schem.palette):
        try:
            theirs = transform_palette(schem.palette, quarter_turns=turns, mirror_axis=mirror_axis, rules=other,
                                       registry=registry)
        except McbError:  # an unused entry the other rules refuse: compare the used entries only
            theirs = None
        if theirs is not None:
            differing = [i for i, (a, b) in enumerate(zip(transformed, theirs)) if a != b]
            if not differing:
                return []
            try:
                used = present_values(schem.blocks.ravel(), differing, len(schem.palette))
            except (IndexError, ValueError):  # indices outside the palette: the general way below
                pass
            else:
                return sorted({schem.palette[i] for i in used})
    try:
        used = used_indices(schem.blocks.ravel(), len(schem.palette))
    except (IndexError, ValueError):  # indices outside the palette: the slow way, skipping those beyond it
        used = np.unique(schem.blocks)
        used = used[used < len(schem.palette)]
    palette = [schem.palette[i] for i in used]
    mine = transform_palette(palette, quarter_turns=turns, mirror_axis=mirror_axis, rules=rules, registry=registry)
    theirs = transform_palette(palette, quarter_turns=turns, mirror_axis=mirror_axis, rules=other, registry=registry)
    return sorted({state for state, a, b in zip(palette, mine, theirs) if a != b})


def _write_atomically(schem: Schematic, output, fmt: str) -> None:
    """The codec writes via a temp file in the same directory + ``os.replace``; refused as every writer refuses."""
    from mcb.fileio import writing
    from mcb.schematics.formats import write_any

    with writing(output) as target:
        write_any(schem, target, fmt)
