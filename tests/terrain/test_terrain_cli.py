"""`mcb terrain` commands: offline (lint, preview --offline, tiles) and against a live `mcb serve` over HTTP."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from terrain_cases import EXAMPLES, WIDE_RECIPE

SMALL_HILL = EXAMPLES / "small-hill.json"


def run_json(cli, *args):
    result = cli(*[str(a) for a in args])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


# -- offline ---------------------------------------------------------------------------------------------------------


def test_preview_offline_writes_png_and_prints_numbers(cli, tmp_path):
    out = tmp_path / "hill.png"
    result = cli("terrain", "preview", str(SMALL_HILL), "--offline", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert "ccd237bc1f908fbeb8db193c166cd77bbeb7ae761aad4309efb37a86e41dd037" in result.stdout
    assert "81 .. 84" in result.stdout and "1 of edge 16" in result.stdout
    assert max(Image.open(out).size) >= 256  # 8 x 8 samples, scaled up with a legend (test_preview_picture.py)
    wide = tmp_path / "wide.json"
    wide.write_text(json.dumps(WIDE_RECIPE))
    data = run_json(cli, "terrain", "preview", str(wide), "--offline", "--json")
    assert data["tile_count"] == 27_648 and data["sampled_height_min"] <= data["sampled_height_max"]
    assert data["sample_grid"] == {"width": 256, "height": 256} and data["image"] is None
    assert "imageBase64" not in data and data["picture"] is None


def test_preview_offline_errors(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(SMALL_HILL.read_text().replace('"seed": 2809', '"seed": 2809.0'))
    result = cli("terrain", "preview", str(bad), "--offline")
    assert result.exit_code == 1 and "error: seed must be an integer at /seed" in result.stderr
    assert "Traceback" not in result.stderr
    assert cli("terrain", "preview", str(SMALL_HILL), "--offline", "-r", "16").exit_code == 2
    missing = cli("terrain", "preview", str(tmp_path / "nope.json"), "--offline")
    assert missing.exit_code == 1 and "does not exist" in missing.stderr


def test_preview_offline_warns_when_literals_would_change_the_id(cli, tmp_path):
    odd = tmp_path / "odd.json"
    odd.write_text(SMALL_HILL.read_text().replace('"scale": 12', '"scale": 1.2e1'))
    result = cli("terrain", "preview", str(odd), "--offline")
    assert result.exit_code == 0 and "sent by mcb it gets the ID" in result.stderr


def test_tiles_lists_bounds_and_target_counts(cli):
    data = run_json(cli, "terrain", "tiles", str(EXAMPLES / "terraced-ridge.json"), "--budget", "512", "--json")
    assert data["tile_edge"] == 8 and data["tile_count"] == 8 * 4 * 8 == len(data["tiles"])
    from mcb.terrain.recipe import parse_recipe_text
    from mcb.terrain.tiling import tile_bounds, tile_targets

    recipe = parse_recipe_text((EXAMPLES / "terraced-ridge.json").read_text())
    for row in data["tiles"][::7]:
        assert row["targets"] == len(tile_targets(recipe, tile_bounds(recipe, row["index"], 512)))
    assert any(row["targets"] == 0 for row in data["tiles"])  # fill mode: tiles above the surface are empty
    valley = run_json(cli, "terrain", "tiles", str(EXAMPLES / "valley-lake.json"), "--start", "40", "--json")
    assert [r["index"] for r in valley["tiles"]] == [40, 41, 42, 43, 44]
    valley_recipe = parse_recipe_text((EXAMPLES / "valley-lake.json").read_text())
    cut = run_json(
        cli, "terrain", "tiles", str(EXAMPLES / "valley-lake.json"), "--start", "20", "--count", "16", "--json"
    )["tiles"]  # tiles 20 and 35 are cut by the preserve box
    for row in valley["tiles"] + cut:
        assert row["targets"] == len(tile_targets(valley_recipe, tile_bounds(valley_recipe, row["index"])))
    text = cli("terrain", "tiles", str(SMALL_HILL))
    assert "0,80,0" in text.stdout and "7,87,7" in text.stdout and "512" in text.stdout


def test_lint_clean_and_failing_files(cli, tmp_path):
    assert cli("terrain", "lint", str(EXAMPLES)).exit_code == 0
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "version": 1,\n  "min": {"x": 0, "y": 0, "z": 0},\n  "max": {"x": 0, "y": 0, "z": 0.5}\n}\n')
    result = cli("terrain", "lint", str(bad), "--format", "json")
    assert result.exit_code == 1
    diag = json.loads(result.stdout)["files"][0]["diagnostics"][0]
    assert diag["message"] == "z must be an integer" and diag["rule"] == "terrain.strict-integer"
    assert (diag["line"], diag["column"], diag["pointer"]) == (4, 32, "/max/z")
    github = cli("terrain", "lint", str(bad), "--format", "github")
    assert "::error file=" in github.stdout and "line=4" in github.stdout


def test_lint_warnings_need_strict(cli, tmp_path):
    warn = tmp_path / "warn.json"
    recipe = json.loads(SMALL_HILL.read_text())
    recipe["features"].append({"type": "hill", "center": {"x": 500, "z": 500}, "radius": 2, "height": 5, "falloff": 3})
    warn.write_text(json.dumps(recipe, indent=1).replace('"scale": 12', '"scale": 12.0'))
    lenient = cli("terrain", "lint", str(warn), "-f", "json")
    assert lenient.exit_code == 0
    rules = {d["rule"] for d in json.loads(lenient.stdout)["files"][0]["diagnostics"]}
    assert rules == {"terrain.number.literal", "terrain.feature.outside"}
    assert cli("terrain", "lint", str(warn), "--strict").exit_code == 1


def test_lint_brush_and_syntax(cli, tmp_path):
    brush = tmp_path / "brush.json"
    brush.write_text((EXAMPLES / "raise-brush.json").read_text().replace('"amount": 3', '"amount": 3, "height": 2'))
    result = cli("terrain", "lint", str(brush), "-f", "json")
    diag = json.loads(result.stdout)["files"][0]["diagnostics"][0]
    assert result.exit_code == 1 and diag["message"] == "height is only for flatten"
    assert diag["rule"] == "brush.invalid" and diag["line"] == 7
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 1,,}')
    syntax = json.loads(cli("terrain", "lint", str(broken), "-f", "json").stdout)["files"][0]["diagnostics"][0]
    assert syntax["rule"] == "terrain.json.syntax" and syntax["line"] == 1


# -- against a live server -------------------------------------------------------------------------------------------


@pytest.fixture
def server_env(tmp_path, monkeypatch):
    from mcb.server.testing import run_server

    with run_server(tmp_path / "server", tick_ms=1) as server:
        monkeypatch.setenv("MCB_SERVER", server.url)
        monkeypatch.setenv("MCB_AGENT_TOKEN", server.agent_token)
        monkeypatch.setenv("MCB_TOKEN", server.admin_token)
        monkeypatch.setenv("MCB_PLAYER_ID", "console")
        monkeypatch.chdir(tmp_path)
        yield server


def long_hill(tmp_path, **changes):
    """small-hill on the emulator's ground (grass at 63), 21 blocks long: two tiles along x."""
    recipe = json.loads(SMALL_HILL.read_text())
    recipe["min"]["y"], recipe["max"]["y"], recipe["max"]["x"], recipe["base_height"] = 64, 79, 20, 66
    recipe.update(changes)
    path = tmp_path / "hill.json"
    path.write_text(json.dumps(recipe))
    return path


