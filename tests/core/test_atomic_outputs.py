"""Interrupted writers never leave a truncated target: the old file or the whole new one, inputs untouched."""

from __future__ import annotations

import gzip
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECIPES = ROOT / "recipes"
OLD = b"old content that must survive\n"


def complete_png(data: bytes) -> bool:
    return data.startswith(b"\x89PNG\r\n\x1a\n") and data.endswith(b"IEND\xaeB`\x82")


def complete_gzip(data: bytes) -> bool:
    try:
        gzip.decompress(data)
    except (OSError, EOFError):
        return False
    return True


def outputs(tmp_path):
    """(name, argv, target, is_complete) for each command that writes a file."""
    hill = RECIPES / "terrain" / "small-hill.json"
    silo = tmp_path / "silo.json"
    shutil.copy(RECIPES / "silo.json", silo)
    messy = tmp_path / "messy.json"
    messy.write_text((RECIPES / "tower.json").read_text().replace("\n", " "))
    return [
        (
            "terrain preview -o",
            ["terrain", "preview", "--offline", str(hill), "-o", str(tmp_path / "hill.png")],
            tmp_path / "hill.png",
            complete_png,
        ),
        (
            "recipe compile --schem",
            ["recipe", "compile", str(silo), "--schem", str(tmp_path / "silo.schem")],
            tmp_path / "silo.schem",
            complete_gzip,
        ),
        ("recipe fmt -i", ["recipe", "fmt", "-i", str(messy)], messy, lambda data: data.endswith(b"}\n")),
    ]


@pytest.mark.parametrize("index", [0, 1, 2])
def test_sigkill_never_leaves_a_truncated_target(tmp_path, index):
    name, argv, target, is_complete = outputs(tmp_path)[index]
    original = target.read_bytes() if target.exists() else None
    if original is None:
        target.write_bytes(OLD)
    env = {**os.environ, "NO_COLOR": "1"}
    for delay in (0.35, 0.55, 0.8):
        process = subprocess.Popen(
            [sys.executable, "-m", "mcb", *argv], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        data = target.read_bytes()
        assert data in (OLD, original) or is_complete(data), f"{name}: truncated target after SIGKILL at {delay}s"


@pytest.mark.parametrize("index", [0, 1, 2])
def test_ctrl_c_just_before_the_rename_keeps_the_old_file(cli, tmp_path, monkeypatch, index):
    name, argv, target, _ = outputs(tmp_path)[index]
    before = target.read_bytes() if target.exists() else OLD
    target.write_bytes(before)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    result = cli(*argv)
    assert result.exit_code == 130, f"{name}: {result.stderr}"
    assert target.read_bytes() == before
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == [], f"{name} left temp files {leftovers}"
