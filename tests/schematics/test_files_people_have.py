"""Files people have (issue 29): what other tools write is read as the game reads it, and every refusal names its
file and says what the file is. Each test makes its own files."""

from __future__ import annotations

import json

import pytest
from schem_nbt_bytes import document

from mcb.schematics.formats import read_any

BYTE, SHORT, INT, LONG, DOUBLE, BYTES, STRING, LIST, COMPOUND, INTS, LONGS = 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12
EMPTY_BYTES = (BYTE, [])  # an empty TAG_List of TAG_Byte, as MCEdit writes an empty list


def legacy_file(blocks=(1, 1), data=(0, 0), size=(2, 1, 1), tile_entities=EMPTY_BYTES, entities=EMPTY_BYTES):
    """An MCEdit-style .schematic: ids and data values, empty lists as lists of Byte."""
    width, height, length = size
    return document(
        [
            ("Width", SHORT, width),
            ("Height", SHORT, height),
            ("Length", SHORT, length),
            ("Materials", STRING, "Alpha"),
            ("Blocks", BYTES, bytes(blocks)),
            ("Data", BYTES, bytes(data)),
            ("TileEntities", LIST, tile_entities),
            ("Entities", LIST, entities),
        ]
    )


def _xyz(x, y, z):
    return [("x", INT, x), ("y", INT, y), ("z", INT, z)]


def litematic_file(*, tile_entities=EMPTY_BYTES, entities=EMPTY_BYTES, ticks=EMPTY_BYTES, block="minecraft:stone"):
    """One 2 x 1 x 1 Litematica region of ``block`` (index 1 of [air, block]: bits 01 01 = 5)."""
    region = [
        ("Position", COMPOUND, _xyz(0, 0, 0)),
        ("Size", COMPOUND, _xyz(2, 1, 1)),
        (
            "BlockStatePalette",
            LIST,
            (COMPOUND, [[("Name", STRING, "minecraft:air")], [("Name", STRING, block)]]),
        ),
        ("BlockStates", LONGS, [5]),
        ("TileEntities", LIST, tile_entities),
        ("Entities", LIST, entities),
        ("PendingBlockTicks", LIST, ticks),
        ("PendingFluidTicks", LIST, ticks),
    ]
    return document(
        [
            ("MinecraftDataVersion", INT, 3700),
            ("Version", INT, 6),
            ("Metadata", COMPOUND, [("Name", STRING, "t")]),
            ("Regions", COMPOUND, [("r", COMPOUND, region)]),
        ],
        root_name="",
    )


def structure_file(*, entities=EMPTY_BYTES):
    return document(
        [
            ("DataVersion", INT, 3700),
            ("size", LIST, (INT, [1, 1, 1])),
            ("palette", LIST, (COMPOUND, [[("Name", STRING, "minecraft:stone")]])),
            ("blocks", LIST, (COMPOUND, [[("state", INT, 0), ("pos", LIST, (INT, [0, 0, 0]))]])),
            ("entities", LIST, entities),
        ],
        root_name="",
    )


def sponge_file(version: int):
    body = [
        ("Version", INT, version),
        ("DataVersion", INT, 3700),
        ("Width", SHORT, 1),
        ("Height", SHORT, 1),
        ("Length", SHORT, 1),
    ]
    if version == 2:
        body += [
            ("PaletteMax", INT, 1),
            ("Palette", COMPOUND, [("minecraft:stone", INT, 0)]),
            ("BlockData", BYTES, b"\x00"),
            ("BlockEntities", LIST, EMPTY_BYTES),
            ("Entities", LIST, EMPTY_BYTES),
        ]
        return document(body)
    blocks = [("Palette", COMPOUND, [("minecraft:stone", INT, 0)]), ("Data", BYTES, b"\x00")]
    body += [("Blocks", COMPOUND, [*blocks, ("BlockEntities", LIST, EMPTY_BYTES)]), ("Entities", LIST, EMPTY_BYTES)]
    return document([("Schematic", COMPOUND, body)], root_name="")


