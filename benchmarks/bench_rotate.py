"""`mcb schem rotate` on the 256^3 corpus file against only gunzipping that file in Python (whole processes,
wall and CPU time: CPU moves far less on a shared machine).

Target: ratio <= 8x. Also prints the in-process split (read / transform / write) to show where time goes.

    .venv/bin/python benchmarks/bench_rotate.py [--also-typer DIR]

``--also-typer DIR``: the rotate row once more with another Typer release first on the path (as in bench_schem).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from _timing import ROOT, report
from bench_schem import mcb, side_by_side, typer_label

CORPUS = ROOT.parent / "shared" / "corpus"
LARGE = CORPUS / "v2_nucleation_large_schematic.schem"      # 256^3, 617 states, 42,010 block entities
MEDIUM = CORPUS / "v2_schematic4j_interieur-exterieur.schem"  # 128 x 18 x 128, few block entities (context only)
TARGET_RATIO = 8.0

GUNZIP = "import gzip, sys; gzip.decompress(open(sys.argv[1], 'rb').read())"


def in_process_split(out: Path) -> None:
    sys.path.insert(0, str(ROOT / "cli"))
    import gzip

    from mcb.schematics.document import load_document
    from mcb.schematics.sponge import schematic_from_document
    from mcb.schematics.transform import _apply, _contents_as_bytes, _rotation, rule_set_differences
    from mcb.schematics.upgrade import target_registry
    from mcb.schematics.gzip_parallel import gzip_compress
    from mcb.schematics.writer import FAST_LEVEL, encode_schematic, write_bytes_atomic

    import gc

    gc.disable()  # as transform_file runs (mcb.schematics.nbt.gc_paused)
    t0 = time.perf_counter()
    schem = schematic_from_document(load_document(LARGE, keep=_contents_as_bytes), compact=True)
    t1 = time.perf_counter()
    registry = target_registry(schem)
    t2 = time.perf_counter()
    rotated, transformed = _apply(schem, _rotation(schem, 90), "vanilla", registry, contiguous=False)
    t3 = time.perf_counter()
    rule_set_differences(schem, 1, None, registry, "vanilla", "geometric", transformed)
    t4 = time.perf_counter()
    raw = encode_schematic(rotated, 2, compress=False)
    t5 = time.perf_counter()
    packed = gzip_compress(raw, FAST_LEVEL)
    t6 = time.perf_counter()
    write_bytes_atomic(out, packed)
    t7 = time.perf_counter()
    six = gzip.compress(raw, compresslevel=6, mtime=0)
    t8 = time.perf_counter()
    one = gzip.compress(raw, compresslevel=FAST_LEVEL, mtime=0)
    t9 = time.perf_counter()
    gc.enable()
    print("\n## in-process split (one run, what `mcb schem rotate` does)")
    for name, seconds in (("read (block-entity contents kept as bytes)", t1 - t0), ("registry load", t2 - t1),
                          ("rotate (palette + array + block entities)", t3 - t2),
                          ("rule-set differences (the summary)", t4 - t3), ("encode NBT (v2)", t5 - t4),
                          (f"gzip level {FAST_LEVEL}, 2 threads ({len(raw) >> 20} MiB NBT -> {len(packed) // 1000} KB)",
                           t6 - t5),
                          ("atomic write + fsync", t7 - t6),
                          (f"(for comparison: gzip level 6 -> {len(six) // 1000} KB)", t8 - t7),
                          (f"(for comparison: gzip level {FAST_LEVEL} in one piece -> {len(one) // 1000} KB)", t9 - t8)):
        print(f"  {name:<50} {seconds * 1000:9.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--also-typer", metavar="DIR", help="another Typer release to measure beside the installed one")
    args = parser.parse_args()
    if not LARGE.is_file():
        print(f"corpus file missing: {LARGE}")
        return
    label = typer_label()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "x.schem"
        for source, repeats in ((LARGE, 7), (MEDIUM, 5)):  # 7: this shared machine moves single runs by +-15%
            rotate = ["schem", "rotate", source, "--degrees", "90", "-o", out]
            commands = {
                "python gunzip only": [sys.executable, "-c", GUNZIP, str(source)],
                f"mcb schem rotate --degrees 90 ({label})": mcb(*rotate),
                # what mcb.background saves: numpy's import starting an OpenBLAS thread per core
                "(same, OpenBLAS default threads)": ["env", f"OPENBLAS_NUM_THREADS={os.cpu_count()}", *mcb(*rotate)],
            }
            if args.also_typer and source is LARGE:
                commands[f"mcb schem rotate --degrees 90 ({typer_label(args.also_typer)})"] = mcb(
                    *rotate, typer_dir=args.also_typer)
            walls, cpus = side_by_side(commands, repeats=repeats)
            for kind, medians in (("wall", walls), ("CPU", cpus)):
                report(f"rotate {source.name} ({kind} time, median of {repeats})", medians, "python gunzip only")
                if source is LARGE:
                    for name in (name for name in commands if name.startswith("mcb schem rotate")):
                        ratio = medians[name] / medians["python gunzip only"]
                        verdict = "OK" if ratio <= TARGET_RATIO else "OVER TARGET"
                        print(f"  {name}: ratio {ratio:.2f}x (target <= {TARGET_RATIO:.0f}x): {verdict}")
        in_process_split(out)


if __name__ == "__main__":
    main()
