"""The MCP face is imported only by `mcb mcp`; the SDK never by the server at all (its import alone costs ~5x a
small Typer app's --help, docs/mcp.md)."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import sys, runpy
sys.argv = ["mcb", *{args!r}]
try:
    runpy.run_module("mcb", run_name="__main__")
except SystemExit:
    pass
loaded = sorted(m for m in sys.modules if m == "mcp" or m.startswith(("mcp.", "mcb.mcp")))
sys.__stderr__.write("LOADED " + __import__("json").dumps(loaded) + "\\n")
"""


def loaded_by(*args: str, stdin: str = "") -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=list(args))], capture_output=True, text=True, input=stdin, timeout=60
    )
    line = [line for line in done.stderr.splitlines() if line.startswith("LOADED ")][-1]
    return json.loads(line[len("LOADED ") :])


def test_other_commands_never_import_the_mcp_face():
    assert loaded_by("--help") == []
    assert loaded_by("block", "describe", "minecraft:stone") == []


def test_mcb_mcp_does_not_import_the_sdk():
    loaded = loaded_by("mcp", stdin="")
    assert "mcb.mcp.session" in loaded
    assert not [name for name in loaded if name == "mcp" or name.startswith("mcp.")]
