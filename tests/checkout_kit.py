"""A scratch copy of the repository as a fresh clone has it: the files git tracks (and new files not yet added that
git does not ignore), never what a user's own runs left in their checkout (``out/``, ``examples/*.state.json``)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_NOT_A_CHECKOUT = shutil.ignore_patterns(".git", ".venv*", ".bench-*", "__pycache__", "*.egg-info", ".pytest_cache")


def checkout_copy(target: Path, root: Path = ROOT) -> Path:
    """Copy ``root``'s tracked and not-ignored files to ``target``; outside a git checkout (an unpacked sdist),
    everything but the usual build and cache folders."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        shutil.copytree(root, target, ignore=_NOT_A_CHECKOUT, symlinks=True)
        return target
    target.mkdir(parents=True, exist_ok=True)
    for name in sorted(set(os.fsdecode(n) for n in listed.split(b"\0") if n)):
        source = root / name
        if not source.is_symlink() and not source.is_file():  # deleted in the working tree, not yet committed
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name, follow_symlinks=False)
    return target
