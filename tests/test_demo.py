"""`make demo` (scripts/demo.sh) runs end to end and keeps to itself: nothing lands in the user's home (config,
data, state) or stays in the temporary folder; what it makes is in its output folder."""

from __future__ import annotations

import json
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


_NUMBER_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def test_the_validate_heading_counts_the_samples_the_server_refuses(cli):
    """The demo's heading says how many samples fail and of which kinds: counted here from the files themselves
    (a Sponge v2 root with Version 2 is the only kind the server imports), compared with what validate says."""
    import re

    import nbtlib

    heading = next(line for line in (ROOT / "scripts" / "demo.sh").read_text().splitlines() if "exit 1: " in line)
    said = re.search(r"exit 1: (\w+) are refused: (.*)\)", heading)
    assert said, heading
    kinds: dict[str, int] = {}
    for path in sorted((ROOT / "schematics").iterdir()):
        root = nbtlib.load(path, gzipped=path.read_bytes()[:2] == b"\x1f\x8b")
        if "Regions" in root:
            kinds["Litematica"] = kinds.get("Litematica", 0) + 1
        elif "Blocks" in root and "Materials" in root:
            kinds["legacy .schematic"] = kinds.get("legacy .schematic", 0) + 1
        elif "Schematic" in root or int(root.get("Version", 2)) == 3:
            kinds["Sponge v3"] = kinds.get("Sponge v3", 0) + 1
    assert _NUMBER_WORDS[said.group(1)] == sum(kinds.values())
    parts = [part.split(" ", 1) for part in re.split(r", | and ", said.group(2))]
    listed = {kind: _NUMBER_WORDS[word] for word, kind in parts}
    assert listed == kinds
    result = cli("schem", "validate", str(ROOT / "schematics"), "--json")
    assert result.exit_code == 1
    refused = [f["file"] for f in json.loads(result.stdout)["files"] if not f["ok"]]
    assert len(refused) == sum(kinds.values())
