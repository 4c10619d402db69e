"""numpy settings for one-shot commands that handle big arrays, made before numpy is imported."""

from __future__ import annotations


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
