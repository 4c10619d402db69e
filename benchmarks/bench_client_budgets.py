"""What remembering a build and total budgets cost, against named baselines (whole processes, interleaved).

    .venv/bin/python benchmarks/bench_client_budgets.py [--repeats 7]

Figures:
1. the state file `mcb build` keeps (plan id, hash and key written before build_apply, the operation id after,
   removed when the operation ends) vs the build_prepare + build_apply round trips it wraps (baseline), in-process
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
    """In-process: the state-file work `mcb build` adds (remember before build_apply, remember the operation id,
    forget at the end) vs the prepare + apply round trips it wraps (baseline)."""
    import statistics
    import time

    from mcb.client import McbClient
    from mcb.client.workflow import ApplyMemory, default_idempotency_key

    server = spawn_server(work / "server", tick_ms=0)
    try:
        with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
            rpc, state = [], []
            for i in range(repeats * 4):
                recipe = {
                    "version": 1,
                    "operations": [
                        {
                            "type": "box",
                            "min": {"x": -60 + i, "y": 100, "z": 0},
                            "max": {"x": -60 + i, "y": 103, "z": 3},
                            "block": "minecraft:stone",
                        }
                    ],
                }
                started = time.perf_counter()
                plan = client.build_prepare(recipe)
                status = client.build_apply(plan.plan_id, plan.plan_hash, default_idempotency_key(plan.plan_id))
                rpc.append(time.perf_counter() - started)
                memory = ApplyMemory(f"bench{i}", work / "state")
                started = time.perf_counter()
                memory.remember(plan, default_idempotency_key(plan.plan_id))
                memory.remember(plan, default_idempotency_key(plan.plan_id), status.operation_id)
                memory.forget()
                state.append(time.perf_counter() - started)
                client.operation_status(status.operation_id)
    finally:
        server.kill()
    report(
        "what remembering a build costs (in-process, medians)",
        {
            "build_prepare + build_apply round trips": statistics.median(rpc),
            "ApplyMemory remember x2 + forget": statistics.median(state),
        },
        "build_prepare + build_apply round trips",
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
