"""`mcb --help` wall time against a minimal Typer app's `--help`, measured side by side. Target: ratio <= 1.3."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from _timing import report, side_by_side

MINIMAL_APP = '''
import typer
app = typer.Typer()

@app.command()
def hello(name: str = "world") -> None:
    """Say hello."""
    print(name)

@app.command()
def bye() -> None:
    """Say bye."""

app()
'''


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "minimal_typer.py"
        script.write_text(MINIMAL_APP)
        medians = side_by_side(
            {
                "minimal typer app --help": [sys.executable, str(script), "--help"],
                "mcb --help": [sys.executable, "-m", "mcb", "--help"],
                "mcb --version": [sys.executable, "-m", "mcb", "--version"],
            },
            repeats=9,
        )
    report("start-up (whole process, median of 9)", medians, "minimal typer app --help")
    ratio = medians["mcb --help"] / medians["minimal typer app --help"]
    print(f"  mcb --help / minimal typer --help = {ratio:.2f} (target <= 1.3)")


if __name__ == "__main__":
    main()
