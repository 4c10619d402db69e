"""Every command that waits on an operation shows progress on stderr: a live bar on a terminal, plain periodic lines
when stderr is piped or NO_COLOR is set (NO_COLOR removes colour, not progress), and it moves during the server's
preflight, while nothing is written yet."""

from __future__ import annotations

import json
import os
import re
import sys

from ptykit import stderr_on_a_terminal
from rpc_testkit import box_recipe

from mcb.client.models import OperationStatus
from mcb.client.operations import plan_seconds
from mcb.client.progress import OperationTracker


def status(state: str, message: str = "", processed: int = 0, total: int = 4096) -> OperationStatus:
    return OperationStatus(
        operation_id="op", status=state, message=message, processed=processed, written=processed, total_changes=total
    )


def test_the_fraction_moves_through_preflight_writing_and_the_audit():
    now = [0.0]
    tracker = OperationTracker(clock=lambda: now[0])
    seen = [tracker.update(status("queued", "Awaiting bounded preflight"))]
    for checked in (128, 1024, 4096):
        now[0] += 0.4
        seen.append(tracker.update(status("queued", f"Preflight {checked}/4096")))
    assert tracker.phase == "preflight 4,096/4,096"
    for processed in (0, 2048, 4096):
        now[0] += 0.8
        seen.append(tracker.update(status("applying", "Slice written; awaiting durable receipt", processed)))
    for _ in range(3):
        now[0] += 0.4
        seen.append(tracker.update(status("applying", "Slice written; awaiting durable receipt", 4096)))
    assert tracker.phase == "checking"
    seen.append(tracker.update(status("applied", "All requested states verified", 4096)))
    assert seen == sorted(seen) and seen[0] == 0 and seen[1] > 0 and seen[-1] == 1.0
    assert 0 < seen[3] <= 0.25 < seen[6] <= 0.75 < seen[-2] < 1


def test_the_model_of_the_plugins_pace():
    assert plan_seconds(4096) == (4 * 32 + 1) * 0.05  # 6.45 s: "a 4096-position plan takes about 6.5 s"
    assert plan_seconds(2048) == 3.25


def test_piped_or_no_color_progress_is_plain_lines_that_move_during_preflight(cli, tmp_path, monkeypatch):
    import mcb.terminal
    from mcb.server.testing import run_server

    monkeypatch.setattr(mcb.terminal, "PLAIN_PROGRESS_INTERVAL", 0.15)
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(-8, 70, -8, size=16)))  # 4096 positions
    with run_server(tmp_path / "server", tick_ms=25) as server:
        monkeypatch.setenv("MCB_SERVER", server.url)
        monkeypatch.setenv("MCB_AGENT_TOKEN", server.agent_token)
        monkeypatch.setenv("MCB_PLAYER_ID", "console")
        result = cli("build", str(recipe))
    assert result.exit_code == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("build: ")]
    assert any("preflight" in line for line in lines), result.stderr
    checked = [
        int(m.group(1).replace(",", "")) for line in lines for m in [re.search(r"preflight ([\d,]+)/", line)] if m
    ]
    assert any(n > 0 for n in checked), lines  # the line moves before anything is written
    for line in lines:  # its percent is the count's own: 0% while nothing is written, not the preflight's share
        written, percent = re.search(r"([\d,]+) of 4,096 positions written \((\d+)%\)", line).groups()
        assert int(percent) == 100 * int(written.replace(",", "")) // 4096, line
    assert "\x1b" not in result.stderr


def test_a_terminal_shows_a_bar_that_names_the_phase(tmp_path):
    from mcb.server.testing import run_server

    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(-8, 70, -8, size=16)))
    with run_server(tmp_path / "server", tick_ms=15) as server:
        env = {
            **os.environ,
            "MCB_SERVER": server.url,
            "MCB_AGENT_TOKEN": server.agent_token,
            "MCB_PLAYER_ID": "console",
            "TERM": "xterm",
            "COLUMNS": "120",
        }
        env.pop("NO_COLOR", None)
        code, seen = stderr_on_a_terminal([sys.executable, "-m", "mcb", "build", str(recipe)], env)
    assert code == 0, seen
    assert "preflight" in seen and "/4,096" in seen and "\x1b[" in seen
