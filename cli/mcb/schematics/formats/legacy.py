"""Legacy ``.schematic`` (MCEdit, Schematica, WorldEdit up to 6; Minecraft up to 1.12): numeric ids, read into the
one model as 1.13 block states.

Facts (spec formats-and-building.md §A.3): ``Blocks`` holds one id byte per cell, ``Data`` its metadata (low 4
bits), ``AddBlocks`` the high 4 bits of ids above 255 (the even cell in the low nibble, as WorldEdit reads it); cell
``i = (y * Length + z) * Width + x``. ``SchematicaMapping`` names the ids the saving game used (a modded game assigned
its own). ``id:data`` becomes a 1.13 state through the packaged table (:mod:`mcb.schematics.data`, generated from
minecraft-data by ``scripts/gen_legacy.py``); a data value the block never used reads as the block's default state,
as the game's own 1.13 upgrade reads it (counted); later renames are the upgrade's job, as for any file of an old
release.

1.13 moved some content from block entities into states: flower-pot plants, bed and banner colours, skull types and
note-block pitches are converted from the block entity where the file has it. The numeric format never stored
neighbour-dependent shapes: door halves and tall-plant tops are completed from their other half, chests are paired;
fence, pane, wall and redstone-wire connections and stair corners are left at their defaults. Every one of these
is counted in ``source.conversions`` (what changed, how many cells, whether it was carried).
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from importlib import resources

import numpy as np

from mcb.schematics.formats.common import Fields, without
from mcb.schematics.model import BlockEntity, Entity, Schematic, SourceInfo
from mcb.schematics.nbt import TAG_BYTE_ARRAY, TAG_COMPOUND, TAG_STRING, Compound, tag_type
from mcb.wording import dimensions, plural

DATA_VERSION_1_13 = 1519  # the release whose states the table gives
# Old (1.10 and before) block-entity ids and the 1.11+ names they became.
OLD_ENTITY_IDS = {
    "Airportal": "end_portal",
    "Banner": "banner",
    "Beacon": "beacon",
    "Cauldron": "brewing_stand",
    "Chest": "chest",
    "Comparator": "comparator",
    "Control": "command_block",
    "DLDetector": "daylight_detector",
    "Dropper": "dropper",
    "EnchantTable": "enchanting_table",
    "EndGateway": "end_gateway",
    "EnderChest": "ender_chest",
    "FlowerPot": "flower_pot",
    "Furnace": "furnace",
    "Hopper": "hopper",
    "MobSpawner": "mob_spawner",
    "Music": "noteblock",
    "Piston": "piston",
    "RecordPlayer": "jukebox",
    "Sign": "sign",
    "Skull": "skull",
    "Structure": "structure_block",
    "Trap": "dispenser",
    "Bed": "bed",
}


@cache
def legacy_table() -> dict:
    with resources.files("mcb.schematics").joinpath("data/legacy.json.gz").open("rb") as handle:
        return json.loads(gzip.decompress(handle.read()))


def read_legacy(doc, options=None) -> Schematic:
    """The model of a recognised legacy document (states of Minecraft 1.13)."""
    fields = Fields(doc, "legacy")
    root = doc.root
    materials = root.get("Materials")
    if materials is not None and str(materials) != "Alpha":
        raise fields.fail(
            f"Materials {str(materials)!r}: only 'Alpha' (Java Edition) files can be read",
            "materials.unsupported",
            "Materials",
            hint="Classic and Pocket schematics predate the ids mcb knows",
        )
    size = tuple(fields.integer(root, key) & 0xFFFF for key in ("Width", "Height", "Length"))
    volume = fields.check_cells(size)
    width, height, length = size
    raw_blocks = _array(fields, root, "Blocks", volume)
    raw_data = _array(fields, root, "Data", volume)
    # id:data as one 16-bit key per cell; a count per possible key (65,536) instead of sorting the cells
    keys = np.frombuffer(raw_blocks, dtype=np.uint8).astype(np.uint16)
    add = root.get("AddBlocks")
    if add is not None:
        nibbles = np.frombuffer(_array(fields, root, "AddBlocks", (volume + 1) // 2), dtype=np.uint8)
        high = np.empty(volume, dtype=np.uint16)
        high[0::2] = nibbles[: (volume + 1) // 2] & 0x0F
        high[1::2] = nibbles[: volume // 2] >> 4
        keys |= high << 8
    keys <<= 4
    keys |= np.frombuffer(raw_data, dtype=np.uint8) & 0x0F
    counts = np.bincount(keys, minlength=1 << 16)
    distinct = np.flatnonzero(counts)
    reader = _States(fields, root)
    palette = [reader.state(key >> 4, key & 15, int(counts[key])) for key in distinct.tolist()]
    number = np.zeros(1 << 16, dtype=np.int32)
    number[distinct] = np.arange(distinct.size, dtype=np.int32)
    blocks = number[keys].reshape(height, length, width)
    origin = _vector(root, "WEOrigin")
    offset = _vector(root, "WEOffset")
    world_min = tuple(o + d for o, d in zip(origin, offset)) if origin and offset else None
    schem = Schematic(
        width=width,
        height=height,
        length=length,
        palette=palette,
        blocks=blocks,
        data_version=DATA_VERSION_1_13,
        offset=offset or (0, 0, 0),
        world_origin=origin,
        metadata=Compound(),
        source=SourceInfo(
            version=None,
            compressed=doc.stats.compressed,
            format="legacy",
            producer="schematica" if "SchematicaMapping" in root else ("worldedit" if offset else None),
            we_offset=offset,
            compressed_size=doc.stats.compressed_size,
            inflated_size=doc.stats.inflated_size,
        ),
    )
    schem.block_entities = [
        be
        for i, entry in enumerate(fields.compounds(root, "TileEntities"))
        if (be := _block_entity(fields, entry, i, size, world_min)) is not None
    ]
    schem.entities = [
        _entity(fields, entry, i, size, world_min) for i, entry in enumerate(fields.compounds(root, "Entities"))
    ]
    from mcb.schematics.formats.legacy_states import complete_states

    schem.source.conversions = reader.conversions + complete_states(schem, counts[distinct].tolist()) + _kept(schem)
    return schem


def _kept(schem: Schematic) -> list[dict]:
    """The block-entity and entity data kept as 1.12 wrote it: no release's data fixer runs here, so a newer game may
    not read all of it. The count is ``cells``; ``noun`` says of what when not cells (entities hold no cell)."""
    kept = []
    for items, what, noun in (
        (schem.block_entities, "block-entity data (sign text, container items, ...)", "cell"),
        (schem.entities, "entity data (item ids, UUIDs, absolute hanging-entity positions)", "entity"),
    ):
        if items:
            change = f"{what} kept as Minecraft 1.12 wrote it; a newer game may not read all of it"
            kept.append(
                {"change": change, "cells": len(items), "carried": False, **({"noun": noun} if noun != "cell" else {})}
            )
    return kept


def _array(fields: Fields, root, key: str, count: int) -> bytes:
    value = fields.get(root, key, (TAG_BYTE_ARRAY,))
    if len(value) < count:
        raise fields.fail(
            f"{key} holds {plural(len(value), 'byte')}; the {plural(count, 'cell')} need {count:,}", "length", key
        )
    return value[:count] if len(value) > count else value  # a ByteArray is bytes already: no copy


def _vector(root, prefix: str) -> tuple[int, int, int] | None:
    values = [root.get(f"{prefix}{axis}") for axis in "XYZ"]
    if all(isinstance(v, int) for v in values):
        return tuple(int(v) for v in values)  # type: ignore[return-value]
    return None


class _States:
    """Numeric ``id:data`` pairs as 1.13 states, with ``SchematicaMapping`` naming the saving game's ids."""

    def __init__(self, fields: Fields, root):
        self.table = legacy_table()
        self.conversions: list[dict] = []
        self.names: dict[int, str] = {}
        mapping = root.get("SchematicaMapping")
        if mapping is not None:
            if tag_type(mapping) != TAG_COMPOUND:
                raise fields.fail("SchematicaMapping must be a compound", "field.type", "SchematicaMapping")
            for name, number in mapping.items():
                if isinstance(number, int):
                    self.names[int(number)] = str(name)

    def state(self, block: int, data: int, cells: int) -> str:
        name = self.names.get(block)
        if name is not None:  # the saving game's id: its name gives the vanilla one
            vanilla = self.table["ids"].get(name if ":" in name else f"minecraft:{name}")
            if vanilla is None:
                self.conversions.append(
                    {"change": f"{name} (id {block}) is no vanilla 1.12 block", "cells": cells, "carried": False}
                )
                return name if ":" in name else f"legacy:{name}"
            block = vanilla
        found = self.table["states"].get(f"{block}:{data}")
        if found is not None:
            return found
        default = default_state(block)
        if default is not None:
            self.conversions.append(
                {
                    "change": f"data value {data} of block id {block} is unknown: read as {default}, the block's "
                    "default (as the game's 1.13 upgrade reads it)",
                    "cells": cells,
                    "carried": False,
                }
            )
            return default
        self.conversions.append(
            {"change": f"block id {block} (data {data}) is no 1.12 block", "cells": cells, "carried": False}
        )
        return f"legacy:block_{block}"