def inspect(server, low, high):
    import httpx

    body = {
        "method": "region_inspect",
        "params": {
            "player_id": "console",
            "detail": "blocks",
            "min": dict(zip("xyz", low)),
            "max": dict(zip("xyz", high)),
        },
    }
    reply = httpx.post(server.url + "/v1/rpc", json=body, headers={"Authorization": f"Bearer {server.agent_token}"})
    return {(b["pos"]["x"], b["pos"]["y"], b["pos"]["z"]): b["state"] for b in reply.json()["result"]["blocks"]}


def test_preview_against_server_matches_offline(cli, server_env, tmp_path):
    hill = long_hill(tmp_path)
    online = run_json(cli, "terrain", "preview", hill, "-o", tmp_path / "online.png", "--json")
    offline = run_json(
        cli, "terrain", "preview", hill, "--offline", "-r", "128", "-o", tmp_path / "offline.png", "--json"
    )
    for key in ("terrain_id", "sampled_height_min", "sampled_height_max", "clipped_samples", "tile_count", "bounds"):
        assert online[key] == offline[key]
    a, b = (np.asarray(Image.open(tmp_path / f"{n}.png").convert("RGB")) for n in ("online", "offline"))
    cells = a[::2, ::2]  # the server's PNG as it sent it: 2 px per sample
    assert a.shape[:2] == (2 * online["sample_grid"]["height"], 2 * online["sample_grid"]["width"])
    box = offline["picture"]["map"]  # offline: the same cells scaled up inside a legend (test_preview_picture.py)
    rows, cols = cells.shape[:2]
    ys = [box["top"] + int((i + 0.5) * box["height"] / rows) for i in range(rows)]
    xs = [box["left"] + int((j + 0.5) * box["width"] / cols) for j in range(cols)]
    assert np.array_equal(b[np.array(ys)[:, None], np.array(xs)[None, :]], cells)


