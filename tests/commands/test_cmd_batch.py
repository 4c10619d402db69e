"""`mcb build` and `mcb batch` against a live server: summaries, dry runs, resume after crashes and lost answers."""

from __future__ import annotations

import json
import re
import time

from rpc_testkit import FaultProxy, box_recipe

AREA = ("--min", "0,100,0", "--max", "15,104,15")


def write_batch(tmp_path, steps, name="castle.batch.json"):
    (tmp_path / "walls.json").write_text(json.dumps(box_recipe(0, 100, 0, size=4, hollow=True)))
    path = tmp_path / name
    path.write_text(json.dumps({"version": 1, "steps": steps}))
    return path


STEPS = [
    {"name": "walls", "kind": "recipe", "recipe": "walls.json", "description": "hollow cube"},
    {"name": "floor", "kind": "recipe", "recipe": box_recipe(6, 100, 6, size=3, block="minecraft:oak_planks")},
    {
        "name": "pillar",
        "kind": "recipe",
        "dependencies": [[6, 99, 6]],
        "recipe": {
            "version": 1,
            "operations": [
                {
                    "type": "line",
                    "from": {"x": 12, "y": 100, "z": 12},
                    "to": {"x": 12, "y": 104, "z": 12},
                    "block": "minecraft:oak_log[axis=y]",
                }
            ],
        },
    },
    {"name": "undo-floor", "kind": "undo", "step": "floor"},
    {"name": "cap", "kind": "recipe", "recipe": box_recipe(0, 104, 0, size=1, block="minecraft:glowstone")},
]


def world(mcb):
    return mcb("inspect", *AREA, "--blocks", "--json").json()["blocks"]


def test_build_recipe_summary_and_json(mcb, tmp_path):
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0)))
    human = mcb("build", recipe)
    assert human.exit_code == 0 and "status:    applied" in human.stdout and "changed blocks: 27" in human.stdout
    again = mcb("build", recipe, "--json").json()
    assert again["operation"]["status"] == "applied" and again["plan"]["changed_blocks"] == 0
    assert again["idempotency_key"] == "mcb-" + again["plan"]["plan_id"]


def test_build_dry_run_writes_nothing(mcb, tmp_path):
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0)))
    result = mcb("build", recipe, "--dry-run", "--json")
    assert result.exit_code == 0 and result.json()["operation"] is None
    assert mcb("context", "--json").json()["operations_total"] == 0


def test_build_usage_errors(mcb, tmp_path):
    assert mcb("build").exit_code == 2
    assert mcb("build", "--asset", "abc").exit_code == 2
    assert mcb("build", "--asset", "abc", "--target", "0,100,0", "--rotation", "30").exit_code == 2


def test_build_conflict_exit_code(mcb, tmp_path, rpc_env, monkeypatch):
    """A player breaks a planned block between prepare and apply (done by a proxy just before build_apply)."""
    from mcb.client import McbClient

    def decide(request):
        if request["json"] and request["json"]["method"] == "build_apply":
            with McbClient(rpc_env.url, admin_token=rpc_env.admin_token) as admin:
                admin.call(
                    "test_set_blocks",
                    {"blocks": [{"pos": {"x": 2, "y": 102, "z": 2}, "state": "minecraft:dirt"}]},
                    scoped=False,
                )
        return "forward"

    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0)))
    with FaultProxy(rpc_env.url, decide) as proxy:
        monkeypatch.setenv("MCB_SERVER", proxy.url)
        result = mcb("build", recipe, "--json")
    assert result.exit_code == 7 and result.json()["operation"]["status"] == "conflict"
    assert "2,102,2" in result.stderr


def test_batch_runs_every_step_and_resumes_as_a_no_op(mcb, tmp_path):
    batch = write_batch(tmp_path, STEPS)
    result = mcb("batch", batch, "--json")
    assert result.exit_code == 0, result.stderr
    report = result.json()
    assert report["ok"] and [s["result"] for s in report["steps"]] == ["applied"] * 5
    assert "[4/5] undo-floor: undo" in result.stderr
    state_file = tmp_path / "castle.batch.state.json"
    assert report["state_file"] == str(state_file) and state_file.exists()
    (recorded,) = json.loads(state_file.read_text())["steps"]["walls"]["plans"]  # the step's one plan entry
    assert recorded["idempotency_key"] == "mcb-" + recorded["plan"]["plan_id"] and recorded["operation_id"]
    again = mcb("batch", batch, "--json").json()
    assert [s["result"] for s in again["steps"]] == ["already_done"] * 5
    assert mcb("context", "--json").json()["operations_total"] == 5


