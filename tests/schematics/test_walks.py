"""Folder walks read every format, pass by what is not a schematic (and say so), and fail on a folder with none."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

LEGACY = "legacy_schematic4j_9383.schematic"
STRUCTURE = "nbt_nucleation_wire_shapes.nbt"
LITEMATICA = "litematic_schematic4j_demo_v6.litematic"


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