@cache
def default_state(block: int) -> str | None:
    """The 1.13 state of numeric id ``block``'s 1.12 default state, or None for an id no 1.12 block has.

    The game's 1.13 upgrade reads a data value the block never used as the block's default state. The table has
    the default's data value: 0 for most blocks; the dozen ids whose 0 is unused (chests, furnaces, ladders, wall
    signs and banners, torches, portals) store their default elsewhere, and it is found by what the game's 1.12
    defaults are: a torch stands (no facing), a block that faces sideways faces north, a portal runs along x."""
    states = legacy_table()["states"]
    known = sorted((int(key.partition(":")[2]), state) for key, state in states.items() if key.startswith(f"{block}:"))
    if not known:
        return None
    if known[0][0] == 0:
        return known[0][1]
    for test in (
        lambda s: "facing=" not in s and "axis=" not in s,
        lambda s: "facing=north" in s,
        lambda s: "axis=x" in s,
    ):
        for _, state in known:
            if test(state):
                return state
    return known[0][1]


def _entity_id(value) -> str:
    ident = str(value) if value is not None else ""
    if ":" not in ident and ident:
        ident = "minecraft:" + OLD_ENTITY_IDS.get(ident, ident.lower())
    return ident


def _position(fields: Fields, values, size, world_min, *where, floats: bool = False):
    """Relative positions as most writers store them; absolute ones are moved by the world minimum when known."""
    inside = all(0 <= v < s for v, s in zip(values, size))
    if not inside and world_min is not None:
        shifted = tuple(v - m for v, m in zip(values, world_min))
        if all(0 <= v < s for v, s in zip(shifted, size)):
            return shifted
    if not inside and not floats:
        raise fields.fail(
            f"position {','.join(str(v) for v in values)} lies outside the {dimensions(*size)} box",
            "position",
            *where,
        )
    return values


def _block_entity(fields: Fields, entry, i: int, size, world_min) -> BlockEntity | None:
    where = ("TileEntities", i)
    pos = _position(fields, tuple(fields.integer(entry, axis, *where) for axis in "xyz"), size, world_min, *where)
    ident = fields.get(entry, "id", (TAG_STRING,), *where)
    return BlockEntity(pos, _entity_id(ident), without(entry, "x", "y", "z", "id"))


def _entity(fields: Fields, entry, i: int, size, world_min) -> Entity:
    where = ("Entities", i)
    pos = fields.triple(fields.get(entry, "Pos", (9,), *where), *where, "Pos", floats=True)
    pos = _position(fields, pos, size, world_min, *where, floats=True)
    return Entity(tuple(pos), _entity_id(entry.get("id")), without(entry, "Pos", "id"))  # type: ignore[arg-type]
