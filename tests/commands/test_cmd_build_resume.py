"""`mcb build` / `mcb apply` after a lost answer: re-runs resume the one operation, never start a second one.

The fault proxy forwards every build_apply to a live `mcb serve` and drops the answer, so the operation exists
on the server while mcb never learns of it.
"""

from __future__ import annotations

import json

from rpc_testkit import FaultProxy, box_recipe


def _method(request):
    return request["json"]["method"] if request["json"] else None


def _operations(server):
    from mcb.client import McbClient

    with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
        return client.project_context()


def test_build_rerun_after_lost_answers_makes_exactly_one_operation(cli, rpc_env, tmp_path, monkeypatch):
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0)))
    lose = {"on": True}

    def decide(request):
        return "drop_after_forward" if lose["on"] and _method(request) == "build_apply" else "forward"

    with FaultProxy(rpc_env.url, decide) as proxy:
        monkeypatch.setenv("MCB_SERVER", proxy.url)
        first = cli("build", str(recipe))
        assert first.exit_code == 6, first.stderr
        assert "run the same `mcb build` command again" in first.stderr
        keys = {r["json"]["params"]["idempotency_key"] for r in proxy.requests if _method(r) == "build_apply"}
        (key,) = keys
        assert key in first.stderr  # the hint names the key it will repeat
        for _ in range(3):  # any number of lost re-runs
            again = cli("build", str(recipe))
            assert again.exit_code == 6
            assert f"same idempotency key {key}" in again.stderr and "instead of preparing again" in again.stderr
        lose["on"] = False
        final = cli("build", str(recipe), "--json")
        assert final.exit_code == 0, final.stderr
    prepares = proxy.methods().count("build_prepare")
    assert prepares == 1  # never prepared anew
    assert {r["json"]["params"]["idempotency_key"] for r in proxy.requests if _method(r) == "build_apply"} == {key}
    context = _operations(rpc_env)
    assert context.operations_total == 1
    data = json.loads(final.stdout)
    assert data["operation"]["status"] == "applied" and data["idempotency_key"] == key
    assert data["operation"]["operation_id"] == context.operations[0].operation_id


def test_build_after_a_finished_build_is_a_new_build(mcb, rpc_env, tmp_path):
    """Memory lasts until the operation is seen to end: a later run prepares again (nothing left to change)."""
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0)))
    assert mcb("build", recipe).exit_code == 0
    second = mcb("build", recipe, "--json")
    assert second.exit_code == 0 and "repeating build_apply" not in second.stderr
    assert second.json()["plan"]["changed_blocks"] == 0


def test_apply_plan_file_rerun_after_lost_answers_makes_exactly_one_operation(cli, rpc_env, tmp_path, monkeypatch):
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0)))
    plan_file = tmp_path / "plan.json"
    assert cli("prepare", str(recipe), "-o", str(plan_file)).exit_code == 0
    lose = {"on": True}

    def decide(request):
        return "drop_after_forward" if lose["on"] and _method(request) == "build_apply" else "forward"

    with FaultProxy(rpc_env.url, decide) as proxy:
        monkeypatch.setenv("MCB_SERVER", proxy.url)
        for _ in range(3):
            lost = cli("apply", str(plan_file), "--wait")
            assert lost.exit_code == 6
            assert f"mcb apply {plan_file}" in lost.stderr and "same idempotency key" in lost.stderr
        lose["on"] = False
        final = cli("apply", str(plan_file), "--wait", "--json")
        assert final.exit_code == 0, final.stderr
    assert len({r["json"]["params"]["idempotency_key"] for r in proxy.requests if _method(r) == "build_apply"}) == 1
    assert _operations(rpc_env).operations_total == 1


def test_dry_run_prints_no_idempotency_key(mcb, tmp_path):
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0)))
    human = mcb("build", recipe, "--dry-run")
    data = mcb("build", recipe, "--dry-run", "--json")
    assert human.exit_code == 0 and "idempotency" not in human.stderr + human.stdout
    assert data.json()["idempotency_key"] is None and data.json()["operation"] is None


def test_undo_apply_rerun_after_lost_answers_makes_exactly_one_undo(cli, rpc_env, tmp_path, monkeypatch):
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0)))
    built = cli("build", str(recipe), "--json")
    operation = json.loads(built.stdout)["operation"]["operation_id"]
    lose = {"on": True}

    def decide(request):
        return "drop_after_forward" if lose["on"] and _method(request) == "build_apply" else "forward"

    with FaultProxy(rpc_env.url, decide) as proxy:
        monkeypatch.setenv("MCB_SERVER", proxy.url)
        for _ in range(2):
            lost = cli("undo", operation, "--apply")
            assert lost.exit_code == 6 and f"mcb undo {operation} --apply" in lost.stderr
        lose["on"] = False
        final = cli("undo", operation, "--apply", "--json")
        assert final.exit_code == 0, final.stderr
    assert proxy.methods().count("operation_undo_prepare") == 1
    assert _operations(rpc_env).operations_total == 2  # the build and one undo


def test_a_remembered_plan_the_server_does_not_know_is_prepared_anew(mcb, rpc_env, tmp_path):
    """E.g. the server's data was reset: build_apply answers "Unknown plan", so no operation can exist for it."""
    from mcb.batch.log import PlanLog
    from mcb.batch.single import WRITE, single_state_path
    from mcb.batch.state import BatchState
    from mcb.client import McbClient
    from mcb.client.models import PlanSummary

    recipe = box_recipe(0, 100, 0)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(recipe))
    with McbClient(rpc_env.url, agent_token=rpc_env.agent_token, player_id="console") as client:
        state_path = single_state_path(client, {"build": {"recipe": recipe, "dependencies": [], "part_id": None}})
        state = BatchState.load(state_path, server=client.server, project_id=None)
    state_path.parent.mkdir(parents=True, exist_ok=True)
    log = PlanLog(state, WRITE)  # what an earlier run recorded before its build_apply's answer was lost
    entry = log.add(PlanSummary(plan_id="00000000-0000-0000-0000-000000000001", plan_hash="0" * 64))
    log.update(entry, phase="applying", idempotency_key="mcb-gone")
    result = mcb("build", path, "--json")
    assert result.exit_code == 0, result.stderr
    assert "repeating build_apply with the same idempotency key mcb-gone" in result.stderr  # it did try first
    assert result.json()["operation"]["status"] == "applied"
    assert not state_path.exists() and _operations(rpc_env).operations_total == 1


def test_an_unwritable_state_dir_warns_and_still_builds(mcb, rpc_env, tmp_path, monkeypatch):
    blocked = tmp_path / "state-is-a-file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))  # mkdir below a regular file fails
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0)))
    result = mcb("build", recipe)
    assert result.exit_code == 0, result.stderr
    assert "warning: cannot remember plan" in result.stderr and "mcb apply" in result.stderr
    assert result.stderr.count("cannot remember plan") == 1
