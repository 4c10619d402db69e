"""§1.5-1.6 scope and capabilities, §3.1 project_context, §3.4 region_inspect, §3.5 region_changes."""

from __future__ import annotations

import pytest
from server_rpc import Rpc, box, pos

from mcb.server.testing import run_server


def test_project_scope_defaults_and_must_match(rpc):
    assert rpc.call("project_context", project_id="default")["project_id"] == "default"
    assert rpc.error("project_context", project_id="other") == (403, "permission_denied", "Unknown project scope")


def test_player_must_be_owner_or_console(rpc, server):
    owner_only = "Only the bound project owner can use this capability; run /ai setup"
    assert rpc.error("project_context", player_id="00000000-0000-0000-0000-000000000000") == (
        403,
        "permission_denied",
        owner_only,
    )
    assert rpc.error("region_changes", player_id=None)[2] == owner_only
    assert rpc.call("project_context", player_id=server.owner_uuid)["world_id"] == server.world_id


def test_owner_offline_is_refused_for_owner_but_not_console(rpc, server):
    rpc.admin("test_set_owner_online", online=False)
    assert rpc.error("project_context", player_id=server.owner_uuid) == (
        403,
        "permission_denied",
        "Owner is offline or permission was revoked",
    )
    assert rpc.call("project_context")["project_id"] == "default"  # local automation skips the online check


def test_console_refused_without_local_automation(tmp_path):
    with run_server(
        tmp_path / "s",
        allow_local_automation=False,
        owner_uuid="0f6c3a6e-8a39-4a5b-9d4e-2f3f0d0c0a01",
        project_id="castle",
    ) as handle:
        client = Rpc(handle)
        try:
            assert client.error("project_context")[1] == "permission_denied"
            ok = client.call("project_context", player_id="0f6c3a6e-8a39-4a5b-9d4e-2f3f0d0c0a01")
            assert ok["project_id"] == "castle"
            # with local automation off the write guard also checks the owner is online
            plan = client.prepare([box((0, 70, 0), (0, 70, 0), "minecraft:stone")], player_id=handle.owner_uuid)
            client.admin("test_set_owner_online", online=False)
            assert (
                client.error(
                    "build_apply",
                    player_id=handle.owner_uuid,
                    plan_id=plan["plan_id"],
                    plan_hash=plan["plan_hash"],
                    idempotency_key="k",
                )[1]
                == "permission_denied"
            )
        finally:
            client.close()


def test_recovery_methods_need_admin(rpc):
    for method in ("recovery_review", "recovery_abandon"):
        assert rpc.error(method, operation_id="x") == (
            403,
            "permission_denied",
            "Recovery requires explicit administrator capability",
        )


def test_test_hooks_need_admin_and_the_flag(rpc, tmp_path):
    assert rpc.error("test_set_owner_online", online=False)[:2] == (403, "permission_denied")
    with run_server(tmp_path / "plain", test_hooks=False) as handle:
        client = Rpc(handle, token="admin")
        try:
            assert client.error("test_set_owner_online", online=False)[1] == "unsupported_method"
        finally:
            client.close()


def test_project_context_shape(rpc, server):
    context = rpc.call("project_context")
    assert len(context) == 18
    assert context["schema_version"] == 1 and context["checked_expected_blocks"] is True
    assert context["region"] == {"worldId": server.world_id, "min": pos(-64, 0, -64), "max": pos(64, 128, 64)}
    assert context["max_plan_blocks"] == 4096
    assert len(context["capabilities"]) == 18 and "project_context" not in context["capabilities"]
    assert len(context["limitations"]) == 7
    assert context["recipe"] == {"version": 1, "operations": ["box", "line", "cylinder", "repeat"]}
    assert (context["parts"], context["parts_total"], context["operations"], context["truncated"]) == ([], 0, [], False)
    assert set(context["material_catalog"]) == {
        "version",
        "materials",
        "blocks",
        "items",
        "search_default_limit",
        "search_max_limit",
    }


def test_project_context_lists_recent_operations_first(rpc):
    first = rpc.build([box((0, 70, 0), (1, 70, 0), "minecraft:stone")], "a")
    second = rpc.build([box((0, 71, 0), (0, 71, 0), "minecraft:dirt")], "b")
    operations = rpc.call("project_context")["operations"]
    assert [o["operation_id"] for o in operations] == [second["operation_id"], first["operation_id"]]
    assert operations[1] == {
        "operation_id": first["operation_id"],
        "plan_id": first["plan_id"],
        "status": "applied",
        "written": 2,
        "total_changes": 2,
    }


