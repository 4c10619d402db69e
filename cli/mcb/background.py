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


def settle_numpy_for_one_shot() -> None:
    """numpy settings for a one-shot command, made before numpy is imported (a value the user set wins).

    * ``NUMPY_MADVISE_HUGEPAGE=0``: a one-shot rewrite of a 256^3 schematic allocates hundreds of MB of short-lived
      arrays; on a busy machine each transparent-huge-page fault can stall in memory compaction (a 256^3 rotate
      went from a 1.95 s to a 1.44 s median with small pages).
    * ``OPENBLAS_NUM_THREADS=1``: nothing here does linear algebra, and the BLAS thread pool that numpy's import
      starts spins on the other core (~90 ms of CPU), the core where the input inflates meanwhile.
    """
    import os

    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
