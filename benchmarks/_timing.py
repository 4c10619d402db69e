"""Small helpers shared by the benchmark scripts: interleaved whole-process timing and ratio printing."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def ensure_bytecode() -> None:
    """Compile mcb's modules first: an installed mcb runs from bytecode, but with PYTHONDONTWRITEBYTECODE set (as
    on some CI images) an editable checkout would recompile every module in every timed process."""
    import compileall

    compileall.compile_dir(ROOT / "cli" / "mcb", quiet=2)


ensure_bytecode()


def run_once(argv: Sequence[str], env: dict | None = None, cwd: str | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def side_by_side(
    commands: dict[str, Sequence[str]], repeats: int = 7, env: dict | None = None, warmup: int = 1
) -> dict[str, float]:
    """Median wall time per command, runs interleaved so machine noise hits every command alike."""
    env = env or dict(os.environ)
    for _ in range(warmup):
        for argv in commands.values():
            run_once(argv, env)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeats):
        for name, argv in commands.items():
            samples[name].append(run_once(argv, env))
    return {name: statistics.median(values) for name, values in samples.items()}


def report(title: str, medians: dict[str, float], baseline: str) -> None:
    print(f"\n## {title}")
    base = medians[baseline]
    width = max(40, *map(len, medians))
    for name, value in medians.items():
        ratio = value / base if base else float("nan")
        print(f"  {name:<{width}} {value * 1000:9.1f} ms   {ratio:5.2f}x {baseline}")


def rpc_call(client, token: str, method: str, **params):
    """One raw RPC against a benchmark server, retrying `busy` like every real client must (protocol §1.7)."""
    params.setdefault("player_id", "console")
    for _ in range(1000):
        body = client.post(
            "/v1/rpc", json={"method": method, "params": params}, headers={"Authorization": f"Bearer {token}"}
        ).json()
        if body["ok"]:
            return body["result"]
        if body["error"]["code"] == "busy" or body["error"]["message"].startswith("busy:"):
            time.sleep(0.001)
            continue
        raise RuntimeError(body["error"])
    raise RuntimeError("busy for too long")


def apply_recipe(client, recipe: dict):
    """prepare → build_apply → follow, with nothing recorded: the bare round trips a write of one plan wraps (the
    baseline the engine's state file is measured against). Returns the final status."""
    from mcb.client.operations import default_idempotency_key, follow_operation

    plan = client.build_prepare(recipe)
    started = client.build_apply(plan.plan_id, plan.plan_hash, default_idempotency_key(plan.plan_id))
    return follow_operation(client, started.operation_id, first=started)
