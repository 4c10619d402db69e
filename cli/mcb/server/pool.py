"""The RPC handler threads, sized like the plugin's HTTP executor (protocol §1.1; formats-and-building C2).

The plugin gives the JDK HTTP server a ``ThreadPoolExecutor(core 2, max 4, keep-alive 30 s, ArrayBlockingQueue(32),
AbortPolicy)``. Java starts a thread beyond the core two only when the queue is full, so in practice 2 requests run
at once and up to 32 wait; when the queue is full a 3rd and a 4th thread start for the newest arrivals (and keep
taking queued work until they have idled 30 s); beyond 4 running and 32 waiting a request is refused and the JDK
server drops its connection without an answer. :class:`HandlerPool` is that executor; :meth:`submit` raises
:class:`Rejected` where Java's ``AbortPolicy`` throws.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future


class Rejected(Exception):
    """The pool's threads and queue are full (Java's ``RejectedExecutionException``)."""


class HandlerPool:
    def __init__(self, core: int, extra: int, queue: int, keep_alive: float, name: str = "mcb-rpc"):
        self.core = max(1, core)
        self.maximum = self.core + max(0, extra)
        self.capacity = max(0, queue)
        self.keep_alive = keep_alive
        self.name = name
        self._cond = threading.Condition()
        self._queue: deque[tuple[Future, Callable, tuple]] = deque()
        self._threads = 0
        self._running = 0
        self._closed = False

    @property
    def running(self) -> int:
        return self._running

    @property
    def queued(self) -> int:
        return len(self._queue)

    def submit(self, fn: Callable, *args) -> Future:
        """Run ``fn(*args)`` on a pool thread; raises :class:`Rejected` when every place is taken (or after close)."""
        future: Future = Future()
        job = (future, fn, args)
        with self._cond:
            if self._closed:
                raise Rejected("the pool is closed")
            if self._threads < self.core:  # Java starts a core thread for each new task until there are `core`
                self._start(job)
            elif len(self._queue) < self.capacity:
                self._queue.append(job)
                self._cond.notify()
            elif self._threads < self.maximum:  # the queue is full: a thread beyond the core takes the newcomer
                self._start(job)
            else:
                raise Rejected("all threads busy and the queue is full")
        return future

    def shutdown(self) -> None:
        """Refuse new work, cancel what waits, and let idle threads end (a running handler finishes on its own)."""
        with self._cond:
            self._closed = True
            while self._queue:
                self._queue.popleft()[0].cancel()
            self._cond.notify_all()

    def _start(self, job) -> None:
        self._threads += 1
        self._running += 1
        thread = threading.Thread(target=self._worker, args=(job,), name=f"{self.name}-{self._threads}", daemon=True)
        thread.start()

    def _worker(self, job) -> None:
        while job is not None:
            future, fn, args = job
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args))
                except BaseException as error:  # handed to the waiting connection, which answers or drops it
                    future.set_exception(error)
            job = self._next()

    def _next(self):
        """The next queued job, or None when this thread ends (closed, or a thread beyond the core idled out)."""
        with self._cond:
            self._running -= 1
            while not self._queue:
                if self._closed:
                    self._threads -= 1
                    return None
                if self._threads > self.core:
                    if not self._cond.wait(self.keep_alive) and not self._queue:
                        self._threads -= 1
                        return None
                else:
                    self._cond.wait()
            self._running += 1
            return self._queue.popleft()
