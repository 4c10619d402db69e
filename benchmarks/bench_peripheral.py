"""Benchmark the peripheral methods of the local reference server over real HTTP on loopback.

    .venv/bin/python benchmarks/bench_peripheral.py

Figures (medians of 5):
- the material catalog built cold from the packaged registry (in-process);
- one material_search page, against project_context (baseline: dispatch + JSON cost of a cheap method);
- paging the whole catalog (kind all, 32 per page);
- schematic_export and schematic_import_prepare of a 16x16x16 region (4096 cells, the server maximum), against
  build_prepare of a 4096-block box (baseline: the same plan size without the schematic codec).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import httpx
from _timing import rpc_call

from mcb.server.testing import spawn_server

BOX = {"min": {"x": 0, "y": 70, "z": 0}, "max": {"x": 15, "y": 85, "z": 15}}
RECIPE = {"version": 1, "operations": [{"type": "box", **BOX, "block": "minecraft:stone_bricks"}]}


call = rpc_call


def median_ms(action, repeats: int = 5) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def catalog_build_ms() -> float:
    from mcb.server.catalog_data import build_catalog

    def cold():
        build_catalog.cache_clear()
        build_catalog()

    return median_ms(cold)


def page_everything(client, token) -> int:
    pages, cursor = 0, None
    while True:
        result = call(client, token, "material_search", kind="all", limit=32, **({"cursor": cursor} if cursor else {}))
        pages += 1
        cursor = result.get("next_cursor")
        if cursor is None:
            return pages


def main() -> None:
    print(f"catalog build (cold, in-process)        : {catalog_build_ms():8.1f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        server = spawn_server(Path(tmp) / "bench", tick_ms=0, test_hooks=False)
        try:
            with httpx.Client(base_url=server.url, timeout=60) as client:
                token = server.agent_token
                call(client, token, "material_search")  # warm the catalog inside the server
                context_ms = median_ms(lambda: call(client, token, "project_context"), 21)
                search_ms = median_ms(lambda: call(client, token, "material_search", query="oak stairs"), 21)
                pages = page_everything(client, token)
                paging_ms = median_ms(lambda: page_everything(client, token))
                prepare_ms = median_ms(lambda: call(client, token, "build_prepare", recipe=RECIPE))
                assets = []
                export_ms = median_ms(lambda: assets.append(call(client, token, "schematic_export", name="b", **BOX)))
                asset_id = assets[-1]["assetId"]
                import_ms = median_ms(
                    lambda: call(
                        client,
                        token,
                        "schematic_import_prepare",
                        asset_id=asset_id,
                        target={"x": -20, "y": 70, "z": -20},
                        rotation=90,
                    )
                )
        finally:
            server.stop()
    print(f"project_context (baseline)              : {context_ms:8.2f} ms")
    print(
        f"material_search one page                : {search_ms:8.2f} ms  {search_ms / context_ms:5.2f}x project_context"
    )
    print(f"material_search all {pages} pages           : {paging_ms:8.1f} ms  ({paging_ms / pages:.2f} ms/page)")
    print(f"build_prepare 4096 blocks (baseline)    : {prepare_ms:8.1f} ms")
    print(
        f"schematic_export 4096 cells             : {export_ms:8.1f} ms  {export_ms / prepare_ms:5.2f}x build_prepare"
    )
    print(
        f"schematic_import_prepare 4096, 90 deg   : {import_ms:8.1f} ms  {import_ms / prepare_ms:5.2f}x build_prepare"
    )


if __name__ == "__main__":
    main()
