"""Folder walks read every format, pass by what is not a schematic (and say so), and fail on a folder with none."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from schem_nbt_bytes import document

LEGACY = "legacy_schematic4j_9383.schematic"
STRUCTURE = "nbt_nucleation_wire_shapes.nbt"
LITEMATICA = "litematic_schematic4j_demo_v6.litematic"
SAMPLES = Path(__file__).resolve().parents[2] / "schematics"


@pytest.fixture
def mixed(corpus, tmp_path):
    folder = tmp_path / "builds"
    (folder / "deeper").mkdir(parents=True)
    for name in (LEGACY, STRUCTURE):
        shutil.copy(corpus / name, folder / name)
    shutil.copy(corpus / LITEMATICA, folder / "deeper" / LITEMATICA)
    (folder / "README.md").write_text("not a schematic\n")
    # an NBT file that is no schematic (a level.dat-like compound) under a schematic extension
    (folder / "level.nbt").write_bytes(gzip.compress(b"\x0a\x00\x00\x03\x00\x04Time\x00\x00\x00\x07\x00"))
    return folder


def test_validate_walks_every_format_and_counts_what_it_passed_by(cli, mixed):
    result = cli("schem", "validate", str(mixed), "--profile", "spec", "--json")
    data = json.loads(result.stdout)
    checked = sorted(f["file"].rsplit("/", 1)[1] for f in data["files"] if "skipped" not in f["facts"])
    assert checked == sorted([LEGACY, STRUCTURE, LITEMATICA])
    skipped = {f["file"].rsplit("/", 1)[1]: f["facts"]["skipped"] for f in data["files"] if "skipped" in f["facts"]}
    assert skipped == {"README.md": "not a schematic file name", "level.nbt": "NBT, but not a schematic"}
    assert data["summary"]["files"] == 3 and data["summary"]["skipped"] == 2
    text = cli("schem", "validate", str(mixed), "--profile", "spec")
    assert "README.md: skipped (not a schematic file name)" in text.stdout
    assert text.stdout.rstrip().endswith("3 files checked: 0 errors, 2 warnings; 2 files skipped (not schematics)")


def test_the_server_profile_fails_a_folder_of_other_formats_and_names_the_way_to_build_them(cli, corpus, tmp_path):
    folder = tmp_path / "litematics"
    folder.mkdir()
    for path in corpus.glob("*.litematic"):
        shutil.copy(path, folder / path.name)
    result = cli("schem", "validate", str(folder), "--strict")
    assert result.exit_code == 1
    assert result.stdout.count("`mcb build FILE` builds this one") == 3


@pytest.mark.parametrize(
    "command", [["schem", "validate", "--strict"], ["schem", "info"], ["schem", "render", "-o", "pictures"]]
)
def test_a_walk_that_finds_no_schematic_fails_naming_the_folder(cli, tmp_path, command):
    empty = tmp_path / "nothing-here"
    empty.mkdir()
    (empty / "notes.txt").write_text("x")
    result = cli(*command[:2], str(empty), *command[2:])
    assert result.exit_code == 1
    assert f"no schematic found in {empty} (1 other file passed by)" in result.stderr


def test_info_and_render_take_a_folder(cli, mixed, tmp_path):
    info = json.loads(cli("schem", "info", str(mixed), "--json").stdout)
    assert sorted(f["kind"] for f in info["files"]) == ["legacy", "litematic", "structure"]
    assert {entry["reason"] for entry in info["skipped"]} == {"not a schematic file name", "NBT, but not a schematic"}
    pictures = tmp_path / "pictures"
    rendered = cli("schem", "render", str(mixed), "-o", str(pictures))
    assert rendered.exit_code == 0, rendered.stderr
    assert sorted(p.name for p in pictures.iterdir()) == sorted(
        name.rsplit(".", 1)[0] + ".png" for name in (LEGACY, STRUCTURE, LITEMATICA)
    )
    assert "skipped" in rendered.stderr and "README.md" in rendered.stderr


def test_a_named_file_that_is_no_schematic_is_an_error_not_a_skip(cli, mixed):
    result = cli("schem", "validate", str(mixed / "level.nbt"))
    assert result.exit_code == 1 and "sponge.format.unknown" in result.stdout


def test_rendering_a_folder_never_overwrites_one_picture_with_another(cli, tmp_path):

    folder = tmp_path / "builds"
    (folder / "old").mkdir(parents=True)
    shutil.copy(SAMPLES / "house.schem", folder / "house.schem")
    shutil.copy(SAMPLES / "watchtower.litematic", folder / "house.litematic")
    shutil.copy(SAMPLES / "cabin.schematic", folder / "old" / "house.schematic")
    pictures = tmp_path / "pictures"
    result = cli("schem", "render", str(folder), "-o", str(pictures))
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in pictures.iterdir()) == ["house.png", "house.schem.png", "house.schematic.png"]
    assert result.stdout.count("wrote ") == 3


def test_a_walk_names_each_unreadable_file_once_and_counts_read_right(cli, tmp_path):
    import gzip

    folder = tmp_path / "w"
    folder.mkdir()
    shutil.copy(SAMPLES / "house.schem", folder)
    cut = gzip.decompress((SAMPLES / "watchtower.litematic").read_bytes())
    # a structure whose only block lies outside its size: the structure reader refuses it
    (folder / "outside.nbt").write_bytes(
        document(
            [
                ("DataVersion", 3, 4903),
                ("size", 9, (3, [2, 2, 2])),
                ("palette", 9, (10, [[("Name", 8, "minecraft:stone")]])),
                ("blocks", 9, (10, [[("pos", 9, (3, [5, 0, 0])), ("state", 3, 0)]])),
                ("entities", 9, (10, [])),
            ],
            "",
        )
    )
    (folder / "cut.litematic").write_bytes(gzip.compress(cut)[:300])
    info = cli("schem", "info", str(folder))
    assert info.exit_code == 1
    assert f"{folder / 'outside.nbt'}: block at 5,0,0 lies outside the 2 x 2 x 2 size" in info.stderr
    assert f"{folder / 'outside.nbt'}: {folder / 'outside.nbt'}" not in info.stderr
    spec = cli("schem", "validate", "-p", "spec", str(folder), str(SAMPLES / "cabin.schematic"))
    assert f"{folder / 'outside.nbt'}: error[structure.blocks.position] at /blocks/0/pos: block at 5,0,0" in spec.stdout
    assert "flower pot plants: from the block entity into the state (potted_*) (1 cell)" in spec.stdout
