"""Building the package is quiet: no setuptools deprecation (the licence is an SPDX string), and the wheel says so."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_building_the_wheel_prints_no_deprecation(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "cli", source / "cli", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    # pip builds in an isolated environment with the setuptools pyproject.toml asks for, as `python -m build` does
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    output = done.stdout + done.stderr
    assert "Deprecat" not in output and "deprecated" not in output, output[-2000:]
    (wheel,) = (tmp_path / "dist").glob("mcb-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata.splitlines()
