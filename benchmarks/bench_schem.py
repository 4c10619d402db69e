"""`mcb schem validate` on the 256^3 corpus file (565 KB gzip -> 30 MB NBT, 42,010 block entities, ~1.07 M tags)
against (a) only gunzipping it in Python and (b) ``nbtlib.load`` of it. Whole processes, median of interleaved runs.

Target: validate <= 3x the gunzip-only process. The command checks BlockData in a forked helper process
(mcb.schematics.offload) on a machine with two or more CPUs; the ``MCB_HELPER=0`` row checks it in process, and
``validate_schematic()`` called as a library does too. Also prints an in-process split of the validation, and the
time of a full model read (``read_schematic``: every block-entity tag materialised) for context.

    .venv/bin/python benchmarks/bench_schem.py [--repeats N]
"""

from __future__ import annotations

import argparse
import sys
import time

import os
import statistics
import subprocess

from _timing import ROOT, report

CORPUS = ROOT.parent / "shared" / "corpus"
LARGE = CORPUS / "v2_nucleation_large_schematic.schem"
BOMB = CORPUS / "v3_nucleation_stone_cube_1GB_inflated.schem"
TARGET_RATIO = 3.0

GUNZIP = "import gzip, sys; gzip.decompress(open(sys.argv[1], 'rb').read())"
NBTLIB = "import nbtlib, sys; nbtlib.load(sys.argv[1])"
CORE_VALIDATE = ("import sys; from mcb.schematics.rules import validate_schematic; "
                 "validate_schematic(sys.argv[1], profile=sys.argv[2])")


def run_once(argv: list[str]) -> float:
    """Wall time of one process; exit 1 is the validator's normal answer for a file with errors."""
    start = time.perf_counter()
    result = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ))
    if result.returncode not in (0, 1):
        raise SystemExit(f"{argv} failed with exit code {result.returncode}")
    return time.perf_counter() - start


def side_by_side(commands: dict[str, list[str]], repeats: int, warmup: int = 1) -> dict[str, float]:
    """Median per command, runs interleaved so machine noise hits every command alike."""
    for _ in range(warmup):
        for argv in commands.values():
            run_once(argv)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeats):
        for name, argv in commands.items():
            samples[name].append(run_once(argv))
    return {name: statistics.median(values) for name, values in samples.items()}


def validation_commands(path, profile: str = "server") -> dict[str, list[str]]:
    """Whole-process command lines, reusable by other benchmarks (e.g. rotate) that want the same baselines."""
    return {
        "python gunzip only": [sys.executable, "-c", GUNZIP, str(path)],
        "mcb --help (CLI start-up floor)": [sys.executable, "-m", "mcb", "--help"],
        f"mcb schem validate (--profile {profile})": [sys.executable, "-m", "mcb", "schem", "validate", "--profile",
                                                     profile, str(path)],
        "  the same through Typer (MCB_FAST_PATH=0)": ["env", "MCB_FAST_PATH=0", sys.executable, "-m", "mcb", "schem",
                                                       "validate", "--profile", profile, str(path)],
        "  the same without the helper (MCB_HELPER=0)": ["env", "MCB_HELPER=0", sys.executable, "-m", "mcb", "schem",
                                                         "validate", "--profile", profile, str(path)],
        "validate_schematic() in a bare process": [sys.executable, "-c", CORE_VALIDATE, str(path), profile],
        "nbtlib.load": [sys.executable, "-c", NBTLIB, str(path)],
    }


def in_process_split() -> None:
    sys.path.insert(0, str(ROOT / "cli"))
    from mcb.blocks.registry import load_registry
    from mcb.schematics.document import load_document
    from mcb.schematics.rules import validate_schematic
    from mcb.schematics.sponge import encode_schematic, read_schematic

    t0 = time.perf_counter()
    load_document(LARGE, fast=True)
    t1 = time.perf_counter()
    load_registry(None)
    t2 = time.perf_counter()
    validate_schematic(LARGE, profile="spec")
    t3 = time.perf_counter()
    schem = read_schematic(LARGE)
    t4 = time.perf_counter()
    encode_schematic(schem, 2)
    t4b = time.perf_counter()
    read_schematic(LARGE, lazy=False)
    t4c = time.perf_counter()
    validate_schematic(BOMB)
    t5 = time.perf_counter()
    print("\n## in-process split (one run each)")
    for name, seconds in (("gunzip + parse, block entities skimmed", t1 - t0), ("registry load (26.2)", t2 - t1),
                          ("validate --profile spec (registry warm)", t3 - t2),
                          ("read_schematic (model, lazy block-entity data)", t4 - t3),
                          ("encode_schematic v2 (untouched data copied)", t4b - t4),
                          ("read_schematic(lazy=False) (every tag decoded)", t4c - t4b),
                          ("validate the 1 GB decompression bomb", t5 - t4c)):
        print(f"  {name:<44} {seconds * 1000:9.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if not LARGE.is_file():
        print(f"corpus file missing: {LARGE}")
        return
    for profile in ("server", "spec"):
        commands = validation_commands(LARGE, profile)
        if profile == "spec":
            commands.pop("nbtlib.load")  # measured once is enough: it is slow
        medians = side_by_side(commands, repeats=args.repeats, warmup=1)
        report(f"validate {LARGE.name} --profile {profile} (whole process, median of {args.repeats})", medians,
               "python gunzip only")
        ratio = medians[f"mcb schem validate (--profile {profile})"] / medians["python gunzip only"]
        verdict = "OK" if ratio <= TARGET_RATIO else "OVER TARGET"
        print(f"  mcb schem validate ratio {ratio:.2f}x gunzip (target <= {TARGET_RATIO:.0f}x): {verdict}")
        if "nbtlib.load" in medians:
            print(f"  nbtlib.load / mcb schem validate: {medians['nbtlib.load'] / medians[f'mcb schem validate (--profile {profile})']:.1f}x")
    in_process_split()


if __name__ == "__main__":
    main()
