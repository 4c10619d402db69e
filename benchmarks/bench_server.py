"""Benchmark the local reference server over real HTTP on loopback.

    .venv/bin/python benchmarks/bench_server.py [--seconds 3]

Figures: build_prepare of a 4096-block recipe; build_apply of 4096 blocks end to end with --tick-ms 0;
project_context requests/second with 8 concurrent clients. Baseline: the plugin's nominal write rate from protocol
§15.15 (128 blocks per 2-3 ticks of 50 ms, i.e. about 1024 blocks/s at 2.5 ticks).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx

from _timing import rpc_call

from mcb.server.testing import spawn_server

PLUGIN_BLOCKS_PER_SECOND = 128 / (2.5 * 0.050)
RECIPE = {"version": 1, "operations": [
    {"type": "box", "min": {"x": -32, "y": 70, "z": -32}, "max": {"x": 31, "y": 73, "z": -17},
     "block": "minecraft:stone_bricks"}]}


call = rpc_call


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0, help="duration of the project_context load phase")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # A separate `mcb serve` process, so the clients' threads do not share the server's interpreter lock.
        server = spawn_server(Path(tmp) / "bench", tick_ms=0, test_hooks=False)
        try:
            prepare_s, apply_s, rps = measure(server, args.seconds)
        finally:
            server.stop()
    rate = 4096 / apply_s
    print(f"build_prepare 4096 blocks      : {prepare_s * 1000:8.1f} ms (median of 5)")
    print(f"build_apply 4096 blocks, tick 0: {apply_s * 1000:8.1f} ms end to end "
          f"({rate:,.0f} blocks/s; {rate / PLUGIN_BLOCKS_PER_SECOND:.1f}x the plugin's nominal "
          f"{PLUGIN_BLOCKS_PER_SECOND:,.0f} blocks/s)")
    print(f"project_context, 8 clients     : {rps:8.0f} requests/s over {args.seconds:.0f} s")


def measure(server, seconds: float) -> tuple[float, float, float]:
    token = server.agent_token
    with httpx.Client(base_url=server.url, timeout=60) as client:
        call(client, token, "project_context")  # warm-up (imports, registry)
        prepare_times, plans = [], []
        for _ in range(5):
            start = time.perf_counter()
            plans.append(call(client, token, "build_prepare", recipe=RECIPE))
            prepare_times.append(time.perf_counter() - start)
        prepare_s = statistics.median(prepare_times)
        plan = plans[-1]
        start = time.perf_counter()
        op = call(client, token, "build_apply", plan_id=plan["plan_id"], plan_hash=plan["plan_hash"],
                  idempotency_key="bench")["operation_id"]
        while (status := call(client, token, "operation_status", operation_id=op))["status"] in ("queued", "applying"):
            time.sleep(0.002)
        apply_s = time.perf_counter() - start
        assert status["status"] == "applied" and status["written"] == 4096, status

    counts = [0] * 8
    stop_at = time.perf_counter() + seconds

    def worker(index: int) -> None:
        with httpx.Client(base_url=server.url, timeout=30) as own:
            while time.perf_counter() < stop_at:
                call(own, token, "project_context")
                counts[index] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    begin = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rps = sum(counts) / (time.perf_counter() - begin)
    return prepare_s, apply_s, rps


if __name__ == "__main__":
    main()
