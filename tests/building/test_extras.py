"""The extras function: the block-entity and entity data a build leaves out, as the exact vanilla commands that
put it back at the build's target, rotation and mirror, upgraded where the file is older, split where a line
would pass the command limit, and counted where it cannot be carried over."""

from __future__ import annotations

import nbtlib
from nbtlib import Byte, Compound, Double, Float, Int, IntArray, List, String

from mcb.building.extras import MAX_COMMAND, block_commands, extras_commands, write_extras_function

N = nbtlib
CHEST = "minecraft:chest[facing=north,type=single,waterlogged=false]"
SIGN = "minecraft:oak_sign[rotation=0,waterlogged=false]"


def _v2(path, *, data_version, block_entities, entities=(), size=(3, 2, 4), cells=None, offset=(-1, 0, -2)):
    """A Sponge v2 file written by nbtlib (not mcb's writer): chest at (0,0,0), sign at (2,0,3), stone at (1,1,0)."""
    width, height, length = size
    palette = {"minecraft:air": 0, CHEST: 1, SIGN: 2, "minecraft:stone": 3}
    blocks = [0] * (width * height * length)
    for (x, y, z), index in (cells or {(0, 0, 0): 1, (2, 0, 3): 2, (1, 1, 0): 3}).items():
        blocks[x + z * width + y * width * length] = index
    root = Compound(
        {
            "Version": Int(2),
            "DataVersion": Int(data_version),
            "Width": N.Short(width),
            "Height": N.Short(height),
            "Length": N.Short(length),
            "Offset": IntArray(list(offset)),
            "PaletteMax": Int(len(palette)),
            "Palette": Compound({state: Int(i) for state, i in palette.items()}),
            "BlockData": N.ByteArray(blocks),
            "BlockEntities": List[Compound](list(block_entities)),
            "Entities": List[Compound](list(entities)),
        }
    )
    N.File(root, gzipped=True, root_name="Schematic").save(path)
    return path


def _block_entity(pos, ident, **data):
    return Compound({"Pos": IntArray(list(pos)), "Id": String(ident), **data})


def _entity(pos, ident, **data):
    return Compound({"Pos": List[Double]([Double(v) for v in pos]), "Id": String(ident), **data})


def _house(tmp_path, data_version=4903):
    """A chest with items, a sign with text, an item frame on the stone facing south, an armour stand facing
    south, each with the UUID the game saved (a command must not repeat it)."""
    uuid = IntArray([1, 2, 3, 4])
    return _v2(
        tmp_path / "house.schem",
        data_version=data_version,
        block_entities=[
            _block_entity(
                (0, 0, 0),
                "minecraft:chest",
                Items=List[Compound]([Compound({"Slot": Byte(0), "id": String("minecraft:diamond"), "count": Int(3)})]),
            ),
            _block_entity(
                (2, 0, 3),
                "minecraft:sign",
                front_text=Compound({"messages": List[String]([String("Hello"), String(""), String(""), String("")])}),
            ),
        ],
        entities=[
            _entity(
                (1.5, 1.5, 1.03125),
                "minecraft:item_frame",
                Facing=Byte(3),
                Item=Compound({"id": String("minecraft:map"), "count": Int(1)}),
                Rotation=List[Float]([Float(0), Float(0)]),
                UUID=uuid,
            ),
            _entity(
                (2.5, 0.0, 1.5), "minecraft:armor_stand", ShowArms=Byte(1), Rotation=List[Float]([0.0, 0.0]), UUID=uuid
            ),
        ],
    )


def _commands(path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line and not line.startswith("#")]


