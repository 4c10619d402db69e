"""The plan log: every write mcb sends to a world is an entry of one, on disk before each request leaves.

An entry moves ``prepared`` (plan id + hash) → ``applying`` (idempotency key chosen; ``build_apply`` may have been
sent) → ``started`` (operation id) → ``done`` / ``failed``; or ``dropped`` when the plan provably never started an
operation (it expired, a run stopped before applying it). A re-run first settles entries left ``applying`` or
``started`` — ``build_apply`` again with the recorded key returns the existing operation, never a second one.

A log lives in one record of a :class:`mcb.batch.state.BatchState` (``record[field]``): a recipe build is a log of one
entry, a schematic build, a terrain run, an undo and a restore are logs of many. Besides its phase an entry keeps what
its source needs to resume (the walk's cursor, the operation it undoes) and, for the plans of a schematic build,
``expected``: the file holding the states mcb read at each position before writing and the states it wrote, so an
undo the plugin refuses can be done from mcb's own record (:mod:`mcb.batch.undo`).
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mcb.batch.state import BatchState
from mcb.client.models import PlanSummary

if TYPE_CHECKING:  # numpy only where states are recorded: a one-plan write (a recipe, an undo) never loads it
    import numpy as np


def entry_positions(entry: dict) -> int:
    """The positions an entry's plan changes (recorded with it, else its plan's changed_blocks)."""
    return int(entry.get("positions", (entry.get("plan") or {}).get("changed_blocks", 0)) or 0)


def counted_positions(entry: dict, status: str | None, written: int | None) -> int:
    """An ended entry's positions as runs count them: an applied plan's all, another's only those it wrote (the
    source plans the rest again, counted then)."""
    positions = entry_positions(entry)
    return positions if status == "applied" else min(positions, int(written or 0))


class PlanLog:
    """The plan entries of one record (``record[field]``), saved with the state file at every change."""

    def __init__(self, state: BatchState, name: str, field: str = "plans"):
        self.state, self.name, self.field = state, name, field

    @property
    def record(self) -> dict:
        return self.state.data["steps"].setdefault(self.name, {})

    @property
    def entries(self) -> list[dict]:
        return self.record.setdefault(self.field, [])

    def add(self, plan: PlanSummary, **fields) -> dict:
        entry = {"phase": "prepared", "plan": plan.wire(), **fields}
        self.entries.append(entry)
        self.save()
        return entry

    def update(self, entry: dict, **fields) -> dict:
        entry.update(fields)
        self.save()
        return entry

    def set(self, **fields) -> None:
        self.record.update(fields)
        self.save()

    def save(self) -> None:
        self.record["updated_at"] = int(time.time() * 1000)
        self.state.save()

    # -- the states recorded before writing ---------------------------------------------------------------------
    @property
    def records_dir(self) -> Path:
        return records_dir(self.state.path)

    def save_expected(self, states: ExpectedStates) -> str:
        """Write ``states`` beside the state file (before the plan that writes them is applied); its file name."""
        name = f"{uuid.uuid4().hex}.npz"
        states.save(self.records_dir / name)
        return name

    def load_expected(self, entry: dict) -> ExpectedStates | None:
        """What an entry's plan found and wrote, or None when nothing was recorded (an older mcb, a lost file)."""
        name = entry.get("expected")
        if not name:
            return None
        try:
            return ExpectedStates.load(self.records_dir / name)
        except (OSError, ValueError, KeyError):
            return None


def records_dir(state_path: Path) -> Path:
    """The folder of a state file's recorded states: ``<state file>.plans`` beside it."""
    return Path(state_path).with_name(Path(state_path).name + ".plans")


@dataclass
class ExpectedStates:
    """One plan's positions: the state mcb read there (``before``, sent as expected_blocks), the state it asked
    for (``wrote``), and whether a block entity stood there when it read (its data is not readable)."""

    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    before: list[str]
    wrote: list[str]
    block_entity: np.ndarray  # bool

    def __len__(self) -> int:
        return len(self.x)

    def save(self, path: Path) -> None:
        names = sorted(set(self.before) | set(self.wrote))
        index = {name: i for i, name in enumerate(names)}
        path.parent.mkdir(parents=True, exist_ok=True)
        import numpy as np

        temporary = path.with_name(path.name + ".tmp")
        with open(temporary, "wb") as handle:
            np.savez_compressed(
                handle,
                xyz=np.stack([self.x, self.y, self.z]).astype(np.int32),
                before=np.array([index[n] for n in self.before], dtype=np.int32),
                wrote=np.array([index[n] for n in self.wrote], dtype=np.int32),
                block_entity=np.asarray(self.block_entity, dtype=bool),
                names=np.array(names, dtype=str),
            )
        os.replace(temporary, path)

    @classmethod
    def load(cls, path: Path) -> ExpectedStates:
        import numpy as np

        with np.load(path, allow_pickle=False) as data:
            names = [str(n) for n in data["names"]]
            xyz = data["xyz"].astype(np.int64)
            return cls(
                xyz[0],
                xyz[1],
                xyz[2],
                [names[i] for i in data["before"].tolist()],
                [names[i] for i in data["wrote"].tolist()],
                data["block_entity"].astype(bool),
            )
