"""The emulated Minecraft main thread and its tick (protocol §1.7, §5.2; formats-and-building C2).

The plugin hands each RPC's world work to the main thread (``callSyncMethod``) and waits for it (20 s, then
``timeout``). The scheduler runs such a task at the start of the next tick: first every task handed over before that
tick began, in order, then the apply engine's tick task (``runTaskTimer(…, 1, 1)``: one step per tick, at a fixed
rate). So each hop to the main thread waits for the next tick boundary, and a hop made during a tick runs at the
next one.

With ``tick_ms > 0`` a tick thread keeps that clock. The main thread is a baton: a hop (``with main.hop(wait):``)
queues a ticket, the tick thread admits the tickets queued before the tick, one at a time, and waits while each runs
its body on its own (RPC) thread holding ``lock``; then it runs one engine step. Boundaries sit on a fixed grid
(start + k * tick); a tick that overruns its slot is followed at once by the next, and an idle tick thread sleeps
until it is woken (a hop, a new operation) and resumes on the grid.

With ``tick_ms == 0`` there is no clock: a hop takes ``lock`` at once and the engine steps back to back (instant
answers for tests).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable

from mcb.server.errors import RpcError

IDLE_WAIT_S = 0.05  # an idle tick thread looks again this often (a step that found the lock held, say)


class _Ticket:
    __slots__ = ("at", "admitted", "done", "refused")

    def __init__(self):
        self.at = 0.0  # when it was handed over: it runs at the first tick boundary after this
        self.admitted = threading.Event()
        self.done = threading.Event()
        self.refused = False


class MainThread:
    """``lock`` is the server's RLock (held by whoever is "on the main thread"); ``step()`` is the engine's tick task,
    returning False when it had nothing to do."""

    def __init__(self, lock: threading.RLock, tick_ms: int, step: Callable[[], bool]):
        self.lock = lock
        self.interval = max(0, tick_ms) / 1000.0
        self._step = step
        self._tickets: deque[_Ticket] = deque()
        self._guard = threading.Lock()  # the ticket queue and each ticket's admitted/refused state
        self._local = threading.local()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def paced(self) -> bool:
        return self.interval > 0

    @property
    def waiting(self) -> int:
        """Hops handed over and not yet let in."""
        return len(self._tickets)

    # -- from RPC threads -----------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def hop(self, wait_s: float):
        """Run the body on the main thread: at the next tick boundary when paced, holding ``lock``. Waiting longer
        than ``wait_s`` in all raises ``timeout`` (the plugin's ``Future.get(20, SECONDS)``), and so does a hop after
        :meth:`stop`. A hop inside a hop runs at once (the body is already on the main thread)."""
        if getattr(self._local, "inside", False):
            yield
            return
        if self._stop.is_set():  # shutting down: the journal is about to close; nobody waits for this answer
            raise RpcError("timeout", "TimeoutException")
        deadline = time.monotonic() + wait_s
        ticket = self._hand_over(deadline) if self.paced else None
        try:
            if not self.lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
                raise RpcError("timeout", "TimeoutException")
            self._local.inside = True
            try:
                yield
            finally:
                self._local.inside = False
                self.lock.release()
        finally:
            if ticket is not None:
                ticket.done.set()

    def wake(self) -> None:
        self._wake.set()

    def _hand_over(self, deadline: float) -> _Ticket:
        ticket = _Ticket()
        with self._guard:
            ticket.at = time.monotonic()
            self._tickets.append(ticket)
        self._wake.set()
        ticket.admitted.wait(max(0.0, deadline - time.monotonic()))
        with self._guard:
            if not ticket.admitted.is_set():  # not admitted in time: withdraw it (the tick will skip it)
                ticket.refused = True
                with contextlib.suppress(ValueError):
                    self._tickets.remove(ticket)
        if ticket.refused:
            ticket.done.set()
            raise RpcError("timeout", "TimeoutException")
        return ticket

    # -- the tick thread --------------------------------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="mcb-tick", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30) -> bool:
        """Stop after the current tick; hops still waiting get ``timeout``. True when the tick thread has ended."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=timeout)
        self._refuse_waiting()
        return self._thread is None or not self._thread.is_alive()

    def _run(self) -> None:
        if not self.paced:
            while not self._stop.is_set():
                if self._step():
                    time.sleep(0)
                else:
                    self._wake.wait(IDLE_WAIT_S)
                    self._wake.clear()
            return
        origin = time.monotonic()
        tick = 0
        while not self._stop.is_set():
            tick += 1
            boundary = origin + tick * self.interval
            delay = boundary - time.monotonic()
            if delay > 0:
                if self._stop.wait(delay):
                    break
            elif delay < -self.interval:  # overran by more than a tick: carry on from now, without a burst
                origin, tick = time.monotonic(), 0
                boundary = origin
            if self._tick(boundary):
                continue
            self._wake.wait(max(self.interval, IDLE_WAIT_S))  # idle: sleep until woken, then back on the grid
            self._wake.clear()
            elapsed = time.monotonic() - origin
            tick = max(tick, int(elapsed / self.interval))

    def _tick(self, boundary: float) -> bool:
        """One tick: the hops handed over before its boundary, in order, then one engine step. True when anything
        ran. (A hop handed over after the boundary, while the tick thread was late, waits for the next one.)"""
        batch = []
        with self._guard:
            while self._tickets and self._tickets[0].at < boundary:
                batch.append(self._tickets.popleft())
        for ticket in batch:  # in order, one body at a time: the next is let in when the previous is done
            with self._guard:  # admitted under the guard, so a hop cannot withdraw it meanwhile
                if ticket.refused:
                    continue
                ticket.admitted.set()
            ticket.done.wait()
        worked = self._step()
        return worked or bool(batch)

    def _refuse_waiting(self) -> None:
        with self._guard:
            waiting = list(self._tickets)
            self._tickets.clear()
            for ticket in waiting:
                ticket.refused = True
                ticket.admitted.set()
