"""Whole-process start-up of mcb commands against a minimal two-command Typer app's `--help`, side by side.

    .venv/bin/python benchmarks/bench_startup.py [--repeats 15]

Rows (targets from issue 12): `mcb schem validate SMALL.schem` <= 1.0x, `mcb context --json` against a live
`mcb serve` <= 1.1x, `mcb --help` <= 1.3x; all divided by `python minimal_typer_app.py --help`. Runs are
interleaved so the machine's noise hits every row alike; figures are medians.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import ROOT, report, side_by_side  # noqa: E402  (importing _timing compiles mcb's bytecode)

from mcb.server.testing import spawn_server  # noqa: E402

HERE = Path(__file__).resolve().parent
SMALL = ROOT / "schematics" / "house.schem"
BASELINE = "minimal typer app --help"
TARGETS = {"mcb schem validate SMALL.schem": 1.0, "mcb context --json": 1.1, "mcb --help": 1.3}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    repeats = parser.parse_args().repeats
    # What the console script runs (the Typer app), spelled out so the row measures it whatever the script points at.
    mcb = [sys.executable, "-c", "import sys; from mcb.app import main; sys.exit(main())"]
    with tempfile.TemporaryDirectory() as tmp:
        server = spawn_server(Path(tmp) / "data", tick_ms=50)
        try:
            env = {**os.environ, "MCB_SERVER": server.url, "MCB_AGENT_TOKEN": server.agent_token,
                   "MCB_PLAYER_ID": "console", "NO_COLOR": "1"}
            medians = side_by_side({
                BASELINE: [sys.executable, str(HERE / "minimal_typer_app.py"), "--help"],
                "mcb schem validate SMALL.schem": [*mcb, "schem", "validate", str(SMALL)],
                "mcb context --json": [*mcb, "context", "--json"],
                "mcb --help": [*mcb, "--help"],
                "mcb --version": [*mcb, "--version"],
            }, repeats=repeats, env=env)
        finally:
            server.stop()
    report(f"start-up (whole process, median of {repeats}, interleaved)", medians, BASELINE)
    for name, target in TARGETS.items():
        ratio = medians[name] / medians[BASELINE]
        verdict = "ok" if ratio <= target else "over"
        print(f"  {name} / {BASELINE} = {ratio:.2f}x (target <= {target}x: {verdict})")


if __name__ == "__main__":
    main()
