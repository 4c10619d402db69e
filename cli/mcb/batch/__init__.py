"""Scripted, resumable batches of builds (`mcb batch FILE`); see docs/batch.md.

``run_batch(client, path)`` loads the batch, opens its state file and runs every step; step kinds live in
:mod:`mcb.batch.kinds` (add one with ``register_step_kind``).
"""

from __future__ import annotations

from pathlib import Path

from mcb.batch.model import load_batch
from mcb.batch.runner import BatchReport, BatchRunner
from mcb.batch.state import BatchState, exclusive_run, state_path_for


def run_batch(client, path: Path, *, restart: bool = False, **options) -> BatchReport:
    batch = load_batch(Path(path))
    state_path = state_path_for(batch.path)
    with exclusive_run(state_path):
        if restart and state_path.exists():
            state_path.replace(state_path.with_name(state_path.name + ".bak"))
        state = BatchState.load(state_path, server=client.server, project_id=client.project_id)
        return BatchRunner(client, batch, state, **options).run()


__all__ = ["BatchReport", "BatchRunner", "BatchState", "exclusive_run", "load_batch", "run_batch", "state_path_for"]
