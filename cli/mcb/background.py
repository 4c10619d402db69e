"""numpy settings for one-shot commands that handle big arrays, made before numpy is imported."""

from __future__ import annotations


def settle_numpy_for_one_shot() -> None:
    """``OPENBLAS_NUM_THREADS=1`` unless the user set it, before numpy is imported: nothing here does linear
    algebra, and the BLAS thread pool that numpy's import starts spins on the other core (a 256^3 rotate: ~60 ms
    of CPU, measured side by side in benchmarks/bench_rotate.py). Not a switch: the user's value wins."""
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