def test_prepare_one_tile_and_all_tiles_resumable(cli, server_env, tmp_path):
    hill = long_hill(tmp_path)
    tid = run_json(cli, "terrain", "preview", hill, "--json")["terrain_id"]
    plan = run_json(cli, "terrain", "prepare", tid, "0", "--json")
    assert plan["changed_blocks"] > 0 and plan["tile_bounds"]["max"]["x"] == 15
    state = tmp_path / "run.state.json"
    first = run_json(cli, "terrain", "prepare", tid, "--all", "--apply", "--state", state, "--json")
    assert first["status"] == "completed" and [t["result"] for t in first["tiles"]] == ["applied", "applied"]
    world = inspect(server_env, (0, 64, 0), (20, 79, 7))
    again = run_json(cli, "terrain", "prepare", tid, "--all", "--apply", "--state", state, "--json")
    assert [t["result"] for t in again["tiles"]] == ["already_done", "already_done"]
    assert [t["operation_id"] for t in again["tiles"]] == [t["operation_id"] for t in first["tiles"]]
    assert inspect(server_env, (0, 64, 0), (20, 79, 7)) == world
    fresh = run_json(cli, "terrain", "prepare", tid, "--all", "--apply", "--state", tmp_path / "b.json", "--json")
    assert [t["result"] for t in fresh["tiles"]] == ["nothing_to_change", "nothing_to_change"]  # empty tiles


def test_all_tiles_stop_at_protected_block_then_resume(cli, server_env, tmp_path):
    import httpx

    hill = long_hill(tmp_path)
    tid = run_json(cli, "terrain", "preview", hill, "--json")["terrain_id"]
    body = {
        "method": "test_set_blocks",
        "params": {"blocks": [{"pos": {"x": 18, "y": 64, "z": 2}, "state": "minecraft:gold_block"}]},
    }
    httpx.post(server_env.url + "/v1/rpc", json=body, headers={"Authorization": f"Bearer {server_env.admin_token}"})
    state = tmp_path / "s.json"
    stopped = cli("terrain", "prepare", tid, "--all", "--apply", "--state", str(state), "--json")
    assert stopped.exit_code == 5
    data = json.loads(stopped.stdout)
    assert data["status"] == "stopped" and data["tiles"][0]["result"] == "applied"
    assert data["error"]["code"] == "protected_terrain" and "at 18,64,2;" in data["error"]["message"]
    body["params"]["blocks"][0]["state"] = "minecraft:air"
    httpx.post(server_env.url + "/v1/rpc", json=body, headers={"Authorization": f"Bearer {server_env.admin_token}"})
    resumed = run_json(cli, "terrain", "prepare", tid, "--all", "--apply", "--state", state, "--json")
    assert [t["result"] for t in resumed["tiles"]] == ["already_done", "applied"]


