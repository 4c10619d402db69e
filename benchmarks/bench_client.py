"""Benchmark the RPC client and scripted builds against a real `mcb serve` (subprocess, loopback HTTP).

    .venv/bin/python benchmarks/bench_client.py [--repeats 7] [--steps 20]

Figures:
1. `mcb status OP` as a whole process vs `curl` posting the same `operation_status` request (baseline: curl);
2. the same call in-process: McbClient (keep-alive) vs one raw httpx.post per call (baseline: raw httpx);
3. a 20-step batch end to end (`mcb batch FILE`, one process) against `mcb serve --tick-ms 0`, per step, with the
   pure server time for the same 20 prepare/apply/wait cycles through McbClient as the baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import BIN, apply_recipe, report, run_once, side_by_side  # noqa: E402

from mcb.client import McbClient  # noqa: E402
from mcb.server.testing import spawn_server  # noqa: E402


def box(x: int, y: int, z: int, block: str) -> dict:
    return {
        "version": 1,
        "operations": [
            {
                "type": "box",
                "min": {"x": x, "y": y, "z": z},
                "max": {"x": x + 3, "y": y + 3, "z": z + 3},
                "block": block,
            }
        ],
    }


def status_round_trip(server, work: Path, repeats: int) -> None:
    with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
        operation = apply_recipe(client, box(0, 100, 0, "minecraft:stone")).operation_id
    body = json.dumps(
        {
            "method": "operation_status",
            "requestId": "bench",
            "params": {"operation_id": operation, "player_id": "console"},
        }
    )
    headers = work / "curl-headers"  # token in a 0600 file, not on any command line
    headers.write_text(f"Authorization: Bearer {server.agent_token}\nContent-Type: application/json\n")
    os.chmod(headers, 0o600)
    env = {**os.environ, "MCB_SERVER": server.url, "MCB_AGENT_TOKEN": server.agent_token, "MCB_PLAYER_ID": "console"}
    medians = side_by_side(
        {
            "curl operation_status": ["curl", "-sf", "-H", f"@{headers}", "-d", body, server.url + "/v1/rpc"],
            "mcb status OP": [str(BIN / "mcb"), "status", operation],
            "mcb status OP --json": [str(BIN / "mcb"), "status", operation, "--json"],
            "mcb --help (start-up floor, no request)": [str(BIN / "mcb"), "--help"],
        },
        repeats=repeats,
        env=env,
    )
    report("whole process: one operation_status round trip", medians, "curl operation_status")

    import httpx

    with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
        client.operation_status(operation)
        n = 300
        started = time.perf_counter()
        for _ in range(n):
            client.operation_status(operation)
        keep_alive = (time.perf_counter() - started) / n
    auth = {"Authorization": f"Bearer {server.agent_token}"}
    started = time.perf_counter()
    for _ in range(100):
        httpx.post(server.url + "/v1/rpc", content=body, headers=auth).json()
    raw = (time.perf_counter() - started) / 100
    report(
        "in-process: one operation_status call",
        {"httpx.post per call (new connection)": raw, "McbClient.operation_status (keep-alive)": keep_alive},
        "httpx.post per call (new connection)",
    )


def batch_end_to_end(server, work: Path, steps: int) -> None:
    recipes = [box(-60 + 6 * (i % 20), 80 + 6 * (i // 20), -60, "minecraft:oak_planks") for i in range(steps)]
    batch = work / "bench.batch.json"
    batch.write_text(
        json.dumps(
            {
                "version": 1,
                "steps": [
                    {"name": f"s{i:02d}", "kind": "recipe", "recipe": recipe} for i, recipe in enumerate(recipes)
                ],
            }
        )
    )
    env = {**os.environ, "MCB_SERVER": server.url, "MCB_AGENT_TOKEN": server.agent_token, "MCB_PLAYER_ID": "console"}
    whole = run_once([str(BIN / "mcb"), "batch", str(batch)], env=env)
    resumed = run_once([str(BIN / "mcb"), "batch", str(batch)], env=env)  # every step already done

    shifted = [box(-60 + 6 * (i % 20), 80 + 6 * (i // 20), -52, "minecraft:stone") for i in range(steps)]
    with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
        started = time.perf_counter()
        for recipe in shifted:
            apply_recipe(client, recipe)
        direct = time.perf_counter() - started
    print(f"\n## {steps}-step batch end to end (64 blocks per step, mcb serve --tick-ms 0)")
    print(
        f"  {'mcb batch FILE (process, state file)':<40} {whole * 1000:9.1f} ms   "
        f"{whole / steps * 1000:6.1f} ms/step   {whole / direct:5.2f}x in-process loop"
    )
    print(f"  {'mcb batch FILE again (all done)':<40} {resumed * 1000:9.1f} ms")
    print(
        f"  {'in-process prepare+apply+follow (baseline)':<40} {direct * 1000:9.1f} ms   {direct / steps * 1000:6.1f} ms/step"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        server = spawn_server(work / "server", tick_ms=0, test_hooks=False)
        try:
            status_round_trip(server, work, args.repeats)
            batch_end_to_end(server, work, args.steps)
        finally:
            server.stop()
    print(f"\n(median of {args.repeats} interleaved runs where repeated; {statistics.__name__} medians)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
