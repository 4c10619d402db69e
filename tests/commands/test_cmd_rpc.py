"""Every RPC command against a live `mcb serve` over HTTP: what a user sees on stdout/stderr and the exit code."""

from __future__ import annotations

import json

import pytest
from rpc_testkit import box_recipe


def write_recipe(tmp_path, recipe, name="recipe.json"):
    path = tmp_path / name
    path.write_text(json.dumps(recipe))
    return path


def applied_operation(mcb, tmp_path, recipe=None):
    path = write_recipe(tmp_path, recipe or box_recipe(0, 100, 0))
    plan = mcb("prepare", path, "--json").json()
    status = mcb("apply", plan["plan_id"], plan["plan_hash"], "--wait", "--json")
    assert status.exit_code == 0, status.stderr
    return status.json()["operation_id"]


def test_health(mcb, rpc_env):
    result = mcb("health")
    assert result.exit_code == 0 and "ready" in result.stdout and rpc_env.url in result.stdout
    assert mcb("health", "--json").json()["service"] == "minecraft-builder-mcp"


def test_context_human_and_json(mcb):
    human = mcb("context")
    assert human.exit_code == 0 and "project area:    -64,0,-64 .. 64,128,64" in human.stdout
    data = mcb("context", "--json").json()
    assert data["project_id"] == "default" and data["operations_total"] == 0 and "build_prepare" in data["capabilities"]


def test_inspect_palette_and_blocks(mcb, tmp_path):
    applied_operation(mcb, tmp_path)
    human = mcb("inspect", "--min", "0,100,0", "--max", "2,102,2")
    assert human.exit_code == 0
    assert "27     minecraft:stone_bricks" in human.stdout.splitlines()
    data = mcb("inspect", "--min", "0,100,0", "--max", "1,100,0", "--blocks", "--json").json()
    assert [b["pos"] for b in data["blocks"]] == [{"x": 0, "y": 100, "z": 0}, {"x": 1, "y": 100, "z": 0}]


def test_inspect_bad_position_is_a_usage_error(mcb):
    result = mcb("inspect", "--min", "0,100", "--max", "1,1,1")
    assert result.exit_code == 2 and "--min expects x,y,z" in result.stderr


def test_inspect_outside_area_is_a_server_error(mcb):
    result = mcb("inspect", "--min", "0,100,0", "--max", "500,100,0")
    assert result.exit_code == 5 and "out_of_bounds" in result.stderr and "Traceback" not in result.stderr


def test_changes(mcb):
    assert mcb("changes", "--json").json()["status"] == "resync_required"


def test_prepare_from_file_and_stdin_and_saved_plan(mcb, tmp_path):
    recipe = box_recipe(0, 100, 0)
    human = mcb("prepare", write_recipe(tmp_path, recipe), "-o", tmp_path / "plan.json")
    assert human.exit_code == 0 and "changed blocks: 27" in human.stdout and "plan hash:" in human.stdout
    saved = json.loads((tmp_path / "plan.json").read_text())
    assert saved["changed_blocks"] == 27 and len(saved["plan_hash"]) == 64
    piped = mcb("prepare", "-", "--json", input=json.dumps(recipe)).json()
    assert piped["changed_blocks"] == 27 and piped["plan_id"] != saved["plan_id"]


