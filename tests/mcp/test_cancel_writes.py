"""D1 (MCP-49): a cancelled schem_rotate / schem_mirror that rewrites a file in place or over an existing output
leaves that file byte-identical and no temp file beside it: the cancel is honoured before the atomic replace.

The 256^3 corpus file takes long enough to rotate that a cancel sent on its first progress note arrives mid-work;
a second write call queued behind it (writes run one at a time) shows when the cancelled one has finished."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
BIG = CORPUS / "v2_nucleation_large_schematic.schem"
SMALL = CORPUS / "v2_nucleation_and.schem"


def cancel_mid_write(mcp, name: str, arguments: dict) -> None:
    mcp.write(
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": {"progressToken": "w"}},
        }
    )
    first = mcp.recv()
    assert first["method"] == "notifications/progress", first  # the work has started
    mcp.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5, "reason": "t"}})


@pytest.mark.parametrize(
    "name,arguments,written",
    [
        ("schem_rotate", {"path": "big.schem", "degrees": 90, "in_place": True}, "big.schem"),
        (
            "schem_mirror",
            {"path": "big.schem", "axis": "x", "output": "mirror.schem", "overwrite": True},
            "mirror.schem",
        ),
        (
            "schem_convert",
            {"path": "big.schem", "output": "mirror.schem", "format": "v3", "overwrite": True},
            "mirror.schem",
        ),
    ],
)
def test_a_cancelled_rewrite_leaves_the_file_byte_identical(mcp_process, tmp_path, name, arguments, written):
    shutil.copy(BIG, tmp_path / "big.schem")
    shutil.copy(SMALL, tmp_path / "mirror.schem")  # an existing output, replaced only by a finished call
    shutil.copy(SMALL, tmp_path / "small.schem")
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    mcp = mcp_process()
    mcp.initialize()
    cancel_mid_write(mcp, name, arguments)
    after = mcp.call("schem_rotate", {"path": "small.schem", "degrees": 180, "output": "queued.schem"}, timeout=60)
    assert after["result"]["isError"] is False  # ran after the cancelled call had finished
    assert (tmp_path / written).read_bytes() == before[written]
    assert (tmp_path / "big.schem").read_bytes() == before["big.schem"]
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([*before, "queued.schem"])  # no temp file
    assert mcp.close() == 0
    assert [line for line in mcp.raw if b'"id":5' in line] == []  # a cancelled call is never answered
