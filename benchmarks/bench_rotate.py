"""`mcb schem rotate` on the 256^3 corpus file against only gunzipping that file in Python (whole processes,
wall and CPU time: CPU moves far less on a shared machine).

Target: ratio <= 8x.

    .venv/bin/python benchmarks/bench_rotate.py [--also-typer DIR]

``--also-typer DIR``: the rotate row once more with another Typer release first on the path (as in bench_schem).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from _timing import ROOT, report
from bench_schem import mcb, side_by_side, typer_label

CORPUS = ROOT.parent / "shared" / "corpus"
LARGE = CORPUS / "v2_nucleation_large_schematic.schem"  # 256^3, 617 states, 42,010 block entities
MEDIUM = CORPUS / "v2_schematic4j_interieur-exterieur.schem"  # 128 x 18 x 128, few block entities (context only)
TARGET_RATIO = 8.0

GUNZIP = "import gzip, sys; gzip.decompress(open(sys.argv[1], 'rb').read())"


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
                # what mcb no longer does for the user: numpy's import starting one OpenBLAS thread, not one per core
                "(same, OPENBLAS_NUM_THREADS=1)": ["env", "OPENBLAS_NUM_THREADS=1", *mcb(*rotate)],
            }
            if args.also_typer and source is LARGE:
                commands[f"mcb schem rotate --degrees 90 ({typer_label(args.also_typer)})"] = mcb(
                    *rotate, typer_dir=args.also_typer
                )
            walls, cpus = side_by_side(commands, repeats=repeats)
            for kind, medians in (("wall", walls), ("CPU", cpus)):
                report(f"rotate {source.name} ({kind} time, median of {repeats})", medians, "python gunzip only")
                if source is LARGE:
                    for name in (name for name in commands if name.startswith("mcb schem rotate")):
                        ratio = medians[name] / medians["python gunzip only"]
                        verdict = "OK" if ratio <= TARGET_RATIO else "OVER TARGET"
                        print(f"  {name}: ratio {ratio:.2f}x (target <= {TARGET_RATIO:.0f}x): {verdict}")


if __name__ == "__main__":
    main()
