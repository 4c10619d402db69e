"""Linting a directory tree that holds odd entries: FIFOs, symlink loops, undecodable names. Bounded time."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tree(tmp_path):
    folder = tmp_path / "recipes"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(ROOT / "recipes" / "tower.json", folder / "tower.json")
    os.symlink("..", folder / "sub" / "loop")
    return folder


@pytest.mark.parametrize("command", [("recipe", "lint"), ("terrain", "lint")])
def test_a_fifo_in_a_walked_directory_is_skipped_not_waited_on(tree, command):
    os.mkfifo(tree / "pipe.json")  # nobody writes to it: opening it would block forever
    result = subprocess.run(
        [sys.executable, "-m", "mcb", *command, str(tree), "--json"],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert "Traceback" not in result.stderr
    assert "pipe.json" not in result.stdout
    assert "tower.json" in result.stdout


def test_a_symlink_loop_is_walked_once(run, tree):
    result = run("recipe", "lint", tree)
    assert result.exit_code == 0, result.stdout
    assert "1 file checked" in result.stdout


def test_an_undecodable_file_name(run, tree):
    name = os.fsdecode(b"\xffodd.json")
    shutil.copy(tree / "tower.json", tree / name)
    result = run("recipe", "lint", tree)
    assert result.exit_code == 0, result.stdout
    assert "2 files checked" in result.stdout