def test_prepare_with_dependency_part_and_expected(mcb, tmp_path):
    operation = applied_operation(mcb, tmp_path)
    part = mcb("part", "define", "cube", operation, "--json").json()
    # A larger box than the recipe: prepare keeps only the recipe's positions (the server wants exactly those).
    before = mcb("inspect", "--min", "0,100,0", "--max", "3,103,3", "--blocks", "--json")
    (tmp_path / "before.json").write_text(before.stdout)
    patch = write_recipe(tmp_path, box_recipe(0, 100, 0, block="minecraft:oak_planks"), "patch.json")
    result = mcb(
        "prepare",
        patch,
        "--part",
        part["part_id"],
        "--expected",
        tmp_path / "before.json",
        "--dependency",
        "0,99,0",
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    assert result.json()["changed_blocks"] == 27
    mcb(
        "rpc",
        "test_set_blocks",
        '{"blocks":[{"pos":{"x":0,"y":100,"z":0},"state":"minecraft:dirt"}]}',
        "--admin",
        "--no-scope",
    )
    stale = mcb("prepare", patch, "--expected", tmp_path / "before.json")
    assert stale.exit_code == 7 and "stale_snapshot" in stale.stderr


def test_prepare_bad_recipe_file(mcb, tmp_path):
    (tmp_path / "bad.json").write_text("{oops")
    assert mcb("prepare", tmp_path / "bad.json").exit_code == 1
    assert mcb("prepare", tmp_path / "missing.json").exit_code == 1
    server_side = mcb("prepare", write_recipe(tmp_path, {"version": 2, "operations": []}))
    assert server_side.exit_code == 5 and "invalid_request" in server_side.stderr


def test_apply_plan_file_prints_key_and_replays(mcb, tmp_path):
    mcb("prepare", write_recipe(tmp_path, box_recipe(0, 100, 0)), "-o", tmp_path / "plan.json")
    plan = json.loads((tmp_path / "plan.json").read_text())
    first = mcb("apply", tmp_path / "plan.json", "--json")
    assert first.exit_code == 0 and f"idempotency key: mcb-{plan['plan_id']}" in first.stderr
    again = mcb("apply", tmp_path / "plan.json", "--wait", "--json")
    assert again.json()["operation_id"] == first.json()["operation_id"] and again.json()["status"] == "applied"
    assert mcb("context", "--json").json()["operations_total"] == 1


def test_apply_with_explicit_key_and_human_output(mcb, tmp_path):
    plan = mcb("prepare", write_recipe(tmp_path, box_recipe(0, 100, 0)), "--json").json()
    result = mcb("apply", plan["plan_id"], plan["plan_hash"], "--idempotency-key", "my-key", "--wait")
    assert result.exit_code == 0 and "status:    applied" in result.stdout and "my-key" in result.stderr


def test_apply_errors(mcb, tmp_path):
    assert mcb("apply", "not-a-file-or-hash").exit_code == 2
    plan = mcb("prepare", write_recipe(tmp_path, box_recipe(0, 100, 0)), "--json").json()
    stale = mcb("apply", plan["plan_id"], "0" * 64)
    assert stale.exit_code == 7 and "stale_snapshot" in stale.stderr


def test_apply_wait_conflict_exit_7(mcb, tmp_path):
    plan = mcb("prepare", write_recipe(tmp_path, box_recipe(0, 100, 0)), "--json").json()
    mcb(
        "rpc",
        "test_set_blocks",
        '{"blocks":[{"pos":{"x":2,"y":102,"z":2},"state":"minecraft:dirt"}]}',
        "--admin",
        "--no-scope",
    )
    result = mcb("apply", plan["plan_id"], plan["plan_hash"], "--wait", "--json")
    assert result.exit_code == 7 and result.json()["status"] == "conflict" and "2,102,2" in result.stderr


def test_status_cancel_and_wait(slow_mcb, tmp_path):
    plan = slow_mcb("prepare", write_recipe(tmp_path, box_recipe(0, 100, 0, size=10)), "--json").json()
    started = slow_mcb("apply", plan["plan_id"], plan["plan_hash"], "--json").json()
    cancelled = slow_mcb("cancel", started["operation_id"], "--json")
    assert cancelled.exit_code == 0 and cancelled.json()["operation_id"] == started["operation_id"]
    final = slow_mcb("status", started["operation_id"], "--wait", "--wait-timeout", "20", "--json")
    assert final.json()["status"] == "cancelled" and final.exit_code == 1
    assert "can revert them" in final.stderr
    shown = slow_mcb("status", started["operation_id"])
    assert shown.exit_code == 0 and "status:    cancelled" in shown.stdout


def test_status_wait_timeout_exit_6(slow_mcb, tmp_path):
    plan = slow_mcb("prepare", write_recipe(tmp_path, box_recipe(0, 100, 0, size=10)), "--json").json()
    started = slow_mcb("apply", plan["plan_id"], plan["plan_hash"], "--json").json()
    result = slow_mcb("status", started["operation_id"], "--wait", "--wait-timeout", "0.2")
    assert result.exit_code == 6 and "--wait" in result.stderr


def test_status_unknown_operation(mcb):
    result = mcb("status", "00000000-0000-0000-0000-000000000000")
    assert result.exit_code == 5 and "Unknown operation" in result.stderr


def test_undo_prepare_and_apply(mcb, tmp_path):
    operation = applied_operation(mcb, tmp_path)
    plan = mcb("undo", operation, "-o", tmp_path / "undo.json", "--json").json()
    assert plan["changed_blocks"] == 27 and (tmp_path / "undo.json").exists()
    done = mcb("undo", operation, "--apply", "--json")
    assert done.exit_code == 0, done.stderr
    assert done.json()["operation"]["status"] == "applied"
    palette = mcb("inspect", "--min", "0,100,0", "--max", "2,102,2", "--json").json()["palette"]
    assert "minecraft:stone_bricks" not in palette


def test_part_define_and_get(mcb, tmp_path):
    operation = applied_operation(mcb, tmp_path)
    defined = mcb("part", "define", "tower", operation, "--json").json()
    assert defined["block_count"] == 27
    shown = mcb("part", "get", defined["part_id"])
    assert shown.exit_code == 0 and "name:      tower" in shown.stdout and "0,100,0 .. 2,102,2" in shown.stdout
    assert mcb("part", "get", "nope").exit_code == 5


def test_material_search_describe(mcb):
    page = mcb("material", "search", "oak", "stairs", "--json").json()
    assert "minecraft:oak_stairs" in [r["id"] for r in page["results"]]
    everything = mcb("material", "search", "stone", "--limit", "5", "--all", "--json").json()
    assert len(everything["results"]) == everything["total"] > 5
    assert mcb("material", "search", "x", "--kind", "nope").exit_code == 2
    described = mcb("material", "describe", "minecraft:oak_stairs", "--json").json()
    assert "facing" in described["properties"]
    assert mcb("material", "describe", "minecraft:not_a_block").exit_code == 5


def test_export_asset_list_and_import_prepare(mcb, tmp_path):
    applied_operation(
        mcb,
        tmp_path,
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
        },
    )
    exported = mcb("export", "stairs row", "--min", "0,100,0", "--max", "2,100,0", "--json")
    if exported.exit_code == 5 and "asset_codec" in exported.stderr:
        pytest.skip("server schematic export not available yet")
    asset = exported.json()
    assert asset["name"] == "stairs row" and asset["width"] == 3
    listed = mcb("asset", "list", "--query", "STAIRS", "--json").json()
    assert [a["assetId"] for a in listed["assets"]] == [asset["assetId"]]
    shown = mcb("asset", "list", "--query", "STAIRS")  # before: "3×1×1" under "size (w×h×l)"
    assert "size (W x H x L)" in shown.stdout and "3 x 1 x 1" in shown.stdout and "×" not in shown.stdout
    plan = mcb("import-prepare", asset["assetId"], "--target", "10,100,10", "--rotation", "90", "--json").json()
    assert plan["changed_blocks"] == 3
    assert mcb("import-prepare", asset["assetId"], "--target", "1,1,1", "--rotation", "45").exit_code == 2


