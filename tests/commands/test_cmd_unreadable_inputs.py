"""An input file the user cannot read: exit 1 with the path named (the exit-code table: "an input file is unreadable
or invalid" is 1), the same for every command, never a usage error or a traceback.

Root reads anything, so the command runs without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH (setpriv), as a user would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETPRIV = shutil.which("setpriv")
DROP = ["--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search"]

pytestmark = pytest.mark.skipif(os.name != "posix" or SETPRIV is None, reason="needs setpriv (util-linux)")


def run_as_user(*args, cwd):
    prefix = [SETPRIV, *DROP] if os.geteuid() == 0 else []
    return subprocess.run(
        [*prefix, sys.executable, "-m", "mcb", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NO_COLOR": "1"},
    )


@pytest.fixture
def unreadable(tmp_path):
    path = tmp_path / "secret.json"
    shutil.copy(ROOT / "recipes" / "tower.json", path)
    os.chmod(path, 0)
    return path


@pytest.mark.parametrize(
    "command",
    [
        ("recipe", "lint"),
        ("recipe", "compile"),
        ("recipe", "fmt"),
        ("batch", "--check"),
        ("prepare",),
        ("schem", "validate"),
        ("schem", "info"),
        ("schem", "render", "-o", "out.png"),
    ],
)
def test_unreadable_input_is_exit_1_naming_the_file(tmp_path, unreadable, command):
    result = run_as_user(*command, unreadable.name, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "Usage:" not in result.stderr
    assert unreadable.name in result.stdout + result.stderr  # lint reports the file in its report on stdout


def test_unreadable_expected_file_is_exit_1(tmp_path, unreadable):
    result = run_as_user(
        "--server",
        "http://127.0.0.1:9",
        "prepare",
        ROOT / "recipes" / "tower.json",
        "--expected",
        unreadable.name,
        cwd=tmp_path,
    )
    assert result.returncode == 1, result.stderr
    assert unreadable.name in result.stderr and "Usage:" not in result.stderr


def test_output_folder_without_write_permission_names_the_output_not_a_temp_file(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    os.chmod(folder, 0o555)
    result = run_as_user(
        "recipe", "compile", ROOT / "recipes" / "tower.json", "--png", folder / "tower.png", cwd=tmp_path
    )
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and ".tmp" not in result.stderr
    assert "tower.png" in result.stderr