def test_a_step_whose_blocks_are_already_there_says_nothing_to_change(mcb, tmp_path):
    """The README builds the tower, then runs a batch that builds it again: that step changed nothing, so its plan
    (0 blocks to change) is not applied, and it says so once."""
    mcb("build", write_batch(tmp_path, []).with_name("walls.json"))  # the walls, built before the batch runs
    batch = write_batch(tmp_path, STEPS[:2])
    result = mcb("batch", batch)
    assert result.exit_code == 0, result.stderr
    walls = [line for line in result.stderr.splitlines() if line.startswith("[1/2] walls: ")]
    assert walls[0] == "[1/2] walls: recipe: hollow cube" and len(walls) == 2, result.stderr
    assert re.fullmatch(r"\[1/2\] walls: nothing to change \(every block of plan \S+ is in place already; not "
                        r"applied\)", walls[1])  # fmt: skip
    assert "[2/2] floor: applied (27 of 27 positions written)" in result.stderr.splitlines()
    rows = {line.split()[0]: line.split()[2] for line in result.stdout.splitlines()[2:]}
    assert rows == {"walls": "nothing_to_change", "floor": "applied"}
    assert mcb("context", "--json").json()["operations_total"] == 2  # `mcb build`'s and the floor's
    again = mcb("batch", batch, "--json")
    assert "[1/2] walls: already done (nothing to change), skipped" in again.stderr.splitlines()
    assert [s["result"] for s in again.json()["steps"]] == ["already_done", "already_done"]
    walls_json = again.json()["steps"][0]
    assert walls_json["plan_id"] in walls[1] and walls_json["changed_blocks"] == 0
    assert walls_json["operation_id"] is None and walls_json["operations"] == []


def test_batch_check_and_bad_files(mcb, tmp_path):
    batch = write_batch(tmp_path, STEPS)
    listed = mcb("batch", batch, "--check")
    assert listed.exit_code == 0 and "undo-floor" in listed.stdout
    bad = write_batch(tmp_path, [{"name": "u", "kind": "undo", "step": "later"}], "bad.json")
    result = mcb("batch", bad)
    assert result.exit_code == 1 and "not an earlier step" in result.stderr
    unknown = write_batch(tmp_path, [{"name": "x", "kind": "paint"}], "unknown.json")
    assert "unknown kind" in mcb("batch", unknown).stderr
    assert mcb("context", "--json").json()["operations_total"] == 0


def test_batch_stops_at_first_error_and_continue_goes_on(mcb, tmp_path):
    steps = [STEPS[0], {"name": "broken", "kind": "recipe", "recipe": {"version": 9, "operations": []}}, STEPS[1]]
    batch = write_batch(tmp_path, steps)
    stopped = mcb("batch", batch, "--json")
    assert stopped.exit_code == 5
    assert [s["result"] for s in stopped.json()["steps"]] == ["applied", "error", "not_run"]
    went_on = mcb("batch", batch, "--continue", "--json")
    assert [s["result"] for s in went_on.json()["steps"]] == ["already_done", "error", "applied"]


def test_batch_changed_step_is_refused(mcb, tmp_path):
    batch = write_batch(tmp_path, STEPS[:1])
    assert mcb("batch", batch).exit_code == 0
    changed = dict(STEPS[0], recipe={"version": 1, "operations": []})
    write_batch(tmp_path, [changed])
    result = mcb("batch", batch)
    assert result.exit_code == 7 and "changed since" in result.stderr
    assert mcb("batch", batch, "--restart").exit_code == 0


def test_batch_resumes_after_a_lost_connection(mcb, tmp_path, rpc_env, monkeypatch):
    """The connection dies right after build_apply reached the server; the re-run must not write again."""
    batch = write_batch(tmp_path, STEPS[:3])
    sent = []

    def decide(request):
        if sent:
            return "drop"
        if (
            request["json"]
            and request["json"]["method"] == "build_apply"
            and request["json"]["params"].get("idempotency_key", "").startswith("mcb-")
        ):
            if len([r for r in proxy.requests if r["json"] and r["json"]["method"] == "build_apply"]) == 2:
                sent.append(True)
                return "drop_after_forward"
        return "forward"

    with FaultProxy(rpc_env.url, decide) as proxy:
        monkeypatch.setenv("MCB_SERVER", proxy.url)
        first = mcb("batch", batch, "--json")
    state = json.loads((tmp_path / "castle.batch.state.json").read_text())
    monkeypatch.setenv("MCB_SERVER", rpc_env.url)
    assert first.exit_code == 6
    assert state["steps"]["floor"]["plans"][0]["phase"] == "applying"  # key recorded, answer lost
    state["server"] = rpc_env.url  # the same server, reached directly this time
    (tmp_path / "castle.batch.state.json").write_text(json.dumps(state))
    second = mcb("batch", batch, "--json")
    assert second.exit_code == 0, second.stderr
    assert [s["result"] for s in second.json()["steps"]] == ["already_done", "applied", "applied"]
    assert mcb("context", "--json").json()["operations_total"] == 3


