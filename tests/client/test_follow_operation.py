"""Following an operation against a live server (mcb.client.operations): to its end, at the plugin's pace, through a
busy world, and with a resume hint when the server goes away mid-wait."""

from __future__ import annotations

import pytest
from rpc_testkit import FaultProxy, box_recipe

from mcb.client.operations import default_idempotency_key, follow_operation, outcome_error, plan_ticks
from mcb.errors import ConflictError, NetworkError
from mcb.waiting import WaitPolicy


def _apply(client, recipe):
    plan = client.build_prepare(recipe)
    return plan, client.build_apply(plan.plan_id, plan.plan_hash, default_idempotency_key(plan.plan_id))


def test_follow_reports_every_status_and_ends_applied(make_client):
    client = make_client()
    plan, started = _apply(client, box_recipe(0, 100, 0, size=4))
    seen = []
    final = follow_operation(client, started.operation_id, on_status=seen.append, first=started)
    assert final.status == "applied" and final.written == 64
    assert seen[0] == started and seen[-1] == final
    assert all(s.operation_id == started.operation_id for s in seen)
    assert client.region_inspect((0, 100, 0), (3, 103, 3)).palette == {"minecraft:stone_bricks": 64}


def test_a_plan_is_followed_with_a_handful_of_polls_at_the_plugins_pace(tmp_path):
    """A 4,096-position plan takes 129 ticks: at 20 ms a tick (2.6 s) the follower learns the pace and asks about
    once a second and near the end, not every 100 ms (26 polls or more before)."""
    from mcb.client import McbClient
    from mcb.server.testing import run_server

    with run_server(tmp_path / "paced", tick_ms=20) as server, FaultProxy(server.url) as proxy:
        with McbClient(proxy.url, agent_token=server.agent_token, player_id="console") as client:
            plan, started = _apply(client, box_recipe(0, 100, 0, size=16))
            assert plan.changed_blocks == 4096 and plan_ticks(4096) == 129
            final = follow_operation(client, started.operation_id, first=started)
    assert final.status == "applied"
    assert proxy.methods().count("operation_status") <= 12


def test_conflict_outcome_maps_to_conflict_error(live_server, make_client):
    client = make_client()
    plan = client.build_prepare(box_recipe(0, 100, 0))
    # A player edits a planned block before the plan is applied (server test hook, admin only).
    client.call(
        "test_set_blocks",
        {"blocks": [{"pos": {"x": 1, "y": 101, "z": 1}, "state": "minecraft:dirt"}]},
        admin=True,
        scoped=False,
    )
    started = client.build_apply(plan.plan_id, plan.plan_hash, "conflict-1")
    status = follow_operation(client, started.operation_id, first=started)
    assert status.status == "conflict"
    error = outcome_error(status)
    assert isinstance(error, ConflictError) and "1,101,1" in error.message


def test_wait_timeout_is_a_network_error(tmp_path):
    from mcb.client import McbClient
    from mcb.server.testing import run_server

    with run_server(tmp_path / "slow", tick_ms=200) as server:
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
            plan, started = _apply(client, box_recipe(0, 100, 0, size=8))
            with pytest.raises(NetworkError) as caught:
                follow_operation(client, started.operation_id, WaitPolicy(timeout=0.3))
    assert caught.value.code == "wait_timeout" and started.operation_id in caught.value.hint


def test_server_going_away_mid_wait_is_a_network_error_with_a_resume_hint(tmp_path):
    from mcb.client import McbClient
    from mcb.server.testing import spawn_server

    server = spawn_server(tmp_path / "gone", tick_ms=200)
    try:
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
            plan, started = _apply(client, box_recipe(0, 100, 0, size=8))
            calls = []

            def kill_on_first_poll(status):
                calls.append(status)
                if len(calls) == 1:
                    server.kill()

            with pytest.raises(NetworkError) as caught:
                follow_operation(client, started.operation_id, on_status=kill_on_first_poll)
    finally:
        server.kill()
    assert f"mcb status {started.operation_id} --wait" in caught.value.hint


def test_second_apply_while_one_is_active_is_retried_until_the_engine_is_free(tmp_path):
    """The real server answers "busy: one active ... operation" while another applies; the client waits it out."""
    from mcb.client import McbClient
    from mcb.server.testing import run_server

    with run_server(tmp_path / "busy", tick_ms=20) as server:
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
            first = client.build_prepare(box_recipe(0, 100, 0, size=6))
            second = client.build_prepare(box_recipe(20, 100, 0, size=3))
            running = client.build_apply(first.plan_id, first.plan_hash, "busy-1")
            queued = client.build_apply(second.plan_id, second.plan_hash, "busy-2")
            assert client.transport.retries_done > 0
            assert client.operation_status(running.operation_id).terminal  # it had to finish first
            final = follow_operation(client, queued.operation_id)
            assert final.status == "applied" and client.project_context().operations_total == 2
