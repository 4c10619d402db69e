"""`make demo` (scripts/demo.sh) runs end to end and keeps to itself: nothing lands in the user's home (config,
data, state) or stays in the temporary folder; what it makes is in its output folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_demo_runs_and_writes_only_into_its_output_folder(tmp_path):
    home, temp, out = tmp_path / "home", tmp_path / "tmp", tmp_path / "out"
    home.mkdir()
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if not (k.startswith("MCB_") or k.startswith("XDG_"))}
    env.update(
        HOME=str(home),
        TMPDIR=str(temp),
        DEMO_OUT=str(out),
        NO_COLOR="1",
        TERM="dumb",
        PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""),
    )
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "demo.sh")],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"==> done: pictures and schematics are in {out}" in done.stderr
    assert "Traceback" not in done.stderr
    assert list(home.rglob("*")) == []  # no ~/.config/mcb, ~/.local/share/mcb, ~/.local/state/mcb
    assert list(temp.iterdir()) == []  # its working folder (server data, profile, plans) is gone
    assert {"gatehouse-camera.png", "tower.png", "house-90.png", "valley-lake.png"} <= {p.name for p in out.iterdir()}
