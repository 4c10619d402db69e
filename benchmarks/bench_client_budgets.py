"""What remembering a build and total budgets cost, against named baselines (whole processes, interleaved).

    .venv/bin/python benchmarks/bench_client_budgets.py [--repeats 7]

Figures:
1. the plan log a write of one plan keeps (plan id, hash and key on disk before build_apply, the operation id after,
   removed when the operation ends) vs the prepare + apply + follow round trips it wraps (baseline), in-process
   against `mcb serve`;
2. against a server that accepts and never answers: `mcb health` and `mcb --timeout 2 context` vs `sleep` for
   their budgets (baseline: the budget itself; a ratio near 1 means the budget is total, not per attempt).
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import BIN, report, side_by_side  # noqa: E402

from mcb.client.transport import HEALTH_TIMEOUT  # noqa: E402
from mcb.server.testing import spawn_server  # noqa: E402


def build_memory(work: Path, repeats: int) -> None:
    """In-process: a write of one plan on the engine (its plan log on disk before each request, removed at the end:
    mcb.batch.single) vs the bare prepare + apply + follow it wraps (baseline), against `mcb serve` at tick 0."""
    import statistics
    import time

    from _timing import apply_recipe

    from mcb.batch.single import run_single
    from mcb.client import McbClient

    server = spawn_server(work / "server", tick_ms=0)

    def recipe(i: int, y: int) -> dict:
        box = {"min": {"x": -60 + i, "y": y, "z": 0}, "max": {"x": -60 + i, "y": y + 3, "z": 3}}
        return {"version": 1, "operations": [{"type": "box", **box, "block": "minecraft:stone"}]}

    try:
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
            bare, logged = [], []
            for i in range(repeats * 4):
                started = time.perf_counter()
                apply_recipe(client, recipe(i, 100))
                bare.append(time.perf_counter() - started)
                started = time.perf_counter()
                run_single(client, {"bench": i}, lambda i=i: client.build_prepare(recipe(i, 110)))
                logged.append(time.perf_counter() - started)
    finally:
        server.kill()
    report(
        "what the plan log of a one-plan write costs (in-process, medians)",
        {
            "prepare + apply + follow (no record)": statistics.median(bare),
            "the same on the engine (plan log)": statistics.median(logged),
        },
        "prepare + apply + follow (no record)",
    )


def silent_budgets(repeats: int) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        env = {**os.environ, "MCB_AGENT_TOKEN": "t" * 40}
        mcb = str(BIN / "mcb")
        medians = side_by_side(
            {
                f"sleep {HEALTH_TIMEOUT:g} (the health budget)": ["sleep", str(HEALTH_TIMEOUT)],
                "mcb health (silent server)": ["sh", "-c", f'"{mcb}" --server {url} health; true'],
                "sleep 2 (--timeout 2)": ["sleep", "2"],
                "mcb --timeout 2 context (silent server)": [
                    "sh",
                    "-c",
                    f'"{mcb}" --server {url} --timeout 2 context; true',
                ],
            },
            repeats=repeats,
            env=env,
            warmup=0,
        )
    report(
        "silent server: mcb health",
        {k: v for k, v in medians.items() if "health" in k},
        f"sleep {HEALTH_TIMEOUT:g} (the health budget)",
    )
    report(
        "silent server: --timeout 2 is the whole budget",
        {k: v for k, v in medians.items() if "2" in k},
        "sleep 2 (--timeout 2)",
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        build_memory(Path(folder), args.repeats)
    silent_budgets(max(3, args.repeats // 2))


if __name__ == "__main__":
    main()