def test_forgotten_id_needs_the_recipe(cli, server_env, tmp_path):
    hill = long_hill(tmp_path)
    tid = run_json(cli, "terrain", "preview", hill, "--offline", "--json")["terrain_id"]  # never sent
    missing = cli("terrain", "prepare", tid, "0")
    assert missing.exit_code == 5 and "call terrain_preview again" in missing.stderr
    ok = run_json(cli, "terrain", "prepare", tid, "0", "--recipe", hill, "--json")
    assert ok["terrain_id"] == tid
    other = long_hill(tmp_path, seed=1)
    wrong = cli("terrain", "prepare", tid, "0", "--recipe", str(other))
    assert wrong.exit_code == 1 and "not " + tid in wrong.stderr
    assert cli("terrain", "prepare", tid).exit_code == 2  # neither TILE nor --all


def test_brush_image_and_apply(cli, server_env, tmp_path):
    stroke = json.loads((EXAMPLES / "raise-brush.json").read_text())
    # the example's own stroke, moved from its hill to the origin of this flat world (grass at y 63)
    stroke.update(min={"x": -4, "y": 58, "z": -4}, max={"x": 4, "y": 70, "z": 4}, center={"x": 0, "z": 0})
    path = tmp_path / "stroke.json"
    path.write_text(json.dumps(stroke))
    preview = run_json(cli, "terrain", "brush", path, "-o", tmp_path / "stroke.png", "--json")
    assert preview["plan_state"] == "prepared" and preview["changed_columns"] == 21
    image = Image.open(tmp_path / "stroke.png")
    assert image.size == (780, 300)
    applied = run_json(cli, "terrain", "brush", path, "--apply", "--json")
    assert applied["status"] == "applied" and applied["written"] == 72
    assert inspect(server_env, (0, 66, 0), (0, 66, 0)) == {(0, 66, 0): "minecraft:grass_block[snowy=false]"}
    bad = copy.deepcopy(stroke)
    bad["radius"] = 40
    path.write_text(json.dumps(bad))
    refused = cli("terrain", "brush", str(path))
    assert refused.exit_code == 1 and "Radius must be 1..16; smoothing radius 1..3" in refused.stderr


def test_lint_bom_duplicate_keys_encoding_and_excludes(cli, tmp_path):
    folder = tmp_path / "terrain"
    folder.mkdir()
    text = SMALL_HILL.read_text()
    (folder / "bom.json").write_text("\ufeff" + text.replace('"seed": 2809,', '"seed": 1, "seed": 2809,'))
    (folder / "latin1.json").write_bytes(text.replace("minecraft:stone", "minecraft:st\u00f6ne").encode("latin-1"))
    (folder / "skip.json").write_text("not json")
    (folder / "x.schema.json").write_text("{}")
    result = cli("terrain", "lint", str(folder), "--exclude", "skip.json", "-f", "json")
    files = {Path(f["file"]).name: f for f in json.loads(result.stdout)["files"]}
    assert set(files) == {"bom.json", "latin1.json"} and result.exit_code == 1
    assert [d["rule"] for d in files["bom.json"]["diagnostics"]] == ["terrain.json.bom", "terrain.json.duplicate-key"]
    assert files["bom.json"]["diagnostics"][1]["line"] == 6
    assert files["latin1.json"]["diagnostics"][0]["rule"] == "terrain.json.encoding"


def test_lint_skips_build_recipes_with_a_warning(cli, tmp_path):
    (tmp_path / "tower.json").write_text('{"version": 1, "operations": []}')
    (tmp_path / "hill.json").write_text(SMALL_HILL.read_text())
    result = cli("terrain", "lint", str(tmp_path), "-f", "json")
    files = {Path(f["file"]).name: f for f in json.loads(result.stdout)["files"]}
    assert result.exit_code == 0 and files["hill.json"]["diagnostics"] == []
    assert [d["rule"] for d in files["tower.json"]["diagnostics"]] == ["terrain.not-terrain-recipe"]
    assert cli("terrain", "lint", str(tmp_path), "--strict").exit_code == 1


