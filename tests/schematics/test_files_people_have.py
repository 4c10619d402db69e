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


def litematic_file(*, tile_entities=EMPTY_BYTES, entities=EMPTY_BYTES, ticks=EMPTY_BYTES):
    """One 2 x 1 x 1 Litematica region of stone (index 1 of [air, stone]: bits 01 01 = 5)."""
    region = [
        ("Position", COMPOUND, _xyz(0, 0, 0)),
        ("Size", COMPOUND, _xyz(2, 1, 1)),
        (
            "BlockStatePalette",
            LIST,
            (COMPOUND, [[("Name", STRING, "minecraft:air")], [("Name", STRING, "minecraft:stone")]]),
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
