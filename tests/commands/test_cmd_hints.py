"""Hints that name what is known: the real operation id, the next safe step, never a guess."""

from __future__ import annotations

import json

from rpc_testkit import FaultProxy, box_recipe, free_port, interrupted_operation


def _method(request):
    return request["json"]["method"] if request["json"] else None


def test_lost_contact_while_waiting_says_what_is_known(cli, tmp_path, monkeypatch):
    """The server stops answering after the first status poll: no claim that the operation "keeps running"."""
    from mcb.server.testing import run_server

    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0, size=8)))
    state = {"dropping": False}

    def decide(request):
        if state["dropping"]:
            return "drop"  # from now on nothing reaches the server
        if _method(request) == "operation_status":
            state["dropping"] = True
        return "forward"

    with run_server(tmp_path / "server", tick_ms=150) as server, FaultProxy(server.url, decide) as proxy:
        monkeypatch.setenv("MCB_SERVER", proxy.url)
        monkeypatch.setenv("MCB_AGENT_TOKEN", server.agent_token)
        result = cli("build", str(recipe))
    assert result.exit_code == 6, result.stderr
    operation = next(r["json"]["params"]["operation_id"] for r in proxy.requests if _method(r) == "operation_status")
    assert "keeps running" not in result.stderr
    assert f"mcb status {operation} --wait" in result.stderr
    assert f"mcb recovery review {operation}" in result.stderr
    assert "may still be running or may have ended" in result.stderr


def test_undo_of_an_unknown_operation_has_a_hint(mcb):
    result = mcb("undo", "00000000-0000-0000-0000-000000000000")
    assert result.exit_code == 5
    assert "Unknown operation" in result.stderr and "hint:" in result.stderr and "mcb context" in result.stderr


def test_recovery_required_names_the_real_operation(cli, tmp_path, monkeypatch):
    with interrupted_operation(tmp_path / "server") as (server, operation):
        monkeypatch.setenv("MCB_SERVER", server.url)
        monkeypatch.setenv("MCB_AGENT_TOKEN", server.agent_token)
        recipe = tmp_path / "other.json"
        recipe.write_text(json.dumps(box_recipe(20, 100, 20)))
        result = cli("build", str(recipe))
        assert result.exit_code == 7, result.stderr
        assert f"mcb recovery abandon {operation}" in result.stderr and "OPERATION_ID" not in result.stderr


def test_apply_to_a_refused_connection_says_nothing_was_sent(cli, tmp_path):
    plan = tmp_path / "plan2.json"
    plan.write_text(json.dumps({"plan_id": "p1", "plan_hash": "h1"}))
    env = {
        "MCB_TOKEN": "t0ken-for-test",
        "MCB_PLAYER_ID": "00000000-0000-0000-0000-000000000001",
        "MCB_PROJECT_ID": "p",
    }
    result = cli("--server", f"http://127.0.0.1:{free_port()}", "--timeout", "2", "apply", str(plan), env=env)
    assert result.exit_code == 6, result.stderr
    assert "hint: nothing was sent; start the server or check --server" in result.stderr
    assert "unknown" not in result.stderr