EMPTY_BYTE_LISTS = {
    "mcedit.schematic": legacy_file(),
    "regions.litematic": litematic_file(),
    "structure.nbt": structure_file(),
    "v2.schem": sponge_file(2),
    "v3.schem": sponge_file(3),
}


@pytest.mark.parametrize("name", sorted(EMPTY_BYTE_LISTS))
def test_an_empty_list_of_bytes_is_an_empty_list_in_every_reader_and_command(cli, tmp_path, name):
    # Before: "TileEntities must be a list of compounds" refused MCEdit's files in every command.
    path = tmp_path / name
    path.write_bytes(EMPTY_BYTE_LISTS[name])
    schem = read_any(path)
    assert schem.block_entities == [] and schem.entities == []
    info = cli("schem", "info", str(path), "--json")
    assert info.exit_code == 0, info.stderr
    assert json.loads(info.stdout)["block_entities"]["count"] == 0
    spec = cli("schem", "validate", str(path), "--profile", "spec", "--json")
    assert "list of compounds" not in spec.stdout, spec.stdout
    converted = cli("schem", "convert", str(path), "-o", str(tmp_path / "out.litematic"))
    assert converted.exit_code == 0, converted.stderr


def test_a_known_id_with_an_unknown_data_value_reads_as_the_blocks_default_state(cli, tmp_path):
    # Before: a chest of data 0 (MCEdit writes them; the game reads a north-facing chest) was "unknown block
    # legacy:block_54", and so were ids 50, 61, 62, 65, 68, 75, 76, 90, 130, 146 and 177 with some data values.
    chest = tmp_path / "chest.schematic"
    item = [("id", STRING, "minecraft:stone"), ("Count", BYTE, 3), ("Slot", BYTE, 0), ("Damage", SHORT, 0)]
    chest_entity = [*_xyz(0, 0, 0), ("id", STRING, "minecraft:chest"), ("Items", LIST, (COMPOUND, [item]))]
    chest.write_bytes(legacy_file(blocks=(54, 0), data=(0, 0), tile_entities=(COMPOUND, [chest_entity])))
    schem = read_any(chest)
    assert schem.state_at(0, 0, 0) == "minecraft:chest[facing=north,type=single]"
    assert [be.id for be in schem.block_entities] == ["minecraft:chest"]
    info = json.loads(cli("schem", "info", str(chest), "--json").stdout)
    assert info["upgrade"]["unknown"] == []
    (said,) = [c for c in info["upgrade"]["conversions"] if "data value 0 of block id 54" in c["change"]]
    assert said["cells"] == 1 and "minecraft:chest[facing=north,type=single]" in said["change"]
    assert cli("schem", "convert", str(chest), "-o", str(tmp_path / "chest.schem"), "--to", "sponge3").exit_code == 0

    ids = (50, 54, 61, 62, 65, 68, 75, 76, 90, 130, 146, 177)
    every = tmp_path / "every.schematic"
    every.write_bytes(legacy_file(blocks=ids, data=(0,) * len(ids), size=(len(ids), 1, 1)))
    states = [state.split("[")[0] for state, _ in read_any(every).palette_counts()]
    expected = "torch chest furnace ladder wall_sign redstone_torch nether_portal ender_chest trapped_chest"
    assert {s.partition(":")[2] for s in states} == {*expected.split(), "white_wall_banner"}

    unknown = tmp_path / "unknown.schematic"
    unknown.write_bytes(legacy_file(blocks=(1, 253), data=(0, 0)))  # 253: no 1.12 block
    assert "legacy:block_253" in read_any(unknown).palette


