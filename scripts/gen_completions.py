"""Regenerate the shell completion scripts in completions/ (run: make completions).

The scripts are thin wrappers that call `mcb` back on every TAB press, so they only change when the program name
or Typer's completion protocol changes; tests/test_completions.py fails when the committed files are stale.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"bash": "mcb.bash", "zsh": "_mcb", "fish": "mcb.fish", "powershell": "mcb.ps1"}


def completion_script(shell: str) -> str:
    env = dict(os.environ, _MCB_COMPLETE=f"source_{shell}")
    result = subprocess.run(
        [sys.executable, "-m", "mcb"], env=env, capture_output=True, text=True, check=True, cwd=ROOT
    )
    return result.stdout


def main() -> None:
    if sys.argv[1:]:  # `--help` or anything else: say what this does rather than do it
        print(
            "usage: python scripts/gen_completions.py   (rewrites completions/* from `mcb`; no options)",
            file=sys.stderr,
        )
        sys.exit(0 if sys.argv[1:] in (["-h"], ["--help"]) else 2)
    out_dir = ROOT / "completions"
    out_dir.mkdir(exist_ok=True)
    for shell, name in TARGETS.items():
        target = out_dir / name
        tmp = target.with_suffix(target.suffix + ".tmp")
        tmp.write_text(completion_script(shell))
        os.replace(tmp, target)
        print(f"wrote {target.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
