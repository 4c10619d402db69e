"""The extras function (`mcb.building.extras.extras_commands`: read, upgrade, turn, write the commands) against
``read_any`` of the same file (reading it into the model with every block entity's contents, which the function
cannot skip), interleaved in one process, medians.

Files: the 256^3 Sponge v2 file (42,010 block entities, 221,213 items), the interieur-exterieur house (931 block
entities, 1.19.2 data upgraded) and Evaluator (497 block entities, 8 entities). Turned 90 degrees, as a build.

    .venv/bin/python benchmarks/bench_extras.py [--repeats N]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time

from _timing import ROOT

sys.path.insert(0, str(ROOT / "cli"))
CORPUS = ROOT.parent / "shared" / "corpus"
FILES = {
    "256^3 (Sponge v2)": "v2_nucleation_large_schematic.schem",
    "interieur-exterieur (1.19.2)": "v2_schematic4j_interieur-exterieur.schem",
    "Evaluator (1.20.4)": "v2_nucleation_Evaluator_entities.schem",
}


def seconds(function, *args) -> float:
    gc.collect()
    started = time.perf_counter()
    function(*args)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    from mcb.building.extras import extras_commands
    from mcb.schematics.formats import read_any

    print("## extras_commands (rotation 90) vs read_any of the same file, medians, one process")
    for label, name in FILES.items():
        path = CORPUS / name
        ours, base = [], []
        for _ in range(args.repeats):  # interleaved: noise hits both alike
            ours.append(seconds(extras_commands, path, (0, 64, 0), 90))
            base.append(seconds(read_any, path))
        mine, theirs = statistics.median(ours), statistics.median(base)
        print(
            f"  {label:<30} extras {mine * 1000:8.1f} ms   read_any {theirs * 1000:8.1f} ms   "
            f"{mine / theirs:5.2f}x read_any"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