def test_the_worldedit_offset_warning_names_only_the_offset_a_file_has(tmp_path):
    # Before: a file without Offset was told "Offset [0, 0, 0] is WorldEdit's absolute world position".
    from schem_nbt_bytes import v2_entries

    from mcb.schematics.rules import validate_schematic

    we = ("Metadata", COMPOUND, [("WEOffsetX", INT, -3), ("WEOffsetY", INT, 0), ("WEOffsetZ", INT, 2)])
    without = tmp_path / "without.schem"
    without.write_bytes(document([e for e in v2_entries(extra=[we]) if e[0] != "Offset"]))
    stored = tmp_path / "stored.schem"
    stored.write_bytes(document(v2_entries(extra=[we], offset=(100, 64, -20))))
    for profile in ("server", "spec"):
        (missing,) = [d for d in validate_schematic(without, profile=profile).diagnostics if "offset" in d.rule]
        assert "Offset [0, 0, 0]" not in missing.message and missing.message.startswith("the file has no Offset")
        assert "WEOffset [-3, 0, 2]" in missing.message and "about 3 blocks" in missing.message
        (real,) = [d for d in validate_schematic(stored, profile=profile).diagnostics if "offset" in d.rule]
        assert real.message.startswith("Offset [100, 64, -20] is WorldEdit's absolute world position")


def test_every_refusal_names_its_file_and_calls_a_file_what_it_is(cli, tmp_path):
    from schem_nbt_bytes import v2_entries

    from mcb.errors import InputError
    from mcb.schematics.document import load_document
    from mcb.schematics.nbt import ReadLimits

    photo = tmp_path / "photo.schem"  # before: build called it "recipe photo.schem is not UTF-8 text"
    photo.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01" + bytes(64))
    for args in (("build", str(photo), "--target", "0,64,0"), ("verify", str(photo), "--target", "0,64,0")):
        said = cli(*args)
        assert said.exit_code == 1 and said.stderr.startswith(f"error: {photo}: this is a JPEG image, not a schematic")
    folder = tmp_path / "builds"  # before: "recipe builds is a directory"
    folder.mkdir()
    said = cli("build", str(folder), "--target", "0,64,0")
    assert said.exit_code == 1 and said.stderr.splitlines() == [
        f"error: {folder} is a directory, not a file",
        "hint: name one file: a schematic (.schem, .litematic, .nbt or .schematic) or a recipe (.json)",
    ]

    cut = tmp_path / "cut.litematic"
    cut.write_bytes(litematic_file()[:40])
    said = cli("schem", "info", str(cut))
    assert said.stderr.startswith(f"error: {cut}: ") and "hint: the file ends early" in said.stderr

    no_palette = tmp_path / "no_palette.schem"  # before: "Palette is missing" named no file
    no_palette.write_bytes(document([e for e in v2_entries() if e[0] not in ("Palette", "PaletteMax")]))
    for args in (("schem", "info"), ("schem", "render"), ("build",)):
        extra = {"schem render": ("-o", str(tmp_path / "p.png")), "build": ("--target", "0,64,0")}.get(" ".join(args))
        said = cli(*args, str(no_palette), *(extra or ()))
        assert said.stderr.startswith(f"error: {no_palette}: Palette is missing"), said.stderr

    with pytest.raises(InputError) as big:  # before: "file is N bytes, above the ... limit" named no file
        load_document(no_palette, ReadLimits(max_compressed=16))
    assert big.value.message.startswith(f"{no_palette}: the file is ") and "above the 16 bytes mcb reads" in (
        big.value.message
    )

    unknown = tmp_path / "unknown.schematic"  # before: "1 block unknown in Minecraft 26.2" named no file
    unknown.write_bytes(legacy_file(blocks=(1, 253), data=(0, 0)))
    for command in ("convert", "rotate"):
        extra = ("-d", "90") if command == "rotate" else ()
        said = cli("schem", command, str(unknown), *extra, "-o", str(tmp_path / "u.schem"))
        assert said.stderr.startswith(f"error: {unknown}: 1 block unknown in Minecraft"), said.stderr


