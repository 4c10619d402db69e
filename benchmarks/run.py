"""Run every benchmark in this folder (make bench). Each prints its own figures and ratios.

.venv/bin/python benchmarks/run.py [NAME ...] [--user-python PYTHON] [--also-typer DIR]
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    failures = 0
    selected = sys.argv[1:]
    startup_args, typer_args = [], []
    if "--user-python" in selected:  # the interpreter of a plain `pip install` (make bench builds one)
        at = selected.index("--user-python")
        startup_args = ["--python", os.path.abspath(selected[at + 1])]  # not resolve(): a venv python is a link
        del selected[at : at + 2]
    if "--also-typer" in selected:  # another Typer release beside the installed one (make bench: 0.28)
        at = selected.index("--also-typer")
        typer_args = ["--also-typer", os.path.abspath(selected[at + 1])]
        del selected[at : at + 2]
    for script in sorted(HERE.glob("bench_*.py")):
        if selected and script.stem.removeprefix("bench_") not in selected:
            continue
        print(f"\n=== {script.name}", flush=True)
        extra = {"bench_startup": startup_args + typer_args, "bench_schem": typer_args, "bench_rotate": typer_args}.get(
            script.stem, []
        )
        result = subprocess.run([sys.executable, str(script), *extra], cwd=HERE)
        failures += result.returncode != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