def test_batch_interrupted_at_every_boundary_equals_an_uninterrupted_run(tmp_path):
    """Ctrl-C at every phase boundary of every step (including just after build_apply was sent), resumed each
    time: the final world and the operation count match an uninterrupted run."""
    from mcb.batch.model import load_batch
    from mcb.batch.runner import BatchRunner
    from mcb.batch.state import BatchState, state_path_for
    from mcb.client import McbClient
    from mcb.server.testing import run_server

    batch_path = write_batch(tmp_path, STEPS)

    def snapshot(client):
        blocks = client.region_inspect((0, 100, 0), (15, 104, 15), blocks=True).blocks
        return [b.wire() for b in blocks], client.project_context().operations_total

    with run_server(tmp_path / "reference", tick_ms=1) as ref:
        with McbClient(ref.url, agent_token=ref.agent_token, player_id="console") as client:
            batch = load_batch(batch_path)
            state = BatchState.load(tmp_path / "reference.state.json", server=client.server, project_id=None)
            assert BatchRunner(client, batch, state).run().ok
            expected = snapshot(client)

    class Interrupt(BaseException):
        pass

    with run_server(tmp_path / "interrupted", tick_ms=1) as srv:
        with McbClient(srv.url, agent_token=srv.agent_token, player_id="console") as client:
            real_apply = client.build_apply
            interrupted_at: set[tuple[str, str]] = set()
            current = {"step": None}

            def boundary(event: str, name: str) -> None:
                current["step"] = name
                if event not in {"skip"} and (event, name) not in interrupted_at:
                    interrupted_at.add((event, name))
                    raise Interrupt

            def apply_then_crash(*args, **kwargs):
                status = real_apply(*args, **kwargs)  # the server has it; the process dies before recording the answer
                boundary("apply_sent", current["step"])
                return status

            client.build_apply = apply_then_crash
            while True:
                batch = load_batch(batch_path)
                state = BatchState.load(state_path_for(batch_path), server=client.server, project_id=None)
                runner = BatchRunner(client, batch, state, on_event=lambda event, name, details: boundary(event, name))
                try:
                    report = runner.run()
                except Interrupt:
                    continue
                break
            assert report.ok
            per_step = {"start", "prepared", "applying", "apply_sent", "resend", "resume", "finished"}
            for step in STEPS:
                assert per_step <= {event for event, name in interrupted_at if name == step["name"]}
            assert snapshot(client) == expected


def test_a_second_concurrent_run_of_the_same_batch_is_refused(mcb, tmp_path):
    from mcb.batch.state import exclusive_run, state_path_for

    batch = write_batch(tmp_path, STEPS[:1])
    with exclusive_run(state_path_for(batch)):  # as if another `mcb batch` were running
        refused = mcb("batch", batch)
    assert refused.exit_code == 7 and "another mcb run is writing this batch" in refused.stderr
    assert mcb("context", "--json").json()["operations_total"] == 0
    assert mcb("batch", batch).exit_code == 0


def test_build_asset_and_batch_import_rotate_stairs(mcb, tmp_path):
    stairs = tmp_path / "stairs.json"
    stairs.write_text(
        json.dumps(
            {
                "version": 1,
                "operations": [
                    {
                        "type": "line",
                        "from": {"x": 0, "y": 100, "z": 0},
                        "to": {"x": 2, "y": 100, "z": 0},
                        "block": "minecraft:oak_stairs[facing=north]",
                    }
                ],
            }
        )
    )
    assert mcb("build", stairs).exit_code == 0
    asset = mcb("export", "stairs", "--min", "0,100,0", "--max", "2,100,0", "--json").json()["assetId"]
    built = mcb("build", "--asset", asset, "--target", "10,100,10", "--rotation", "90", "--json")
    assert built.exit_code == 0 and built.json()["operation"]["written"] == 3
    turned = mcb("inspect", "--min", "10,100,10", "--max", "10,100,12", "--json").json()["palette"]
    assert list(turned) == ["minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]"]
    batch = write_batch(
        tmp_path, [{"name": "copy", "kind": "import", "asset": asset, "target": [20, 100, 20], "rotation": 180}]
    )
    assert mcb("batch", batch).exit_code == 0
    back = mcb("inspect", "--min", "18,100,20", "--max", "20,100,20", "--json").json()["palette"]
    assert list(back) == ["minecraft:oak_stairs[facing=south,half=bottom,shape=straight,waterlogged=false]"]


