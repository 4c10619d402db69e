"""How far an operation (or a build of many) has come, from the statuses the server reports (protocol §5.2-5.3).

The plugin spends about a quarter of an operation's ticks on preflight (status ``queued``, message "Preflight n/N",
nothing written yet), half on writing slices (``processed`` moves) and a quarter on the final audit (``processed``
already at the total). :class:`OperationTracker` turns that into a fraction that moves through all three, so a bar
never sits at "queued 0/4096". :class:`ProgressView` is what a face shows: positions written of the positions to
change, the rate, the time left, the plan under way.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

PREFLIGHT = re.compile(r"Preflight (\d+)/(\d+)")
PREFLIGHT_SHARE, WRITE_SHARE = 0.25, 0.5  # the audit is the last quarter (4 * ceil(N/128) + 1 ticks, §C)


@dataclass
class ProgressView:
    """One snapshot of long work for a face to draw."""

    done: float  # position-equivalents done (moves during preflight and audit), for the bar
    total: int | None  # positions to change (an estimate until the last tile is read)
    written: int  # positions confirmed written
    rate: float | None = None  # position-equivalents per second
    eta: float | None = None  # seconds left
    phase: str = ""  # "preflight 512/4096", "writing", "checking", "preparing", ...
    plan: int | None = None  # plan under way (1-based) and how many there will be
    plans: int | None = None
    operation_id: str | None = None
    noun: str = "positions written"  # what `written` counts ("cells read" for export and verify)
    estimated: bool = False  # total and plans are estimates (tiles not read yet): shown with "~"

    @property
    def fraction(self) -> float | None:
        if not self.total:
            return None
        return max(0.0, min(1.0, self.done / self.total))


class OperationTracker:
    """Fraction done (0..1) of one operation from its successive statuses."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.first_seen = None
        self.writing_since = None  # first status past preflight
        self.audit_since = None  # first status with every position processed, still running
        self.phase = "queued"

    def update(self, status) -> float:
        now = self.clock()
        if self.first_seen is None:
            self.first_seen = now
        total = status.total_changes or 0
        if status.terminal:
            self.phase = status.status
            return 1.0
        if total <= 0:
            self.phase = status.status
            return 0.0
        match = PREFLIGHT.search(status.message or "")
        if status.status == "queued":
            if match:
                checked, of = int(match.group(1)), max(1, int(match.group(2)))
                self.phase = f"preflight {checked:,}/{of:,}"
                return PREFLIGHT_SHARE * min(1.0, checked / of)
            self.phase = "queued"
            return 0.0
        if self.writing_since is None:
            self.writing_since = now
        if status.processed < total:
            self.phase = "writing"
            return PREFLIGHT_SHARE + WRITE_SHARE * status.processed / total
        if self.audit_since is None:
            self.audit_since = now
        self.phase = "checking"
        # The audit reads in chunks as the preflight did: expect it to take as long.
        expected = max(0.05, (self.writing_since - self.first_seen) or (now - self.writing_since) / 2)
        share = min(0.95, (now - self.audit_since) / expected)
        return PREFLIGHT_SHARE + WRITE_SHARE + (1 - PREFLIGHT_SHARE - WRITE_SHARE) * share


class RateClock:
    """Rate and time left from position-equivalents done since the first call."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.start = None

    def view(self, done: float, total: int | None, **fields) -> ProgressView:
        now = self.clock()
        if self.start is None:
            self.start = now
        elapsed = now - self.start
        rate = done / elapsed if elapsed >= 1.0 and done > 0 else None
        eta = (total - done) / rate if rate and total else None
        return ProgressView(done=done, total=total, rate=rate, eta=None if eta is None else max(0.0, eta), **fields)


class OperationViews:
    """``views(status) -> ProgressView`` for waits on one operation after another (each with its own tracker)."""

    def __init__(self):
        self._seen: dict[str, tuple[OperationTracker, RateClock]] = {}

    def __call__(self, status) -> ProgressView:
        tracker, clock = self._seen.setdefault(status.operation_id, (OperationTracker(), RateClock()))
        fraction = tracker.update(status)
        total = status.total_changes or None
        return clock.view(
            fraction * (total or 0),
            total,
            written=status.written,
            phase=tracker.phase,
            operation_id=status.operation_id,
        )
