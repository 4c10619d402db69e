"""The batch state file (``<batch stem>.state.json`` beside the batch file), rewritten atomically at every phase.

Each step moves through phases, and each phase is on disk *before* the next request goes out:
``prepared`` (plan id + hash) → ``applying`` (idempotency key chosen; ``build_apply`` may have been sent) →
``started`` (operation id known) → ``done`` / ``failed``. A re-run continues from the recorded phase, and the
only request it repeats is ``build_apply`` with the recorded key, which the server answers with the existing
operation: a step is never written twice.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcb.errors import ConfigError, ConflictError, InputError
from mcb.fileio import write_atomic

STATE_FORMAT = 1


def state_path_for(batch_path: Path) -> Path:
    batch_path = Path(batch_path)
    stem = batch_path.name[:-5] if batch_path.name.endswith(".json") else batch_path.name
    return batch_path.with_name(f"{stem}.state.json")


@contextlib.contextmanager
def exclusive_run(state_path: Path) -> Iterator[None]:
    """Hold ``<state>.lock`` for the whole run: two runs of one batch would each prepare (and apply) every step.

    The lock is an OS file lock, so a crashed run never leaves it behind.
    """
    try:
        import fcntl
    except ImportError:  # not POSIX: run without the guard
        yield
        return
    lock_path = state_path.with_name(state_path.name + ".lock")
    with open(lock_path, "a+") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ConflictError(
                f"another `mcb batch` is running this batch (lock {lock_path})",
                hint="wait for it to finish; re-running afterwards resumes safely",
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


_TEXT_FIELDS = ("definition", "phase", "idempotency_key", "operation_id", "result")


def _record_problem(record: Any) -> str | None:
    """Why a step record cannot be trusted (a hand edit, another tool), or None; a resume acts on every field."""
    from pydantic import ValidationError

    from mcb.client.models import OperationStatus, PlanSummary

    if not isinstance(record, dict):
        return "it is not an object"
    for key in _TEXT_FIELDS:
        if record.get(key) is not None and not isinstance(record[key], str):
            return f"`{key}` is not a string"
    for key, model in (("plan", PlanSummary), ("status", OperationStatus)):
        if record.get(key) is not None:
            try:
                model.model_validate(record[key])
            except ValidationError:
                return f"`{key}` is not a {model.__name__} object"
    return None


class BatchState:
    def __init__(self, path: Path, data: dict):
        self.path = path
        self.data = data

    @classmethod
    def load(cls, path: Path, *, server: str, project_id: str | None) -> BatchState:
        if not path.exists():
            return cls(path, {"format": STATE_FORMAT, "server": server, "project_id": project_id, "steps": {}})
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:  # RecursionError: deep nesting
            raise InputError(
                f"state file {path} is unreadable: {error}",
                hint="restore it, or start over with --restart (steps already applied would run again)",
            ) from None
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT or not isinstance(data.get("steps"), dict):
            raise InputError(f"{path} is not an mcb batch state file")
        for name, record in data["steps"].items():
            problem = _record_problem(record)
            if problem:
                raise InputError(
                    f"{path}: the record of step {name!r} is damaged: {problem}",
                    hint="restore the file, or start over with --restart (steps already applied would run again)",
                )
        if data.get("server") != server or data.get("project_id") != project_id:
            raise ConfigError(
                f"{path} belongs to server {data.get('server')} {_project(data.get('project_id'))}, "
                f"not {server} {_project(project_id)}",
                hint="use the same --server/profile as the first run, or --restart to begin again",
            )
        return cls(path, data)

    def step(self, name: str) -> dict | None:
        return self.data["steps"].get(name)

    def update(self, name: str, **fields: Any) -> dict:
        record = self.data["steps"].setdefault(name, {})
        record.update(fields)
        record["updated_at"] = int(time.time() * 1000)
        self.save()
        return record

    def reset(self, name: str) -> None:
        self.data["steps"].pop(name, None)
        self.save()

    def operation_of(self, name: str) -> str | None:
        """The step's operation once it is terminal (applied, or ended badly with writes that can be undone)."""
        record = self.step(name)
        if record and record.get("phase") in {"done", "failed"}:
            return record.get("operation_id")
        return None

    def save(self) -> None:
        write_atomic(self.path, json.dumps(self.data, indent=2, ensure_ascii=False) + "\n")


def _project(project_id: str | None) -> str:
    return f"project {project_id!r}" if project_id is not None else "no project"
