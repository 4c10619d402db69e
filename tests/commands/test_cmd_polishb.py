"""QA defects seen by a person at the CLI: cut table data, plurals, file-kind errors, JSON params, timeouts."""

from __future__ import annotations

import json
import re
from pathlib import Path

from rpc_testkit import box_recipe

HOUSE = Path(__file__).resolve().parents[2] / "schematics" / "house.schem"
LONG_STATE = "minecraft:oak_stairs[facing=south,half=bottom,shape=straight,waterlogged=false]"


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


def test_one_block_plan_reads_in_the_singular(mcb, tmp_path):
    recipe = tmp_path / "one.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0, size=1)))
    result = mcb("build", recipe)
    assert result.exit_code == 0, result.stderr
    assert ": 1 block to change" in result.stderr
    assert "1 blocks" not in result.stdout + result.stderr


def test_apply_of_a_directory_says_it_is_a_directory(cli, tmp_path):
    (tmp_path / "d").mkdir()
    result = cli("apply", str(tmp_path / "d"))
    assert result.exit_code == 1  # bad input, as `mcb build DIR`
    assert "is a directory" in result.stderr
    assert "PLAN_HASH" not in result.stderr


def test_schem_info_of_an_empty_file_names_it_and_says_what_a_schematic_is(cli, tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    result = cli("schem", "info", str(empty))
    assert result.exit_code == 1
    assert f"error: {empty}: file is empty" in result.stderr
    assert "hint: a schematic is an NBT file" in result.stderr


def test_rpc_params_that_are_not_json_say_where_in_words(cli):
    result = cli("rpc", "region_inspect", "{bad")
    assert result.exit_code == 2
    assert "error: PARAMS argument is not valid JSON at line 1, column 2: expecting property name" in result.stderr
    assert "char 1" not in result.stderr


def test_rpc_params_with_a_huge_number_say_it_is_too_long(cli):
    result = cli("rpc", "region_inspect", '{"min":{"x":' + "9" * 5000 + "}}")
    assert result.exit_code == 2
    assert "a number with 5000 digits is too long" in result.stderr
    assert "set_int_max_str_digits" not in result.stderr


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_apply_to_a_refused_connection_says_nothing_was_sent(cli, tmp_path):
    plan = tmp_path / "plan2.json"
    plan.write_text(json.dumps({"plan_id": "p1", "plan_hash": "h1"}))
    env = {
        "MCB_TOKEN": "t0ken-for-test",
        "MCB_PLAYER_ID": "00000000-0000-0000-0000-000000000001",
        "MCB_PROJECT_ID": "p",
    }
    result = cli("--server", f"http://127.0.0.1:{_closed_port()}", "--timeout", "2", "apply", str(plan), env=env)
    assert result.exit_code == 6, result.stderr
    assert "hint: nothing was sent; start the server or check --server" in result.stderr
    assert "unknown" not in result.stderr


def test_timeouts_that_are_not_finite_are_usage_errors_like_zero(cli):
    zero = cli("--timeout", "0", "health")
    assert zero.exit_code == 2 and "Invalid value for '--timeout'" in zero.stderr
    for value in ("nan", "inf", "1e999"):
        result = cli("--timeout", value, "health")
        assert result.exit_code == 2, (value, result.stderr)
        assert "Invalid value for '--timeout'" in result.stderr


def test_batch_state_of_another_server_words_a_missing_project(mcb, live_server, tmp_path):
    from rpc_testkit import FaultProxy

    batch = tmp_path / "one.batch.json"
    batch.write_text(
        json.dumps(
            {"version": 1, "steps": [{"name": "cap", "kind": "recipe", "recipe": box_recipe(0, 104, 0, size=1)}]}
        )
    )
    assert mcb("batch", batch).exit_code == 0
    with FaultProxy(live_server.url) as proxy:
        result = mcb("--server", proxy.url, "batch", batch)
    assert result.exit_code == 3, result.stderr
    assert "no project" in result.stderr
    assert "None" not in result.stderr


def test_ctrl_c_during_a_batch_step_stops_after_its_plan_and_the_same_command_goes_on(tmp_path):
    """Ctrl-C in a batch is the one Ctrl-C of every write: the plan under way ends (nothing is left half-known),
    no later step starts, the run says it stopped (exit 130, not "error:"), and the same command does the rest."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from interrupt_kit import INTERRUPTIBLE
    from rpc_testkit import FaultProxy

    from mcb.server.testing import run_server

    batch = tmp_path / "big.batch.json"
    steps = [{"name": "cube", "kind": "recipe", "recipe": box_recipe(0, 100, 0, size=10)},
             {"name": "slab", "kind": "recipe", "recipe": box_recipe(20, 100, 0, size=3)}]  # fmt: skip
    batch.write_text(json.dumps({"version": 1, "steps": steps}))
    with run_server(tmp_path / "server", tick_ms=50) as server, FaultProxy(server.url) as proxy:
        env = {**os.environ, "MCB_SERVER": proxy.url, "MCB_AGENT_TOKEN": server.agent_token, "MCB_PLAYER_ID": "console"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "mcb", "batch", str(batch)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            **INTERRUPTIBLE,
        )
        try:
            deadline = time.monotonic() + 30
            while "operation_status" not in proxy.methods():
                assert time.monotonic() < deadline, "no status poll seen"
                time.sleep(0.01)
            proc.send_signal(signal.SIGINT)
            _, stderr = proc.communicate(timeout=60)
        finally:
            proc.kill()
        assert proc.returncode == 130, stderr
        assert "stopping after the plan under way" in stderr
        assert "stopped: 1 of 2 steps did not complete: stopped before step 'slab'" in stderr
        assert "error:" not in stderr
        assert "[1/2] cube: applied (1,000 of 1,000 positions written)" in stderr
        again = subprocess.run([sys.executable, "-m", "mcb", "batch", str(batch), "--json"], env=env,
                               capture_output=True, text=True, timeout=60)  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert [s["result"] for s in json.loads(again.stdout)["steps"]] == ["already_done", "applied"]
