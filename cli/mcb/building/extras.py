"""The block-entity and entity data a build leaves out, as a datapack function of vanilla commands.

    summary = write_extras_function("house.schem", (100, 64, 200), rotation=90, output="house.mcfunction")

A build places block states only: chests come out empty, signs blank, item frames and armour stands missing.
This module writes what puts them back, for the same placement: ``data merge block X Y Z {...}`` for each block
entity and ``summon ID X Y Z {...}`` for each entity, at the file's positions after ``--mirror`` and then
``--rotation`` (turned by the functions a build turns the file with, :mod:`mcb.schematics.transform`: positions,
entity yaw, item-frame and painting facing), anchored at ``target`` plus the turned paste offset. The data is
upgraded to Minecraft 26.2 where the file is older (:mod:`mcb.schematics.extras_upgrade`); what cannot be upgraded
is counted in the summary. Lines stay within the 32,500 characters of a command block (a function line may be
longer, but then it could not be tried by hand): a container whose items do not fit gets the rest with
``data modify block X Y Z Items append value {...}``, one item per line.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from dataclasses import replace

import numpy as np

from mcb.errors import UsageError
from mcb.schematics.extras_text import Tally
from mcb.schematics.extras_upgrade import ExtrasUpgrade, is_default
from mcb.schematics.model import Entity
from mcb.schematics.nbt import TAG_DOUBLE, Compound, Double, IntArray, List
from mcb.schematics.snbt import SnbtError, key, to_snbt
from mcb.wording import plural

MAX_COMMAND = 32_500  # the longest command a command block takes
MAX_CHAIN = 65_536  # commands one function runs by default (the maxCommandChainLength game rule)
# Entities that hang on a block: the game places them by that block, not by their position.
HANGING = frozenset({"minecraft:item_frame", "minecraft:glow_item_frame", "minecraft:painting", "minecraft:leash_knot"})
_SUMMONABLE_NOT = frozenset({"minecraft:player", "minecraft:fishing_bobber", "minecraft:lightning_bolt"})
_CCW = {0: (1, 0), 1: (0, 1), 2: (-1, 0), 3: (0, -1)}  # painting facing (S, W, N, E) -> its left, as (dx, dz)


def write_extras_function(
    path: str | os.PathLike,
    target,
    rotation: int = 0,
    mirror: str | None = None,
    output: str | os.PathLike = "extras.mcfunction",
    registry=None,
) -> dict:
    """Write the extras function of schematic ``path`` placed at ``target`` and return its summary (what `mcb schem
    extras --json` prints, and what `mcb build --extras-function` adds to its own).

    ``target``: ``(x, y, z)`` or ``{"x", "y", "z"}``, the anchor as ``mcb build --target``; ``rotation`` 0/90/180/270
    and ``mirror`` None/"x"/"z" as ``mcb build``. ``output``: the ``.mcfunction`` to write (atomically;
    :data:`mcb.fileio.STDOUT` for stdout), refused before any reading when it cannot be written. Reads the file
    fully (block-entity contents included; a build's own read skips them), so it works after or before a build.
    The commands cover every block entity of the file whose block has one in 26.2, whatever ``--skip-air`` or
    ``--keep-existing`` did: with ``--keep-existing`` a position the build left as it was gets the file's data when
    its block takes it. Raises ``InputError`` for a file that is no schematic and ``UsageError`` for a bad
    rotation, mirror or target. The summary::

        {"file", "output", "function": "namespace:name" when output sits in a datapack's function folder, else null,
         "target": {"x", "y", "z"}, "rotation", "mirror", "release": "26.2",
         "data_version": {"file" (null when the file has none), "read_as"}, "commands", "longest_command",
         "limit": 32500,
         "block_entities": {"in_file", "written", "defaults_only", "left_out": [{"reason", "count"}]},
         "entities": {"in_file", "written", "left_out": [{"reason", "count"}]},
         "box": {"min": {x, y, z}, "max": {x, y, z}} of the positions written, or null,
         "upgraded": [{"change", "count"}], "not_upgraded": [{"what", "outcome": "left out"|"kept as written",
         "count"}], "notes": [str]}
    """
    from mcb.building.extras_file import function_id, function_text
    from mcb.fileio import write_atomic, writing

    with writing(output) as where:
        commands, summary = extras_commands(path, target, rotation, mirror, registry=registry)
        summary["output"] = str(output)
        summary["function"] = function_id(output)
        write_atomic(where, function_text(commands, summary))
    return summary


def extras_commands(
    path: str | os.PathLike, target, rotation: int = 0, mirror: str | None = None, *, registry=None
) -> tuple[list[str], dict]:
    """(the commands, the summary without ``output``/``function``): :func:`write_extras_function` without writing."""
    from mcb.blocks.registry import load_registry

    anchor = _target(target)
    if rotation not in (0, 90, 180, 270):
        raise UsageError(f"{{rotation}} must be 0, 90, 180 or 270, not {rotation}", details={"field": "rotation"})
    if mirror not in (None, "x", "z"):
        raise UsageError(f"{{mirror}} must be x or z, not {mirror!r}", details={"field": "mirror"})
    registry = registry if registry is not None else load_registry(None)
    schem, since, said = _read(path, registry)
    upgrade = ExtrasUpgrade(since, registry.data_version, Tally())
    block_entities, be_left = _placed_block_entities(schem, registry)
    entities, entity_left = _prepared_entities(schem, upgrade)
    moved = _turned(schem, block_entities, entities, rotation, mirror, registry)
    origin = tuple(t + o for t, o in zip(anchor, moved.offset))
    writer = _Writer()
    for be in moved.block_entities:
        data = upgrade.block_entity(be.id, be.data)
        if is_default(data):
            writer.defaults_only += 1
            continue
        x, y, z = (o + p for o, p in zip(origin, be.pos))
        writer.block(x, y, z, data, be_left)
    for entity in moved.entities:
        writer.entity(entity, upgrade.entity(entity.id, entity.data), origin, entity_left)
    summary = {
        "file": str(path),
        "target": dict(zip("xyz", anchor)),
        "rotation": rotation,
        "mirror": mirror,
        "release": registry.release,
        "data_version": {"file": said, "read_as": since},
        "commands": len(writer.commands),
        "longest_command": max((len(c) for c in writer.commands), default=0),
        "limit": MAX_COMMAND,
        "block_entities": {
            "in_file": len(schem.block_entities),
            "written": writer.blocks,
            "defaults_only": writer.defaults_only,
            "left_out": _reasons(be_left),
        },
        "entities": {"in_file": len(schem.entities), "written": writer.entities, "left_out": _reasons(entity_left)},
        "box": writer.box(),
        **upgrade.tally.to_json(),
        "notes": _notes(writer, schem, rotation, mirror),
    }
    return writer.commands, summary


def _target(target) -> tuple[int, int, int]:
    values = [target.get(axis) for axis in "xyz"] if isinstance(target, dict) else list(target or ())
    if len(values) != 3 or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise UsageError(
            f"the target must be three whole numbers x,y,z, not {target!r}",
            hint="e.g. {target=0,64,0}",
            details={"field": "target"},
        )
    return tuple(values)  # type: ignore[return-value]


def _read(path, registry):
    """(the model with every block entity's and entity's contents, palette upgraded (unknown blocks only noted);
    the DataVersion its data is read as (a legacy file's data is 1.12's, whatever its converted states); the
    file's own DataVersion, None when it has none)."""
    from mcb.blocks.releases import KNOWN_RELEASES
    from mcb.schematics.document import load_document
    from mcb.schematics.formats import from_document
    from mcb.schematics.upgrade import upgrade_schematic

    schem = from_document(load_document(path))
    upgraded, report = upgrade_schematic(schem, registry, strict=False)
    said = None if schem.source.format == "legacy" or schem.source.data_version_assumed else schem.data_version
    if schem.source.format == "legacy":
        return upgraded, KNOWN_RELEASES["1.12.2"], said
    return upgraded, int(report.data_version.get("read_as") or 0), said


def _placed_block_entities(schem, registry) -> tuple[list, Counter]:
    """The block entities whose block a build places and that has one in the target release."""
    kept, left = [], Counter()
    has_entity: dict[int, bool] = {}
    for be in schem.block_entities:
        x, y, z = be.pos
        if not (0 <= x < schem.width and 0 <= y < schem.height and 0 <= z < schem.length):
            left["outside the schematic's box"] += 1
            continue
        if schem.void is not None and schem.void[y, z, x]:
            left["where the file leaves the world as it is (no block placed)"] += 1
            continue
        index = int(schem.blocks[y, z, x])
        if index not in has_entity:
            name = schem.palette[index].split("[", 1)[0]
            has_entity[index] = registry.block(name) is not None and "block_entity" in registry.behavior(name).get(
                "behavior", ()
            )
        if not has_entity[index]:
            left["on a block that has no block entity in the target release"] += 1
            continue
        kept.append(be)
    return kept, left


def _prepared_entities(schem, upgrade: ExtrasUpgrade) -> tuple[list[Entity], Counter]:
    """Entities to summon; a hanging one is moved to the centre of the block it hangs on, which then turns as a
    block does (WorldEdit stores a frame at its block's corner, the game at the frame's face)."""
    kept, left = [], Counter()
    for entity in schem.entities:
        entity = replace(entity, data=upgrade.before_turn(entity.id, entity.data))
        if not entity.id:
            left["without an id"] += 1
        elif entity.id in _SUMMONABLE_NOT:
            left[f"{entity.id} (cannot be summoned)"] += 1
        elif entity.id in HANGING and not _centred_painting(entity):
            cell = _hanging_block(entity, schem)
            kept.append(replace(entity, pos=tuple(c + 0.5 for c in cell)))
        else:  # a painting saved by the game turns by its centre: a mirror moves its block within its width
            kept.append(entity)
    return kept, left


def _hanging_block(entity: Entity, schem) -> tuple[int, int, int]:
    data = entity.data or {}
    world_min = schem.world_min
    stored = data.get("block_pos")
    if stored is None and all(k in data for k in ("TileX", "TileY", "TileZ")):
        stored = (data["TileX"], data["TileY"], data["TileZ"])
    if world_min is not None and stored is not None and len(stored) == 3:
        cell = tuple(int(s) - m for s, m in zip(stored, world_min))
        if all(abs(c + 0.5 - p) <= 1.5 for c, p in zip(cell, entity.pos)):
            return cell  # type: ignore[return-value]
    return tuple(math.floor(p) for p in entity.pos)  # type: ignore[return-value]


def _painting_facing(entity: Entity) -> int:
    data = entity.data or {}
    return int(data.get("facing", data.get("Facing", 0))) % 4


def _centred_painting(entity: Entity) -> bool:
    """A painting at the position the game saves: its centre, 1/32 of a block off the wall it hangs on."""
    if entity.id != "minecraft:painting":
        return False
    depth = entity.pos[2] if _painting_facing(entity) in (0, 2) else entity.pos[0]  # south/north: z; west/east: x
    return min(abs(depth - math.floor(depth) - edge) for edge in (0.03125, 0.96875)) < 1e-3


def hanging_block(entity: Entity) -> tuple[int, int, int]:
    """The block a hanging entity (turned already) is summoned in: the block of its position, or for a painting's
    centre, the block the game anchors it by (half a block to its left, and down, along an even width or height)."""
    if not _centred_painting(entity):
        return tuple(math.floor(p) for p in entity.pos)  # type: ignore[return-value]
    left = _CCW[_painting_facing(entity)]
    x, y, z = entity.pos
    return (_painting_axis(x, left[0]), _painting_axis(y, 1), _painting_axis(z, left[1]))


def _painting_axis(centre: float, step: int) -> int:
    if step == 0 or abs(centre - math.floor(centre) - 0.5) < 0.25:
        return math.floor(centre)
    return round(centre) - (1 if step > 0 else 0)


def _turned(schem, block_entities, entities, rotation: int, mirror: str | None, registry):
    """Positions, yaw and facing turned as a build turns the file (mirror, then rotation). The cells are left out:
    no position depends on them."""
    from mcb.schematics.transform import mirror_schematic, rotate_schematic

    shell = replace(
        schem,
        palette=["minecraft:air"],
        blocks=np.zeros((1, 1, 1), dtype=np.int32),
        biomes=None,
        void=None,
        block_entities=block_entities,
        entities=entities,
    )
    if mirror:
        shell = mirror_schematic(shell, mirror, registry=registry)
    if rotation:
        shell = rotate_schematic(shell, rotation, registry=registry)
    return shell


class _Writer:
    def __init__(self):
        self.commands: list[str] = []
        self.blocks = self.entities = self.defaults_only = 0
        self.low: list[float] | None = None
        self.high: list[float] | None = None

    def _seen(self, x, y, z) -> None:
        if self.low is None:
            self.low, self.high = [x, y, z], [x, y, z]
            return
        for axis, value in enumerate((x, y, z)):
            self.low[axis] = min(self.low[axis], value)
            self.high[axis] = max(self.high[axis], value)

    def box(self) -> dict | None:
        if self.low is None:
            return None
        return {
            "min": dict(zip("xyz", (math.floor(v) for v in self.low))),
            "max": dict(zip("xyz", (math.floor(v) for v in self.high))),
        }

    def block(self, x: int, y: int, z: int, data, left: Counter) -> None:
        try:
            lines = block_commands(x, y, z, data)
        except SnbtError:
            left["with a value commands cannot write (NaN or infinity)"] += 1
            return
        if lines is None:
            left[f"longer than {MAX_COMMAND:,} characters even with its items one per command"] += 1
            return
        self.commands += lines
        self.blocks += 1
        self._seen(x, y, z)

    def entity(self, entity: Entity, data, origin, left: Counter) -> None:
        x, y, z = (o + p for o, p in zip(origin, entity.pos))
        if entity.id in HANGING:  # summoned at the centre of its block, which it then hangs by
            block = [o + c for o, c in zip(origin, hanging_block(entity))]
            x, y, z = (c + 0.5 for c in block)
            data["block_pos"] = IntArray(block)
            data["Pos"] = List([Double(x), Double(y), Double(z)], TAG_DOUBLE)
        try:
            text = to_snbt(data) if data else ""
        except SnbtError:
            left["with a value commands cannot write (NaN or infinity)"] += 1
            return
        line = f"summon {entity.id} {_coordinate(x)} {_coordinate(y)} {_coordinate(z)}" + (f" {text}" if text else "")
        if len(line) > MAX_COMMAND:
            left[f"longer than {MAX_COMMAND:,} characters"] += 1
            return
        self.commands.append(line)
        self.entities += 1
        self._seen(x, y, z)


def block_commands(x: int, y: int, z: int, data, limit: int = MAX_COMMAND) -> list[str] | None:
    """``data merge block`` for one block entity; when that is too long, its longest list (a container's items) is
    merged with as many entries as fit and the rest appended one per line. None when even that cannot fit."""
    where = f"{x} {y} {z}"
    line = f"data merge block {where} {to_snbt(data)}"
    if len(line) <= limit:
        return [line]
    lists = [name for name, value in data.items() if isinstance(value, list) and len(value) > 1]
    if not lists:
        return None
    name = max(lists, key=lambda n: len(to_snbt(data[n])))
    entries = [to_snbt(entry) for entry in data[name]]
    subtype = getattr(data[name], "subtype", 0)
    rest = Compound(data)
    rest[name] = List([], subtype)
    size = len(f"data merge block {where} {to_snbt(rest)}")  # each entry adds its text and a comma between
    taken = 0
    while taken < len(entries) and size + len(entries[taken]) + (1 if taken else 0) <= limit:
        size += len(entries[taken]) + (1 if taken else 0)
        taken += 1
    if size > limit:
        return None
    rest[name] = List(list(data[name])[:taken], subtype)
    lines = [f"data merge block {where} {to_snbt(rest)}"]
    for entry in entries[taken:]:
        append = f"data modify block {where} {key(name)} append value {entry}"
        if len(append) > limit:
            return None
        lines.append(append)
    return lines


def _coordinate(value: float) -> str:
    """A summon coordinate: always with a decimal point (a whole number would be moved to the block's centre)."""
    text = f"{value:.6f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def _reasons(counter: Counter) -> list[dict]:
    return [{"reason": reason, "count": n} for reason, n in counter.most_common()]


def _notes(writer: _Writer, schem, rotation: int, mirror: str | None) -> list[str]:
    notes = []
    if len(writer.commands) > MAX_CHAIN:
        notes.append(
            f"{plural(len(writer.commands), 'command')}: more than the {MAX_CHAIN:,} one function runs by default; "
            "raise the maxCommandChainLength game rule first"
        )
    if (rotation or mirror) and any((e.data or {}).get("Passengers") for e in schem.entities):
        notes.append("riders (Passengers) keep the facing they had in the file: only their mount is turned")
    return notes
