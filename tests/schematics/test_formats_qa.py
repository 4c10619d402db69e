"""What a user sees when the offline toolchain meets every format: hints that lead somewhere, no silent losses,
one vocabulary across commands (found by a QA pass over the corpus and the samples)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "schematics"


def test_a_refused_conversion_suggests_only_formats_that_keep_everything(cli, tmp_path):
    # The watchtower has cells it leaves unchanged and a chest: Sponge v3 cannot hold the first, so only a
    # structure keeps everything.
    tower = cli("schem", "convert", str(SAMPLES / "watchtower.litematic"), "-o", str(tmp_path / "t.schem"))
    assert tower.exit_code == 1
    assert "hint: keep everything with --to structure, or drop it on purpose with --drop-extras" in tower.stderr
    # The cabin's block entities fit every format but the server's.
    cabin = cli("schem", "convert", str(SAMPLES / "cabin.schematic"), "-o", str(tmp_path / "c.schem"))
    assert "keep everything with --to sponge3 or litematic or structure, or drop" in cabin.stderr
    followed = cli("schem", "convert", str(SAMPLES / "watchtower.litematic"), "-o", str(tmp_path / "t.schem"),
                   "--to", "structure")
    assert followed.exit_code == 0, followed.stderr


def test_rendering_a_folder_never_overwrites_one_picture_with_another(cli, tmp_path):
    import shutil

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
