"""A file name with control characters is shown escaped wherever text output names it (it cannot retitle the
terminal or forge an `::error` line); --json keeps the exact name and SARIF percent-encodes it as a URI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOUSE = ROOT / "schematics" / "house.schem"
TITLE = "e\x1b]0;owned\x07\x1b[31mred.schem"
FORGED = "n\n::error file=evil::x.schem"


@pytest.fixture
def named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in (TITLE, FORGED):
        shutil.copyfile(HOUSE, tmp_path / name)
    (tmp_path / "bad\x1b[2J.schem").write_bytes(b"not nbt")
    return tmp_path


def no_controls(text: str) -> bool:
    return not any(ord(ch) < 0x20 and ch != "\n" for ch in text)


def test_validate_text_shows_names_escaped(cli, named):
    result = cli("schem", "validate", ".")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert "e\\x1b]0;owned\\x07\\x1b[31mred.schem: ok" in lines
    assert "n\\n::error file=evil::x.schem: ok" in lines
    assert any(line.startswith("bad\\x1b[2J.schem: error[") for line in lines)
    assert not any(line.startswith("::error") for line in lines)
    assert no_controls(result.stdout) and no_controls(result.stderr)


def test_validate_json_keeps_exact_names(cli, named):
    result = cli("schem", "validate", ".", "--json")
    files = {Path(entry["file"]).name for entry in json.loads(result.stdout)["files"]}
    assert {TITLE, FORGED, "bad\x1b[2J.schem"} <= files


def test_sarif_uri_is_percent_encoded(cli, named):
    result = cli("schem", "validate", ".", "--format", "sarif")
    uris = [
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for run in json.loads(result.stdout)["runs"]
        for r in run["results"]
        for loc in r["locations"]
    ]
    assert uris and set(uris) == {"bad%1B%5B2J.schem"}
    assert unquote(uris[0]) == "bad\x1b[2J.schem"


def test_info_and_errors_show_names_escaped(cli, named):
    info = cli("schem", "info", TITLE)
    assert info.exit_code == 0
    assert "file:           e\\x1b]0;owned\\x07\\x1b[31mred.schem" in info.stdout.splitlines()
    missing = cli("schem", "info", "gone\x1b]0;x\x07.schem")
    assert missing.exit_code == 1
    assert missing.stderr.splitlines()[0] == "error: gone\\x1b]0;x\\x07.schem: no such file"
    assert no_controls(info.stdout) and no_controls(missing.stderr)
    assert json.loads(cli("schem", "info", FORGED, "--json").stdout)["file"] == FORGED


def test_written_file_names_are_shown_escaped(cli, named):
    result = cli("schem", "rotate", TITLE, "-d", "90", "-o", "r\x1b[1m.schem")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0].endswith(": r\\x1b[1m.schem")
    assert (named / "r\x1b[1m.schem").exists()
    assert no_controls(result.stdout)


def test_data_from_inside_a_file_is_shown_escaped_in_tables(cli, tmp_path):
    """Palette states and block-entity ids come from the file too: info's table and counts escape them."""
    from mcb.schematics.formats.sponge import read_schematic
    from mcb.schematics.formats.sponge_writer import write_schematic

    schem = read_schematic(HOUSE)
    schem.palette[0] = "minecraft:stone\x1b]0;owned\x07"
    path = tmp_path / "inside.schem"
    write_schematic(schem, path)
    info = cli("schem", "info", str(path), env={"COLUMNS": "200"})
    assert info.exit_code == 0 and no_controls(info.stdout)
    assert "minecraft:stone\\x1b]0;owned\\x07" in info.stdout
    states = [entry["state"] for entry in json.loads(cli("schem", "info", str(path), "--json").stdout)["palette"]]
    assert "minecraft:stone\x1b]0;owned\x07" in states  # --json keeps the exact text
