"""What a terminal shows: diagnostics on stderr when colour is off (plain text, written without Rich), and tables
that keep every cell whole, folding a cell over lines rather than cutting it, and between words where it can."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HOUSE = Path(__file__).resolve().parents[2] / "schematics" / "house.schem"
LONG_STATE = "minecraft:oak_stairs[facing=south,half=bottom,shape=straight,waterlogged=false]"


def test_plain_status_lines_keep_brackets_escape_control_codes_and_skip_rich():
    script = (
        "import sys\n"
        "from mcb.terminal import Terminal\n"
        "Terminal().error('bad\\rstate minecraft:oak_stairs[facing=east] :smile:', 'try [this]')\n"
        "Terminal().warn('careful')\n"
        "sys.stdout.write(str('rich' in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"},
    )
    assert proc.stderr == (
        "error: bad\\rstate minecraft:oak_stairs[facing=east] :smile:\nhint: try [this]\nwarning: careful\n"
    )
    assert proc.stdout == "False"


def test_piped_table_keeps_every_cell_whole_at_80_columns(cli):
    result = cli("schem", "info", str(HOUSE), env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.stderr
    assert LONG_STATE in result.stdout
    assert "…" not in result.stdout


def test_table_on_a_narrow_terminal_folds_cells_instead_of_cutting_them(cli):
    result = cli("schem", "info", str(HOUSE), "--top", "0", env={"COLUMNS": "80", "FORCE_COLOR": "1"})
    assert result.exit_code == 0, result.stderr
    out = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
    assert "…" not in out
    assert max(len(line) for line in out.splitlines()) <= 80
    # the long state is all there, folded over two lines of its cell
    state_cells = "".join(line.split("│")[0].strip() for line in out.splitlines() if line.count("│") == 1)
    assert LONG_STATE in state_cells


def test_a_table_on_a_terminal_wraps_between_words_so_a_url_stays_whole(cli, monkeypatch):
    """`config show` on a 116-column terminal: the 85-character server URL stays on one line (copyable) and the
    source column wraps between its words instead."""
    url = "http://build-server-with-a-really-long-host-name.minecraft.example.internal.corp:8765"
    monkeypatch.setenv("MCB_SERVER", url)
    result = cli("config", "show", env={"COLUMNS": "116", "FORCE_COLOR": "1", "TERM": "xterm"})
    assert result.exit_code == 0, result.stderr
    out = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
    assert max(len(line) for line in out.splitlines()) <= 116
    assert any(url in line for line in out.splitlines()), out
    assert "…" not in out
