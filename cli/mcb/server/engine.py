"""Operations: the apply lifecycle driven by the tick loop (protocol §3.7-3.8, §5.2-5.5).

One step per tick for the first non-terminal operation: preflight chunk, staged intent, committed slice, or audit
chunk. A step mutates memory under the server lock, then persists off the lock with ``state.io_busy`` set (the
plugin's ``ioBusy`` latch, during which prepare/apply answer ``busy``).
"""

from __future__ import annotations

import uuid

from mcb.server.errors import RpcError, invalid
from mcb.server.operation import NON_TERMINAL, Operation, Receipt, conflict_entry
from mcb.server.params import now_ms

MAX_CONFLICTS = 32
CHAT_SILENCE_MS = 15_000


class Engine:
    def __init__(self, state):
        self.state = state
        self.ops: dict[str, Operation] = {}
        self.idempotency: dict[str, str] = {}
        self.last_writers: dict[tuple, tuple[str, int]] = {}
        self.revision = 0
        self.recovery_latched = False
        self._dirty: dict = {}

    # -- lookup -----------------------------------------------------------------------------------------------------
    def get(self, operation_id) -> Operation | None:
        return self.ops.get(operation_id) if isinstance(operation_id, str) else None

    def require(self, operation_id) -> Operation:
        op = self.get(operation_id)
        if op is None:
            raise invalid("Unknown operation")
        return op

    def view(self, op: Operation) -> dict:
        return op.view(len(self.state.plans[op.plan_id].changes), self.state.snapshots.snapshot_id)

    def recent(self) -> list[Operation]:
        return sorted(self.ops.values(), key=lambda o: o.seq, reverse=True)

    def active(self) -> Operation | None:
        pending = [o for o in self.ops.values() if o.status in NON_TERMINAL]
        return min(pending, key=lambda o: o.seq) if pending else None

    def refresh_latch(self) -> None:
        self.recovery_latched = any(o.status == "recovery_required" for o in self.ops.values())

    # -- start / cancel -----------------------------------------------------------------------------------------------
    def start(self, plan, scoped_key: str) -> Operation:
        """``engine.start`` after the caller's available/plan/hash/guard checks (§3.7 step 5)."""
        existing = self.idempotency.get(scoped_key)
        if existing is not None:
            op = self.ops[existing]
            if op.plan_id != plan.id:
                raise invalid("Idempotency key belongs to another plan")
            return op
        if self.recovery_latched:
            raise invalid("recovery_required: unresolved journal prevents new writes")
        if now_ms() > plan.expires_ms:
            raise invalid("Plan expired; prepare again")
        if self.active() is not None or self.state.io_busy:
            raise invalid("busy: one active or unflushed operation is allowed per world engine")
        seq = max((o.seq for o in self.ops.values()), default=0) + 1
        op = Operation(id=str(uuid.uuid4()), seq=seq, plan_id=plan.id, idempotency_key=scoped_key)
        if not plan.changes:
            op.status, op.message = "applied", "No changes"
        self.persist_now(op)
        self.ops[op.id] = op
        self.idempotency[scoped_key] = op.id
        self.state.wake()
        return op

    def cancel(self, op: Operation) -> None:
        if not op.terminal:
            op.cancellation_requested = True
            self.state.wake()

    def cancel_all(self) -> None:
        for op in self.ops.values():
            self.cancel(op)

    def persist_now(self, op: Operation, blocks=()) -> None:
        """Synchronous write under the lock; an IO failure halts the server like the plugin's."""
        try:
            self.state.journal.persist(operations=[self._row(op)], receipts=self._new_receipts(op), blocks=blocks)
        except Exception as error:
            self.state.halted = True
            raise RpcError("recovery_required", "Journal IO failed; restart and inspect recovery") from error
        op.persisted_receipts = len(op.receipts)

    # -- restore --------------------------------------------------------------------------------------------------
    def restore(self, loaded: dict) -> None:
        for _id, seq, _plan, _key, payload in loaded["operations"]:
            op = Operation.from_payload(seq, payload)
            self.ops[op.id] = op
            self.idempotency[op.idempotency_key] = op.id
        events = []
        for op_id, _idx, x, y, z, expected, desired, revision in loaded["receipts"]:
            op = self.ops.get(op_id)
            if op is not None:
                op.receipts.append(Receipt((x, y, z), expected, desired, revision))
                events.append((revision, (x, y, z), op_id))
        interrupted = []
        for op in self.ops.values():
            op.persisted_receipts = len(op.receipts)
            for pos in op.abandoned_positions:
                events.append((op.abandoned_revision, pos, f"abandoned:{op.id}"))
            if op.status in NON_TERMINAL or op.pending is not None or op.status == "recovery_required":
                op.status = "recovery_required"
                op.message = "Interrupted operation: inspect before/after/current; automatic replay is disabled"
                interrupted.append(op)
        for revision, pos, writer in sorted(events):
            self.last_writers[pos] = (writer, revision)
            self.revision = max(self.revision, revision)
        if interrupted:
            self.state.journal.persist(operations=[self._row(op) for op in interrupted])
        self.refresh_latch()

    # -- tick -----------------------------------------------------------------------------------------------------
    def step(self, *, finishing: bool = False) -> bool:
        """Run at most one step (the apply tick task); returns False when there was nothing to do. It does nothing
        while the journal is busy or latched, or while a test holds the apply (``finishing`` at shutdown ignores the
        latch and the hold)."""
        state = self.state
        if not state.lock.acquire(timeout=1):
            return False
        try:
            if state.io_busy or state.halted:
                return False
            if not finishing and (state.journal_latch or (state.apply_held and state.apply_steps <= 0)):
                return False
            self._chat_silence_rule()
            op = self.active()
            if op is None:
                return False
            if state.apply_held and not finishing:
                state.apply_steps -= 1
            self._dirty = {}
            try:
                self._advance(op, state.plans[op.plan_id])
            except RpcError as error:
                self._finish(op, "failed", f"Cannot inspect world: {error.message}")
            job = {
                "operations": [self._row(op)],
                "receipts": self._new_receipts(op),
                "blocks": list(self._dirty.items()),
            }
            receipt_count = len(op.receipts)
            state.io_busy = True
        finally:
            state.lock.release()
        failure = None
        try:
            state.journal.persist(**job)
        except Exception as error:  # the plugin halts until restart when journal IO fails
            failure = error
        with state.lock:
            state.io_busy = False
            if failure is None:
                op.persisted_receipts = receipt_count
            else:
                state.halted = True
                op.status, op.message = "recovery_required", f"Cannot persist operation state: {failure}"
                self.refresh_latch()
            state.idle.notify_all()
        return True

    def finish_slice(self) -> bool:
        """At shutdown (SIGTERM, Ctrl-C): write a staged slice and persist its receipts, so a clean stop leaves no
        intent pending and ``recovery_review`` after the restart covers only durable receipts. Stages nothing new."""
        op = self.active()
        if op is None or op.pending is None:
            return False
        return self.step(finishing=True)

    def _chat_silence_rule(self) -> None:
        chat = self.state.chat_queue
        if chat.last_poll_ms and not self.state.config.allow_local_automation:
            if now_ms() - chat.last_poll_ms > CHAT_SILENCE_MS:
                self.cancel_all()

    def _advance(self, op: Operation, plan) -> None:
        if op.pending is not None:
            return self._commit(op, plan)
        if self._context_ended(op, plan) or self._dependency_conflict(op, plan):
            return None
        if op.preflight_cursor < len(plan.changes):
            return self._preflight(op, plan)
        if op.cursor < len(plan.changes):
            return self._stage(op, plan)
        return self._audit(op, plan)

    def _context_ended(self, op, plan) -> bool:
        if op.cancellation_requested:
            self._finish(op, "cancelled", "Cancelled; confirmed writes remain available for undo")
            return True
        if now_ms() > plan.expires_ms:
            self._finish(op, "failed", "Plan expired; prepare from fresh state")
            return True
        try:
            self.state.guard(plan, mode="apply")
        except RpcError as error:
            self._finish(op, "failed", f"Context no longer valid: {error.message}")
            return True
        return False

    def _dependency_conflict(self, op, plan) -> bool:
        if not plan.dependencies:
            return False
        world = self.state.world
        written = {r.pos for r in op.receipts}
        desired = plan.desired_at()
        for pos, expected in plan.dependencies:
            current = world.read(pos)
            if current == expected or (pos in written and current == desired.get(pos)):
                continue
            self._conflict(op, pos, "Read dependency changed", expected, current, expected)
            return True
        return False

    def _undo_owner_lost(self, plan, pos, expected, desired) -> bool:
        if plan.undo_of is None or expected == desired:
            return False
        writer = self.last_writers.get(pos)
        return writer is None or writer[0] != plan.undo_of

    def _check_write_set(self, op, plan, start: int, end: int):
        """Re-read changes [start, end); returns [(pos, current, desired)] or None after recording a conflict."""
        world = self.state.world
        observed = []
        for pos, expected, desired in plan.changes[start:end]:
            current = world.read(pos)
            if current != expected and current != desired:
                self._conflict(op, pos, "Write set changed since preparation", expected, current, desired)
                return None
            if current != desired and self._undo_owner_lost(plan, pos, expected, desired):
                self._conflict(op, pos, "Known later operation prevents undo", expected, current, desired)
                return None
            observed.append((pos, current, desired))
        return observed

    def _preflight(self, op, plan) -> None:
        total = len(plan.changes)
        end = min(op.preflight_cursor + self.state.config.slice_blocks, total)
        if self._check_write_set(op, plan, op.preflight_cursor, end) is None:
            return
        op.preflight_cursor = end
        op.message = f"Preflight {end}/{total}"

    def _stage(self, op, plan) -> None:
        end = min(op.cursor + self.state.config.slice_blocks, len(plan.changes))
        observed = self._check_write_set(op, plan, op.cursor, end)
        if observed is None:
            return
        op.pending = {"sequence": op.next_sequence, "changes": observed}
        op.next_sequence += 1
        op.status, op.message = "applying", "Intent staged; no blocks written"

    def _commit(self, op, plan) -> None:
        if self._context_ended(op, plan) or self._dependency_conflict(op, plan):
            return
        world = self.state.world
        entries = op.pending["changes"]
        for pos, before, desired in entries:
            current = world.read(pos)
            if current != before:
                self._conflict(op, pos, "Changed while intent was persisted", before, current, desired)
                return
        for index, (pos, before, desired) in enumerate(entries):
            if index and op.cancellation_requested:
                self._finish(op, "cancelled", "Stopped between blocks; completed writes remain")
                return
            current = world.peek(pos)
            if current == desired:
                op.skipped += 1
                op.cursor += 1
                continue
            world.set(pos, desired)
            self._dirty[pos] = desired
            if world.peek(pos) != desired:
                self._conflict(
                    op, pos, "Changed during slice (possible nested world callback)", before, world.peek(pos), desired
                )
                return
            self.revision += 1
            op.receipts.append(Receipt(pos, current, desired, self.revision))
            self.last_writers[pos] = (op.id, self.revision)
            op.cursor += 1
        op.pending = None
        op.message = "Slice written; awaiting durable receipt"

    def _audit(self, op, plan) -> None:
        total = len(plan.changes)
        end = min(op.audit_cursor + self.state.config.slice_blocks, total)
        world = self.state.world
        for pos, expected, desired in plan.changes[op.audit_cursor : end]:
            current = world.read(pos)
            if current != desired:
                self._conflict(op, pos, "Final verification differs from desired state", expected, current, desired)
                return
        op.audit_cursor = end
        if end >= total:
            self._finish(op, "applied", "All requested states verified; snapshot is not an atomic world transaction")

    def _conflict(self, op, pos, reason, expected, current, desired) -> None:
        if len(op.conflicts) < MAX_CONFLICTS:
            op.conflicts.append(conflict_entry(pos, reason, expected, current, desired))
        self._finish(op, "conflict", reason)

    @staticmethod
    def _finish(op, status: str, message: str) -> None:
        op.status, op.message, op.pending = status, message, None

    # -- persistence rows -------------------------------------------------------------------------------------------
    @staticmethod
    def _row(op: Operation):
        return (op.id, op.seq, op.plan_id, op.idempotency_key, op.payload())

    @staticmethod
    def _new_receipts(op: Operation) -> list:
        start = op.persisted_receipts
        return [
            (op.id, start + offset, r.pos, r.expected, r.desired, r.revision)
            for offset, r in enumerate(op.receipts[start:])
        ]