def test_terrain_tile_batch_steps(cli, server_env, tmp_path):
    hill = long_hill(tmp_path)
    tid = run_json(cli, "terrain", "preview", hill, "--offline", "--json")["terrain_id"]
    batch = tmp_path / "land.json"
    batch.write_text(
        json.dumps(
            {
                "version": 1,
                "steps": [
                    {"name": "tile-0", "kind": "terrain_tile", "recipe": "hill.json", "tile_index": 0},
                    {
                        "name": "tile-1",
                        "kind": "terrain_tile",
                        "recipe": "hill.json",
                        "terrain_id": tid,
                        "tile_index": 1,
                    },
                    {"name": "again", "kind": "terrain_tile", "terrain_id": tid, "tile_index": 1},
                ],
            }
        )
    )
    first = run_json(cli, "batch", batch, "--json")
    assert [s["result"] for s in first["steps"]] == ["applied", "applied", "nothing_to_change"]
    second = run_json(cli, "batch", batch, "--json")
    assert [s["result"] for s in second["steps"]] == ["already_done"] * 3
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version": 1, "steps": [{"name": "x", "kind": "terrain_tile", "tile_index": 0}]}))
    refused = cli("batch", str(bad))
    assert refused.exit_code == 1 and "needs `recipe` or `terrain_id`" in refused.stderr


def test_all_tiles_refuse_envelope_outside_area_and_changed_budget(cli, server_env, tmp_path):
    outside = long_hill(tmp_path)
    recipe = json.loads(outside.read_text())
    recipe["max"]["x"] = 70  # the project area ends at x = 64
    outside.write_text(json.dumps(recipe))
    tid = run_json(cli, "terrain", "preview", outside, "--offline", "--json")["terrain_id"]
    refused = cli("terrain", "prepare", tid, "--all", "--apply", "--recipe", str(outside))
    assert refused.exit_code == 1 and "is not inside the project area" in refused.stderr
    assert inspect(server_env, (0, 64, 0), (15, 64, 7)) == {
        (x, 64, z): "minecraft:air" for x in range(16) for z in range(8)
    }  # nothing written
    state = tmp_path / "budget.state.json"
    state.write_text(
        json.dumps(
            {
                "format": 1,
                "server": server_env.url,
                "project_id": None,
                "steps": {},
                "terrain_id": tid,
                "tile_budget": 512,
            }
        )
    )
    changed = cli("terrain", "prepare", tid, "--all", "--apply", "--state", str(state))
    assert changed.exit_code == 7 and "tile budget 512" in changed.stderr


def test_lint_warns_when_the_surface_misses_the_envelope(cli, tmp_path):
    high = json.loads(SMALL_HILL.read_text())
    high["min"]["y"], high["max"]["y"] = 200, 210  # surface is around 81..84
    path = tmp_path / "high.json"
    path.write_text(json.dumps(high))
    diags = json.loads(cli("terrain", "lint", str(path), "-f", "json").stdout)["files"][0]["diagnostics"]
    assert [d["rule"] for d in diags] == ["terrain.surface.clipped"]
    assert "(81..84) is below the envelope's Y range 200..210" in diags[0]["message"]


def test_tiles_cut_mode_counts_air_targets_only(cli, tmp_path):
    from mcb.terrain.heightfield import envelope_heights
    from mcb.terrain.recipe import parse_recipe_text

    cut = json.loads(SMALL_HILL.read_text())
    cut["mode"] = "cut"
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(cut))
    rows = run_json(cli, "terrain", "tiles", path, "--json")["tiles"]
    heights = envelope_heights(parse_recipe_text(json.dumps(cut)))
    assert rows[0]["targets"] == int(sum(87 - min(max(h, 79), 87) for h in heights.ravel())) == 512 - 201


def test_all_tiles_after_the_server_forgot_the_recipe(cli, server_env, tmp_path):
    hill = long_hill(tmp_path)
    tid = run_json(cli, "terrain", "preview", hill, "--offline", "--json")["terrain_id"]
    forgotten = cli("terrain", "prepare", tid, "--all", "--apply", "--state", str(tmp_path / "f.json"))
    assert forgotten.exit_code == 5 and "pass --recipe FILE" in forgotten.stderr
    done = run_json(
        cli, "terrain", "prepare", tid, "--all", "--apply", "--recipe", hill, "--state", tmp_path / "f.json", "--json"
    )
    assert [t["result"] for t in done["tiles"]] == ["applied", "applied"]
