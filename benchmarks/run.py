"""Run every benchmark in this folder (make bench). Each prints its own figures and ratios."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    failures = 0
    selected = sys.argv[1:]
    for script in sorted(HERE.glob("bench_*.py")):
        if selected and script.stem.removeprefix("bench_") not in selected:
            continue
        print(f"\n=== {script.name}", flush=True)
        result = subprocess.run([sys.executable, str(script)], cwd=HERE)
        failures += result.returncode != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
