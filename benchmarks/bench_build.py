"""Benchmark `mcb build FILE` against `mcb serve` at the plugin's pace (issue 22's targets).

    .venv/bin/python benchmarks/bench_build.py [--tick-ms 50] [--skip-large]

Figures, each against a named baseline measured in the same run:
1. plans for the USS Texas (54,273 blocks) on empty land, against ceil(changed / 4096) (target: at most
   1.05 x that + 1) and against one plan per 4096-cell tile (the naive tiling, 71);
2. wall time of `mcb build` (the whole process) at --tick-ms 50, against the server's own apply time for the same
   plans: the same plans prepared beforehand on a twin server, then applied back to back with 10 ms polling
   (target: at most 1.10x); the model's 4 * ceil(N/128) + 1 ticks per plan is shown beside it;
3. the largest request, against the server's 1 MiB;
4. client planning for the 256^3 Sponge file into an empty region: CPU and peak RSS of a process that reads the file,
   reads every tile, diffs, packs and builds every request body (what `mcb build` sends, without sending it);
   the server's own read time is not counted (targets: 10 s CPU, 400 MiB).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = ROOT.parent / "shared" / "corpus"
TEXAS = CORPUS / "v3_nucleation_uss-texas.schem"
LARGE = CORPUS / "v2_nucleation_large_schematic.schem"
AREA = ((-160, -64, -160), (159, 319, 159))  # the 256^3 file goes to -128,64,-128 .. 127,319,127: above ground

sys.path.insert(0, str(HERE))
import _timing  # noqa: E402,F401  (compiles mcb's bytecode first, like every benchmark)

from mcb.server.testing import spawn_server  # noqa: E402

PLANNING = """
import json, sys
from mcb.client import McbClient
from mcb.building.placement import PlacementOptions, load_placement
from mcb.building.planner import BuildPlanner
from mcb.client.transport import encode_envelope
url, token, target = sys.argv[1], sys.argv[2], tuple(int(v) for v in sys.argv[3].split(","))
client = McbClient(url, agent_token=token, player_id="console")
placement = load_placement(sys.argv[4], PlacementOptions(target=target, drop_extras=True))
planner = BuildPlanner(client, placement)
plans = positions = largest = 0
while (plan := planner.next_plan()) is not None:
    body = encode_envelope({"method": "build_prepare", "params": plan.params(planner.table), "requestId": "r"})
    plans, positions, largest = plans + 1, positions + len(plan), max(largest, len(body))
planner.close()
print(json.dumps({"plans": plans, "positions": positions, "largest": largest,
                  "reads": planner.walker.counter.to_json(), "tiles": planner.tiles_read}))