def test_camera_list_and_unavailable_capture(mcb, tmp_path):
    listed = mcb("camera", "list", "--json").json()
    assert listed["configured"] is False and listed["cameras"] == []
    saved = mcb(
        "rpc",
        "test_camera_save",
        '{"name":"front-gate-overview","x":0,"y":80,"z":-20,"yaw":0,"pitch":30}',
        "--admin",
        "--no-scope",
    )
    assert saved.exit_code == 0, saved.stderr  # the hook stands in for `/ai camera save`
    human = mcb("camera", "list")
    assert "front-gate-overview" in human.stdout and "configured: no" in human.stdout
    configured = mcb(
        "rpc",
        "test_camera_config",
        '{"camera_player_uuid":"0f6c3a6e-8a39-4a5b-9d4e-2f3f0d0c0a01","online":false}',
        "--admin",
        "--no-scope",
    )
    assert configured.exit_code == 0
    by_name = mcb("camera", "capture", "--camera", "front-gate-overview", "-o", tmp_path / "shot.png")
    assert by_name.exit_code == 5 and "offline" in by_name.stderr
    mcb("rpc", "test_camera_config", '{"camera_player_uuid":""}', "--admin", "--no-scope")
    result = mcb("camera", "capture", "--pose", "0,80,0,0,30", "-o", tmp_path / "shot.png")
    assert result.exit_code == 5 and "camera_unavailable" in result.stderr
    assert not (tmp_path / "shot.png").exists()
    assert mcb("camera", "capture", "-o", tmp_path / "x.png").exit_code == 2


