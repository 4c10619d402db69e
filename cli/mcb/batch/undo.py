"""Undo the operations of a log, newest first, so that it always finishes (protocol §3.9, §5.5-5.6).

For each operation the plugin is asked first (``operation_undo_prepare``): its undo brings back block entities'
data too. Where it refuses — a later external write (a player edited a block the operation wrote), an operation an
administrator abandoned after a restart, or a later operation of ours that no longer owns those positions — mcb
restores what it recorded before writing (:mod:`mcb.building.restore`) with ordinary checked plans: every position
that still holds what the build wrote gets back what was there before; positions someone else changed are kept and
named; block entities get their state back and are named as "data not restorable".

Every undo and restore plan is an entry of the undo log, so the undo is itself receipted and resumable: a re-run
settles what was in flight and goes on with the next operation (a restore reads the world again, so positions
already restored drop out). ``record["undo_report"]`` says, per operation, how it was undone and what was kept.
"""

from __future__ import annotations

from mcb.batch.log import PlanLog
from mcb.batch.source import FAIL, NEXT, Prepared, Remaining
from mcb.building.boxes import prepare_params
from mcb.building.planner import first_plan
from mcb.building.reading import WorldReader
from mcb.building.restore import Restore, restore_changes
from mcb.client.models import OperationStatus
from mcb.client.operations import abandoned
from mcb.errors import ConflictError, McbError
from mcb.refusals import code_hint, undo_refused

MAX_RESTORE_READS = 3  # fresh reads of one operation's positions after its restore plans meet changes


def undoable(entries: list[dict]) -> list[dict]:
    """Entries whose operation may have written something, newest first."""
    found = []
    for entry in reversed(entries):
        status = entry.get("status") or {}
        if not entry.get("operation_id") or entry.get("phase") not in ("done", "failed"):
            continue
        if status.get("written", 0) > 0 or abandoned(OperationStatus.model_validate(status)):
            found.append(entry)
    return found


