"""Reading and writing Litematica files: mcb against Nucleation (a Rust library; its Python package, PyPI
``nucleation``), side by side in one run, interleaved, medians.

    .venv/bin/python benchmarks/bench_litematica.py [--repeats 5] [--newer-python PYTHON]

Files: USS Texas (175 x 53 x 31, 365 states) and the 256^3 build (617 states, 42,010 block entities), each made a
``.litematic`` by ``mcb schem convert`` into a temporary folder. Operations: read (mcb ``read_any``, the model;
Nucleation ``load_from_file``) and write (mcb ``write_any(.., "litematic")``; Nucleation ``save_to_file``) of the
model read from that file. Every run is a fresh process of its side's interpreter, which first reads and writes a
small file (the corpus's sliding door: what either library loads on first use is loaded), then measures:

* ``op``: the operation alone, wall and CPU time (``time.thread_time`` of the one thread either library reads and
  writes in: less moved by other load on the machine, and without the CPU OpenBLAS's idle thread spins away for
  a while after numpy is imported, which process time would add to mcb's side);
* ``op peak``: the most memory the operation added above what the process held before it (VmHWM reset through
  ``/proc/self/clear_refs``);
* ``process``: the whole process, start to exit, wall time (interpreter, imports, the small file, the read a write
  needs, the operation), and its maximum RSS (``os.wait4``).

Targets (issue 29.8): read <= 1.2x and write <= 1.5x Nucleation on both files (op time).

Nucleation lives only here, in virtual environments of its own made with pip on first use, so mcb's process never
imports it: ``.bench-peers`` with this interpreter (the newest release with a wheel for it: 0.2.18 for Python
3.11), and ``.bench-peers-newest`` with a Python >= 3.12 when the machine has one (``--newer-python``, else
``python3.N`` on the path or pyenv's), whose wheels are the current releases (0.12.0 when this was written).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import BIN, ROOT  # noqa: E402  (importing _timing compiles mcb's bytecode)

CORPUS = ROOT.parent / "shared" / "corpus"
SMALL = CORPUS / "litematic_nucleation_4x4_sliding_door.litematic"  # read and written first in every process
FILES = {"Texas": "v3_nucleation_uss-texas.schem", "256^3": "v2_nucleation_large_schematic.schem"}
TARGETS = {"read": 1.2, "write": 1.5}
FIGURES = (  # (key, label, unit, scale)
    ("op_s", "op", "ms", 1000),
    ("op_cpu_s", "op CPU", "ms", 1000),
    ("op_peak_kb", "op peak", "MiB", 1 / 1024),
    ("process_s", "process", "ms", 1000),
    ("process_peak_kb", "process peak", "MiB", 1 / 1024),
)

# One child program for both sides: its library reads and writes the small file, then reads (and for a write,
# writes) once, and prints what it measured from the inside. The operation's peak: VmHWM reset to the RSS first.
CHILD = r"""
import json, sys, time
side, op, path, out, small = sys.argv[1:6]

def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))

def reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False

if side == "mcb":
    from mcb.schematics.formats import read_any, write_any
    load = read_any
    save = lambda schem: write_any(schem, out, "litematic")
else:
    from nucleation import Schematic
    if hasattr(Schematic, "load_from_file"):  # 0.3 and later
        load, save = Schematic.load_from_file, lambda schem: schem.save_to_file(out)
    else:  # 0.2: the constructor reads a path
        load, save = Schematic, lambda schem: schem.save(out)
save(load(small))
schem = load(path) if op == "write" else None
before = status("VmRSS")
exact = reset_peak()
started, cpu = time.perf_counter(), time.thread_time()
if op == "read":
    schem = load(path)
else:
    save(schem)