def test_chat_poll_and_reply_warn_about_auto_cancel(mcb):
    mcb("rpc", "test_chat_enqueue", '{"text":"build a tower"}', "--admin", "--no-scope")
    polled = mcb("chat", "poll", "--client-id", "tests", "--json")
    assert polled.exit_code == 0 and "cancels every running operation" in polled.stderr
    message = polled.json()["messages"][0]
    assert message["text"] == "build a tower"
    reply = mcb("chat", "reply", message["id"], "--player", message["playerId"], "--text", "ok", "--done", "--json")
    assert reply.exit_code == 0 and "delivered" in reply.json()


def test_chat_needs_the_admin_token(mcb, monkeypatch):
    monkeypatch.delenv("MCB_TOKEN")
    result = mcb("chat", "poll", "--client-id", "tests")
    assert result.exit_code == 4 and "admin token" in result.stderr


def test_recovery_review_of_healthy_operation_and_digest_check(mcb, tmp_path):
    operation = applied_operation(mcb, tmp_path)
    review = mcb("recovery", "review", operation)
    assert review.exit_code == 5 and "does not require recovery" in review.stderr
    assert mcb("recovery", "abandon", operation, "--digest", "xyz").exit_code == 2


def test_an_admin_method_without_admin_says_to_add_it(mcb):
    result = mcb("rpc", "test_set_blocks", '{"blocks":[]}', "--no-scope")
    assert result.exit_code == 4 and "administrator capability" in result.stderr
    assert "hint: add --admin" in result.stderr


def test_rpc_raw(mcb):
    result = mcb("rpc", "region_inspect", '{"min":{"x":0,"y":100,"z":0},"max":{"x":1,"y":100,"z":0}}')
    assert result.exit_code == 0 and json.loads(result.stdout)["palette"] == {"minecraft:air": 2}
    piped = mcb("rpc", "material_search", "-", input='{"query":"oak_log","limit":1}')
    assert json.loads(piped.stdout)["results"][0]["id"].endswith("oak_log")
    assert mcb("rpc", "project_context", "[1]").exit_code == 2
    assert mcb("rpc", "Bad-Name").exit_code == 2
    unknown = mcb("rpc", "nope_method", "--json")
    assert unknown.exit_code == 5 and json.loads(unknown.stderr)["error"]["code"] == "unsupported_method"


def test_undo_after_a_player_edit_is_a_conflict(mcb, tmp_path):
    operation = applied_operation(mcb, tmp_path)
    mcb(
        "rpc",
        "test_set_blocks",
        '{"blocks":[{"pos":{"x":1,"y":100,"z":1},"state":"minecraft:dirt"}]}',
        "--admin",
        "--no-scope",
    )
    result = mcb("undo", operation, "--json")
    assert result.exit_code == 7
    error = json.loads(result.stderr)["error"]
    assert error["code"] == "invalid_request" and error["details"]["reason"] == "undo_conflict"


def test_camera_capture_writes_the_picture(mcb, tmp_path):
    assert (
        mcb(
            "rpc",
            "test_camera_config",
            '{"camera_player_uuid":"0f6c3a6e-8a39-4a5b-9d4e-2f3f0d0c0a01"}',
            "--admin",
            "--no-scope",
        ).exit_code
        == 0
    )
    shot = tmp_path / "shot.png"
    result = mcb(
        "camera", "capture", "--pose", "0.5,70,-20.5,0,20", "--width", "320", "--height", "180", "-o", shot, "--json"
    )
    assert result.exit_code == 0, result.stderr
    data = result.json()
    assert data["status"] == "completed" and data["image"] == str(shot) and "imageBase64" not in data
    assert (data["width"], data["height"], data["fov"]) == (320, 180, 70)
    from PIL import Image

    with Image.open(shot) as image:
        assert image.format == "PNG" and image.size == (320, 180)
    human = mcb(
        "camera",
        "capture",
        "--pose",
        "0.5,70,-20.5,0,20",
        "--width",
        "320",
        "--height",
        "180",
        "-o",
        tmp_path / "again.png",
    )
    assert human.exit_code == 0 and "wrote" in human.stdout and "320 x 180" in human.stdout


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
