"""The one retry policy of the RPC transport (protocol §1.7, §3.7, §13; mcp-conventions MCP-54..56).

Nothing more is ever sent again than this:

- a connection that could not be opened is tried again twice (after 50 ms, then 250 ms): nothing was sent, so any
  method is safe (a server restarting);
- a transient refusal (``busy`` "A journal step is in progress", ``invalid_request`` "busy: ..."; mcb.refusals
  marks them) is sent again every 50-100 ms until the call's deadline: the server refused before doing anything
  (``busy_to_cap``, mcb mcp: until the tool call's deadline, a read's as a write's, MCP-56);
- a read (but ``camera_capture``, which moves the camera) is asked again once after its answer was lost;
- ``build_apply`` is sent again after a lost answer with the same params, hence the same idempotency key, up to
  ``replays`` times: the server returns the existing operation instead of starting a second one;
- any other write is never repeated after it may have reached the server.

Every attempt and every pause fits inside the call's one deadline, except that a read's one repeat may get a
fresh budget of its own (``fresh_read_budget``: mcb mcp, MCP-55).

    policy = RetryPolicy(busy_pause=(0.001, 0.002))   # tests: a busy storm at full speed
    attempts = policy.start("build_prepare", budget=30.0)
    pause = attempts.after_busy()                       # None: give up now
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from mcb.refusals import repeatable

REPLAY_SAFE_METHODS = frozenset({"build_apply"})  # a key makes a second send a replay of the first


@dataclass(frozen=True)
class RetryPolicy:
    connect_pauses: tuple[float, ...] = (0.05, 0.25)
    busy_pause: tuple[float, float] = (0.05, 0.1)
    lost_answer_pause: float = 0.2
    replays: int = 3  # build_apply sent again after lost answers; 0: never (mcb mcp offers it as retry_with)
    fresh_read_budget: bool = False  # a read's one repeat gets a budget of its own
    min_budget: float = 0.5  # a repeat with less time left than this could only time out
    busy_room: float = 0.1  # a busy retry needs this long left for its (quick) answer
    busy_to_cap: bool = False  # busy is retried until the cap (the tool call's deadline), past the call's budget

    def start(self, method: str, budget: float, *, cap: float | None = None) -> Attempts:
        """The retries of one call of ``method`` that may take ``budget`` seconds, and never run past ``cap``
        (a ``time.monotonic()`` value: the deadline of the tool call this request serves)."""
        return Attempts(self, method, budget, cap)


class Attempts:
    """One call under a :class:`RetryPolicy`: after each failed attempt, whether to try again and after what
    pause; ``deadline`` is what every attempt's socket waits must meet."""

    def __init__(self, policy: RetryPolicy, method: str, budget: float, cap: float | None) -> None:
        self.policy, self.method, self.budget, self.cap = policy, method, budget, cap
        self.began = time.monotonic()
        self.deadline = self._bounded(self.began + budget)
        self._connects = iter(policy.connect_pauses)
        self._lost_left = 1 if repeatable(method) else policy.replays if method in REPLAY_SAFE_METHODS else 0
        self.maybe_delivered = False  # an earlier attempt may have reached the server
        self.repeats = 0  # sent again after a lost answer
        self.retries = 0  # every retry: connects, transient refusals, lost answers

    def _bounded(self, at: float) -> float:
        return at if self.cap is None else min(at, self.cap)

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def after_transport_failure(self, error) -> float | None:
        """The pause before trying again after ``error`` (a TransportError), or None: report it. A failure after
        an attempt that may have been delivered is marked repeated (its outcome is unknown whatever it saw)."""
        if not error.request_started and error.reason != "stopped" and not self.maybe_delivered:
            pause = next(self._connects, None)
            if pause is not None and self.left() >= pause + self.policy.min_budget:
                self.retries += 1
                return pause
            return None
        if self.maybe_delivered:
            error.mark_repeated()
        fresh = self.policy.fresh_read_budget and repeatable(self.method)
        if (
            not error.outcome_unknown
            or self._lost_left <= 0
            or error.reason == "stopped"
            or not (fresh or self.left() > self.policy.min_budget)
        ):
            return None
        pause = self.policy.lost_answer_pause
        self.maybe_delivered = True
        self._lost_left -= 1
        self.repeats += 1
        self.retries += 1
        if fresh:
            self.deadline = self._bounded(time.monotonic() + pause + self.budget)
        return pause

    def after_busy(self) -> float | None:
        """The pause before sending a transiently refused request again, or None once the deadline comes."""
        pause = random.uniform(*self.policy.busy_pause)
        until = self.cap if self.policy.busy_to_cap and self.cap is not None else self.deadline
        if until - time.monotonic() <= pause + self.policy.busy_room:
            return None
        if until != self.deadline:  # nothing happened on the server: the next send gets its own budget again
            self.deadline = self._bounded(max(self.deadline, time.monotonic() + pause + self.budget))
        self.retries += 1
        return pause

    def waited_ms(self) -> int:
        return round((time.monotonic() - self.began) * 1000)