seconds, cpu = time.perf_counter() - started, time.thread_time() - cpu
print(json.dumps({"op_s": seconds, "op_cpu_s": cpu, "op_peak_kb": status("VmHWM") - before if exact else None}))
"""


def newer_python(requested: str | None) -> str | None:
    """A Python >= 3.12 (Nucleation's current wheels need it): ``requested``, else the newest found, else None."""
    candidates = [requested] if requested else []
    candidates += [shutil.which(f"python3.{minor}") for minor in range(20, 11, -1)]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python3")), reverse=True)
    for python in filter(None, candidates):
        try:
            found = subprocess.run(
                [python, "-c", "import sys; print(sys.version_info >= (3, 12))"], capture_output=True, text=True
            )
        except OSError:
            continue
        if found.stdout.strip() == "True":
            return python
    return None


def peer(venv: Path, base: str) -> tuple[str, str]:
    """(the venv's interpreter, "nucleation VERSION"), the venv made and Nucleation installed with pip if missing."""
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"making {venv.name} with {base}: pip install nucleation", flush=True)
        subprocess.run([base, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--only-binary=:all:", "nucleation"], check=True
        )
    version = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m, sys; print(m.version('nucleation'), sys.version[:4])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return str(python), f"nucleation {version[0]} (Python {version[1].rstrip('.')})"


def run_child(python: str, side: str, op: str, path: Path, out: Path) -> dict:
    """One fresh process; Popen and os.wait4 by hand (communicate() would reap the child and lose its rusage)."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [python, "-c", CHILD, side, op, str(path), str(out), str(SMALL)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    stdout, stderr = child.stdout.read(), child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{side} {op} {path.name} failed:\n{stderr.decode(errors='replace')}")
    figures = json.loads(stdout)
    figures.update(process_s=wall, process_peak_kb=usage.ru_maxrss)
    return figures


def convert_inputs(folder: Path) -> dict[str, Path]:
    inputs = {}
    for label, name in FILES.items():
        target = folder / (Path(name).stem + ".litematic")
        subprocess.run(
            [str(BIN / "mcb"), "schem", "convert", str(CORPUS / name), "-o", str(target)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,  # Texas's DataVersion note
        )
        inputs[label] = target
    return inputs


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--newer-python", help="a Python >= 3.12 for the newest Nucleation (default: found)")
    args = parser.parse_args()
    sides = {"mcb": sys.executable}
    labels = {"mcb": f"mcb (Python {sys.version.split()[0]})"}
    python, labels["peer"] = peer(ROOT / ".bench-peers", sys.executable)
    sides["peer"] = python
    newer = newer_python(args.newer_python) if sys.version_info < (3, 12) else None
    if newer is not None:
        sides["newest"], labels["newest"] = peer(ROOT / ".bench-peers-newest", newer)
    peers = [side for side in sides if side != "mcb"]
    print(f"## Litematica read and write, a fresh process per run, interleaved, medians of {args.repeats}")
    for side in sides:
        print(f"  {side:<7} {labels[side]}")
    cases = [(label, op) for label in FILES for op in ("read", "write")]
    samples: dict[tuple, list[dict]] = {(label, op, side): [] for label, op in cases for side in sides}
    with tempfile.TemporaryDirectory(prefix="mcb-bench-litematica-") as tmp:
        folder = Path(tmp)
        inputs = convert_inputs(folder)
        for repeat in range(args.repeats + 1):  # the first round warms the page cache and is not counted
            order = list(sides) if repeat % 2 else list(sides)[::-1]
            for label, op in cases:
                for side in order:
                    figures = run_child(sides[side], side, op, inputs[label], folder / f"out-{side}.litematic")
                    if repeat:
                        samples[label, op, side].append(figures)
    header = f"  {'file':<6} {'op':<5} {'figure':<13} {'mcb':>12}"
    for side in peers:
        header += f" {side:>12} {'ratio':>6}"
    print("\n" + header)
    worst = {(side, op): 0.0 for side in peers for op in TARGETS}
    for label, op in cases:
        for key, name, unit, scale in FIGURES:
            values = {side: [s[key] for s in samples[label, op, side] if s[key] is not None] for side in sides}
            if not all(values.values()):
                continue
            mine = statistics.median(values["mcb"])
            row = f"  {label:<6} {op:<5} {name:<13} {mine * scale:>8.1f} {unit:<3}"
            for side in peers:
                theirs = statistics.median(values[side])
                ratio = mine / theirs if theirs else float("nan")
                if key == "op_s":
                    worst[side, op] = max(worst[side, op], ratio)
                row += f" {theirs * scale:>8.1f} {unit:<3} {ratio:>5.2f}x"
            print(row)
    print()
    for (side, op), ratio in worst.items():
        print(f"  worst {op:<5} (op time) vs {labels[side]}: {ratio:.2f}x (target <= {TARGETS[op]}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