class UndoSource:
    """The undo (or restore) plans of ``build_log``'s operations, newest first, recorded in ``undo_log``."""

    ahead = False

    def __init__(self, client, build_log: PlanLog, undo_log: PlanLog, *, capacity: int = 4096):
        self.client, self.build_log, self.undo_log = client, build_log, undo_log
        self.capacity = capacity
        self.reader = WorldReader(client)
        self.report: dict = undo_log.record.setdefault("undo_report", {})
        self.todo = [e for e in undoable(build_log.entries) if not self.report.get(e["operation_id"], {}).get("done")]
        self.source: dict | None = None  # the build entry being undone
        self.restore: Restore | None = None  # its restore, once the plugin refused
        self.offset = 0  # restore positions prepared so far
        self.reads = 0
        self.event = lambda name, details: None

    # -- the engine's questions -------------------------------------------------------------------------------------
    def next_plan(self, *, beside: bool) -> Prepared | None:
        while True:
            if self.source is None:
                if not self.todo:
                    return None
                self.source, self.restore, self.offset, self.reads = self.todo.pop(0), None, 0, 0
                if self._report().get("how") == "restore" and not self._start_restore(None):
                    continue  # a re-run: the plugin refused already, and nothing was recorded to restore from
            if self.restore is None:
                prepared = self._plugin_undo()
                if prepared is not None:
                    return prepared
                continue
            prepared = self._next_restore_plan()
            if prepared is not None:
                return prepared
            self._done("restore")

    def _plugin_undo(self) -> Prepared | None:
        """The plugin's undo plan of the operation; None when it refused and the restore took over (or, with
        nothing recorded to restore from, the operation was named and passed over)."""
        operation_id = self.source["operation_id"]
        try:
            plan = self.client.operation_undo_prepare(operation_id)
        except McbError as error:
            why = undo_refused(error)
            if why is None:
                raise
            self._start_restore(why)
            return None
        return Prepared(plan, {"kind": "undo", "source": operation_id, "positions": plan.changed_blocks})

    def _start_restore(self, why: str | None) -> bool:
        """Read the world at what the operation wrote and work out its restore; False when nothing was recorded
        for it (an older mcb wrote the log): it is named in the report and passed over."""
        operation_id = self.source["operation_id"]
        report = self._report()
        if why is not None:
            report["how"], report["why"] = "restore", why
            self.event("restore", {"operation_id": operation_id, "why": why})
        expected = self.build_log.load_expected(self.source)
        if expected is None:
            report.update(done=True, not_recorded=True)
            self.undo_log.save()
            self.event("not_recorded", {"operation_id": operation_id})
            self.source, self.restore = None, None
            return False
        self.reads += 1
        self.restore = restore_changes(self.reader, expected)
        self.offset = 0
        report.update(kept=self.restore.kept, data_not_restorable=self.restore.data_lost)
        self.undo_log.save()
        return True

    def _next_restore_plan(self) -> Prepared | None:
        changes = self.restore.changes
        while self.offset < len(changes):
            rest = changes.slice(self.offset)
            part, boxes, _ = first_plan(rest, self.reader.table, self.capacity)
            params = prepare_params(boxes, part.x, part.y, part.z, part.have, part.snapshots, self.reader.table.names)
            try:
                plan = self.client.build_prepare(params["recipe"], expected_blocks=params["expected_blocks"])
            except ConflictError as error:
                if error.code != "stale_snapshot":
                    raise
                self._read_again(error.message)
                changes = self.restore.changes
                continue
            self.offset += len(part)
            return Prepared(plan, {"kind": "restore", "source": self.source["operation_id"], "positions": len(part)})
        return None

    def _read_again(self, why: str) -> None:
        if self.reads >= MAX_RESTORE_READS:
            raise ConflictError(
                f"the world keeps changing where operation {self.source['operation_id']} wrote ({why}); stopped "
                f"after {self.reads} fresh reads",
                code="undo_conflict",
                hint=code_hint("undo_conflict"),
            )
        self.event("replan", {"why": why, "tile": f"the positions of operation {self.source['operation_id']}"})
        self._start_restore(None)

    def _report(self) -> dict:
        return self.report.setdefault(self.source["operation_id"], {})

    def _done(self, how: str) -> None:
        report = self._report()
        report.setdefault("how", how)
        report["done"] = True
        self.undo_log.save()
        self.source, self.restore = None, None

    def on_settled(self, entry: dict, final: OperationStatus) -> str:
        """An undo or restore plan an earlier run left in flight has ended: an applied undo is done; anything else
        is looked at again when its operation's turn comes."""
        if entry.get("kind") == "undo" and final.status == "applied":
            self.report.setdefault(entry["source"], {}).update(how="undo", done=True)
            self.undo_log.save()
            self.todo = [e for e in self.todo if e["operation_id"] != entry["source"]]
        return NEXT

    def on_finished(self, entry: dict, final: OperationStatus | None) -> str:
        if entry.get("kind") == "undo":
            if final is not None and final.status == "applied":
                self._done("undo")
                return NEXT
            if final is None or final.status == "conflict":  # expired, or a later writer appeared meanwhile
                self._start_restore("a block it wrote changed before its undo applied" if final else "expired")
                return NEXT
            return FAIL
        if final is not None and final.status == "applied":
            if self.restore is not None and self.offset >= len(self.restore.changes):
                self._done("restore")  # its last plan: done now, so a run stopped here has nothing left to do
            return NEXT  # the next restore plan, or the next operation
        if final is None or final.status == "conflict":
            self._read_again("the world changed under a restore plan")
            return NEXT
        return FAIL

    def more(self) -> bool:
        return bool(self.todo) or self.source is not None

    def remaining(self) -> Remaining:
        left = sum((e.get("status") or {}).get("written", 0) for e in self.todo)
        if self.restore is not None:
            left += len(self.restore.changes) - self.offset
        return Remaining(left)


def undo_summary(undo_log: PlanLog) -> dict:
    """What an undo did, from its log: operations undone by the plugin and restored by mcb, positions written,
    positions kept (changed by someone else), block entities whose data could not come back."""
    report = undo_log.record.get("undo_report") or {}
    kept, lost, not_recorded = [], [], []
    for operation_id, entry in report.items():
        kept += [{**k, "operation_id": operation_id} for k in entry.get("kept", [])]
        lost += [{**d, "operation_id": operation_id} for d in entry.get("data_not_restorable", [])]
        if entry.get("not_recorded"):
            not_recorded.append(operation_id)
    done = [e for e in undo_log.entries if e.get("phase") == "done"]
    return {
        "undone_operations": sum(1 for e in report.values() if e.get("done") and e.get("how") == "undo"),
        "restored_operations": sum(1 for e in report.values() if e.get("done") and e.get("how") == "restore"),
        "restored": sum((e.get("status") or {}).get("written", 0) for e in done),
        "kept": kept,
        "data_not_restorable": lost,
        "not_recorded": not_recorded,
    }
