"""A write of one plan — a recipe, a library schematic, an operation's undo, a terrain tile or a brush stroke — as a
plan log of one entry on the one engine.

    outcome, entry = run_single(client, {"build": request}, prepare, wait=WaitPolicy())

The log's state file is named by the request (server, scope and the request's content) in mcb's state directory, so
the same command after a lost answer or Ctrl-C repeats ``build_apply`` for the plan it sent, with the same key,
instead of preparing a second one. Once the operation is seen to end the file goes: a later run is a new write. A
state directory that cannot be written does not stop the write (``on_unsaved`` is told once).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from mcb.batch.engine import Engine
from mcb.batch.log import PlanLog
from mcb.batch.source import RunOutcome, StopRequest
from mcb.batch.sources import OnePlan
from mcb.batch.state import BatchState, exclusive_run
from mcb.client.models import PlanSummary
from mcb.waiting import WaitPolicy

WRITE = "write"


def writes_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_state_dir("mcb")) / "writes"


def request_fingerprint(server: str, project_id: str | None, player_id: str | None, request: dict) -> str:
    """One name for "this exact request to this server and scope" (the recipe's content, not its file name)."""
    text = json.dumps(
        {"server": server.rstrip("/"), "project_id": project_id, "player_id": player_id, "request": request},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def single_state_path(client, request: dict) -> Path:
    return writes_dir() / f"{request_fingerprint(client.server, client.project_id, client.player_id, request)}.json"


def run_single(client, request: dict, prepare: Callable[[], PlanSummary | None], *, wait: WaitPolicy | None = None,
               stop: StopRequest | None = None, on_event=None, on_view=None,
               on_unsaved: Callable[[str], None] | None = None) -> tuple[RunOutcome, dict | None]:  # fmt: skip
    """Resume this request's write or prepare and apply it, and follow it to its end: ``(outcome, its entry)``
    (the entry is None when there was nothing to change)."""
    path = single_state_path(client, request)
    events = on_event or (lambda name, details: None)
    with exclusive_run(path, "this write", tolerant=True):
        state = BatchState.load(path, server=client.server, project_id=client.project_id)
        state.tolerant = True
        log = PlanLog(state, WRITE)
        warned = []

        def event(name: str, details: dict) -> None:
            if name == "prepared" and state.unsaved is not None and not warned and on_unsaved is not None:
                warned.append(True)
                plan = log.entries[-1]["plan"]
                on_unsaved(
                    f"cannot remember plan {plan['plan_id']} in {path.parent} ({state.unsaved.strerror or state.unsaved}); "
                    f"after a lost answer, `mcb apply {plan['plan_id']} {plan['plan_hash']}` repeats it with the same "
                    f"key mcb-{plan['plan_id']}"
                )
            events(name, details)

        # A plan of no change is applied too: the answer of `mcb build` is its plan and operation (docs/batch.md).
        source = OnePlan(prepare, apply_empty=True)
        outcome = Engine(client, log, wait=wait, stop=stop, on_event=event, on_view=on_view).run(source)
        entries = [e for e in log.entries if e.get("operation_id")] or log.entries[-1:]
        entry = entries[-1] if entries else None
        if outcome.result != "stopped":  # seen to end: a later run is a new write
            forget(path)
    return outcome, entry


def forget(path: Path) -> None:
    """Remove a finished write's state, and lock files of writes a day old (the lock of this one stays: another
    run may be waiting on it)."""
    import time

    try:
        path.unlink()
    except OSError:  # not there, or the state dir is unusable: nothing to forget
        pass
    cutoff = time.time() - 24 * 3600
    for old in path.parent.glob("*.lock"):
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:
            pass