def test_a_house_turned_90_gives_the_exact_commands(tmp_path):
    house = _house(tmp_path)
    output = tmp_path / "house.mcfunction"
    summary = write_extras_function(house, (10, 64, 20), rotation=90, output=output)
    # Turned clockwise about the anchor: local (x, z) -> (3 - z, x), offset (-1, 0, -2) -> (-1, 0, -1), so local
    # (0,0,0) of the turned file lands at (9, 64, 19). The frame facing south now faces west (Facing 4), the armour
    # stand's yaw 0 (south) is 90 (west); the game's UUIDs are left to the game.
    assert _commands(output) == [
        'data merge block 12 64 19 {Items:[{Slot:0b,id:"minecraft:diamond",count:3}]}',
        'data merge block 9 64 21 {front_text:{messages:["Hello","","",""]}}',
        'summon minecraft:item_frame 11.5 65.5 20.5 {Facing:4b,Item:{id:"minecraft:map",count:1},'
        "Rotation:[90.0f,0.0f],block_pos:[I;11,65,20],Pos:[11.5d,65.5d,20.5d]}",
        "summon minecraft:armor_stand 11.5 64.0 21.5 {ShowArms:1b,Rotation:[90.0f,0.0f]}",
    ]
    assert summary["block_entities"] == {"in_file": 2, "written": 2, "defaults_only": 0, "left_out": []}
    assert summary["entities"] == {"in_file": 2, "written": 2, "left_out": []}
    assert summary["commands"] == 4 and summary["upgraded"] == [] and summary["not_upgraded"] == []
    assert summary["box"] == {"min": {"x": 9, "y": 64, "z": 19}, "max": {"x": 12, "y": 65, "z": 21}}
    header = output.read_text().split("\ndata merge", 1)[0]
    assert "/function <namespace>:<name>" in header and "data/<namespace>/function/<name>.mcfunction" in header
    assert "/forceload add 9 19 12 21" in header


def test_mirror_then_rotation_as_a_build_and_the_function_id_of_a_datapack_path(tmp_path):
    house = _house(tmp_path)
    folder = tmp_path / "world" / "datapacks" / "build" / "data" / "mcb" / "function" / "houses"
    folder.mkdir(parents=True)
    summary = write_extras_function(house, (0, 64, 0), rotation=180, mirror="x", output=folder / "one.mcfunction")
    assert summary["function"] == "mcb:houses/one"
    assert "run /function mcb:houses/one." in (folder / "one.mcfunction").read_text()
    # mirror x then 180: (x, z) -> (x, 3 - z) with the offset (-1, 0, -2) -> (-1, 0, -1): origin (-1, 64, -1)
    lines = _commands(folder / "one.mcfunction")
    assert lines[0].startswith("data merge block -1 64 2 ")  # the chest (0, 0, 0) -> (0, 0, 3)
    assert lines[1].startswith("data merge block 1 64 -1 ")  # the sign (2, 0, 3) -> (2, 0, 0)
    assert "{Facing:2b," in lines[2]  # south, mirrored across x (still south), turned 180: north
    assert lines[3].endswith("{ShowArms:1b,Rotation:[-180.0f,0.0f]}")  # yaw 0 -> 0 -> 180, written as -180


def test_an_inventory_too_long_for_one_command_goes_on_in_appends(tmp_path):
    lore = [String("x" * 200)] * 6
    items = [
        Compound(
            {
                "Slot": Byte(slot),
                "id": String("minecraft:paper"),
                "count": Int(1),
                "components": Compound({"minecraft:lore": List[String](lore)}),
            }
        )
        for slot in range(27)
    ]
    chest = _block_entity((0, 0, 0), "minecraft:chest", CustomName=String("Archive"), Items=List[Compound](items))
    path = _v2(tmp_path / "archive.schem", data_version=4903, block_entities=[chest], cells={(0, 0, 0): 1})
    commands, summary = extras_commands(path, (0, 0, 0))
    item = '{Slot:%db,id:"minecraft:paper",count:1,components:{"minecraft:lore":[%s]}}'
    texts = ",".join(['"' + "x" * 200 + '"'] * 6)
    every = [item % (slot, texts) for slot in range(27)]
    fit = (MAX_COMMAND - len('data merge block -1 0 -2 {CustomName:"Archive",Items:[]}') + 1) // (len(every[0]) + 1)
    assert commands[0] == 'data merge block -1 0 -2 {CustomName:"Archive",Items:[' + ",".join(every[:fit]) + "]}"
    assert commands[1:] == [f"data modify block -1 0 -2 Items append value {entry}" for entry in every[fit:]]
    assert 0 < fit < 27 and all(len(line) <= MAX_COMMAND for line in commands)
    assert summary["block_entities"]["written"] == 1 and summary["commands"] == 1 + 27 - fit


def test_a_block_entity_that_cannot_fit_even_split_is_left_out_and_counted():
    huge = Compound({"Book": Compound({"id": String("minecraft:writable_book"), "pages": String("y" * MAX_COMMAND)})})
    assert block_commands(0, 0, 0, huge) is None


