"""terrain_preview / terrain_prepare over real HTTP against `mcb serve` (spec §1.9, §2, §3)."""

from __future__ import annotations

import base64
import copy
import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from server_rpc import TLS

from mcb.server.testing import run_server

ROOT = Path(__file__).resolve().parents[2]
SMALL_HILL = json.loads((ROOT / "recipes/terrain/small-hill.json").read_text())
GOLD = "minecraft:gold_block"


class Rpc:
    """Minimal HTTP helper for tests that start their own server (same shape as the shared fixture's)."""

    def __init__(self, handle):
        import httpx

        self.client = httpx.Client(
            base_url=handle.url, timeout=30, verify=TLS, headers={"Authorization": f"Bearer {handle.agent_token}"}
        )

    def close(self):
        self.client.close()

    def _post(self, method, params):
        body = self.client.post("/v1/rpc", json={"method": method, "params": {"player_id": "console", **params}})
        return body.status_code, body.json()

    def call(self, method, **params):
        status, body = self._post(method, params)
        assert body["ok"], body
        return body["result"]

    def error(self, method, **params):
        status, body = self._post(method, params)
        assert not body["ok"], body
        return status, body["error"]["code"], body["error"]["message"]


def hill_at(y0=64, **changes):
    """small-hill moved to sit on the emulator's flat ground (grass at 63)."""
    recipe = copy.deepcopy(SMALL_HILL)
    recipe["min"]["y"], recipe["max"]["y"] = y0, y0 + 7
    recipe["base_height"] = y0 + 2
    recipe.update(changes)
    return recipe


def preview(rpc, recipe, **extra):
    return rpc.call("terrain_preview", recipe=recipe, **extra)


def run_tile(rpc, terrain_id, index, key):
    plan = rpc.call("terrain_prepare", terrain_id=terrain_id, tile_index=index)
    assert "status" not in plan
    status = rpc.wait(rpc.apply(plan, key)["operation_id"])
    return plan, status


def test_preview_result_and_image(rpc):
    result = preview(rpc, SMALL_HILL)
    assert result["terrain_id"] == "ccd237bc1f908fbeb8db193c166cd77bbeb7ae761aad4309efb37a86e41dd037"
    assert (result["sampled_height_min"], result["sampled_height_max"], result["tile_count"]) == (81, 84, 1)
    assert result["sample_grid"] == {"width": 8, "height": 8} and result["tile_budget"] == 4096
    image = Image.open(io.BytesIO(base64.b64decode(result["imageBase64"])))
    assert image.size == (16, 16) and image.mode == "RGB"


def test_preview_errors(rpc):
    assert rpc.error("terrain_preview", recipe=SMALL_HILL, resolution=1024) == (
        400,
        "invalid_request",
        "Resolution must be 32..256",
    )
    assert rpc.error("terrain_preview", recipe=SMALL_HILL, resolution=1.5)[2] == (
        "Integer coordinate required: resolution"
    )
    assert rpc.error("terrain_preview")[1:] == ("invalid_request", "Expected object")
    bad = dict(SMALL_HILL, seed=1.5)
    assert rpc.error("terrain_preview", recipe=bad)[1:] == ("invalid_request", "seed must be an integer")
    assert rpc.error("terrain_preview", recipe=dict(SMALL_HILL, mode="dig"))[2] == "Mode must be sculpt, fill or cut"
    # loose integer for resolution: "64" and 64.0 pass
    assert preview(rpc, SMALL_HILL, resolution="64")["sample_grid"] == {"width": 8, "height": 8}


def test_prepare_apply_then_empty_and_world_matches_offline_layers(rpc):
    from mcb.terrain.recipe import parse_recipe_text
    from mcb.terrain.tiling import tile_bounds, tile_targets

    recipe = hill_at()
    terrain_id = preview(rpc, recipe)["terrain_id"]
    plan, status = run_tile(rpc, terrain_id, 0, "hill-1")
    assert plan["tile_bounds"] == {
        "worldId": "terrain",
        "min": {"x": 0, "y": 64, "z": 0},
        "max": {"x": 7, "y": 71, "z": 7},
    }
    assert plan["terrain_id"] == terrain_id and plan["tile_index"] == 0
    assert plan["changed_blocks"] == 201 and status["status"] == "applied" and status["written"] == 201
    world = rpc.inspect_blocks((0, 64, 0), (7, 71, 7))
    offline = parse_recipe_text(json.dumps(recipe))
    expected = tile_targets(offline, tile_bounds(offline, 0))
    canonical = {"minecraft:grass_block": "minecraft:grass_block[snowy=false]"}
    assert world == {pos: canonical.get(state, state) for pos, state in expected.items()}
    again = rpc.call("terrain_prepare", terrain_id=terrain_id, tile_index=0)
    assert again == {
        "status": "empty",
        "terrain_id": terrain_id,
        "tile_index": 0,
        "tile_bounds": plan["tile_bounds"],
        "changed_blocks": 0,
        "reason": "No changed target blocks (unchanged or preserved)",
    }