def test_a_plan_prepared_but_never_sent_is_prepared_again_and_applied_once(tmp_path):
    """Interrupted between prepare and apply (the plan may have expired by the next run): the re-run drops the plan
    it never sent — no key left for it, so no operation can exist — prepares afresh and applies exactly once."""
    from mcb.batch.model import load_batch
    from mcb.batch.runner import BatchRunner
    from mcb.batch.state import BatchState, state_path_for
    from mcb.client import McbClient
    from mcb.server.testing import run_server

    class Interrupt(BaseException):
        pass

    def stop_after_prepare(event, name, details):
        if event == "prepared":
            raise Interrupt

    batch_path = write_batch(tmp_path, STEPS[:1])
    with run_server(tmp_path / "server", tick_ms=1) as server:
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:

            def runner(**options):
                state = BatchState.load(state_path_for(batch_path), server=client.server, project_id=None)
                return BatchRunner(client, load_batch(batch_path), state, **options)

            try:
                runner(on_event=stop_after_prepare).run()
            except Interrupt:
                pass
            stale_plan = json.loads(state_path_for(batch_path).read_text())["steps"]["walls"]["plans"][0]["plan"]
            report = runner().run()
            assert report.ok
            entries = report.steps[0].record["plans"]
            assert [e["phase"] for e in entries] == ["dropped", "done"] and entries[0]["plan"] == stale_plan
            assert "idempotency_key" not in entries[0]
            assert client.project_context().operations_total == 1


def test_a_step_a_server_restart_interrupted_is_settled_by_the_same_command(mcb, tmp_path, monkeypatch):
    """The server dies mid-apply; on restart the step's operation is recovery_required. Without the administrator
    token the same command says what happened and names the one command that settles it; once that has run, the
    same batch command goes on and completes the step (the world is read afresh: nothing is written twice)."""
    import os
    import subprocess
    import sys
    from urllib.parse import urlsplit

    from mcb.client import McbClient
    from mcb.server.testing import spawn_server

    data = tmp_path / "crashing-server"  # not the `mcb` fixture's own server directory
    server = spawn_server(data, tick_ms=100)
    port = urlsplit(server.url).port
    try:
        batch = write_batch(tmp_path, [{"name": "big", "kind": "recipe", "recipe": box_recipe(0, 100, 0, size=10)}])
        env = {
            **os.environ,
            "MCB_SERVER": server.url,
            "MCB_AGENT_TOKEN": server.agent_token,
            "MCB_PLAYER_ID": "console",
            "NO_COLOR": "1",
        }
        env.pop("MCB_TOKEN", None)
        first = subprocess.Popen(
            [sys.executable, "-m", "mcb", "batch", str(batch)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        state_file = tmp_path / "castle.batch.state.json"
        deadline = time.monotonic() + 60
        operation = None
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
            while time.monotonic() < deadline:
                if operation is None and state_file.exists():
                    entries = json.loads(state_file.read_text())["steps"].get("big", {}).get("plans") or [{}]
                    operation = entries[0].get("operation_id")
                if operation and client.operation_status(operation).written > 0:
                    break
                time.sleep(0.05)
        assert operation, "the batch never started its operation"
        server.kill()  # mid-apply
        assert first.wait(timeout=120) != 0
        server = spawn_server(data, tick_ms=5, port=port)
        monkeypatch.setenv("MCB_SERVER", server.url)
        monkeypatch.setenv("MCB_AGENT_TOKEN", server.agent_token)
        monkeypatch.delenv("MCB_TOKEN")
        stuck = mcb("batch", batch)
        assert stuck.exit_code == 7 and "interrupted by a server restart" in stuck.stderr, stuck.stderr
        assert f"`mcb recovery abandon {operation}`" in stuck.stderr
        monkeypatch.setenv("MCB_TOKEN", server.admin_token)
        settled = mcb("recovery", "abandon", operation, "--yes")
        assert settled.exit_code == 0, settled.stderr
        monkeypatch.delenv("MCB_TOKEN")
        after = mcb("batch", batch, "--json")
        assert after.exit_code == 0, after.stderr
        assert [step["result"] for step in after.json()["steps"]] == ["applied"]
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
            assert client.region_inspect((0, 100, 0), (9, 109, 9)).palette == {"minecraft:stone_bricks": 1000}
    finally:
        server.kill()