"""


def env_for(server) -> dict:
    return {
        **os.environ,
        "MCB_SERVER": server.url,
        "MCB_AGENT_TOKEN": server.agent_token,
        "MCB_PLAYER_ID": "console",
        "NO_COLOR": "1",
    }


def measured(args: list[str], env: dict) -> tuple[float, float, float, str, str]:
    """(wall s, CPU s, peak RSS MiB, stdout, stderr) of one child process (os.wait4: that child's own rusage)."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as errors:
        child = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=errors, text=True)
        out = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        errors.seek(0)
        err = errors.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{args[2:5]} failed: {err[-400:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out, err


def server_apply_time(server, target, tick_s: float) -> tuple[float, float, list[int]]:
    """The server's own time for the build's plans: prepared first, then applied back to back, polled every 10 ms.
    Returns (seconds, the model's seconds, plan sizes)."""
    from mcb.building.placement import PlacementOptions, load_placement
    from mcb.building.planner import BuildPlanner
    from mcb.client import McbClient
    from mcb.client.operations import plan_seconds

    client = McbClient(server.url, agent_token=server.agent_token, player_id="console")
    planner = BuildPlanner(client, load_placement(TEXAS, PlacementOptions(target=target)))
    prepared, sizes = [], []
    while (plan := planner.next_plan()) is not None:
        params = plan.params(planner.table)
        prepared.append(client.build_prepare(params["recipe"], expected_blocks=params["expected_blocks"]))
        sizes.append(len(plan))
    planner.close()
    total = 0.0
    for summary in prepared:
        started = time.perf_counter()
        status = client.build_apply(summary.plan_id, summary.plan_hash, f"bench-{summary.plan_id}")
        while not status.terminal:
            time.sleep(0.01)
            status = client.operation_status(status.operation_id)
        total += time.perf_counter() - started
    return total, sum(plan_seconds(n, tick_s) for n in sizes), sizes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tick-ms", type=int, default=50)
    parser.add_argument("--skip-large", action="store_true", help="skip the 256^3 planning figure")
    parser.add_argument("--skip-texas", action="store_true", help="skip the Texas build at the plugin's pace")
    parser.add_argument("--baseline-src", help="the cli/ folder of another mcb: its Texas build side by side")
    args = parser.parse_args()
    target = (-87, 64, -15)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if not args.skip_texas:
            texas(work, args.tick_ms, target, args.baseline_src)
        if not args.skip_large:
            large_planning(work)


def texas(work: Path, tick_ms: int, target, baseline_src: str | None) -> None:
    baseline_server = spawn_server(work / "baseline", tick_ms=tick_ms, ground="flat", region=AREA)
    try:
        own, model, sizes = server_apply_time(baseline_server, target, tick_ms / 1000)
    finally:
        baseline_server.stop()
    changed = 54273
    floor = math.ceil(changed / 4096)
    naive = math.ceil(175 * 53 * 31 / 4096)
    print(f"USS Texas, {changed:,} blocks on empty land, mcb serve --tick-ms {tick_ms}")
    print(f"  server's own apply time       : {own:8.1f} s (same {len(sizes)} plans back to back; model {model:.1f} s)")
    sources = {"this mcb": None, **({"baseline": str(Path(baseline_src).resolve())} if baseline_src else {})}
    for number, (label, source) in enumerate(sources.items()):
        server = spawn_server(work / f"build-{number}", tick_ms=tick_ms, ground="flat", region=AREA)
        try:
            env = {**env_for(server), "XDG_STATE_HOME": str(work / f"state-{number}")}
            if source:
                env["PYTHONPATH"] = source
            wall, cpu, rss, out, err = measured(
                [sys.executable, "-m", "mcb", "-vv", "build", str(TEXAS), "--target", ",".join(map(str, target)),
                 "--json"], env
            )  # fmt: skip
            result = json.loads(out)
            polls = err.count("-> POST /v1/rpc operation_status ")  # -vv logs every request it sends
        finally:
            server.stop()
        print(f"  {label}:")
        print(
            f"    plans                       : {result['plans']:8d}   "
            f"{result['plans'] / floor:.2f}x ceil(changed/4096) = {floor} (target <= {1.05 * floor + 1:.1f}); "
            f"{result['plans'] / naive:.2f}x one plan per tile ({naive})"
        )
        print(
            f"    mcb build, whole process    : {wall:8.1f} s = {wall / own:.3f}x the server's own time "
            f"(target <= 1.10x); client CPU {cpu:.1f} s, peak RSS {rss:.0f} MiB"
        )
        print(f"    reads                       : {result['reads']}")
        print(f"    operation_status polls      : {polls:8d} = {polls / max(1, result['plans']):.1f} a plan")


def large_planning(work: Path) -> None:
    large = spawn_server(work / "large", tick_ms=0, ground="flat", region=AREA)
    try:
        wall, cpu, rss, out, _ = measured(
            [sys.executable, "-c", PLANNING, large.url, large.agent_token, "-29,292,-109", str(LARGE)], env_for(large)
        )
    finally:
        large.stop()
    planned = json.loads(out)
    floor = math.ceil(planned["positions"] / 4096)
    print(f"256^3 Sponge file ({planned['positions']:,} positions to change) into an empty region")
    print(
        f"  plans                         : {planned['plans']:8d}   "
        f"{planned['plans'] / floor:.3f}x ceil(changed/4096) = {floor} (target <= {1.05 * floor + 1:.0f})"
    )
    print(
        f"  client planning CPU           : {cpu:8.1f} s = {cpu / 10:.2f}x the 10 s budget "
        f"(wall {wall:.1f} s, the server's reads included)"
    )
    print(f"  client peak RSS               : {rss:8.0f} MiB = {rss / 400:.2f}x the 400 MiB budget")
    print(
        f"  largest request               : {planned['largest']:8,d} bytes = "
        f"{planned['largest'] / 1048576:.2f}x the server's 1 MiB"
    )
    print(f"  reads                         : {planned['reads']}, {planned['tiles']} tiles")


if __name__ == "__main__":
    main()