def test_a_block_entity_without_an_id_is_named_after_its_block_or_reported_and_never_written_as_empty(cli, tmp_path):
    # Before: a Litematica tile entity without `id` was written as Id:"" (passing spec validation) and shown as
    # "( x1)" by info.
    from mcb.schematics.formats.sponge import read_schematic

    chest = [*_xyz(0, 0, 0), ("Items", LIST, (COMPOUND, []))]
    path = tmp_path / "chest.litematic"
    path.write_bytes(litematic_file(tile_entities=(COMPOUND, [chest]), block="minecraft:chest"))
    schem = read_any(path)
    assert [(be.pos, be.id) for be in schem.block_entities] == [((0, 0, 0), "minecraft:chest")]
    assert any("named after their block: minecraft:chest x1" in note for note in schem.source.notes)
    out = tmp_path / "chest.schem"
    assert cli("schem", "convert", str(path), "-o", str(out), "--to", "sponge3").exit_code == 0
    assert [be.id for be in read_schematic(out).block_entities] == ["minecraft:chest"]

    stone = tmp_path / "stone.litematic"
    stone.write_bytes(litematic_file(tile_entities=(COMPOUND, [[*_xyz(1, 0, 0), ("Items", LIST, (COMPOUND, []))]])))
    info = json.loads(cli("schem", "info", str(stone), "--json").stdout)
    assert info["block_entities"]["by_id"] == {"(no id)": 1}
    assert any("1 block entity without an id on a block with no block entity" in n for n in info["upgrade"]["notes"])
    refused = cli("schem", "convert", str(stone), "-o", str(tmp_path / "s.schem"), "--to", "sponge3")
    assert (
        refused.exit_code == 1
        and "1 block entity without an id (block entity at 1,0,0) is not written" in refused.stderr
    )
    dropped = cli("schem", "convert", str(stone), "-o", str(tmp_path / "s.schem"), "--to", "sponge3", "--drop-extras")
    assert dropped.exit_code == 0 and read_schematic(tmp_path / "s.schem").block_entities == []
    spec = json.loads(cli("schem", "validate", str(stone), "--profile", "spec", "--json").stdout)
    assert any("without an id" in d["message"] for d in spec["files"][0]["diagnostics"])


def test_the_spec_profile_flags_ids_that_are_not_resource_locations(tmp_path):
    # A WorldEdit file had the block entity id "minecraft:skull" with the quotes in it.
    from schem_nbt_bytes import v2_entries

    from mcb.schematics.rules import validate_schematic

    entity = [("Pos", INTS, [0, 0, 0]), ("Id", STRING, '"minecraft:skull"')]
    mob = [("Pos", LIST, (DOUBLE, [0.5, 0.0, 0.5])), ("Id", STRING, "")]
    extra = [("BlockEntities", LIST, (COMPOUND, [entity])), ("Entities", LIST, (COMPOUND, [mob]))]
    path = tmp_path / "quoted.schem"
    path.write_bytes(document(v2_entries(extra=extra)))
    found = {d.rule: d for d in validate_schematic(path, profile="spec").diagnostics}
    assert found["sponge.block_entity.id"].message == (
        "block entity Id '\"minecraft:skull\"' is not a resource location: the game skips it"
    )
    assert found["sponge.block_entity.id"].pointer == "/BlockEntities/0/Id"
    assert found["sponge.entity.id"].message == "entity has an empty Id: the game skips it"


def test_validate_calls_a_photo_what_it_is_and_never_says_gzip_it(cli, tmp_path):
    photo = tmp_path / "photo.schem"  # before: "hint: gzip the file (mcb schem convert writes gzip)" for a JPEG
    photo.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01" + bytes(64))
    empty = tmp_path / "empty.schem"
    empty.write_bytes(b"")
    for path in (photo, empty):
        said = cli("schem", "validate", str(path))
        assert said.exit_code == 1 and "gzip the file" not in said.stdout + said.stderr, said.stdout
    said = cli("schem", "validate", str(photo))
    assert "Malformed schematic (this is a JPEG image, not a schematic (not an NBT compound" in said.stdout
