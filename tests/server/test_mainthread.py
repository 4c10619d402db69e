"""The emulated main thread on its own (mcb.server.mainthread): hops run in the order they were handed over, one at
a time; a hop not let in within its wait is `timeout` and does not block the ticks; stopping refuses the waiting.

Deterministic: the tests stall the main thread (hold its lock, or block the tick's step) instead of timing it; the
pace over HTTP is in test_pace.py.
"""

from __future__ import annotations

import threading
import time

import pytest

from mcb.server.errors import RpcError
from mcb.server.mainthread import MainThread


@pytest.fixture
def stalled_step():
    """A tick thread whose step blocks until released (the main thread busy with a long tick)."""
    entered, release = threading.Event(), threading.Event()

    def step() -> bool:
        entered.set()
        release.wait(30)
        return False

    main = MainThread(threading.RLock(), 5, step)
    main.start()
    entered.wait(10)
    yield main, release
    release.set()
    main.stop(timeout=10)


def _until(condition, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.002)


def _hop(main, wait_s, record, item, errors=None):
    try:
        with main.hop(wait_s):
            record.append(item)
    except RpcError as error:
        if errors is None:
            raise
        errors.append((item, error.code))


def test_hops_run_in_the_order_they_were_handed_over(stalled_step):
    main, release = stalled_step
    order: list[int] = []
    threads = []
    for item in range(6):  # the tick thread is in its long step: nothing is let in, each hop queues
        thread = threading.Thread(target=_hop, args=(main, 20, order, item))
        thread.start()
        threads.append(thread)
        _until(lambda n=item + 1: main.waiting == n)
    release.set()
    for thread in threads:
        thread.join(10)
    assert order == list(range(6))


def test_a_hop_not_let_in_within_its_wait_is_timeout_and_the_next_one_runs(stalled_step):
    main, release = stalled_step
    record, errors = [], []
    late = threading.Thread(target=_hop, args=(main, 0.2, record, "late", errors))
    late.start()
    late.join(10)
    assert errors == [("late", "timeout")] and record == []
    release.set()  # the long tick ends; the withdrawn ticket is skipped, the next hop runs
    _hop(main, 10, record, "next")
    assert record == ["next"]


def test_a_hop_let_in_while_the_lock_is_held_is_timeout():
    lock = threading.RLock()
    main = MainThread(lock, 5, lambda: False)
    main.start()
    record, errors = [], []
    held, done = threading.Event(), threading.Event()

    def hold():
        with lock:
            held.set()
            done.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(10)
    try:
        _hop(main, 0.2, record, "held", errors)
        done.set()
        holder.join(10)
        assert errors == [("held", "timeout")]
        _hop(main, 10, record, "after")
        assert record == ["after"]
    finally:
        done.set()
        main.stop(timeout=10)


def test_stopping_refuses_the_hops_still_waiting(stalled_step):
    main, release = stalled_step
    record, errors = [], []
    waiting = threading.Thread(target=_hop, args=(main, 20, record, "waiting", errors))
    waiting.start()
    _until(lambda: main.waiting == 1)
    assert main.stop(timeout=0.1) is False  # the tick thread is still in its long step
    waiting.join(10)
    assert errors == [("waiting", "timeout")] and record == []
    with pytest.raises(RpcError):
        with main.hop(10):
            pass


def test_without_a_tick_a_hop_runs_at_once_and_nests():
    lock = threading.RLock()
    main = MainThread(lock, 0, lambda: False)
    record = []
    with main.hop(1):
        with main.hop(1):
            record.append(lock._is_owned())
    assert record == [True]
