"""Terrain speed: offline preview of a 2048 x 512 envelope, the full height field, and `terrain prepare --all`.

Baselines: a plain-Python scalar evaluation of the same height field (the obvious implementation), and for the
tile loop the offline computation of the same tiles' targets (how much of the wall time is server + HTTP).

    .venv/bin/python benchmarks/bench_terrain.py
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "terrain"))

WIDE = {
    "version": 1,
    "min": {"x": -1024, "y": -64, "z": -256},
    "max": {"x": 1023, "y": 63, "z": 255},
    "base_height": 60,
    "seed": 28092005,
    "mode": "sculpt",
    "noise": {"amplitude": 24, "scale": 90},
    "palette": {
        "rock": "minecraft:stone",
        "soil": "minecraft:dirt",
        "surface": "minecraft:grass_block",
        "soil_depth": 3,
    },
    "features": [
        {
            "type": "ridge",
            "points": [{"x": -1000, "z": -200}, {"x": -400, "z": 100}, {"x": 300, "z": -150}, {"x": 1000, "z": 200}],
            "width": 12,
            "height": 90,
            "falloff": 120,
        },
        {"type": "hill", "center": {"x": 0, "z": 0}, "radius": 60, "height": 40, "falloff": 150},
        {"type": "plateau", "min": {"x": 400, "z": -80}, "max": {"x": 600, "z": 60}, "height": 110, "falloff": 30},
        {"type": "basin", "center": {"x": -500, "z": 50}, "radius": 70, "height": 20, "falloff": 40},
        {
            "type": "channel",
            "points": [{"x": -900, "z": 250}, {"x": 0, "z": 120}, {"x": 900, "z": -250}],
            "width": 8,
            "height": 30,
            "falloff": 20,
        },
        {"type": "terrace", "step": 6, "strength": 0.4},
    ],
    "preserve": [{"min": {"x": 0, "y": 0, "z": 0}, "max": {"x": 40, "y": 63, "z": 40}}],
}


def timed(fn, repeats=5):
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def bench_preview() -> None:
    import test_properties
    from test_properties import ref_height

    from mcb.terrain.heightfield import envelope_heights
    from mcb.terrain.preview import render_preview, sample_coordinates
    from mcb.terrain.recipe import parse_recipe_text

    test_properties.hypot = math.hypot  # the obvious scalar implementation (not bit-exact, just the speed baseline)

    text = json.dumps(WIDE)
    recipe = parse_recipe_text(text)
    preview = timed(lambda: render_preview(parse_recipe_text(text), 256))
    numbers = timed(lambda: render_preview(recipe, 256, with_image=False))
    picture = timed(lambda: _picture(recipe))
    field = timed(lambda: envelope_heights(recipe), repeats=3)
    xs = sample_coordinates(-1024, 2048, 256).tolist()
    zs = sample_coordinates(-256, 512, 256).tolist()
    subset = [(x, z) for z in zs[:4] for x in xs]  # 1/64 of the grid, extrapolated
    start = time.perf_counter()
    for x, z in subset:
        ref_height(WIDE, x, z)
    scalar = (time.perf_counter() - start) * 64
    print("\n## offline preview, 2048 x 512 envelope, resolution 256 (65,536 samples, 6 features)")
    print(f"  {'scalar Python height field (baseline)':<48} {scalar * 1000:9.1f} ms   1.00x")
    print(f"  {'render_preview incl. parse + PNG':<48} {preview * 1000:9.1f} ms   {preview / scalar:5.3f}x")
    print(f"  {'render_preview numbers only':<48} {numbers * 1000:9.1f} ms   {numbers / scalar:5.3f}x")
    print(
        f"  {'offline picture (numbers + legend PNG)':<48} {picture * 1000:9.1f} ms   {picture / scalar:5.3f}x"
        f"   ({picture / preview:.2f}x the server's PNG path)"
    )
    print(
        f"  {'full field: all 1,048,576 columns':<48} {field * 1000:9.1f} ms   "
        f"({1_048_576 / field / 1e6:.2f} M columns/s)"
    )


def _picture(recipe) -> None:
    from mcb.terrain.picture import render_picture
    from mcb.terrain.preview import preview_fields, sample_heights

    xs, zs, heights = sample_heights(recipe, 256)
    preview_fields(recipe, heights)
    render_picture(recipe, xs, zs, heights, title="bench")


def bench_prepare_all() -> None:
    from mcb.batch.terrain_run import run_all_tiles
    from mcb.client import McbClient
    from mcb.server.testing import run_server
    from mcb.terrain.recipe import parse_recipe_text
    from mcb.terrain.tiling import tile_bounds, tile_count, tile_targets

    recipe = json.loads((ROOT / "recipes/terrain/small-hill.json").read_text())
    recipe["min"] = {"x": 0, "y": 56, "z": 0}
    recipe["max"] = {"x": 31, "y": 71, "z": 31}
    recipe["base_height"] = 64
    parsed = parse_recipe_text(json.dumps(recipe))
    tiles = tile_count(parsed)
    offline = timed(lambda: [tile_targets(parsed, tile_bounds(parsed, i)) for i in range(tiles)], repeats=3)
    with tempfile.TemporaryDirectory() as tmp, run_server(Path(tmp) / "srv", tick_ms=0, test_hooks=False) as server:
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
            start = time.perf_counter()
            run_all_tiles(client, parsed.terrain_id, Path(tmp) / "dry.state.json", recipe=recipe, dry_run=True)
            prepare_only = time.perf_counter() - start
            start = time.perf_counter()
            summary = run_all_tiles(client, parsed.terrain_id, Path(tmp) / "run.state.json", recipe=recipe)
            wall = time.perf_counter() - start
            start = time.perf_counter()
            again = run_all_tiles(client, parsed.terrain_id, Path(tmp) / "run.state.json", recipe=recipe)
            resume = time.perf_counter() - start
    written = sum(t.get("written") or 0 for t in summary["tiles"])
    assert summary["status"] == "completed" and all(t["result"] == "already_done" for t in again["tiles"])
    print(f"\n## terrain prepare --all --apply, {tiles} tiles of 16^3 (32 x 16 x 32), mcb serve --tick-ms 0")
    print(f"  {'offline target generation (baseline)':<48} {offline * 1000:9.1f} ms   1.00x")
    print(
        f"  {'terrain_prepare only, every tile (HTTP)':<48} {prepare_only * 1000:9.1f} ms   "
        f"{prepare_only / offline:5.1f}x   ({prepare_only / tiles * 1000:.0f} ms/tile)"
    )
    print(
        f"  {'prepare + apply + wait, every tile':<48} {wall * 1000:9.1f} ms   {wall / offline:5.1f}x   "
        f"({written} blocks written, {written / wall:,.0f} blocks/s, {wall / tiles * 1000:.0f} ms/tile)"
    )
    print(f"  {'re-run from the state file (all done)':<48} {resume * 1000:9.1f} ms   {resume / offline:5.1f}x")


if __name__ == "__main__":
    bench_preview()
    bench_prepare_all()
