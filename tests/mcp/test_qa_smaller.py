"""Issue 14 QA, item 9: smaller defects of `mcb mcp` as a user meets them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOUSE = ROOT / "schematics" / "house.schem"


def _error(response):
    result = response["result"]
    assert result["isError"], result
    return result["structuredContent"]["error"]


def test_a_root_that_does_not_exist_refuses_to_start(tmp_path):
    missing = tmp_path / "nowhere"
    done = subprocess.run([sys.executable, "-m", "mcb", "mcp", "--root", str(missing)], input=b"",
                          capture_output=True, timeout=60)
    assert done.returncode == 2 and done.stdout == b""
    assert b"--root" in done.stderr and b"not an existing folder" in done.stderr and b"Traceback" not in done.stderr


def test_edit_refusals_speak_in_the_tools_argument_names(mcp_process, tmp_path):
    shutil.copy(HOUSE, tmp_path / "house.schem")
    mcp = mcp_process("--root", str(tmp_path))
    mcp.initialize()
    missing = _error(mcp.call("schem_rotate", {"path": "house.schem", "degrees": 90}))
    both = _error(mcp.call("schem_mirror", {"path": "house.schem", "axis": "x", "output": "m.schem",
                                            "in_place": True}))
    for error in (missing, both):
        words = error["message"] + " " + error["remedy"]
        assert "--" not in words and "-o" not in words, words
        assert error["field"] == "output" and "output" in error["message"]
    assert "in_place" in both["message"]
