"""Issue 14 QA, item 9: smaller defects of `mcb mcp` as a user meets them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from mcpkit import refusal_of

ROOT = Path(__file__).resolve().parents[2]
HOUSE = ROOT / "schematics" / "house.schem"


def _error(response):
    result = response["result"]
    assert result["isError"], result
    return refusal_of(result["structuredContent"]["error"])


def test_a_root_that_does_not_exist_refuses_to_start(tmp_path):
    missing = tmp_path / "nowhere"
    done = subprocess.run(
        [sys.executable, "-m", "mcb", "mcp", "--root", str(missing)], input=b"", capture_output=True, timeout=60
    )
    assert done.returncode == 2 and done.stdout == b""
    assert b"--root" in done.stderr and b"not an existing folder" in done.stderr and b"Traceback" not in done.stderr


def test_edit_refusals_speak_in_the_tools_argument_names(mcp_process, tmp_path):
    shutil.copy(HOUSE, tmp_path / "house.schem")
    mcp = mcp_process("--root", str(tmp_path))
    mcp.initialize()
    missing = _error(mcp.call("schem_rotate", {"path": "house.schem", "degrees": 90}))
    both = _error(mcp.call("schem_mirror", {"path": "house.schem", "axis": "x", "output": "m.schem", "in_place": True}))
    for error in (missing, both):
        words = error["message"] + " " + error["remedy"]
        assert "--" not in words and "-o" not in words, words
        assert error["field"] == "output" and "output" in error["message"]
    assert "in_place" in both["message"]


def test_a_named_pipe_as_output_is_refused_at_once_and_the_session_goes_on(mcp_process, tmp_path):
    """Opening a FIFO nobody reads blocks: a writer must refuse it before any work, not wait for ever."""
    import os

    shutil.copy(HOUSE, tmp_path / "house.schem")
    os.mkfifo(tmp_path / "pipe.schem")
    mcp = mcp_process("--root", str(tmp_path))
    mcp.initialize()
    for tool, arguments in (("schem_rotate", {"degrees": 90}), ("schem_mirror", {"axis": "x"}), ("schem_convert", {})):
        error = _error(mcp.call(tool, {"path": "house.schem", "output": "pipe.schem", "overwrite": True, **arguments}))
        assert (error["code"], error["field"]) == ("invalid_argument", "output") and "named pipe" in error["message"]
    done = mcp.call("schem_rotate", {"path": "house.schem", "degrees": 90, "output": "turned.schem"})
    assert not done["result"]["isError"] and (tmp_path / "turned.schem").is_file()
