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


def test_a_cancel_during_the_rename_waits_for_it_and_comes_too_late(tmp_path, monkeypatch):
    """D1's race, made to happen: a cancel sent while the rename runs waits for it, then finds the file replaced
    and does not cancel (the call answers); a cancel before the rename calls it off (the file stays)."""
    import os
    import threading

    from mcb.fileio import cancellable_writes, write_atomic
    from mcb.mcp.actions import Cancelled
    from mcb.mcp.context import CallContext

    target = tmp_path / "file.schem"
    target.write_bytes(b"old")
    context = CallContext(progress_token=None, notify=lambda message: None, make_client=lambda: None)
    outcome: dict = {}
    rename = os.replace

    def replace_while_cancelled(source, destination):
        canceller = threading.Thread(target=lambda: outcome.update(cancelled=context.cancel_unless_replaced()))
        canceller.start()
        canceller.join(timeout=0.2)
        outcome["waited"] = canceller.is_alive()  # it waits for the rename
        rename(source, destination)
        outcome["thread"] = canceller

    monkeypatch.setattr(os, "replace", replace_while_cancelled)
    with cancellable_writes(context.check_cancelled, context.renaming):
        write_atomic(target, b"new")
    outcome["thread"].join(timeout=5)
    assert outcome == {"waited": True, "cancelled": False, "thread": outcome["thread"]}
    assert target.read_bytes() == b"new" and not context.cancelled.is_set()

    monkeypatch.setattr(os, "replace", rename)
    again = CallContext(progress_token=None, notify=lambda message: None, make_client=lambda: None)
    assert again.cancel_unless_replaced() is True
    with pytest.raises(Cancelled), cancellable_writes(again.check_cancelled, again.renaming):
        write_atomic(target, b"newer")
    assert target.read_bytes() == b"new" and sorted(p.name for p in tmp_path.iterdir()) == ["file.schem"]


def test_a_cancel_a_few_ms_after_an_in_place_rotate_is_answered_exactly_when_the_file_changed(mcp_process, tmp_path):
    """D1 end to end, over a sweep of delays: the call is either cancelled (no answer, the file byte-identical)
    or answered (the file rotated), never silent with the file rewritten."""
    import time

    mcp = mcp_process()
    mcp.initialize()
    original = SMALL.read_bytes()
    shutil.copy(SMALL, tmp_path / "other.schem")
    for attempt in range(40):
        shutil.copy(SMALL, tmp_path / "small.schem")
        request = 100 + attempt
        mcp.write(
            {
                "jsonrpc": "2.0",
                "id": request,
                "method": "tools/call",
                "params": {
                    "name": "schem_rotate",
                    "arguments": {"path": "small.schem", "degrees": 90, "in_place": True},
                },
            }
        )
        time.sleep(attempt / 2000)  # 0 .. 20 ms
        mcp.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request}})
        queued = {"path": "other.schem", "degrees": 180, "output": "queued.schem", "overwrite": True}
        probe = mcp.call("schem_rotate", queued, timeout=60)  # writes run one at a time: this one after it
        assert probe["result"]["isError"] is False
        answered = any(f'"id":{request},'.encode() in line for line in mcp.raw)
        changed = (tmp_path / "small.schem").read_bytes() != original
        assert answered == changed, (attempt, answered, changed)
    assert mcp.close() == 0
