"""No command writes over a file it reads: an output that names an input is refused before any work, the input
is left byte for byte, and both faces say so (the CLI with exit 2, `mcb mcp` with a refusal naming `output`).
Output paths a user gets wrong (a directory, a folder that does not exist, one that is not writable): one clean
error naming the output, never a traceback or a temp file's name."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def inputs(tmp_path):
    files = {
        "recipe": ROOT / "recipes" / "silo.json",
        "terrain": ROOT / "recipes" / "terrain" / "small-hill.json",
        "brush": ROOT / "recipes" / "terrain" / "raise-brush.json",
        "schem": ROOT / "schematics" / "house.schem",
    }
    copied = {}
    for name, source in files.items():
        copied[name] = tmp_path / source.name
        shutil.copyfile(source, copied[name])
    return copied


CASES = {
    "recipe compile --schem": lambda f: ["recipe", "compile", f["recipe"], "--schem", f["recipe"]],
    "recipe compile --png": lambda f: ["recipe", "compile", f["recipe"], "--png", f["recipe"]],
    "terrain preview --offline -o": lambda f: ["terrain", "preview", f["terrain"], "--offline", "-o", f["terrain"]],
    "schem render -o": lambda f: ["schem", "render", f["schem"], "-o", f["schem"]],
    "schem convert -o": lambda f: ["schem", "convert", f["schem"], "-o", f["schem"]],
    "schem rotate -o": lambda f: ["schem", "rotate", f["schem"], "--degrees", "90", "-o", f["schem"]],
    # refused before the server is asked: no server runs here
    "prepare -o": lambda f: ["--server", "http://127.0.0.1:9", "prepare", f["recipe"], "-o", f["recipe"]],
    "terrain brush -o": lambda f: ["--server", "http://127.0.0.1:9", "terrain", "brush", f["brush"], "-o", f["brush"]],
}


@pytest.mark.parametrize("case", CASES)
def test_an_output_naming_the_input_is_refused_and_the_input_kept(cli, inputs, case, tmp_path):
    argv = [str(a) for a in CASES[case](inputs)]
    before = {name: digest(path) for name, path in inputs.items()}
    result = cli(*argv)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert "is the input file" in result.stderr, result.stderr
    assert {name: digest(path) for name, path in inputs.items()} == before
    # the same file by another spelling is still the same file
    spelled = [str(Path(a).parent / "." / Path(a).name) if a == argv[-1] else a for a in argv]
    assert cli(*spelled).exit_code == 2


def test_a_new_output_beside_the_input_still_works(cli, inputs, tmp_path):
    result = cli("recipe", "compile", str(inputs["recipe"]), "--schem", str(tmp_path / "silo.schem"), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["outputs"]["schematic"] == str(tmp_path / "silo.schem")


def test_two_outputs_on_one_path_are_refused(cli, inputs, tmp_path):
    target = tmp_path / "both.out"
    result = cli(
        "recipe", "compile", str(inputs["recipe"]), "--schem", str(target), "--png", str(tmp_path / "." / "both.out")
    )
    assert result.exit_code == 2 and "--schem and --png name the same file" in result.stderr
    assert not target.exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["recipe", "compile", "{fifo}"],
        ["terrain", "preview", "{fifo}", "--offline"],
        ["terrain", "lint", "{fifo}"],
        ["schem", "validate", "{fifo}"],
    ],
)
def test_a_named_pipe_is_refused_at_once_never_waited_on(argv, tmp_path):
    """A FIFO with no writer would block a reader forever; `-` is how a stream is given."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "mcb", *[a.format(fifo=fifo) for a in argv]], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 1 and "not a regular file" in done.stderr, done.stderr


WRITERS = {
    "rotate": ["schem", "rotate", "{schem}", "--degrees", "90", "-o", "{out}"],
    "mirror": ["schem", "mirror", "{schem}", "--axis", "x", "-o", "{out}"],
    "convert": ["schem", "convert", "{schem}", "-o", "{out}"],
    "render": ["schem", "render", "{schem}", "-o", "{out}"],
}


@pytest.mark.parametrize(
    "where, code",
    [("missing folder", "file.unwritable"), ("a directory", "file.not_regular"), ("a full device", "file.unwritable")],
)
@pytest.mark.parametrize("writer", WRITERS)
def test_every_schematic_writer_refuses_an_unwritable_output_with_one_code(cli, inputs, tmp_path, writer, where, code):
    out = {
        "missing folder": tmp_path / "nowhere" / ("x.png" if writer == "render" else "x.schem"),
        "a directory": tmp_path,
        "a full device": Path("/dev/full"),
    }[where]
    if where == "a full device" and not out.exists():
        pytest.skip("no /dev/full here")
    result = cli("--json", *[a.format(schem=inputs["schem"], out=out) for a in WRITERS[writer]])
    assert result.exit_code == 1
    assert json.loads(result.stderr)["error"]["code"] == code


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
