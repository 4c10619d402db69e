"""The state file of a batch or a build (``<batch stem>.state.json`` beside a batch file; a build's in mcb's state
directory), rewritten atomically at every phase: one record per step, each a plan log (:mod:`mcb.batch.log`).

A re-run continues from the recorded phases, and the only request it repeats is ``build_apply`` with the recorded
key, which the server answers with the existing operation: nothing is ever written twice.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcb.errors import ConfigError, ConflictError, InputError
from mcb.fileio import loads_json, write_atomic

STATE_FORMAT = 1


def state_path_for(batch_path: Path) -> Path:
    batch_path = Path(batch_path)
    stem = batch_path.name[:-5] if batch_path.name.endswith(".json") else batch_path.name
    return batch_path.with_name(f"{stem}.state.json")


@contextlib.contextmanager
def exclusive_run(state_path: Path, what: str = "this batch", *, tolerant: bool = False) -> Iterator[None]:
    """Hold ``<state>.lock`` for the whole run: two runs of one batch (or build) would each prepare and apply
    every plan. The lock is an OS file lock, so a crashed run never leaves it behind. ``tolerant``: a lock file that
    cannot be made (a read-only state directory) does not stop the run."""
    try:
        import fcntl
    except ImportError:  # not POSIX: run without the guard
        yield
        return
    lock_path = state_path.with_name(state_path.name + ".lock")
    try:
        handle = open(lock_path, "a+")  # noqa: SIM115 (held until the run ends)
    except OSError:
        if not tolerant:
            raise
        yield
        return
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ConflictError(
                f"another mcb run is writing {what} now (lock {lock_path})",
                code="locked",
                details={"lock": str(lock_path)},
                hint="wait for it to finish; running it again afterwards goes on safely from where it is",
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


_TEXT_FIELDS = ("definition", "phase", "idempotency_key", "operation_id", "result")
_ENTRY_FIELDS = ("plan", "idempotency_key", "operation_id", "status")


def _one_plan_record(record) -> None:
    """A step of one plan written by an mcb before the plan log kept the plan at the record's top level: its plan,
    key, operation and status become the log's one entry (the phase of the entry is the step's)."""
    if not isinstance(record, dict) or "plans" in record or not any(key in record for key in _ENTRY_FIELDS):
        return
    entry = {key: record.pop(key) for key in _ENTRY_FIELDS if key in record}
    phase = record.get("phase")
    entry["phase"] = phase if phase in ("prepared", "applying", "started", "done", "failed") else "dropped"
    if entry["phase"] in ("prepared", "applying", "started"):
        record["phase"] = "running"
    record["plans"] = [entry]


def _record_problem(record: Any) -> str | None:
    """Why a step record cannot be trusted (a hand edit, another tool), or None; a resume acts on every field."""
    if not isinstance(record, dict):
        return "it is not an object"
    for key in _TEXT_FIELDS:
        if record.get(key) is not None and not isinstance(record[key], str):
            return f"`{key}` is not a string"
    for field in ("plans", "undo"):
        entries = record.get(field)
        if entries is None:
            continue
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            return f"`{field}` is not a list of objects"
        for index, entry in enumerate(entries):
            problem = _entry_problem(entry)
            if problem:
                return f"`{field}[{index}]`: {problem}"
    return None


def _entry_problem(entry: dict) -> str | None:
    from pydantic import ValidationError

    from mcb.client.models import OperationStatus, PlanSummary

    for key in _TEXT_FIELDS:
        if entry.get(key) is not None and not isinstance(entry[key], str):
            return f"`{key}` is not a string"
    for key, model in (("plan", PlanSummary), ("status", OperationStatus)):
        if entry.get(key) is not None:
            try:
                model.model_validate(entry[key])
            except ValidationError:
                return f"`{key}` is not a {model.__name__} object"
    return None


class BatchState:
    def __init__(self, path: Path, data: dict):
        self.path = path
        self.data = data
        self.tolerant = False  # a save that fails is noted in ``unsaved`` instead of raised (one-plan writes)
        self.unsaved: OSError | None = None

    @classmethod
    def load(cls, path: Path, *, server: str, project_id: str | None) -> BatchState:
        if not path.exists():
            return cls(path, {"format": STATE_FORMAT, "server": server, "project_id": project_id, "steps": {}})
        try:
            data = loads_json(path.read_text("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:  # RecursionError: deep nesting
            raise InputError(
                f"state file {path} is unreadable: {error}",
                hint="restore it, or start over with {restart} (steps already applied would run again)",
            ) from None
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT or not isinstance(data.get("steps"), dict):
            raise InputError(f"{path} is not an mcb batch state file")
        for name, record in data["steps"].items():
            _one_plan_record(record)
            problem = _record_problem(record)
            if problem:
                raise InputError(
                    f"{path}: the record of step {name!r} is damaged: {problem}",
                    hint="restore the file, or start over with {restart} (steps already applied would run again)",
                )
        if data.get("server") != server or data.get("project_id") != project_id:
            raise ConfigError(
                f"{path} belongs to server {data.get('server')} {_project(data.get('project_id'))}, "
                f"not {server} {_project(project_id)}",
                hint="use the same {server} and {profile} as the first run, or {restart} to begin again",
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

    def save(self) -> None:
        try:
            if self.tolerant:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, json.dumps(self.data, indent=2, ensure_ascii=False) + "\n")
        except OSError as error:
            if not self.tolerant:
                raise
            self.unsaved = error


def _project(project_id: str | None) -> str:
    return f"project {project_id!r}" if project_id is not None else "no project"
