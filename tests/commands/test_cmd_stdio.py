"""`-` names stdin where a command reads one input and stdout where it writes one file (README: "Inputs are regular
files or `-` ..."); where `-` cannot work the command refuses it with exit 2 and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOUSE = ROOT / "schematics" / "house.schem"
TOWER = ROOT / "recipes" / "tower.json"
HILL = ROOT / "recipes" / "terrain" / "small-hill.json"
PNG = b"\x89PNG\r\n\x1a\n"
GZIP = b"\x1f\x8b"


def test_schem_info_reads_stdin_like_the_file(cli):
    from_file = cli("schem", "info", str(HOUSE), "--json")
    from_stdin = cli("schem", "info", "-", "--json", input=HOUSE.read_bytes())
    assert from_stdin.exit_code == 0, from_stdin.stderr
    a, b = json.loads(from_file.stdout), json.loads(from_stdin.stdout)
    a.pop("file"), b.pop("file")
    assert a == b


def test_schem_validate_reads_stdin_beside_files(cli):
    result = cli("schem", "validate", "-", str(HOUSE), input=HOUSE.read_bytes())
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[:2] == ["-: ok", f"{HOUSE}: ok"]


def test_schem_validate_stdin_that_is_not_a_schematic_fails_as_a_file_would(cli):
    result = cli("schem", "validate", "-", input=b"not nbt")
    assert result.exit_code == 1
    assert result.stdout.startswith("-: error[")


@pytest.mark.parametrize(
    "args", [["rotate", "-", "-d", "90"], ["mirror", "-", "-a", "x"], ["convert", "-", "-f", "v3"]]
)
def test_schem_edits_read_stdin_and_write_stdout(cli, args, tmp_path):
    result = cli("schem", *args, "-o", "-", input=HOUSE.read_bytes())
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes.startswith(GZIP)
    assert "-" in result.stderr  # the summary moved to stderr, naming stdout as '-'
    check = cli("schem", "info", "-", "--json", input=result.stdout_bytes)
    assert check.exit_code == 0 and json.loads(check.stdout)["size"] == {"width": 9, "height": 8, "length": 9}
    assert not (Path.cwd() / "-").exists()


def test_schem_render_writes_png_to_stdout_not_a_file_named_dash(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("schem", "render", str(HOUSE), "-o", "-")
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes.startswith(PNG)
    assert list(tmp_path.iterdir()) == []


def test_render_reads_stdin(cli, tmp_path):
    out = tmp_path / "h.png"
    result = cli("schem", "render", "-", "-o", str(out), input=HOUSE.read_bytes())
    assert result.exit_code == 0, result.stderr
    assert out.read_bytes().startswith(PNG)


@pytest.mark.parametrize("option,magic", [("--png", PNG), ("--schem", GZIP)])
def test_recipe_compile_writes_one_output_to_stdout(cli, option, magic, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("recipe", "compile", str(TOWER), option, "-")
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes.startswith(magic)
    assert "blocks:" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_terrain_preview_offline_writes_png_to_stdout(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("terrain", "preview", str(HILL), "--offline", "-o", "-")
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes.startswith(PNG)
    assert "terrain id:" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_terrain_lint_reads_stdin(cli):
    result = cli("terrain", "lint", "-", input=HILL.read_bytes())
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("-: ok")
    bad = cli("terrain", "lint", "-", input=b"{")
    assert bad.exit_code == 1 and bad.stdout.startswith("-:")


@pytest.mark.parametrize(
    "args,says",
    [
        (["schem", "rotate", "-", "-d", "90", "--in-place"], "--in-place cannot rewrite stdin"),
        (["schem", "mirror", "-", "-a", "z", "--in-place"], "--in-place cannot rewrite stdin"),
        (["schem", "render", str(HOUSE), "-o", "-", "--json"], "--json prints too"),
        (["recipe", "compile", str(TOWER), "--png", "-", "--schem", "-"], "would both write to stdout"),
        (["recipe", "compile", str(TOWER), "--png", "-", "--json"], "--json prints too"),
    ],
)
def test_dash_is_refused_where_it_cannot_work(cli, args, says, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli(*args, input=HOUSE.read_bytes())
    assert result.exit_code == 2
    assert says in result.stderr
    assert result.stdout_bytes == b""
    assert list(tmp_path.iterdir()) == []


def _on_a_terminal(args, which: str) -> tuple[int, bytes, bytes]:
    """Run mcb with ``which`` (stdin or stdout) on a pseudo-terminal; (exit code, stdout bytes, stderr bytes)."""
    import os
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    streams = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, which: slave}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcb", *args], stdin=streams["stdin"], stdout=streams["stdout"], stderr=subprocess.PIPE
    )
    os.close(slave)
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        os.close(master)
    return proc.returncode, out or b"", err


def test_stdin_on_a_terminal_is_refused_not_waited_on():
    code, out, err = _on_a_terminal(["schem", "info", "-"], "stdin")
    assert code == 2
    assert b"'-' is stdin, which is a terminal here" in err


def test_binary_output_onto_a_terminal_is_refused(tmp_path):
    code, _, err = _on_a_terminal(["schem", "render", str(HOUSE), "-o", "-"], "stdout")
    assert code == 2
    assert b"-o - writes binary data, and stdout is a terminal" in err
