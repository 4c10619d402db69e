"""`schem_build` and `region_export` over MCP against a real `mcb serve`: the same engine as `mcb build FILE` and
`mcb export -o`, a long build answered `running` with the identical call as next_call, progress at most 10 a second,
a cancelled call that stops at a plan boundary and resumes without writing anything twice."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
from mcpkit import refusal_of

from mcb.client import McbClient

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
C4 = "v2_nucleation_c4_ai_last_played.schem"
BLOCKS = 3778
ARGS = {"path": C4, "target": {"x": 0, "y": 80, "z": 30}, "drop_extras": True}


@pytest.fixture
def paced(tmp_path):
    """Plans of 512 positions at 40 ms a tick: the c4 file is 8 plans of about 0.7 s."""
    from mcb.server.testing import spawn_server

    server = spawn_server(tmp_path / "paced", tick_ms=40, max_plan_blocks=512)
    try:
        yield server
    finally:
        server.stop()


def start(mcp_process, server, tmp_path):
    shutil.copy(CORPUS / C4, tmp_path / C4)
    env = {
        "MCB_SERVER": server.url,
        "MCB_AGENT_TOKEN": server.agent_token,
        "MCB_PLAYER_ID": "console",
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    mcp = mcp_process(env=env, cwd=tmp_path)
    mcp.initialize()
    return mcp


def operations(server) -> int:
    return McbClient(server.url, agent_token=server.agent_token, player_id="console").project_context().operations_total


@pytest.mark.slow
def test_dry_run_then_a_long_build_in_calls_that_go_on(mcp_process, paced, tmp_path):
    mcp = start(mcp_process, paced, tmp_path)
    estimate = mcp.call("schem_build", {**ARGS, "dry_run": True})["result"]
    assert estimate["isError"] is False, estimate
    data = estimate["structuredContent"]
    assert data["plans"] == 8 and data["positions_to_change"] == BLOCKS and operations(paced) == 0
    first = mcp.call("schem_build", {**ARGS, "wait_seconds": 10}, timeout=60)["result"]["structuredContent"]
    assert first["result"] == "running", first
    assert first["next_call"]["tool"] == "schem_build" and first["next_call"]["arguments"]["path"].endswith(C4)
    assert 0 < first["written"] < BLOCKS
    again = {**first["next_call"]["arguments"], "wait_seconds": 120}
    second = mcp.call("schem_build", again, timeout=120)["result"]["structuredContent"]
    assert second["result"] == "applied" and first["written"] + second["written"] == BLOCKS
    assert operations(paced) == second["build_operations"] == 8
    assert second["build_written"] == BLOCKS  # over every call, where written is this call's
    undo = mcp.call("schem_build", {**ARGS, "undo": True, "wait_seconds": 120}, timeout=120)["result"]
    assert undo["structuredContent"]["undone_operations"] == 8 and undo["structuredContent"]["restored"] == BLOCKS


@pytest.mark.slow
def test_progress_is_at_most_ten_a_second_and_a_cancel_stops_at_a_plan_boundary(mcp_process, paced, tmp_path):
    mcp = start(mcp_process, paced, tmp_path)
    started = time.monotonic()
    mcp.write(
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {
                "name": "schem_build",
                "arguments": {**ARGS, "wait_seconds": 120},
                "_meta": {"progressToken": "b"},
            },
        }
    )
    while operations(paced) < 2 and time.monotonic() - started < 30:
        time.sleep(0.1)
    elapsed = time.monotonic() - started
    mcp.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}})
    assert mcp.request("ping", id=6)["result"] == {}
    time.sleep(1.5)  # the plan under way ends on the server; no new one starts
    stopped_at = operations(paced)
    time.sleep(1.5)
    assert operations(paced) == stopped_at < 8
    notes = [n for n in mcp.notes if n.get("method") == "notifications/progress"]
    assert notes and len(notes) <= 10 * elapsed + 2
    assert all(isinstance(n["params"]["progress"], int) for n in notes)  # positions written, whole (was 3671.90...)
    assert not [note for note in mcp.notes if note.get("id") == 5]  # a cancelled call gets no answer
    assert "(schem_build) cancelled: it stopped waiting; an operation it started goes on" in mcp.stderr()  # MCP-48
    mcp.notes.clear()
    done = mcp.request(
        "tools/call",
        {"name": "schem_build", "arguments": {**ARGS, "wait_seconds": 120}, "_meta": {"progressToken": "r"}},
        timeout=120,
    )["result"]["structuredContent"]
    assert done["result"] == "applied"
    counters = [
        re.search(r"([\d,]+) of (~?)([\d,]+) positions written", note["params"]["message"])
        for note in mcp.notes
        if note.get("method") == "notifications/progress"
    ]
    counted = [(int(m[1].replace(",", "")), int(m[3].replace(",", ""))) for m in counters if m]
    assert counted and all(written <= total for written, total in counted), counted  # the resumed plan counts too
    # one frame for the call: the operation the cancelled call left running, settled first, is counted in
    assert counted[-1] == (done["written"] + done["settled_written"],) * 2
    assert counters[-1][2] == ""  # the last tile read, the total is no longer an estimate ("~")
    assert done["build_operations"] == operations(paced)  # every operation is the build's own
    verify = McbClient(paced.url, agent_token=paced.agent_token, player_id="console")
    from mcb.building.placement import PlacementOptions, load_placement
    from mcb.building.verify import verify_placement

    placement = load_placement(tmp_path / C4, PlacementOptions(target=(0, 80, 30), drop_extras=True))
    assert verify_placement(verify, placement).differences == 0


def test_region_export_writes_a_file_of_any_size(mcp_process, live_server, tmp_path):
    from mcb.schematics.formats import read_any

    mcp = start(mcp_process, live_server, tmp_path)
    result = mcp.call(
        "region_export",
        {
            "min": {"x": -20, "y": 60, "z": -20},
            "max": {"x": 19, "y": 70, "z": 19},
            "output": "ground.litematic",
            "format": "litematic",
        },
    )["result"]
    assert result["isError"] is False, result
    assert result["structuredContent"]["size"] == {"width": 40, "height": 11, "length": 40}
    schem = read_any(tmp_path / "ground.litematic")
    assert schem.size == (40, 11, 40) and "minecraft:grass_block[snowy=false]" in schem.palette
    refused = mcp.call(
        "region_export", {"min": {"x": 5, "y": 60, "z": 5}, "max": {"x": 4, "y": 70, "z": 5}, "output": "x.schem"}
    )["result"]
    assert refused["isError"]
    assert refusal_of(refused["structuredContent"]["error"])["retry_with"]["min"] == {"x": 4, "y": 70, "z": 5}


def test_a_file_with_block_entities_is_refused_with_the_call_that_builds_it(mcp_process, live_server, tmp_path):
    mcp = start(mcp_process, live_server, tmp_path)
    args = {key: value for key, value in ARGS.items() if key != "drop_extras"}
    refused = mcp.call("schem_build", {**args, "dry_run": True})["result"]
    assert refused["isError"] and "block entit" in refused["structuredContent"]["error"]["message"]
    retry = refusal_of(refused["structuredContent"]["error"])["retry_with"]
    assert retry == {"drop_extras": True}
    estimate = mcp.call("schem_build", {**args, "dry_run": True, **retry})["result"]
    assert estimate["isError"] is False and estimate["structuredContent"]["positions_to_change"] == BLOCKS


def test_a_build_outside_the_project_area_names_target_and_the_target_that_fits(mcp_process, live_server, tmp_path):
    mcp = start(mcp_process, live_server, tmp_path)
    area = McbClient(live_server.url, agent_token=live_server.agent_token, player_id="console").project_context().region
    far = {**ARGS, "dry_run": True, "target": {"x": area.max.x, "y": 80, "z": 30}}
    refused = mcp.call("schem_build", far)["result"]
    assert refused["isError"] and "does not fit the project area" in refused["structuredContent"]["error"]["message"]
    error = refusal_of(refused["structuredContent"]["error"])
    assert error["field"] == "target" and error["retry_with"]["target"]["x"] < area.max.x
    assert {key: error["retry_with"]["target"][key] for key in "yz"} == {"y": 80, "z": 30}
    estimate = mcp.call("schem_build", {**far, **error["retry_with"]})["result"]
    assert estimate["isError"] is False, estimate


def test_a_server_that_does_not_answer_is_refused_with_the_same_call_to_send_again(mcp_process, tmp_path):
    from mcb.server.testing import spawn_server

    server = spawn_server(tmp_path / "gone", tick_ms=0)
    mcp = start(mcp_process, server, tmp_path)
    server.stop()
    refused = mcp.call("schem_build", {**ARGS, "wait_seconds": 10}, timeout=60)["result"]
    error = refusal_of(refused["structuredContent"]["error"])
    assert refused["isError"] and error["retry_with"] == {} and "writing nothing twice" in error["remedy"], error


def test_a_build_larger_than_the_area_offers_no_target(mcp_process, live_server, tmp_path):
    mcp = start(mcp_process, live_server, tmp_path)
    shutil.copy(CORPUS / "v3_nucleation_uss-texas.schem", tmp_path / "texas.schem")  # 175 wide; the area is 129
    refused = mcp.call("schem_build", {"path": "texas.schem", "target": {"x": 0, "y": 10, "z": 0}, "dry_run": True})
    error = refusal_of(refused["result"]["structuredContent"]["error"])
    assert error["field"] == "target" and "retry_with" not in error and "enlarge the area" in error["remedy"]


@pytest.mark.slow
def test_undo_with_dry_run_is_refused_and_a_long_undo_goes_on_in_calls(mcp_process, paced, tmp_path):
    mcp = start(mcp_process, paced, tmp_path)
    refused = mcp.call("schem_build", {**ARGS, "undo": True, "dry_run": True})["result"]
    error = refusal_of(refused["structuredContent"]["error"])
    assert error["field"] == "dry_run" and error["retry_with"] == {"dry_run": False} and operations(paced) == 0
    built = mcp.call("schem_build", {**ARGS, "wait_seconds": 120}, timeout=120)["result"]["structuredContent"]
    assert built["result"] == "applied"
    first = mcp.call("schem_build", {**ARGS, "undo": True, "wait_seconds": 10}, timeout=60)["result"]
    data = first["structuredContent"]
    assert first["isError"] is False and data["result"] == "running", data
    assert data["next_call"]["arguments"]["undo"] is True and 0 < data["undone_operations"] < 8
    rest = mcp.call("schem_build", {**data["next_call"]["arguments"], "wait_seconds": 120}, timeout=120)["result"]
    assert rest["structuredContent"]["result"] == "undone", rest
    assert rest["structuredContent"]["undone_operations"] == 8  # the whole undo's count, over both calls


def test_region_export_checks_the_name_and_the_box_before_reading(mcp_process, live_server, tmp_path):
    """A name that is no output format is refused as schem_convert refuses it (it used to write Sponge data named
    .schematic); a box far outside the area is refused as such, not as `internal` after a MemoryError."""
    mcp = start(mcp_process, live_server, tmp_path)
    small = {"min": {"x": 0, "y": 60, "z": 0}, "max": {"x": 3, "y": 63, "z": 3}}
    for name in ("x.schematic", "x.jpg"):
        refused = mcp.call("region_export", {**small, "output": name})["result"]
        error = refusal_of(refused["structuredContent"]["error"])
        assert refused["isError"] and error["code"] == "invalid_argument" and error["field"] == "output", error
        assert not (tmp_path / name).exists()
    chosen = mcp.call("region_export", {**small, "output": "x.bin", "format": "sponge3"})["result"]
    assert chosen["isError"] is False and chosen["structuredContent"]["format"] == "sponge3"
    named = mcp.call("region_export", {**small, "output": "y.nbt"})["result"]
    assert named["isError"] is False and named["structuredContent"]["format"] == "structure"
    assert named["structuredContent"]["notes"] == []
    other = mcp.call("region_export", {**small, "output": "z.litematic", "format": "sponge2"})["result"]
    assert other["structuredContent"]["notes"] == ["z.litematic is named like a Litematica file but holds Sponge v2 "
                                                   "data (the format asked for)"]  # fmt: skip
    started = time.monotonic()
    huge = {"min": {"x": -30_000_000, "y": 0, "z": -30_000_000}, "max": {"x": 30_000_000, "y": 10, "z": 30_000_000}}
    refused = mcp.call("region_export", {**huge, "output": "huge.schem"})["result"]
    error = refusal_of(refused["structuredContent"]["error"])
    assert time.monotonic() - started < 5 and refused["isError"]
    assert error["code"] != "internal" and "leaves the project area -64,0,-64 .. 64,128,64" in error["message"]
    assert error["field"] == "min" and not (tmp_path / "huge.schem").exists()
    assert "project_context shows it" in error["remedy"] and "mcb context" not in error["remedy"]


def _box(tmp_path) -> tuple:
    from mcb.building.placement import PlacementOptions, load_placement

    return load_placement(tmp_path / C4, PlacementOptions(target=(0, 80, 30), drop_extras=True)).world_box()


def test_undo_after_a_players_edit_finishes_and_names_the_kept_position(mcp_process, tmp_path):
    """schem_build {undo: true} after a player changed a block of the build: the plugin refuses that operation's
    undo, mcb restores it from its record, and the answer lists the kept position (it used to stop with no remedy)."""
    from mcb.server.testing import spawn_server

    server = spawn_server(tmp_path / "edited", tick_ms=0, max_plan_blocks=512)
    try:
        mcp = start(mcp_process, server, tmp_path)
        low, high = _box(tmp_path)
        admin = McbClient(server.url, admin_token=server.admin_token, player_id="console")
        before = admin.region_inspect(low, (high[0], low[1], high[2]), blocks=True).blocks
        built = mcp.call("schem_build", {**ARGS, "wait_seconds": 120}, timeout=120)["result"]["structuredContent"]
        assert built["result"] == "applied" and built["build_operations"] == 8
        spot = admin.region_inspect(low, (high[0], low[1], high[2]), blocks=True).blocks
        edited = next(b.pos for b, was in zip(spot, before) if b.state != was.state)  # a block the build wrote
        admin.call("test_set_blocks", {"blocks": [{"pos": edited.wire(), "state": "minecraft:gold_block"}]},
                   scoped=False)  # fmt: skip
        undo = mcp.call("schem_build", {**ARGS, "undo": True, "wait_seconds": 120}, timeout=120)["result"]
        assert undo["isError"] is False, undo
        data = undo["structuredContent"]
        assert data["undone_operations"] == 7 and data["restored_operations"] == 1
        assert [k["pos"] for k in data["kept"]] == [edited.wire()] and data["kept"][0]["now"] == "minecraft:gold_block"
        assert data["restored"] == BLOCKS - 1
        after = admin.region_inspect(low, (high[0], low[1], high[2]), blocks=True).blocks
        assert [b.state for b in after] == [
            "minecraft:gold_block" if b.pos == edited else was.state for b, was in zip(after, before)
        ]
    finally:
        server.stop()


@pytest.mark.slow
def test_an_undo_whose_last_restore_plan_outlasts_the_call_answers_undone(mcp_process, tmp_path):
    """The call's time runs out during the restore of the one operation a player edited: once that last plan is
    applied the undo is over and says `undone` (it used to say `running` and want one more call that did nothing)."""
    from mcb.server.testing import spawn_server

    cube = "v3_nucleation_test_cube.schem"
    shutil.copy(CORPUS / cube, tmp_path / cube)
    server = spawn_server(tmp_path / "slow", tick_ms=250)  # one plan takes longer than wait_seconds 10 leaves it
    try:
        mcp = start(mcp_process, server, tmp_path)
        args = {"path": cube, "target": {"x": 0, "y": 90, "z": 0}, "wait_seconds": 60}
        admin = McbClient(server.url, admin_token=server.admin_token, player_id="console")
        box = (-4, 86, -4), (4, 94, 4)
        before = admin.region_inspect(*box, blocks=True).blocks
        built = mcp.call("schem_build", args, timeout=90)["result"]["structuredContent"]
        assert built["result"] == "applied" and built["build_operations"] == 1, built
        after = admin.region_inspect(*box, blocks=True).blocks
        edited = next(b.pos for b, was in zip(after, before) if b.state != was.state).wire()  # one the build wrote
        admin.call("test_set_blocks", {"blocks": [{"pos": edited, "state": "minecraft:gold_block"}]}, scoped=False)
        undo = mcp.call("schem_build", {**args, "undo": True, "wait_seconds": 10}, timeout=90)["result"]
        data = undo["structuredContent"]
        assert undo["isError"] is False and data["result"] == "undone", data
        assert (data["restored_operations"], data["restored"]) == (1, built["written"] - 1)
        assert "next_call" not in data and [k["pos"] for k in data["kept"]] == [edited]
    finally:
        server.stop()


def test_a_build_a_restart_interrupted_goes_on_once_an_administrator_settled_it(mcp_process, tmp_path):
    """The server is killed mid-build and started again. mcb mcp holds no administrator token (as the plugin's
    bridge): schem_build says which operation waits and the one command an administrator runs; once run, the same
    call completes, and undo restores every position, the abandoned operation's too."""
    import os
    import subprocess
    import sys
    from urllib.parse import urlsplit

    from mcb.server.testing import spawn_server

    data_dir = tmp_path / "restarted"
    server = spawn_server(data_dir, tick_ms=20, max_plan_blocks=512)
    port = urlsplit(server.url).port
    try:
        mcp = start(mcp_process, server, tmp_path)
        low, high = _box(tmp_path)
        mcp.write({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                   "params": {"name": "schem_build", "arguments": {**ARGS, "wait_seconds": 120}}})  # fmt: skip
        client = McbClient(server.url, agent_token=server.agent_token, player_id="console")
        deadline = time.monotonic() + 60
        while operations(server) < 2 or client.project_context().operations[0].status != "applying":
            assert time.monotonic() < deadline
            time.sleep(0.02)
        interrupted = client.project_context().operations[0].operation_id
        server.kill()
        server = spawn_server(data_dir, tick_ms=0, port=port)
        assert mcp.wait_for(9, timeout=120)["result"]["isError"] is True  # the call ends with the lost server
        waiting = mcp.call("schem_build", {**ARGS, "wait_seconds": 120}, timeout=120)["result"]
        error = refusal_of(waiting["structuredContent"]["error"])
        assert waiting["isError"] and error["code"] == "recovery_required", error
        assert (
            interrupted in error["message"]
            and f"`mcb recovery abandon {interrupted}`" in error["message"] + error["remedy"]
        )
        env = {**os.environ, "MCB_SERVER": server.url, "MCB_TOKEN": server.admin_token, "MCB_PLAYER_ID": "console"}
        settled = subprocess.run([sys.executable, "-m", "mcb", "recovery", "abandon", interrupted, "--yes"], env=env,
                                 capture_output=True, text=True, timeout=60)  # fmt: skip
        assert settled.returncode == 0, settled.stderr
        done = mcp.call("schem_build", {**ARGS, "wait_seconds": 120}, timeout=120)["result"]
        assert done["isError"] is False and done["structuredContent"]["result"] == "applied", done
        undo = mcp.call("schem_build", {**ARGS, "undo": True, "wait_seconds": 120}, timeout=120)["result"]
        data = undo["structuredContent"]
        assert undo["isError"] is False and data["restored_operations"] >= 1 and data["kept"] == []
        palette = (
            McbClient(server.url, agent_token=server.agent_token, player_id="console")
            .region_inspect((low[0], high[1] - 15, low[2]), (low[0] + 15, high[1], low[2] + 15))
            .palette
        )
        assert palette == {"minecraft:air": 16**3}
    finally:
        server.kill()


def test_a_build_another_run_is_writing_is_refused_with_a_time_to_call_again(mcp_process, live_server, tmp_path,
                                                                              monkeypatch):  # fmt: skip
    """mcb's own codes have the table's machine remedy too (they used to come with no_remedy)."""
    from mcb.batch.file_build import file_build_id
    from mcb.batch.schematic import build_state_path
    from mcb.batch.state import exclusive_run
    from mcb.building.placement import PlacementOptions

    mcp = start(mcp_process, live_server, tmp_path)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    client = McbClient(live_server.url, agent_token=live_server.agent_token, player_id="console")
    build_id = file_build_id(client, str(tmp_path / C4), PlacementOptions(target=(0, 80, 30), drop_extras=True))
    path = build_state_path(build_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    with exclusive_run(path, f"build {build_id}"):
        refused = mcp.call("schem_build", {**ARGS, "wait_seconds": 10})["result"]
    error = refusal_of(refused["structuredContent"]["error"])
    assert error["code"] == "locked" and f"another mcb run is writing build {build_id}" in error["message"]
    assert error["retry_after_ms"] == 5000 and "no_remedy" not in error and operations(live_server) == 0
