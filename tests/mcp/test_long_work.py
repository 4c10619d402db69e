"""Progress, cancellation, cleanup and EOF (MCP-45..50, checklist 39-41), with the example extension's
cancellable `example_count` and the offline schem_render."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from extkit import add_distribution, demo_module
from mcpkit import refusal_of

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


@pytest.fixture
def counting(mcp_process, example_site, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    mcp = mcp_process(env={"PYTHONPATH": str(example_site)})
    mcp.initialize()
    return mcp, work


def call_with_token(mcp, name, arguments, token, id):
    mcp.write(
        {
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": {"progressToken": token}},
        }
    )


def test_progress_increases_is_throttled_and_precedes_the_response(counting):
    mcp, work = counting
    started = time.monotonic()
    call_with_token(mcp, "example_count", {"directory": str(work), "count": 40, "step_ms": 15}, "t", 7)
    assert mcp.request("ping", id=8)["result"] == {}  # answered while the count runs
    response = mcp.wait_for(7)
    elapsed = time.monotonic() - started
    notes = [note for note in mcp.notes if note.get("method") == "notifications/progress"]
    assert notes and all(note["params"]["progressToken"] == "t" for note in notes)
    values = [note["params"]["progress"] for note in notes]
    assert values == sorted(set(values)) and notes[0]["params"]["total"] == 40
    assert len(notes) <= elapsed * 10 + 1
    assert response["result"]["isError"] is False
    assert mcp.silent(0.3)  # nothing after the response


def test_no_token_means_no_progress(counting):
    mcp, work = counting
    mcp.call("example_count", {"directory": str(work), "count": 5, "step_ms": 30})
    assert not [note for note in getattr(mcp, "notes", []) if note.get("method") == "notifications/progress"]


def test_cancel_stops_at_the_next_step_sends_nothing_and_removes_only_created_files(counting):
    mcp, work = counting
    bystander = work / "step-0100.txt.bak"
    bystander.write_text("not ours")
    call_with_token(mcp, "example_count", {"directory": str(work), "count": 200, "step_ms": 20}, 5, 11)
    first = mcp.recv()
    assert first["method"] == "notifications/progress"
    mcp.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 11, "reason": "t"}})
    mcp.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}})
    deadline = time.monotonic() + 10
    while any(work.glob("step-0*.txt")) and time.monotonic() < deadline:
        time.sleep(0.05)
    pong = mcp.request("ping", id=12)
    assert pong["result"] == {}
    assert mcp.close() == 0
    assert not [note for note in mcp.notes if note.get("id") == 11]
    assert sorted(path.name for path in work.iterdir()) == ["step-0100.txt.bak"]
    assert bystander.read_text() == "not ours"


def test_eof_lets_running_calls_answer_then_exits_zero(counting):
    mcp, work = counting
    mcp.write(
        {
            "jsonrpc": "2.0",
            "id": 21,
            "method": "tools/call",
            "params": {"name": "example_count", "arguments": {"directory": str(work), "count": 5, "step_ms": 60}},
        }
    )
    mcp.proc.stdin.close()
    response = mcp.wait_for(21)
    assert response["result"]["structuredContent"]["written"][-1] == "step-0005.txt"
    assert mcp.proc.wait(timeout=10) == 0


def test_schem_render_reports_progress_and_returns_an_image(mcp_process, tmp_path):
    import base64
    import shutil

    source = CORPUS / "v2_nucleation_and.schem"  # a small, valid WorldEdit v2 file
    shutil.copy(source, tmp_path / "small.schem")
    before = (tmp_path / "small.schem").read_bytes()
    mcp = mcp_process(cwd=tmp_path)
    mcp.initialize()
    call_with_token(mcp, "schem_render", {"path": "small.schem", "view": "top"}, "r", 31)
    response = mcp.wait_for(31)
    result = response["result"]
    assert result["isError"] is False, result
    images = [item for item in result["content"] if item["type"] == "image"]
    assert images and images[0]["mimeType"] == "image/png"
    assert base64.b64decode(images[0]["data"]).startswith(b"\x89PNG\r\n\x1a\n")
    values = [note["params"]["progress"] for note in mcp.notes if note.get("method") == "notifications/progress"]
    assert values == sorted(set(values))
    assert (tmp_path / "small.schem").read_bytes() == before


def test_a_call_past_its_deadline_is_refused_timeout_and_its_files_are_removed(mcp_process, tmp_path):
    site = tmp_path / "site"
    add_distribution(site, "demo-tools", "1.0", {"demo": "mcb_demo:DemoTools"}, {"mcb_demo": demo_module()})
    work = tmp_path / "work"
    work.mkdir()
    mcp = mcp_process(env={"PYTHONPATH": str(site)})
    mcp.initialize()
    started = time.monotonic()
    result = mcp.call("demo_slow", {"directory": str(work)})["result"]
    assert 0.9 < time.monotonic() - started < 5
    error = refusal_of(result["structuredContent"]["error"])
    assert result["isError"] and error["code"] == "timeout" and error["deadline_ms"] == 1000
    assert error["outcome_unknown"] is True and error["no_remedy"]
    assert mcp.request("ping")["result"] == {}
    deadline = time.monotonic() + 5
    while any(work.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(work.iterdir()) == []  # the work stopped at its next check and removed what it wrote
    assert mcp.close() == 0
    assert "demo_slow passed its 1 s deadline" in mcp.stderr()
    assert len([line for line in mcp.raw if b'"isError"' in line]) == 1  # one answer, never a second


def test_mutating_calls_run_one_at_a_time_in_arrival_order(counting, tmp_path):
    mcp, work = counting
    second = tmp_path / "second"
    second.mkdir()
    call_with_token(mcp, "example_count", {"directory": str(work), "count": 4, "step_ms": 40}, "a", 41)
    call_with_token(mcp, "example_count", {"directory": str(second), "count": 4, "step_ms": 40}, "b", 42)
    mcp.wait_for(42)
    seen = [
        ("a" if note.get("id") == 41 else note["params"]["progressToken"])
        for note in mcp.notes
        if note.get("id") == 41 or note.get("method") == "notifications/progress"
    ]
    assert "a" in seen and "b" in seen
    assert seen.index("b") > max(index for index, tag in enumerate(seen) if tag == "a")
