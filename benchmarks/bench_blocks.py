"""Block registry speed: loading one release, and canonicalising states.

Baselines:
  * raw-json   — json.load of minecraft-data's own 26.2 blocks.json (what a tool without a packaged registry reads)
  * python -c pass — an empty interpreter, for the whole-process figures
  * recipe-regex — the server's syntax-only check (protocol §6.6), the cheapest possible "validation"

Run: .venv/bin/python benchmarks/bench_blocks.py
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import report, side_by_side  # noqa: E402

RAW_26_2 = Path(__file__).resolve().parents[2] / "shared" / "blockdata" / "minecraft-data-pc-26.2" / "blocks.json"


def best_of(func, repeats: int = 7) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def in_process_load() -> None:
    import mcb.blocks.registry as registry

    def load_packaged():
        registry._read_tables.cache_clear()
        registry._load_release.cache_clear()
        reg = registry.load_registry("26.2")
        reg.block("oak_stairs")

    def load_raw():
        records = json.loads(RAW_26_2.read_text(encoding="utf-8"))
        {record["name"]: record["states"] for record in records}

    medians = {"load_registry('26.2') (all 49 releases' tables)": best_of(load_packaged)}
    if RAW_26_2.exists():
        medians["raw-json (minecraft-data 26.2 blocks.json)"] = best_of(load_raw)
        report("load one release, in process (median of 7)", medians, "raw-json (minecraft-data 26.2 blocks.json)")
    else:
        report("load one release, in process (median of 7)", medians, next(iter(medians)))


def whole_process() -> None:
    py = sys.executable
    commands = {
        "python -c pass": [py, "-c", "pass"],
        "import registry + load 26.2": [py, "-c", "from mcb.blocks.registry import load_registry; load_registry()"],
    }
    if RAW_26_2.exists():
        commands["python + json.load raw 26.2"] = [py, "-c", f"import json; json.load(open({str(RAW_26_2)!r}))"]
    report("whole process (median of 5)", side_by_side(commands, repeats=5), "python -c pass")


def canonicalize_throughput() -> None:
    from mcb.blocks.registry import load_registry
    from mcb.blocks.state import parse_state

    reg = load_registry("26.2")
    states = []
    for name in reg.names():
        info = reg.block(name)
        states.append(name)
        for prop, values in list(info.properties.items())[:2]:
            states.append(f"{name}[{prop}={values[-1]}]")
    recipe = re.compile(r"minecraft:[a-z0-9_]+(\[[a-z0-9_=,]+\])?")

    def uncached():
        reg._canonical_cache.clear()
        for text in states:
            reg.canonicalize(text)

    def cached():
        for text in states:
            reg.canonicalize(text)

    def parse_only():
        for text in states:
            parse_state(text)

    def regex_only():
        for text in states:
            recipe.fullmatch(text)

    cached()
    medians = {
        "recipe-regex": best_of(regex_only),
        "parse_state only": best_of(parse_only),
        "canonicalize (fresh cache)": best_of(uncached),
        "canonicalize (cached, palette reuse)": best_of(cached),
    }
    print(f"\n{len(states)} states (every 26.2 block, plain and with one property set)")
    report("validate + canonicalise a batch (median of 7)", medians, "recipe-regex")
    per_state = medians["canonicalize (fresh cache)"] / len(states) * 1e6
    print(f"  fresh canonicalize: {per_state:.1f} µs per state")


if __name__ == "__main__":
    in_process_load()
    whole_process()
    canonicalize_throughput()
