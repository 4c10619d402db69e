"""SIGTERM mid-apply against a real `mcb serve` process (issue 13 item 3): the staged slice is written and its
receipts made durable before the process exits, so after the restart the operation needs recovery with nothing
uncertain in it; kill -9 at the same moment leaves the intent pending (its positions match the before-states)."""

from __future__ import annotations

import json
import signal
import sqlite3

import pytest
from server_rpc import Rpc, box, pos

from mcb.server.testing import spawn_server

STONE = "minecraft:stone"
TWO_SLICES = [box((0, 70, 0), (15, 70, 15), STONE)]  # 256 blocks: slices of 128
STAGED = "Intent staged; no blocks written"
INTERRUPTED = "Interrupted operation: inspect before/after/current; automatic replay is disabled"


def _stop_while_staged(data_dir, stop) -> tuple[str, int]:
    """Start an apply, step it until its first slice is staged (intent on disk, no block written), then ``stop``."""
    server = spawn_server(data_dir, tick_ms=5, ground="flat")
    client = Rpc(server)
    try:
        client.admin("test_hold_apply", held=True)  # the engine moves only when the test lets it
        op = client.apply(client.prepare(TWO_SLICES), "sigterm-key")["operation_id"]
        status = client.step_until(op, STAGED)
        assert status["written"] == 0
        stop(server)
        return op, server.process.wait(timeout=30)
    finally:
        client.close()


def _restarted(data_dir, op):
    server = spawn_server(data_dir, tick_ms=5)
    client = Rpc(server)
    status = client.call("operation_status", operation_id=op)
    review = client.admin("recovery_review", operation_id=op)
    palette = client.call("region_inspect", min=pos(0, 70, 0), max=pos(15, 70, 15))["palette"]
    client.close()
    server.stop()
    with sqlite3.connect(data_dir / "journal.sqlite3") as db:
        payload = json.loads(db.execute("SELECT payload FROM operations WHERE id=?", (op,)).fetchone()[0])
    return status, review, palette, payload


def test_sigterm_writes_the_staged_slice_and_its_receipts_before_exiting(tmp_path):
    op, code = _stop_while_staged(tmp_path / "data", lambda server: server.process.send_signal(signal.SIGTERM))
    assert code == 0
    status, review, palette, payload = _restarted(tmp_path / "data", op)
    assert (status["status"], status["message"]) == ("recovery_required", INTERRUPTED)
    assert status["written"] == 128  # the staged slice, and not one block of the next
    assert palette.get(STONE, 0) == 128
    assert payload.get("pending") is None
    assert (review["positions"], review["matchesAfter"], review["matchesBefore"], review["foreignStates"]) == (
        128,
        128,
        0,
        0,
    )


@pytest.mark.parametrize("how", ["kill -9"])
def test_kill_9_at_the_same_moment_leaves_the_intent_pending(tmp_path, how):
    op, code = _stop_while_staged(tmp_path / "data", lambda server: server.process.kill())
    assert code == -signal.SIGKILL
    status, review, palette, payload = _restarted(tmp_path / "data", op)
    assert (status["status"], status["written"], palette.get(STONE, 0)) == ("recovery_required", 0, 0)
    assert len(payload["pending"]["changes"]) == 128
    assert (review["positions"], review["matchesAfter"], review["matchesBefore"]) == (128, 0, 128)
