"""`mcb schem rotate` on the 256^3 corpus file against only gunzipping that file in Python (whole processes).

Target: ratio <= 8x. Also prints the in-process split (read / transform / write) to show where time goes.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from _timing import ROOT, report, side_by_side

CORPUS = ROOT.parent / "shared" / "corpus"
LARGE = CORPUS / "v2_nucleation_large_schematic.schem"      # 256^3, 617 states, 42,010 block entities
MEDIUM = CORPUS / "v2_schematic4j_interieur-exterieur.schem"  # 128 x 18 x 128, few block entities (context only)
TARGET_RATIO = 8.0

GUNZIP = "import gzip, sys; gzip.decompress(open(sys.argv[1], 'rb').read())"


def in_process_split(out: Path) -> None:
    sys.path.insert(0, str(ROOT / "cli"))
    from mcb.schematics.sponge import read_schematic, write_schematic
    from mcb.schematics.transform import registry_for, rotate_schematic

    t0 = time.perf_counter()
    schem = read_schematic(LARGE)
    t1 = time.perf_counter()
    registry = registry_for(schem)
    t2 = time.perf_counter()
    rotated = rotate_schematic(schem, 90, registry=registry)
    t3 = time.perf_counter()
    write_schematic(rotated, out, version=2)
    t4 = time.perf_counter()
    print("\n## in-process split (one run)")
    for name, seconds in (("read", t1 - t0), ("registry load", t2 - t1), ("rotate (palette + array)", t3 - t2),
                          ("write", t4 - t3)):
        print(f"  {name:<40} {seconds * 1000:9.1f} ms")


def main() -> None:
    if not LARGE.is_file():
        print(f"corpus file missing: {LARGE}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "x.schem"
        for source, repeats in ((LARGE, 3), (MEDIUM, 5)):
            medians = side_by_side(
                {
                    "python gunzip only": [sys.executable, "-c", GUNZIP, str(source)],
                    "mcb schem rotate --degrees 90": [sys.executable, "-m", "mcb", "schem", "rotate", str(source),
                                                      "--degrees", "90", "-o", str(out)],
                },
                repeats=repeats,
                warmup=0,
            )
            report(f"rotate {source.name} (whole process, median of {repeats})", medians, "python gunzip only")
            ratio = medians["mcb schem rotate --degrees 90"] / medians["python gunzip only"]
            if source is LARGE:
                verdict = "OK" if ratio <= TARGET_RATIO else "OVER TARGET"
                print(f"  ratio {ratio:.2f}x (target <= {TARGET_RATIO:.0f}x): {verdict}")
        in_process_split(out)


if __name__ == "__main__":
    main()
