"""Importing a heavy module on a worker thread while the main thread reads and inflates its input.

zlib releases the GIL while it inflates, so importing numpy (~100 ms on a small machine) beside the read of a big
gzip file costs little extra wall time. Python's import lock makes an ``import numpy`` on the main thread wait for
the worker's import to finish, so callers import as usual afterwards.
"""

from __future__ import annotations

import importlib
import sys
import threading


def import_in_background(name: str) -> threading.Thread | None:
    """Start importing module ``name`` on a daemon thread; None when it is already imported. Join the thread
    before the process ends."""
    if name in sys.modules:
        return None
    thread = threading.Thread(target=importlib.import_module, args=(name,), name=f"mcb-import-{name}", daemon=True)
    thread.start()
    return thread
