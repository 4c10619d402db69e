"""`mcb schem validate` on the 256^3 corpus file (565 KB gzip -> 30 MB NBT, 42,010 block entities, ~1.07 M tags)
against (a) only gunzipping it in Python and (b) ``nbtlib.load`` of it; a small file against a minimal two-command
Typer app's ``--help``; and peak memory (max RSS) of validate / rotate of the 256^3 file and of the 1 GB bomb.
Whole processes, medians of interleaved runs (the machine is shared: single runs move by tens of percent).

Targets (issue 12): validate --profile spec <= 5x gunzip-only and >= 10x faster than nbtlib.load; small-file
validate <= 1.0x the minimal Typer app; peak memory <= 100 / 200 / 50 MiB.

    .venv/bin/python benchmarks/bench_schem.py [--repeats N] [--also-typer DIR]

``--also-typer DIR`` adds the mcb rows once more with another Typer release first on the path (``make bench`` passes
typer 0.28, the last release whose commands build no pydantic TypeAdapter), interleaved in the same run.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import ROOT, report

CORPUS = ROOT.parent / "shared" / "corpus"
LARGE = CORPUS / "v2_nucleation_large_schematic.schem"
BOMB = CORPUS / "v3_nucleation_stone_cube_1GB_inflated.schem"
SMALL = CORPUS / "v2_nucleation_sample.schem"

GUNZIP = "import gzip, sys; gzip.decompress(open(sys.argv[1], 'rb').read())"
NBTLIB = "import nbtlib, sys; nbtlib.load(sys.argv[1])"
MINIMAL_TYPER = (
    "import typer\napp = typer.Typer()\n@app.command()\ndef one(): pass\n@app.command()\ndef two(): pass\napp()\n"
)
# max RSS of the process itself, printed as it exits (SystemExit included)
PEAK = (
    "import atexit, resource, sys\natexit.register(lambda: sys.stderr.write("
    'f"PEAK_KIB {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n"))\n'
    "sys.argv = ['mcb'] + sys.argv[1:]\nfrom mcb.app import main\nmain()\n"
)


def run_once(argv: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one process; exit 1 is the validator's normal answer for a file with errors. CPU
    time (user + sys of the child) moves far less than wall time on a shared machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode not in (0, 1):
        raise SystemExit(f"{argv} failed with exit code {result.returncode}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def side_by_side(commands: dict[str, list[str]], repeats: int) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall and CPU time per command, runs interleaved (after one warm-up round) so machine noise hits
    every command alike."""
    for argv in commands.values():
        run_once(argv)
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeats):
        for name, argv in commands.items():
            wall, cpu = run_once(argv)
            walls[name].append(wall)
            cpus[name].append(cpu)
    return (
        {name: statistics.median(v) for name, v in walls.items()},
        {name: statistics.median(v) for name, v in cpus.items()},
    )


def judge(label: str, medians: dict[str, float], name: str, baseline: str, target: float) -> None:
    ratio = medians[name] / medians[baseline]
    print(f"  {label}: {ratio:.2f}x {baseline} (target <= {target:g}x): {'OK' if ratio <= target else 'OVER'}")


def mcb(*args, typer_dir: str | None = None) -> list[str]:
    """``python -m mcb ARGS``; with ``typer_dir``, that Typer release first on the path (through ``env``, which
    adds its own ~1 ms to that row only)."""
    command = [sys.executable, "-m", "mcb", *map(str, args)]
    return ["env", f"PYTHONPATH={typer_dir}", *command] if typer_dir else command


