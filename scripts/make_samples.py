"""Generate the sample schematics in ``schematics/`` with mcb's own writer (used by the README demo and tests).

    .venv/bin/python scripts/make_samples.py          # rewrite the samples in schematics/
    .venv/bin/python scripts/make_samples.py --check  # exit 1 if a committed sample differs from a fresh build

Every state is canonicalised against the 26.2 registry, so the server-profile samples validate cleanly.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "cli"))

from mcb.blocks.registry import load_registry  # noqa: E402
from mcb.schematics.formats.sponge_writer import encode_schematic  # noqa: E402
from mcb.schematics.model import BlockEntity, Schematic  # noqa: E402
from mcb.schematics.nbt import Byte, Compound, List, String  # noqa: E402

DATE_MS = 1_780_000_000_000  # fixed, so rebuilding gives identical bytes
REGISTRY = load_registry("26.2")


class Grid:
    """A W x H x L box of block states addressed as (x, y, z)."""

    def __init__(self, width: int, height: int, length: int):
        self.size = (width, height, length)
        self.cells = np.zeros((height, length, width), dtype=np.int32)
        self.palette = [REGISTRY.canonicalize("minecraft:air")]

    def index(self, state: str) -> int:
        canonical = REGISTRY.canonicalize(state)
        if canonical not in self.palette:
            self.palette.append(canonical)
        return self.palette.index(canonical)

    def set(self, x: int, y: int, z: int, state: str) -> None:
        self.cells[y, z, x] = self.index(state)

    def fill(self, x0, y0, z0, x1, y1, z1, state: str) -> None:
        self.cells[y0 : y1 + 1, z0 : z1 + 1, x0 : x1 + 1] = self.index(state)

    def schematic(self, name: str, offset=(0, 0, 0)) -> Schematic:
        width, height, length = self.size
        return Schematic(
            width,
            height,
            length,
            list(self.palette),
            self.cells.copy(),
            REGISTRY.data_version,
            offset=offset,
            metadata=Compound(Name=String(name), Author=String("mcb"), Date=DATE_MS),
        )


def house() -> Schematic:
    """A 9 x 8 x 9 cottage: log frame, plank walls, glass panes, door, stair roof, chest, fence, lantern."""
    g = Grid(9, 8, 9)
    g.fill(0, 0, 0, 8, 0, 8, "minecraft:grass_block")
    g.fill(1, 1, 1, 7, 1, 7, "minecraft:cobblestone")
    g.fill(1, 2, 1, 7, 4, 7, "minecraft:oak_planks")
    g.fill(2, 2, 2, 6, 4, 6, "minecraft:air")
    for x, z in ((1, 1), (7, 1), (1, 7), (7, 7)):
        g.fill(x, 2, z, x, 4, z, "minecraft:oak_log[axis=y]")
    for x in (3, 5):
        g.set(x, 3, 1, "minecraft:glass_pane[east=true,west=true]")
        g.set(x, 3, 7, "minecraft:glass_pane[east=true,west=true]")
    g.set(1, 3, 4, "minecraft:glass_pane[north=true,south=true]")
    g.set(7, 3, 4, "minecraft:glass_pane[north=true,south=true]")
    g.set(4, 2, 1, "minecraft:oak_door[facing=south,half=lower,hinge=left]")
    g.set(4, 3, 1, "minecraft:oak_door[facing=south,half=upper,hinge=left]")
    g.set(4, 1, 0, "minecraft:oak_stairs[facing=south]")
    for step in range(4):  # roof: stairs rising from both long sides
        y = 5 + step
        if y >= 8:
            break
        for x in range(step, 9 - step):
            g.set(x, y, step, "minecraft:spruce_stairs[facing=south]")
            g.set(x, y, 8 - step, "minecraft:spruce_stairs[facing=north]")
        g.fill(step, y, step + 1, step, y, 7 - step, "minecraft:spruce_planks")
        g.fill(8 - step, y, step + 1, 8 - step, y, 7 - step, "minecraft:spruce_planks")
    g.fill(3, 7, 4, 5, 7, 4, "minecraft:spruce_slab[type=bottom]")
    g.set(6, 2, 6, "minecraft:chest[facing=west]")
    g.set(2, 2, 6, "minecraft:crafting_table")
    g.set(2, 2, 2, "minecraft:oak_stairs[facing=east]")
    g.set(4, 4, 4, "minecraft:lantern[hanging=true]")
    for x in range(0, 9, 8):
        for z in range(2, 7):
            g.set(x, 1, z, "minecraft:oak_fence[north=true,south=true]")
    return g.schematic("Small house")


def rotation_fixture() -> Schematic:
    """One of each rotation-relevant property family, spaced out on a stone floor (for rotate/mirror demos)."""
    g = Grid(8, 2, 6)
    g.fill(0, 0, 0, 7, 0, 5, "minecraft:stone")
    states = [
        "minecraft:oak_stairs[facing=north,shape=outer_left]",
        "minecraft:oak_stairs[facing=east]",
        "minecraft:oak_log[axis=x]",
        "minecraft:oak_log[axis=z]",
        "minecraft:oak_sign[rotation=3]",
        "minecraft:rail[shape=north_east]",
        "minecraft:powered_rail[shape=ascending_east]",
        "minecraft:cobblestone_wall[north=tall,east=low]",
        "minecraft:oak_fence[north=true,west=true]",
        "minecraft:redstone_wire[north=side,east=up]",
        "minecraft:chest[facing=north,type=left]",
        "minecraft:chest[facing=north,type=right]",
        "minecraft:oak_door[facing=east,hinge=right]",
        "minecraft:repeater[facing=west,delay=3]",
        "minecraft:observer[facing=up]",
        "minecraft:crafter[orientation=north_up]",
        "minecraft:vine[north=true,up=true]",
        "minecraft:wall_torch[facing=south]",
        "minecraft:ladder[facing=east]",
        "minecraft:lever[face=floor,facing=west]",
    ]
    for i, state in enumerate(states):
        g.set(i % 8, 1, (i // 8) * 2, state)
    return g.schematic("Rotation fixture")


def worldedit_style() -> Schematic:
    """A tiny tower saved the way WorldEdit v2 does it: Offset = absolute world min, WEOffset = paste offset."""
    g = Grid(3, 5, 3)
    g.fill(0, 0, 0, 2, 4, 2, "minecraft:stone_bricks")
    g.fill(1, 1, 1, 1, 4, 1, "minecraft:air")
    g.set(1, 4, 1, "minecraft:torch")
    schem = g.schematic("WorldEdit-style tower", offset=(-1, 0, -1))
    schem.world_origin = (120, 64, -340)  # absolute min = (119, 64, -341)
    return schem


def chest_with_loot_v3() -> Schematic:
    """A Sponge v3 file with a filled chest: the server cannot import its block entity (convert refuses)."""
    g = Grid(3, 2, 3)
    g.fill(0, 0, 0, 2, 0, 2, "minecraft:oak_planks")
    g.set(1, 1, 1, "minecraft:chest[facing=south]")
    schem = g.schematic("Loot chest")
    item = Compound(Slot=Byte(0), id=String("minecraft:diamond"), count=3)
    schem.block_entities = [BlockEntity((1, 1, 1), "minecraft:chest", Compound(Items=List([item], 10)))]
    return schem


def hut_v3() -> Schematic:
    """A small hut saved as Sponge v3 (WorldEdit 7.3+'s default): `mcb schem convert` turns it into v2 losslessly."""
    g = Grid(5, 4, 5)
    g.fill(0, 0, 0, 4, 0, 4, "minecraft:cobblestone")
    g.fill(0, 1, 0, 4, 2, 4, "minecraft:spruce_planks")
    g.fill(1, 1, 1, 3, 2, 3, "minecraft:air")
    g.set(2, 1, 0, "minecraft:spruce_door[facing=south,half=lower,hinge=left]")
    g.set(2, 2, 0, "minecraft:spruce_door[facing=south,half=upper,hinge=left]")
    g.set(0, 2, 2, "minecraft:glass_pane[north=true,south=true]")
    g.fill(0, 3, 0, 4, 3, 4, "minecraft:spruce_slab[type=bottom]")
    return g.schematic("Hut (Sponge v3)")


def watchtower_litematic() -> bytes:
    """A Litematica file as Litematica saves one: two regions (the tower's, saved with a negative Size as when the
    selection was made from its top corner, and a porch), a chest with items, entries packed across longs."""
    import gzip

    from mcb.schematics.formats.bit_packing import bits_for, pack_indices
    from mcb.schematics.formats.common import compound_from_state
    from mcb.schematics.nbt import TAG_COMPOUND, TAG_LONG_ARRAY, Int, Long, NumericArray
    from mcb.schematics.nbt_encoder import encode_nbt

    def region(position, size, grid: Grid, entities=()):
        bits = bits_for(len(grid.palette))
        words = pack_indices(grid.cells.ravel().astype(np.int64), bits)
        xyz = lambda v: Compound(x=Int(v[0]), y=Int(v[1]), z=Int(v[2]))  # noqa: E731
        return Compound(
            Position=xyz(position),
            Size=xyz(size),
            BlockStatePalette=List([compound_from_state(p) for p in grid.palette], TAG_COMPOUND),
            BlockStates=NumericArray(TAG_LONG_ARRAY, words.astype(">i8").tobytes()),
            TileEntities=List(list(entities), TAG_COMPOUND),
            Entities=List((), TAG_COMPOUND),
            PendingBlockTicks=List((), TAG_COMPOUND),
            PendingFluidTicks=List((), TAG_COMPOUND),
        )

    tower = Grid(5, 12, 5)  # cells from the region's minimum corner
    tower.fill(0, 0, 0, 4, 0, 4, "minecraft:stone_bricks")
    for x, z in ((0, 0), (4, 0), (0, 4), (4, 4)):
        tower.fill(x, 1, z, x, 9, z, "minecraft:spruce_log[axis=y]")
    tower.fill(1, 1, 0, 3, 9, 0, "minecraft:cobblestone_wall")
    tower.fill(0, 10, 0, 4, 10, 4, "minecraft:spruce_planks")
    tower.fill(1, 1, 1, 3, 9, 3, "minecraft:air")
    for y in range(1, 10):
        tower.set(2, y, 3, "minecraft:ladder[facing=north]")
    tower.set(1, 11, 1, "minecraft:lantern")
    tower.set(3, 11, 3, "minecraft:chest[facing=west]")
    porch = Grid(5, 1, 3)
    porch.fill(0, 0, 0, 4, 0, 2, "minecraft:spruce_slab[type=bottom]")
    porch.set(2, 0, 0, "minecraft:spruce_stairs[facing=north]")
    loot = Compound(
        x=Int(3),
        y=Int(11),
        z=Int(3),
        id=String("minecraft:chest"),
        Items=List([Compound(Slot=Byte(0), id=String("minecraft:spyglass"), count=Int(1))], TAG_COMPOUND),
    )
    regions = Compound(
        {
            # saved from the top corner: Position is the far corner and Size runs back (negative on every axis)
            "Tower": region((4, 11, 4), (-5, -12, -5), tower, [loot]),
            "Porch": region((0, 0, 5), (5, 1, 3), porch),
        }
    )
    metadata = Compound(
        Name=String("Watchtower"),
        Author=String("mcb"),
        Description=String("a sample"),
        RegionCount=Int(2),
        TotalVolume=Int(5 * 12 * 5 + 15),
        TotalBlocks=Int(0),
        EnclosingSize=Compound(x=Int(5), y=Int(12), z=Int(8)),
        TimeCreated=Long(DATE_MS),
        TimeModified=Long(DATE_MS),
    )
    root = Compound(
        MinecraftDataVersion=Int(REGISTRY.data_version),
        Version=Int(7),
        SubVersion=Int(1),
        Metadata=metadata,
        Regions=regions,
    )
    return gzip.compress(encode_nbt(root, ""), mtime=0)


def cabin_schematic() -> bytes:
    """A legacy .schematic as MCEdit/Schematica saved them (Minecraft 1.12): numeric ids and data values, a door
    in two halves, a blue bed and a potted allium whose colour and plant sit in block entities, a stone slab and
    a wall sign (renamed since), a chest."""
    import gzip

    from mcb.schematics.nbt import TAG_COMPOUND, ByteArray, Int, Short
    from mcb.schematics.nbt_encoder import encode_nbt

    width, height, length = 7, 5, 6
    ids = np.zeros((height, length, width), dtype=np.uint8)
    data = np.zeros((height, length, width), dtype=np.uint8)

    def put(x, y, z, block, value=0):
        ids[y, z, x], data[y, z, x] = block, value

    ids[0] = 4  # cobblestone floor
    for y in range(1, 4):
        for x in range(width):
            for z in range(length):
                if x in (0, width - 1) or z in (0, length - 1):
                    put(x, y, z, 5)  # oak planks walls
    put(3, 1, 0, 64, 3)  # oak door, lower half: facing north (3), closed
    put(3, 2, 0, 64, 8)  # upper half: hinge left
    put(1, 2, 0, 102)  # glass pane
    put(5, 2, 0, 102)
    put(1, 1, 4, 26, 3)  # bed foot, facing east
    put(2, 1, 4, 26, 11)  # bed head (8) facing east (3)
    put(5, 1, 4, 54, 4)  # chest facing west
    put(5, 1, 1, 140)  # flower pot
    put(1, 1, 1, 44)  # stone slab (smooth stone since 1.14)
    put(3, 2, 1, 68, 3)  # wall sign facing south, on the door's wall
    ids[4] = 126  # wooden slab roof
    xyz = lambda x, y, z: dict(x=Int(x), y=Int(y), z=Int(z))  # noqa: E731
    tile_entities = List(
        [
            Compound(id=String("minecraft:bed"), color=Int(11), **xyz(1, 1, 4)),
            Compound(id=String("minecraft:bed"), color=Int(11), **xyz(2, 1, 4)),
            Compound(
                id=String("minecraft:flower_pot"), Item=String("minecraft:red_flower"), Data=Int(2), **xyz(5, 1, 1)
            ),
            Compound(id=String("minecraft:chest"), Items=List((), TAG_COMPOUND), **xyz(5, 1, 4)),
            Compound(
                id=String("minecraft:sign"),
                Text1=String('{"text":"Cabin"}'),
                Text2=String('{"text":""}'),
                Text3=String('{"text":""}'),
                Text4=String('{"text":""}'),
                **xyz(3, 2, 1),
            ),
        ],
        TAG_COMPOUND,
    )
    root = Compound(
        Width=Short(width),
        Height=Short(height),
        Length=Short(length),
        Materials=String("Alpha"),
        Blocks=ByteArray(ids.tobytes()),
        Data=ByteArray(data.tobytes()),
        TileEntities=tile_entities,
        Entities=List((), TAG_COMPOUND),
    )
    return gzip.compress(encode_nbt(root, "Schematic"), mtime=0)


def build() -> dict[str, bytes]:
    import gzip

    from mcb.schematics.formats.sponge_writer import build_tree
    from mcb.schematics.nbt import Int
    from mcb.schematics.nbt_encoder import encode_nbt

    samples = {
        "house.schem": encode_schematic(house(), 2),
        "rotation_fixture.schem": encode_schematic(rotation_fixture(), 2),
        "chest_with_loot_v3.schem": encode_schematic(chest_with_loot_v3(), 3),
        "hut_v3.schem": encode_schematic(hut_v3(), 3),
        "watchtower.litematic": watchtower_litematic(),
        "cabin.schematic": cabin_schematic(),
    }
    # WorldEdit's v2 layout: Offset holds the absolute min corner, the paste offset goes to WEOffsetX/Y/Z.
    tower = worldedit_style()
    name, root = build_tree(tower, 2, worldedit_offsets=True)
    root["Offset"] = root["Offset"].__class__(tower.world_min)
    root["Metadata"]["WEOffsetX"], root["Metadata"]["WEOffsetY"], root["Metadata"]["WEOffsetZ"] = (
        Int(v) for v in tower.offset
    )
    samples["worldedit_tower.schem"] = gzip.compress(encode_nbt(root, name), mtime=0)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    out_dir = ROOT / "schematics"
    out_dir.mkdir(exist_ok=True)
    stale = []
    for name, payload in build().items():
        path = out_dir / name
        if args.check:
            if not path.exists() or path.read_bytes() != payload:
                stale.append(name)
            continue
        path.write_bytes(payload)
        print(f"wrote {path.relative_to(ROOT)} ({len(payload)} bytes)")
    if stale:
        print("stale samples: " + ", ".join(stale) + " (run scripts/make_samples.py)")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