def test_region_inspect_summary_and_blocks(rpc, server):
    summary = rpc.call("region_inspect", min=pos(0, 62, 0), max=pos(1, 64, 1))
    assert summary["palette"] == {"minecraft:air": 4, "minecraft:dirt": 4, "minecraft:grass_block[snowy=false]": 4}
    assert list(summary["palette"]) == sorted(summary["palette"])
    assert summary["blocks"] == [] and summary["truncated"] is False
    assert summary["region"] == {"worldId": server.world_id, "min": pos(0, 62, 0), "max": pos(1, 64, 1)}
    detail = rpc.call("region_inspect", min=pos(0, 63, 0), max=pos(1, 64, 1), detail="blocks")
    order = [(b["pos"]["y"], b["pos"]["z"], b["pos"]["x"]) for b in detail["blocks"]]
    assert order == sorted(order) and len(order) == 8
    assert detail["blocks"][0] == {"state": "minecraft:grass_block[snowy=false]", "pos": pos(0, 63, 0)}
    # loose integers: "5", 5.0
    loose = rpc.call("region_inspect", min={"x": "0", "y": 64.0, "z": 0}, max={"x": 0, "y": "64", "z": 0})
    assert loose["palette"] == {"minecraft:air": 1}


@pytest.mark.parametrize(
    "low,high,code,message",
    [
        ((1, 64, 0), (0, 64, 0), "invalid_request", "Invalid inclusive region bounds"),
        ((0, 64, 0), (65, 64, 0), "out_of_bounds", "Read exceeds project area"),
        ((0, 0, 0), (15, 16, 15), "budget_exceeded", "Read at most 4096 blocks per request"),
    ],
)
def test_region_inspect_errors_in_order(rpc, low, high, code, message):
    assert rpc.error("region_inspect", min=pos(*low), max=pos(*high)) == (400, code, message)


def test_region_inspect_bad_coordinates(rpc):
    for bad in (
        {"x": 0.5, "y": 64, "z": 0},
        {"x": True, "y": 64, "z": 0},
        {"x": 0, "y": 64},
        {"x": 2**31, "y": 0, "z": 0},
    ):
        status, code, message = rpc.error("region_inspect", min=bad, max=pos(0, 64, 0))
        assert (status, code) == (400, "invalid_request") and message.startswith("Integer coordinate required")


def test_region_inspect_unloaded_chunk_and_world_height(tmp_path):
    with run_server(
        tmp_path / "s", loaded_chunk_radius=0, region_min=(-64, -70, -64), region_max=(64, 128, 64)
    ) as handle:
        client = Rpc(handle)
        try:
            assert client.error("region_inspect", min=pos(16, 64, 0), max=pos(16, 64, 0)) == (
                400,
                "chunk_not_loaded",
                "Visit/load the target chunks before editing",
            )
            assert client.call("region_inspect", min=pos(15, 64, 0), max=pos(15, 64, 0))["palette"]
            assert client.error("region_inspect", min=pos(0, -70, 0), max=pos(0, -65, 0)) == (
                400,
                "out_of_bounds",
                "Position exceeds world height",
            )
            client.admin("test_set_chunk_loaded", chunk={"x": 1, "z": 0}, loaded=True)
            assert client.call("region_inspect", min=pos(16, 64, 0), max=pos(16, 64, 0))["palette"]
        finally:
            client.close()


def test_world_border(tmp_path):
    with run_server(tmp_path / "s", world_border=100, region_min=(-200, 0, -200), region_max=(200, 128, 200)) as h:
        client = Rpc(h)
        try:
            assert client.call("region_inspect", min=pos(99, 64, -100), max=pos(99, 64, -100))["palette"]
            assert client.error("region_inspect", min=pos(100, 64, 0), max=pos(100, 64, 0)) == (
                400,
                "out_of_bounds",
                "Position exceeds world border",
            )
            assert client.error(
                "build_prepare", recipe={"version": 1, "operations": [box((99, 70, 0), (99, 70, 0), "minecraft:stone")]}
            )[1:] == ("out_of_bounds", "Position exceeds world border")  # the neighbour at x=100 is beyond the border
        finally:
            client.close()