def typer_label(typer_dir: str | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": typer_dir} if typer_dir else None
    return (
        "typer "
        + subprocess.run(
            [sys.executable, "-c", "import typer; print(typer.__version__)"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )


def peak_mib(args) -> float:
    result = subprocess.run(
        [sys.executable, "-c", PEAK, *map(str, args)], capture_output=True, text=True, env=dict(os.environ)
    )
    line = next(line for line in result.stderr.splitlines() if line.startswith("PEAK_KIB"))
    return int(line.split()[1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--also-typer", metavar="DIR", help="another Typer release to measure beside the installed one")
    args = parser.parse_args()
    if not LARGE.is_file():
        print(f"corpus file missing: {LARGE}")
        return
    releases = {typer_label(): None}
    if args.also_typer:
        releases[typer_label(args.also_typer)] = args.also_typer
    commands = {
        "python gunzip only": [sys.executable, "-c", GUNZIP, str(LARGE)],
        "nbtlib.load": [sys.executable, "-c", NBTLIB, str(LARGE)],
    }
    for label, typer_dir in releases.items():
        commands[f"mcb schem validate --profile spec ({label})"] = mcb(
            "schem", "validate", "--profile", "spec", LARGE, typer_dir=typer_dir
        )
        commands[f"mcb schem validate --profile server ({label})"] = mcb(
            "schem", "validate", LARGE, typer_dir=typer_dir
        )
    walls, cpus = side_by_side(commands, repeats=args.repeats)
    for kind, medians in (("wall", walls), ("CPU", cpus)):
        report(
            f"validate {LARGE.name} ({kind} time of the whole process, median of {args.repeats})",
            medians,
            "python gunzip only",
        )
        for label in releases:
            spec = f"mcb schem validate --profile spec ({label})"
            judge(f"validate --profile spec ({label})", medians, spec, "python gunzip only", 5)
            faster = medians["nbtlib.load"] / medians[spec]
            print(
                f"  nbtlib.load / validate --profile spec ({label}): {faster:.1f}x (target >= 10x): "
                f"{'OK' if faster >= 10 else 'UNDER'}"
            )

    with tempfile.TemporaryDirectory() as tmp:
        minimal = Path(tmp) / "minimal.py"
        minimal.write_text(MINIMAL_TYPER)
        small = {}
        for label, typer_dir in releases.items():
            small[f"minimal two-command Typer app --help ({label})"] = (
                ["env", f"PYTHONPATH={typer_dir}"] if typer_dir else []
            ) + [sys.executable, str(minimal), "--help"]
            small[f"mcb schem validate {SMALL.name} ({label})"] = mcb("schem", "validate", SMALL, typer_dir=typer_dir)
        walls, cpus = side_by_side(small, repeats=args.repeats * 2)
        for kind, medians in (("wall", walls), ("CPU", cpus)):
            for label in releases:
                report(
                    f"small-file validate ({kind} time, {label})",
                    {name: value for name, value in medians.items() if name.endswith(f"({label})")},
                    f"minimal two-command Typer app --help ({label})",
                )
        out = Path(tmp) / "rotated.schem"
        print("\n## peak memory (max RSS of the whole process)")
        for name, argv, target in (
            ("validate the 256^3 file (--profile spec)", ["schem", "validate", "--profile", "spec", LARGE], 100),
            ("rotate 90 + write the 256^3 file", ["schem", "rotate", LARGE, "--degrees", "90", "-o", out], 200),
            ("validate the 1 GB bomb", ["schem", "validate", BOMB], 50),
        ):
            mib = peak_mib(argv)
            print(f"  {name:<44} {mib:7.1f} MiB (target <= {target}): {'OK' if mib <= target else 'OVER'}")
    in_process_split()


def in_process_split() -> None:
    sys.path.insert(0, str(ROOT / "cli"))
    from mcb.schematics.document import load_document
    from mcb.schematics.rules import validate_schematic

    steps = []
    start = time.perf_counter()
    load_document(LARGE, fast=True)
    steps.append(("read, block-entity contents walked unbuilt", time.perf_counter() - start))
    start = time.perf_counter()
    load_document(LARGE)
    steps.append(("read, every tag built (the model's read)", time.perf_counter() - start))
    start = time.perf_counter()
    validate_schematic(LARGE, profile="spec")
    steps.append(("validate_schematic --profile spec", time.perf_counter() - start))
    print("\n## in-process split (one run each)")
    for name, seconds in steps:
        print(f"  {name:<44} {seconds * 1000:9.1f} ms")


if __name__ == "__main__":
    main()
