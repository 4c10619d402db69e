"""prepare → apply → wait against a live server, including a server that goes away mid-wait."""

from __future__ import annotations

import pytest
from rpc_testkit import box_recipe

from mcb.client.workflow import apply_plan, default_idempotency_key, outcome_error, run_plan, wait_for_operation
from mcb.errors import ConflictError, NetworkError


def test_run_plan_applies_and_reports_progress(make_client):
    client = make_client()
    seen = []
    outcome = run_plan(client, lambda: client.build_prepare(box_recipe(0, 100, 0, size=4)), on_progress=seen.append)
    assert outcome.status.status == "applied" and outcome.status.written == 64
    assert outcome.idempotency_key == default_idempotency_key(outcome.plan.plan_id)
    assert seen[-1].status == "applied" and all(s.operation_id == outcome.status.operation_id for s in seen)
    inspected = client.region_inspect((0, 100, 0), (3, 103, 3))
    assert inspected.palette == {"minecraft:stone_bricks": 64}


def test_dry_run_writes_nothing(make_client):
    client = make_client()
    outcome = run_plan(client, lambda: client.build_prepare(box_recipe(0, 100, 0)), dry_run=True)
    assert outcome.status is None and outcome.plan.changed_blocks == 27
    assert client.project_context().operations_total == 0


def test_apply_twice_with_the_default_key_is_one_operation(make_client):
    client = make_client()
    plan = client.build_prepare(box_recipe(0, 100, 0))
    first = apply_plan(client, plan)
    second = apply_plan(client, plan)
    assert first.operation_id == second.operation_id
    assert client.project_context().operations_total == 1


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
    status = apply_plan(client, plan)
    assert status.status == "conflict"
    error = outcome_error(status)
    assert isinstance(error, ConflictError) and "1,101,1" in error.message


def test_wait_timeout_is_a_network_error(tmp_path):
    from mcb.client import McbClient
    from mcb.server.testing import run_server

    with run_server(tmp_path / "slow", tick_ms=1000) as server:
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
            plan = client.build_prepare(box_recipe(0, 100, 0, size=8))
            started = client.build_apply(plan.plan_id, plan.plan_hash, "slow-1")
            with pytest.raises(NetworkError) as caught:
                wait_for_operation(client, started.operation_id, timeout=0.3, interval=0.05)
    assert caught.value.code == "wait_timeout" and started.operation_id in caught.value.hint


def test_server_going_away_mid_wait_is_a_network_error_with_a_resume_hint(tmp_path):
    from mcb.client import McbClient
    from mcb.server.testing import spawn_server

    server = spawn_server(tmp_path / "gone", tick_ms=1000)
    try:
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
            plan = client.build_prepare(box_recipe(0, 100, 0, size=8))
            started = client.build_apply(plan.plan_id, plan.plan_hash, "gone-1")
            calls = []

            def kill_on_first_poll(status):
                calls.append(status)
                if len(calls) == 1:
                    server.kill()

            with pytest.raises(NetworkError) as caught:
                wait_for_operation(
                    client, started.operation_id, timeout=30, interval=0.05, on_progress=kill_on_first_poll
                )
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
            final = wait_for_operation(client, queued.operation_id, timeout=30)
            assert final.status == "applied" and client.project_context().operations_total == 2