def test_an_old_file_is_upgraded_to_26_2_and_what_cannot_be_is_counted(tmp_path):
    """1.19.2 data (DataVersion 3120): sign lines in Text1..4 as JSON, items with Count and tag."""
    sword = Compound(
        {
            "Slot": Byte(4),
            "id": String("minecraft:diamond_sword"),
            "Count": Byte(1),
            "tag": Compound(
                {
                    "Damage": Int(7),
                    "display": Compound(
                        {"Name": String('{"text":"Edge","color":"red"}'), "Lore": List[String]([String('"old"')])}
                    ),
                    "Enchantments": List[Compound](
                        [Compound({"id": String("minecraft:sharpness"), "lvl": N.Short(5)})]
                    ),
                    "HideFlags": Int(1),
                    "mymod_owner": String("Ann"),
                }
            ),
        }
    )
    chest = _block_entity((0, 0, 0), "minecraft:chest", Items=List[Compound]([sword]), Lock=String("key"))
    sign = _block_entity(
        (2, 0, 3),
        "minecraft:sign",
        Text1=String('{"text":"Shop"}'),
        Text2=String('{"text":"open","bold":true}'),
        Text3=String('""'),
        Text4=String('{"text":""}'),
        Color=String("blue"),
        GlowingText=Byte(1),
    )
    blank = _block_entity((0, 1, 0), "minecraft:chest", Items=List[Compound]([]))
    path = _v2(
        tmp_path / "old.schem",
        data_version=3120,
        block_entities=[chest, sign, blank],
        cells={(0, 0, 0): 1, (2, 0, 3): 2, (0, 1, 0): 1},
    )
    commands, summary = extras_commands(path, (0, 0, 0))
    assert commands == [
        'data merge block -1 0 -2 {Items:[{Slot:4b,id:"minecraft:diamond_sword",count:1,components:{'
        '"minecraft:damage":7,"minecraft:custom_name":{text:"Edge",color:"red"},"minecraft:lore":["old"],'
        '"minecraft:enchantments":{"minecraft:sharpness":5},"minecraft:custom_data":{mymod_owner:"Ann"}}}]}',
        # a list of texts holds one tag type: beside a compound, each plain line is a compound too
        'data merge block 1 0 1 {front_text:{messages:[{text:"Shop"},{text:"open",bold:1b},{text:""},{text:""}],'
        'color:"blue",has_glowing_text:1b}}',
    ]
    assert summary["data_version"] == {"file": 3120, "read_as": 3120}
    assert summary["block_entities"]["defaults_only"] == 1  # the empty chest: nothing a placed chest lacks
    assert {e["change"]: e["count"] for e in summary["upgraded"]} == {
        "texts from JSON into NBT text components (Minecraft 1.21.5)": 6,  # name, lore line, 4 sign lines
        "items from Count and tag into count and components (Minecraft 1.20.5)": 1,
        "item data of no vanilla meaning into minecraft:custom_data": 1,
        "signs from Text1-Text4 into front_text (Minecraft 1.20)": 1,
    }
    assert summary["not_upgraded"] == [
        {"what": "item data HideFlags (no rule for its 1.20.5 component)", "outcome": "left out", "count": 1},
        {"what": "container locks (Lock: a name; an item predicate since 1.21.2)", "outcome": "left out", "count": 1},
    ]


def test_block_entities_without_their_block_are_left_out_and_counted(tmp_path):
    stray = _block_entity((1, 0, 1), "minecraft:chest", Items=List[Compound]([]), CustomName=String('"x"'))
    outside = _block_entity((9, 0, 0), "minecraft:chest", CustomName=String('"y"'))
    path = _v2(tmp_path / "stray.schem", data_version=4903, block_entities=[stray, outside], cells={})
    commands, summary = extras_commands(path, (0, 0, 0))
    assert commands == []
    assert summary["block_entities"]["left_out"] == [
        {"reason": "on a block that has no block entity in the target release", "count": 1},
        {"reason": "outside the schematic's box", "count": 1},
    ]


