"""Output paths a user gets wrong (a directory, a folder that does not exist): one clean error, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOWER = ROOT / "recipes" / "tower.json"
HILL = ROOT / "recipes" / "terrain" / "small-hill.json"
HOUSE = ROOT / "schematics" / "house.schem"

OFFLINE_WRITERS = [
    ("recipe", "compile", TOWER, "--png"),
    ("recipe", "compile", TOWER, "--schem"),
    ("terrain", "preview", HILL, "--offline", "-r", "32", "-o"),
    ("schem", "render", HOUSE, "-o"),
]


@pytest.mark.parametrize("command", OFFLINE_WRITERS, ids=lambda c: " ".join(str(p) for p in c[:2]) + " " + c[-1])
def test_writing_onto_a_directory_is_a_clean_error(cli, tmp_path, command):
    folder = tmp_path / "out"
    folder.mkdir()
    result = cli(*[str(p) for p in command], str(folder))
    assert result.exit_code == 1, result.stderr
    assert "Traceback" not in result.stderr
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(error_lines) == 1 and str(folder) in error_lines[0], result.stderr
    assert ".tmp" not in result.stderr  # the temp file name is an implementation detail
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"] and not list(folder.iterdir())


@pytest.mark.parametrize("command", OFFLINE_WRITERS[:2], ids=["png", "schem"])
def test_writing_into_a_missing_folder_is_a_clean_json_error(cli, tmp_path, command):
    target = tmp_path / "missing" / "out.file"
    result = cli(*[str(p) for p in command], str(target), "--json")
    assert result.exit_code == 1, result.stderr
    error = json.loads(result.stderr.strip().splitlines()[-1])["error"]
    assert error["exit_code"] == 1 and str(tmp_path / "missing") in error["message"]
    assert ".tmp" not in error["message"]


def test_prepare_output_onto_a_directory_fails_before_anything_is_sent(cli, tmp_path):
    # The plan file cannot be written, so the user must not be left with a server-side plan and no file:
    # the error comes first, and no server is needed to see it.
    folder = tmp_path / "plans"
    folder.mkdir()
    result = cli("--server", "http://127.0.0.1:9", "prepare", str(TOWER), "-o", str(folder))
    assert "Traceback" not in result.stderr
    assert result.exit_code == 1, result.stderr
    assert str(folder) in result.stderr
