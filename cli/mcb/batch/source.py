"""What the one engine (:mod:`mcb.batch.engine`) and its plan sources say to each other: the source's questions
(:class:`PlanSource`), a prepared plan (:class:`Prepared`), what is left (:class:`Remaining`), how a run ended
(:class:`RunOutcome`), and Ctrl-C as a request (:class:`StopRequest`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from mcb.client.models import OperationStatus, PlanSummary
from mcb.errors import McbError
from mcb.refusals import code_hint

EventSink = Callable[[str, dict], None]
NEXT, FAIL = "next", "fail"  # what a source makes of an ended entry


class StopRequest:
    """Ctrl-C as a request: once, stop at the next plan boundary; twice, cancel the running operation too."""

    def __init__(self):
        self.presses = 0

    def press(self) -> None:
        self.presses += 1

    @property
    def stop(self) -> bool:
        return self.presses >= 1

    @property
    def cancel(self) -> bool:
        return self.presses >= 2


@dataclass
class Prepared:
    """A plan a source prepared, and what its log entry records besides it (positions, cursor, kind, ...)."""

    plan: PlanSummary
    fields: dict = field(default_factory=dict)


@dataclass
class Remaining:
    """What a source has not prepared yet: positions (an upper bound while ``estimated``)."""

    positions: int = 0
    estimated: bool = False
    likely: int | None = None  # while estimated, the likelier count a time left uses (None: positions)


class PlanSource(Protocol):
    ahead: bool  # may the next plan be prepared while one applies (their positions never meet)
    capacity: int  # positions of a full plan
    event: EventSink  # set by the engine

    def next_plan(self, *, beside: bool) -> Prepared | None:
        """The next plan, prepared; None when there is none (now: ``beside`` an apply it may wait for its end)."""

    def on_settled(self, entry: dict, final: OperationStatus) -> str:
        """An entry an earlier run left in flight has ended: NEXT or FAIL."""

    def on_finished(self, entry: dict, final: OperationStatus | None) -> str:
        """An entry of this run has ended (None: dropped before any operation started): NEXT (go on; the source may
        have rewound) or FAIL."""

    def remaining(self) -> Remaining:
        """Positions not in any plan yet."""

    def more(self) -> bool:
        """Might the source have another plan (a run stopped now would leave work undone)?"""


@dataclass
class RunOutcome:
    result: str = "applied"  # applied | nothing_to_change | stopped | failed
    plans: int = 0  # plans this run applied that ended
    written: int = 0
    positions: int = 0  # positions of those plans (of one that did not apply, those written)
    operations: list[str] = field(default_factory=list)
    settled: list[str] = field(default_factory=list)  # operations an earlier run left in flight, ended in this run
    settled_written: int = 0  # positions they wrote
    cancelled: str | None = None  # the operation cancelled mid-plan (Ctrl-C twice)
    error: McbError | None = None
    last: OperationStatus | None = None  # the status of the last entry that ended

    def to_json(self) -> dict:
        return {"plans": self.plans, "written": self.written, "positions": self.positions,
                "operations": self.operations, "settled": self.settled,
                "settled_written": self.settled_written}  # fmt: skip


def stopped_error(outcome: RunOutcome, state_path=None) -> McbError:
    """The error of a run that stopped at a plan boundary when asked to (exit 130, "stopped:")."""
    from mcb.client.errors import Interrupted
    from mcb.wording import plural

    where = f"cancelling operation {outcome.cancelled} mid-plan" if outcome.cancelled else "at a plan boundary"
    return Interrupted(
        f"stopped {where} after {plural(outcome.plans, 'plan')} ({plural(outcome.written, 'position')} written in "
        "this run)",
        code="build_stopped",
        hint=code_hint("build_stopped"),
        details={"state_file": str(state_path)} if state_path is not None else {},
    )
