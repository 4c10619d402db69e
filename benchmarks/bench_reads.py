"""Reading the world at Paper's pace (issue "a build survives the real world", part 2): `mcb verify`, `mcb export`
and `mcb build --dry-run` of USS Texas, and the dry run of the 256^3 file, against `mcb serve --tick-ms 50`.

    .venv/bin/python benchmarks/bench_reads.py [--tick-ms 50] [--skip-large] [--baseline-src DIR]

Figures, each against a named baseline measured in the same run:
1. the read latency: one one-cell region_inspect after another (median of 20), the unit of the model;
2. Texas on empty land: verify, export of its box and the dry run, wall time of the whole `mcb` process, with the
   reads each made; against the goal (verify <= 5 s) and the model: ceil(reads / 2) x the read latency (two reads in
   flight);
3. the 256^3 file's dry run into an empty region: against 1.1 x ceil(reads / 2) x the read latency (the goal);
4. with --baseline-src DIR (the cli/ folder of another mcb, e.g. the last landing's): the same commands run by it,
   side by side on the same servers.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
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
AREA = ((-160, -64, -160), (159, 319, 159))
TEXAS_AT = (-87, 64, -15)  # on the flat ground (its top at y 63): empty land
LARGE_AT = "-29,292,-109"  # the 256^3 file's box: -128,64,-128 .. 127,319,127, above the ground

sys.path.insert(0, str(HERE))
import _timing  # noqa: E402,F401  (compiles mcb's bytecode first, like every benchmark)

from mcb.server.testing import spawn_server  # noqa: E402


def env_for(server, source: str | None) -> dict:
    env = {**os.environ, "MCB_SERVER": server.url, "MCB_AGENT_TOKEN": server.agent_token, "MCB_PLAYER_ID": "console",
           "NO_COLOR": "1"}  # fmt: skip
    if source:
        env["PYTHONPATH"] = source
    return env


def timed(args: list[str], env: dict) -> tuple[float, dict]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mcb", *map(str, args)], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"mcb {args[0]} failed: {done.stderr[-400:]}")
    return wall, json.loads(done.stdout) if done.stdout.strip() else {}


def read_latency(server) -> float:
    from mcb.client import McbClient

    with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
        samples = []
        for _ in range(21):
            started = time.perf_counter()
            client.region_inspect((0, 100, 0), (0, 100, 0))
            samples.append(time.perf_counter() - started)
    return statistics.median(samples[1:])


def reads_of(data: dict) -> int:
    """region_inspect calls a command's --json reports (export: at its top; verify: in its facts; dry run: reads)."""
    for reads in (data, data.get("reads") or {}, (data.get("files") or [{}])[0].get("facts", {}).get("reads") or {}):
        if "summary_reads" in reads:
            return int(reads["summary_reads"]) + int(reads["block_reads"])
    return 0


def texas(work: Path, tick_ms: int, sources: dict) -> float:
    server = spawn_server(work / "texas", tick_ms=tick_ms, ground="flat", region=AREA)
    try:
        latency = read_latency(server)
        print(f"read latency, one one-cell region_inspect after another: {latency * 1000:.0f} ms "
              f"({latency * 1000 / tick_ms:.2f} ticks of {tick_ms} ms)")  # fmt: skip
        target = ",".join(map(str, TEXAS_AT))
        low = TEXAS_AT
        high = (low[0] + 174, low[1] + 52, low[2] + 30)
        commands = {
            "verify": ["verify", TEXAS, "--target", target, "--json"],
            "export": ["export", "--min", ",".join(map(str, low)), "--max", ",".join(map(str, high)), "-o",
                       work / "texas-box.schem", "--json"],
            "dry run": ["build", TEXAS, "--target", target, "--dry-run", "--json"],
        }  # fmt: skip
        print(f"USS Texas on empty land (175 x 53 x 31, 88 tiles), mcb serve --tick-ms {tick_ms}")
        for name, args in commands.items():
            for label, source in sources.items():
                (work / "texas-box.schem").unlink(missing_ok=True)
                wall, data = timed(args, env_for(server, source))
                reads = reads_of(data)
                goal = " (goal <= 5 s)" if name == "verify" else ""
                if not reads:  # an mcb whose --json does not count its reads
                    print(f"  {name:<8} {label:<9}: {wall:6.2f} s{goal}, reads not reported")
                    continue
                model = math.ceil(reads / 2) * latency
                print(f"  {name:<8} {label:<9}: {wall:6.2f} s{goal}, {reads:4d} reads, "
                      f"{wall / model:.2f}x ceil(reads/2) x latency = {model:.2f} s")  # fmt: skip
    finally:
        server.stop()
    return latency


def large(work: Path, tick_ms: int, sources: dict) -> None:
    server = spawn_server(work / "large", tick_ms=tick_ms, ground="flat", region=AREA)
    try:
        latency = read_latency(server)
        print(f"256^3 Sponge file's dry run into an empty region, mcb serve --tick-ms {tick_ms}")
        for label, source in sources.items():
            wall, data = timed(["build", LARGE, "--target", LARGE_AT, "--drop-extras", "--dry-run", "--json"],
                               env_for(server, source))  # fmt: skip
            reads = reads_of(data)
            bound = 1.1 * math.ceil(reads / 2) * latency
            print(f"  dry run {label:<9}: {wall:7.1f} s, {reads:5d} reads; {wall / bound * 1.1:.2f}x "
                  f"ceil(reads/2) x latency (goal <= 1.10x: {bound:.1f} s)")  # fmt: skip
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tick-ms", type=int, default=50)
    parser.add_argument("--skip-large", action="store_true", help="skip the 256^3 dry run (minutes at tick 50)")
    parser.add_argument("--baseline-src", help="the cli/ folder of another mcb to run side by side")
    args = parser.parse_args()
    sources = {"this mcb": None}
    if args.baseline_src:
        sources["baseline"] = str(Path(args.baseline_src).resolve())
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        texas(work, args.tick_ms, sources)
        if not args.skip_large:
            large(work, args.tick_ms, sources)


if __name__ == "__main__":
    main()
