"""Benchmark `mcb serve --tick-ms 50` against the plugin's pace (formats-and-building C2, protocol §1.7, §5.2).

    .venv/bin/python benchmarks/bench_pace.py [--reads 40] [--seconds 3]

Figures, each against a named baseline:
1. one region_inspect of one cell, median latency at --tick-ms 50, in ticks, sent at a random moment of a tick and
   back to back (a client that sends its next read as soon as the last is answered is in step with the ticks: its
   scope check always waits a whole tick, so it pays 2 ticks); baselines: the plugin's model (1-2 ticks, 1.5 on
   average) and the same call at --tick-ms 0 (the instant mode the tests use), measured side by side;
2. reads per second with 1, 2 and 4 concurrent readers (one-cell reads); baseline: the model's 2 reads in flight
   every ~1.5 ticks (26.7 reads/s at 20 TPS). More than 2 readers gain nothing: the handler pool runs 2 at once;
3. an apply of N positions (N = 128, 1024, 4096) from sending build_apply (its 3 hops included) to `applied` (watched
   in process, no polling RPCs), in ticks; baseline: the model's 4 * ceil(N/128) + 1 ticks. One engine step per
   tick: 4 * ceil(N/128) steps, the first in the tick of build_apply's third hop.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import rpc_call  # noqa: E402

from mcb.server.testing import run_server, spawn_server  # noqa: E402

TICK_MS = 50
TICK_S = TICK_MS / 1000
MODEL_READ_TICKS = 1.5
ONE_CELL = {"min": {"x": 0, "y": 63, "z": 0}, "max": {"x": 0, "y": 63, "z": 0}}


def read_latency(servers: dict, reads: int, jitter: float = 0.0) -> dict[str, float]:
    """Median one-cell read per server, interleaved so machine noise hits both alike; ``jitter``: each read waits a
    random time up to that long first (so it lands at a random moment of a tick)."""
    chance = random.Random(26)
    clients = {name: httpx.Client(base_url=s.url, timeout=60) for name, s in servers.items()}
    samples: dict[str, list[float]] = {name: [] for name in servers}
    try:
        for name, client in clients.items():
            rpc_call(client, servers[name].agent_token, "region_inspect", **ONE_CELL)  # warm-up
        for _ in range(reads):
            for name, client in clients.items():
                time.sleep(chance.uniform(0, jitter))
                started = time.perf_counter()
                rpc_call(client, servers[name].agent_token, "region_inspect", **ONE_CELL)
                samples[name].append(time.perf_counter() - started)
    finally:
        for client in clients.values():
            client.close()
    return {name: statistics.median(values) for name, values in samples.items()}


def readers_throughput(server, readers: int, seconds: float) -> float:
    stop_at = time.monotonic() + seconds
    counts = [0] * readers

    def reader(index: int) -> None:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            while time.monotonic() < stop_at:
                rpc_call(client, server.agent_token, "region_inspect", **ONE_CELL)
                counts[index] += 1

    threads = [threading.Thread(target=reader, args=(i,)) for i in range(readers)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts) / (time.monotonic() - started)


def apply_ticks(positions: int) -> tuple[float, int]:
    """Seconds from sending build_apply to `applied` for a plan of ``positions`` blocks, and the model's ticks."""
    side = 64
    rows = positions // side
    recipe = {
        "version": 1,
        "operations": [
            {
                "type": "box",
                "min": {"x": -32, "y": 80, "z": -32},
                "max": {"x": -32 + side - 1, "y": 80, "z": -32 + rows - 1},
                "block": "minecraft:stone",
            }
        ],
    }
    with tempfile.TemporaryDirectory() as tmp, run_server(Path(tmp) / "apply", tick_ms=TICK_MS) as server:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            plan = rpc_call(client, server.agent_token, "build_prepare", recipe=recipe)
            sent = time.monotonic()
            started = rpc_call(
                client,
                server.agent_token,
                "build_apply",
                plan_id=plan["plan_id"],
                plan_hash=plan["plan_hash"],
                idempotency_key=f"bench-{positions}",
            )
            op = server.state.engine.get(started["operation_id"])
            while op.status in ("queued", "applying"):
                time.sleep(0.001)
            elapsed = time.monotonic() - sent
            assert op.status == "applied", op.status
    return elapsed, 4 * math.ceil(positions / 128) + 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reads", type=int, default=40, help="one-cell reads per server for the latency figure")
    parser.add_argument("--seconds", type=float, default=3.0, help="duration of each throughput run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # Separate `mcb serve` processes, so the readers' threads do not share the server's interpreter lock.
        paced = spawn_server(Path(tmp) / "paced", tick_ms=TICK_MS, test_hooks=False)
        instant = spawn_server(Path(tmp) / "instant", tick_ms=0, test_hooks=False)
        try:
            medians = read_latency({"tick 50": paced, "tick 0": instant}, args.reads, jitter=TICK_S)
            back_to_back = read_latency({"tick 50": paced}, args.reads)["tick 50"]
            rates = {n: readers_throughput(paced, n, args.seconds) for n in (1, 2, 4)}
        finally:
            paced.stop()
            instant.stop()
    model_ms = MODEL_READ_TICKS * TICK_MS
    latency = medians["tick 50"]
    print(f"\n## one-cell region_inspect, median of {args.reads}")
    for label, value in (("--tick-ms 50, random moment", latency), ("--tick-ms 50, back to back", back_to_back)):
        print(
            f"  {label:<28}: {value * 1000:7.1f} ms = {value / TICK_S:4.2f} ticks   "
            f"{value * 1000 / model_ms:5.2f}x the plugin model ({model_ms:.0f} ms, 1-2 ticks)"
        )
    print(
        f"  {'--tick-ms 0, random moment':<28}: {medians['tick 0'] * 1000:7.1f} ms                "
        f"(tick 50 is {latency / medians['tick 0']:,.0f}x the instant mode)"
    )
    model_rate = 2 / (MODEL_READ_TICKS * TICK_S)
    print(f"\n## one-cell reads per second at --tick-ms 50, {args.seconds:.0f} s each")
    for readers, rate in rates.items():
        print(
            f"  {readers} reader{'s' if readers > 1 else ' '}: {rate:6.1f} reads/s   "
            f"{rate / model_rate:5.2f}x the model's 2 in flight ({model_rate:.1f}/s)   "
            f"{rate / rates[1]:4.2f}x 1 reader"
        )
    print("\n## apply, from sending build_apply to applied, --tick-ms 50")
    for positions in (128, 1024, 4096):
        seconds, model = apply_ticks(positions)
        print(
            f"  {positions:>5,} positions: {seconds:6.2f} s = {seconds / TICK_S:6.1f} ticks   "
            f"{seconds / TICK_S / model:5.2f}x the model's 4*ceil(N/128)+1 = {model} ticks ({model * TICK_S:.2f} s)"
        )


if __name__ == "__main__":
    main()
