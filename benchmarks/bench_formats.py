"""Reading a schematic into the model (`mcb.schematics.formats.read_any`: NBT, cells, block entities, entities)
against ``nbtlib.load`` of the same file (a plain NBT tree, no model), interleaved in one process, medians.

Files: USS Texas (Sponge v3, 287,525 cells), the 86 x 82 x 101 Schematica file (legacy, 712,252 cells, 113 block
entities, 73 entities) and the 256^3 Sponge v2 file (16.7 M cells, 42,010 block entities), plus the largest
Litematica and structure files of the corpus for context. Target (issue 20): read_any <= 1.0x nbtlib.load.

    .venv/bin/python benchmarks/bench_formats.py [--repeats N]
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
    "Texas (Sponge v3)": "v3_nucleation_uss-texas.schem",
    "86x82x101 legacy (Schematica)": "legacy_schematic4j_12727.schematic",
    "256^3 (Sponge v2)": "v2_nucleation_large_schematic.schem",
    "sliding door (Litematica)": "litematic_nucleation_4x4_sliding_door.litematic",
    "cart curve (structure)": "nbt_nucleation_cart_curve.nbt",
}
TARGETS = ("Texas (Sponge v3)", "86x82x101 legacy (Schematica)", "256^3 (Sponge v2)")


def seconds(function, path) -> float:
    gc.collect()
    started = time.perf_counter()
    function(path)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    import nbtlib

    from mcb.schematics.formats import read_any

    print("## read into the model (read_any) vs nbtlib.load of the same file, medians, one process")
    worst = 0.0
    for label, name in FILES.items():
        path = CORPUS / name
        ours, theirs = [], []
        for _ in range(args.repeats):  # interleaved: noise hits both alike
            ours.append(seconds(read_any, path))
            theirs.append(seconds(nbtlib.load, path))
        mine, base = statistics.median(ours), statistics.median(theirs)
        ratio = mine / base
        if label in TARGETS:
            worst = max(worst, ratio)
        print(
            f"  {label:<32} read_any {mine * 1000:8.1f} ms   nbtlib.load {base * 1000:8.1f} ms   "
            f"{ratio:5.2f}x nbtlib.load"
        )
    print(f"\n  worst of the three target files: {worst:.2f}x nbtlib.load (target <= 1.0x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