def test_protected_terrain_and_preserve_box(rpc):
    rpc.set_blocks(((3, 66, 3), GOLD))
    terrain_id = preview(rpc, hill_at())["terrain_id"]
    assert rpc.error("terrain_prepare", terrain_id=terrain_id, tile_index=0) == (
        400,
        "protected_terrain",
        "Tile contains a building or non-terrain block at BlockPos[x=3, y=66, z=3]; "
        "preserve it explicitly or choose another tile",
    )
    keep = {"min": {"x": 3, "y": 66, "z": 3}, "max": {"x": 3, "y": 66, "z": 3}}
    preserved_id = preview(rpc, hill_at(preserve=[keep]))["terrain_id"]
    _, status = run_tile(rpc, preserved_id, 0, "hill-preserve")
    assert status["status"] == "applied"
    assert rpc.inspect_blocks((3, 66, 3), (3, 66, 3)) == {(3, 66, 3): GOLD}
    whole = {"min": {"x": 0, "y": 64, "z": 0}, "max": {"x": 7, "y": 71, "z": 7}}
    everything_id = preview(rpc, hill_at(preserve=[whole]))["terrain_id"]
    assert rpc.call("terrain_prepare", terrain_id=everything_id, tile_index=0)["status"] == "empty"


def test_stale_plan_conflicts_after_a_block_is_placed(rpc):
    terrain_id = preview(rpc, hill_at())["terrain_id"]
    plan = rpc.call("terrain_prepare", terrain_id=terrain_id, tile_index=0)
    rpc.set_blocks(((3, 64, 3), GOLD))
    status = rpc.wait(rpc.apply(plan, "stale")["operation_id"])
    assert status["status"] == "conflict" and status["written"] == 0


def test_prepare_errors(rpc):
    terrain_id = preview(rpc, hill_at())["terrain_id"]
    assert rpc.error("terrain_prepare", terrain_id="0" * 64, tile_index=0) == (
        400,
        "not_found",
        "Terrain recipe expired or server restarted; call terrain_preview again with the saved recipe",
    )
    assert rpc.error("terrain_prepare", tile_index=0)[1:] == ("invalid_request", "Required bounded string: terrain_id")
    assert rpc.error("terrain_prepare", terrain_id=terrain_id, tile_index=1)[1:] == (
        "invalid_request",
        "Tile index outside terrain",
    )
    assert rpc.error("terrain_prepare", terrain_id=terrain_id, tile_index=0.5)[2] == (
        "Integer coordinate required: tile_index"
    )
    outside = hill_at()
    outside["min"]["x"], outside["max"]["x"] = 200, 207
    outside_id = preview(rpc, outside)["terrain_id"]  # previews never check the project area
    assert rpc.error("terrain_prepare", terrain_id=outside_id, tile_index=0)[1:] == (
        "out_of_bounds",
        "Terrain tile exceeds current project area",
    )


def test_unloaded_chunk(rpc):
    terrain_id = preview(rpc, hill_at())["terrain_id"]
    rpc.admin("test_set_chunk_loaded", chunk={"x": 0, "z": 0}, loaded=False)
    assert rpc.error("terrain_prepare", terrain_id=terrain_id, tile_index=0)[1] == "chunk_not_loaded"


def test_cache_is_fifo_32_and_lost_on_restart(tmp_path):
    with run_server(tmp_path / "srv", tick_ms=1) as handle:
        rpc = Rpc(handle)
        ids = [preview(rpc, hill_at(seed=seed))["terrain_id"] for seed in range(32)]
        preview(rpc, hill_at(seed=0))  # re-preview does not refresh the first entry
        preview(rpc, hill_at(seed=99))
        assert rpc.error("terrain_prepare", terrain_id=ids[0], tile_index=0)[1] == "not_found"
        assert rpc.call("terrain_prepare", terrain_id=ids[1], tile_index=0)["changed_blocks"] > 0
        rpc.close()
    with run_server(tmp_path / "srv", tick_ms=1) as handle:
        rpc = Rpc(handle)
        assert rpc.error("terrain_prepare", terrain_id=ids[5], tile_index=0)[1] == "not_found"
        rpc.close()