def test_a_real_house_of_1_19_2_with_931_block_entities(corpus, tmp_path):
    """interieur-exterieur (WorldEdit, 1.19.2): 931 block entities, of which 914 hold only defaults (empty barrels,
    blank signs, beds); 17 carry something: sign text, player heads, lectern books, a hopper's lantern."""
    output = tmp_path / "interieur.mcfunction"
    summary = write_extras_function(
        corpus / "v2_schematic4j_interieur-exterieur.schem", (100, 64, 200), rotation=90, output=output
    )
    assert summary["block_entities"] == {"in_file": 931, "written": 17, "defaults_only": 914, "left_out": []}
    assert summary["commands"] == 17 and summary["not_upgraded"] == []
    assert {e["change"]: e["count"] for e in summary["upgraded"]} == {
        "texts from JSON into NBT text components (Minecraft 1.21.5)": 1408,
        "signs from Text1-Text4 into front_text (Minecraft 1.20)": 352,
        "player heads from SkullOwner into profile (Minecraft 1.20.5)": 5,
        "items from Count and tag into count and components (Minecraft 1.20.5)": 5,
    }
    lines = _commands(output)
    assert 'data merge block 220 65 327 {front_text:{messages:["Four","Chandelier","Ideas",""]}}' in lines
    assert 'data merge block 128 69 323 {Items:[{Slot:0b,id:"minecraft:lantern",count:1}],TransferCooldown:0}' in lines


def test_worldedit_frames_stored_at_their_block_corner_turn_with_their_block(corpus, tmp_path):
    """Evaluator (WorldEdit v2, 1.20.4): glow item frames whose Pos is their block's corner (TileX/Y/Z agree)."""
    commands, summary = extras_commands(corpus / "v2_nucleation_Evaluator_entities.schem", (100, 64, 200), 90)
    frames = [c for c in commands if c.startswith("summon minecraft:glow_item_frame ")]
    # local block (3, 10, 13) facing west; turned: (37 - 1 - 13, 10, 3) + origin (100, 63, 176), facing north
    assert frames[0].startswith("summon minecraft:glow_item_frame 123.5 73.5 179.5 {Facing:2b,")
    assert "block_pos:[I;123,73,179]" in frames[0] and "UUID" not in frames[0] and "TileX" not in frames[0]
    assert summary["entities"] == {"in_file": 8, "written": 8, "left_out": []}


def test_a_painting_two_blocks_wide_hangs_on_the_same_wall_blocks_when_mirrored(tmp_path):
    """The game saves a painting at its centre and hangs it by the block half a block to its left: a 2-wide painting
    facing south on blocks x = 0, 1 (its centre x = 1.0) mirrored across x covers x = 2, 1, so its block is x = 1."""
    painting = _entity(
        (1.0, 1.5, 1.03125),
        "minecraft:painting",
        facing=Byte(0),
        variant=String("minecraft:pool"),
        UUID=IntArray([1, 2, 3, 4]),
    )
    path = _v2(tmp_path / "art.schem", data_version=4903, block_entities=[], entities=[painting], cells={})
    commands, _ = extras_commands(path, (0, 0, 0), mirror="x")  # offset (-1, 0, -2) -> (-1, 0, -2): 3-wide box
    assert commands == [
        'summon minecraft:painting 0.5 1.5 -0.5 {facing:0b,variant:"minecraft:pool",block_pos:[I;0,1,-1],'
        "Pos:[0.5d,1.5d,-0.5d]}"
    ]
    turned, _ = extras_commands(path, (0, 0, 0), rotation=90)  # facing west: its left is south, +z
    # centre (1.0, 1.5, 1.03125) -> (2.96875, 1.5, 1.0): block (2, 1, 1.0 - 1); + origin (-1, 0, -1): (1, 1, -1)
    assert turned[0].startswith("summon minecraft:painting 1.5 1.5 -0.5 {facing:1b,")


def test_a_legacy_file_has_its_1_12_data_read_as_such(corpus):
    """Schematica, Minecraft 1.12 or older: item frames faced four ways then (0-3: south, west, north, east) and six
    since 1.13; items of numeric ids cannot be named today and are counted, not guessed."""
    commands, summary = extras_commands(corpus / "legacy_schematic4j_12727.schematic", (0, 64, 0))
    assert summary["data_version"] == {"file": None, "read_as": 1343}
    upgraded = {e["change"]: e["count"] for e in summary["upgraded"]}
    assert upgraded["item frames from four facings into six (Minecraft 1.13)"] == 47
    assert upgraded["paintings from Motive into variant (Minecraft 1.19)"] == 2
    assert {
        "what": "items from before Minecraft 1.13 (numeric ids and damage values)",
        "outcome": "left out",
        "count": 1,
    } in summary["not_upgraded"]
    assert summary["entities"] == {"in_file": 73, "written": 73, "left_out": []}
    frames = [c for c in commands if c.startswith("summon minecraft:item_frame ")]
    assert len(frames) == 47 and all("{Motion:" in c and "Facing:" in c for c in frames)
    assert not any("Facing:0b" in c or "Facing:1b" in c for c in frames)  # none on a floor or ceiling in 1.12