def test_tile_budget_follows_max_plan_blocks(tmp_path):
    with run_server(tmp_path / "srv", tick_ms=1, max_plan_blocks=512) as handle:
        rpc = Rpc(handle)
        result = preview(rpc, hill_at())
        assert (result["tile_budget"], result["tile_edge"], result["tile_count"]) == (512, 8, 1)
        wide = hill_at()
        wide["max"]["x"] = 8
        assert preview(rpc, wide)["tile_count"] == 2
        rpc.close()


@pytest.mark.parametrize("name", ["small-hill.json", "valley-lake.json", "terraced-ridge.json"])
def test_offline_preview_agrees_with_server(rpc, name):
    from mcb.terrain.offline import offline_preview

    path = ROOT / "recipes/terrain" / name
    if not path.exists():
        pytest.skip(f"{name} not in recipes/terrain")
    for resolution in (32, 256):
        server = preview(rpc, json.loads(path.read_text()), resolution=resolution)
        local = offline_preview(path, resolution)
        server_png = base64.b64decode(server.pop("imageBase64"))
        local_png = local.pop("png")
        assert local.pop("wire_terrain_id") == local["terrain_id"]
        assert server == local
        a = np.asarray(Image.open(io.BytesIO(server_png)).convert("RGB"))
        b = np.asarray(Image.open(io.BytesIO(local_png)).convert("RGB"))
        assert np.array_equal(a, b)


def test_terrain_id_hashes_the_literal_number_text(server):
    """A real server (Gson) hashes `12.50` as written; `mcb terrain preview --offline` does the same."""
    import httpx

    from mcb.terrain.recipe import parse_recipe_text

    text = (ROOT / "recipes/terrain/small-hill.json").read_text().replace('"scale": 12', '"scale": 12.50')
    text = text.replace('"falloff": 3', '"falloff": 3e0')
    expected = parse_recipe_text(text).terrain_id
    body = '{"method":"terrain_preview","params":{"player_id":"console","recipe":' + text + "}}"
    reply = httpx.post(
        server.url + "/v1/rpc",
        content=body.encode(),
        headers={"Authorization": f"Bearer {server.agent_token}", "Content-Type": "application/json"},
    ).json()
    assert reply["result"]["terrain_id"] == expected


def test_applied_tiles_have_the_offline_surface(rpc):
    """Apply one full-height column of tiles of valley-lake and read the world's surface back."""
    from mcb.terrain.heightfield import surface_heights
    from mcb.terrain.recipe import parse_recipe_text

    text = (ROOT / "recipes/terrain/valley-lake.json").read_text()
    recipe = parse_recipe_text(text)
    terrain_id = preview(rpc, json.loads(text))["terrain_id"]
    assert terrain_id == recipe.terrain_id
    for index in (0, 15, 30):  # x -40..-25, z -24..-9, every y layer (x fastest, then z, then y)
        plan, status = run_tile(rpc, terrain_id, index, f"valley-{index}")
        assert status["status"] == "applied" and status["written"] == plan["changed_blocks"]
    world = {}
    for low, high in ((40, 55), (56, 71), (72, 79)):  # region_inspect reads at most 4096 blocks
        world.update(rpc.inspect_blocks((-40, low, -24), (-25, high, -9)))
    xs, zs = np.arange(-40, -24), np.arange(-24, -8)
    expected = surface_heights(recipe, xs[None, :], zs[:, None])
    for zi, z in enumerate(zs.tolist()):
        for xi, x in enumerate(xs.tolist()):
            top = max(y for y in range(40, 80) if world[(x, y, z)] != "minecraft:air")
            assert top == expected[zi, xi], (x, z)
            assert world[(x, top, z)] == "minecraft:grass_block[snowy=false]"
            assert world[(x, top - 3, z)] == "minecraft:andesite"


def test_terrain_id_hashes_a_negative_zero_integer_as_written(rpc):
    """`-0` arrives as its own literal (spec §1.7: the exact text), so its ID differs from `0`'s and matches what
    the offline tool computes from the same text."""
    import hashlib

    from mcb.terrain.jsontext import canonical_text, loads_keeping_numbers

    def sent(literal: str) -> str:
        text = json.dumps(hill_at()).replace('"x": 4', f'"x": {literal}', 1)
        assert f'"x": {literal}' in text
        body = '{"method": "terrain_preview", "params": {"player_id": "console", "recipe": ' + text + "}}"
        reply = rpc.client.post(
            "/v1/rpc",
            content=body.encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {rpc.token}"},
        )
        assert reply.json()["ok"], reply.json()
        offline = hashlib.sha256(canonical_text(loads_keeping_numbers(text)).encode()).hexdigest()
        assert reply.json()["result"]["terrain_id"] == offline
        return offline

    assert sent("-0") != sent("0")
