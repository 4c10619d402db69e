"""The BlockData presence check on a second core: a forked helper process for one-shot validation.

Validating a big schematic is bound by Python's global interpreter lock, not by the CPU count: on the 256^3 corpus
file the scan of 42,010 block entities, the numpy import and the varint presence check each hold the lock for about
50 ms, one after the other. The last two need nothing but the BlockData bytes, so a helper process can do them
beside the scan:

1. before parsing starts, the validator forks the helper, which imports numpy at once and waits;
2. the reader pours the BlockData payload, piece by piece as it is inflated, into an anonymous in-memory file
   (``memfd``) that both processes hold, tells the helper its length, and goes on to the block entities. The
   parent keeps only a :class:`HandedOver` placeholder (its length; the bytes can be read back), which spares it
   two 17 MB copies on a 256^3 file;
3. the helper answers with the distinct values, the stream's first problem and its entry count (JSON on a pipe).

Used only where it is safe and pays: Linux (a fork without exec is unsafe on macOS), two or more usable CPUs, and
no other thread in the process (forking a threaded process can deadlock the child). A helper that fails, dies or
answers nonsense is ignored and the check runs in process, so findings never depend on the helper; the tests
compare both ways. ``MCB_HELPER=0`` turns it off.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import struct
import sys
import threading

from mcb.schematics.nbt_tags import TAG_BYTE_ARRAY, ByteArray
from mcb.schematics.varint_py import SMALL_STREAM, VarintProblem

_MAX_VALUES = 1 << 16  # distinct values sent back; a hostile stream with more is checked in process
_BOUND = 4096          # the same bound Document.used_values uses in process
ANSWER_TIMEOUT = 60.0  # seconds; a helper that has not answered by then is killed and the check runs here


def available() -> bool:
    """Whether a helper can be started here and now."""
    if os.environ.get("MCB_HELPER", "1") == "0":
        return False
    if not sys.platform.startswith("linux") or not hasattr(os, "memfd_create"):
        return False
    try:
        cpus = len(os.sched_getaffinity(0))
    except OSError:
        cpus = os.cpu_count() or 1
    return cpus >= 2 and threading.active_count() == 1 and _memfd_works()


@functools.lru_cache(maxsize=1)
def _memfd_works() -> bool:
    """Whether this kernel (or sandbox) lets us make the shared memory file."""
    try:
        os.close(os.memfd_create("mcb-probe", os.MFD_CLOEXEC))
    except OSError:
        return False
    return True


class PresenceHelper:
    """One helper process for one BlockData array. Always :meth:`close` it (it is a context manager)."""

    def __init__(self, pid: int, memfd: int, request: int, answer: int):
        self._pid = pid
        self._memfd = memfd
        self._request = request
        self._answer = answer
        self._tag = None
        self._result = None
        self._done = False

    @classmethod
    def start(cls) -> PresenceHelper | None:
        """The helper :func:`start_early` forked, else a new one; None where :func:`available` says no or the
        operating system refuses."""
        global _early
        if _early is not None:
            helper, _early = _early, None
            return helper
        if not available():
            return None
        return cls._fork()

    @classmethod
    def _fork(cls) -> PresenceHelper | None:
        fds: list[int] = []
        try:
            memfd = os.memfd_create("mcb-blockdata", os.MFD_CLOEXEC)
            fds.append(memfd)
            request_read, request_write = os.pipe()
            fds += [request_read, request_write]
            answer_read, answer_write = os.pipe()
            fds += [answer_read, answer_write]
            pid = os.fork()
        except OSError:
            for fd in fds:
                os.close(fd)
            return None
        if pid == 0:  # the helper: never returns
            _helper_main(memfd, request_read, answer_write, (request_write, answer_read))
        os.close(request_read)
        os.close(answer_write)
        return cls(pid, memfd, request_write, answer_read)

    def __enter__(self) -> PresenceHelper:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def claim(self, path: list[str], n: int) -> _Sink | None:
        """The reader's ``array_sink`` hook: take the first big BlockData (v1/v2) or Blocks/Data (v3)."""
        if self._tag is not None or self._done or n <= SMALL_STREAM:
            return None
        if not path or path[-1] not in ("BlockData", "Data") or (path[-1] == "Data" and path[-2:-1] != ["Blocks"]):
            return None
        self._tag = _CLAIMED
        return _Sink(self, n)

    def _handed_over(self, n: int):
        """The sink is full: tell the helper, and give the reader the placeholder to keep."""
        try:
            _write_all(self._request, struct.pack("<Q", n))
            tag = HandedOver(os.dup(self._memfd), n)
        except OSError:
            data = _pread_exact(self._memfd, n)
            self.close()
            return ByteArray(data)
        self._tag = tag
        return tag

    def answer(self, tag) -> tuple[frozenset[int], VarintProblem | None, int] | None:
        """``(values, stream problem, entries)`` for ``tag`` if it was handed over and the helper answered well;
        otherwise None (the caller checks it in process)."""
        if tag is not self._tag or not isinstance(tag, HandedOver):
            return None
        if not self._done:
            try:
                self._result = _parse(_read_all(self._answer, ANSWER_TIMEOUT))
            except (OSError, ValueError, TypeError, KeyError, TimeoutError):
                self._result = None
            self.close()
        return self._result

    def close(self) -> None:
        """Stop the helper if it is still at work and reap it; idempotent."""
        if self._done:
            return
        self._done = True
        for fd in (self._request, self._memfd):
            os.close(fd)
        try:
            if self._result is None:
                os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
        except (ChildProcessError, ProcessLookupError):
            pass
        finally:
            os.close(self._answer)


_CLAIMED = object()  # PresenceHelper._tag while the reader pours the array


class _Sink:
    """Where the reader pours the claimed array: the memory file, or, if writing to it fails, this process."""

    def __init__(self, helper: PresenceHelper, n: int):
        self._helper = helper
        self._n = n
        self._written = 0
        self._spilled: list[bytes] | None = None  # the bytes kept here after a failed write

    def write(self, piece) -> None:
        view = memoryview(piece)
        if self._spilled is None:
            try:
                while view:
                    done = os.write(self._helper._memfd, view)
                    self._written += done
                    view = view[done:]
                return
            except OSError:
                self._spilled = [_pread_exact(self._helper._memfd, self._written)]
        self._spilled.append(bytes(view))

    def finish(self):
        if self._spilled is None:
            return self._helper._handed_over(self._n)
        self._helper.close()
        data = b"".join(self._spilled)
        return ByteArray(data[:self._n]) if len(data) >= self._n else ByteArray(data)


class HandedOver:
    """A Byte_Array poured into the helper's memory file instead of being built here. Validation needs only its
    length and the helper's answer; :meth:`load` reads the bytes back (when the helper cannot answer)."""

    tag_id = TAG_BYTE_ARRAY
    __slots__ = ("_fd", "_length")

    def __init__(self, fd: int, length: int):
        self._fd = fd
        self._length = length

    def __len__(self) -> int:
        return self._length

    def __repr__(self) -> str:
        return f"HandedOver({self._length} bytes)"

    def load(self) -> ByteArray:
        return ByteArray(_pread_exact(self._fd, self._length))

    def __del__(self) -> None:
        try:
            os.close(self._fd)
        except OSError:
            pass


_early: PresenceHelper | None = None


def start_early() -> None:
    """Fork the helper now, before the validator's own modules are imported, so that its numpy import starts
    ~40 ms sooner; the next :meth:`PresenceHelper.start` hands it out. (A helper nobody takes sees its request pipe
    close when this process ends, and exits.)"""
    global _early
    if _early is None and available():
        _early = PresenceHelper._fork()


def started_early() -> bool:
    return _early is not None


def _parse(data: bytes) -> tuple[frozenset[int], VarintProblem | None, int] | None:
    if not data:
        return None
    message = json.loads(data)
    if not message.get("ok"):
        return None
    values = message["values"]
    problem = message["problem"]
    entries = message["entries"]
    if not (isinstance(values, list) and all(type(v) is int for v in values) and type(entries) is int):
        return None
    if problem is not None:
        kind, index, text = problem
        problem = VarintProblem(str(kind), int(index), str(text))
    return frozenset(values), problem, entries


def _helper_main(memfd: int, request: int, answer: int, parents_ends: tuple[int, int]) -> None:
    """The forked helper: import numpy, wait for the BlockData length, answer, exit. Never returns; never raises."""
    try:
        for fd in parents_ends:
            os.close(fd)
        quiet = os.open(os.devnull, os.O_RDWR)  # never hold the caller's terminal or pipes open, never print
        for fd in (0, 1, 2):
            os.dup2(quiet, fd)
        from mcb.background import settle_numpy_for_one_shot

        settle_numpy_for_one_shot()  # one OpenBLAS thread: the other core is the parent's
        from mcb.schematics.varint import stream_presence  # imports numpy

        header = _read_exact(request, 8)
        if len(header) == 8:  # else the parent closed the pipe: nothing to do
            (size,) = struct.unpack("<Q", header)
            data = _pread_exact(memfd, size)
            if len(data) != size:
                raise EOFError("the BlockData file is short")
            counts, beyond, problem, entries = stream_presence(data, _BOUND)
            if beyond.size > _MAX_VALUES:
                message = {"ok": False}
            else:
                message = {"ok": True, "values": counts.nonzero()[0].tolist() + beyond.tolist(),
                           "entries": int(entries),
                           "problem": None if problem is None else [problem.kind, problem.index, problem.message]}
            _write_all(answer, json.dumps(message).encode())
    except BaseException:  # noqa: BLE001 - the parent checks in process whenever the answer is missing
        pass
    os._exit(0)


def _write_all(fd: int, data) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd: int, n: int) -> bytes:
    parts = []
    while n:
        chunk = os.read(fd, n)
        if not chunk:
            break
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def _pread_exact(fd: int, n: int) -> bytes:
    parts = []
    offset = 0
    while offset < n:
        chunk = os.pread(fd, n - offset, offset)
        if not chunk:
            break
        parts.append(chunk)
        offset += len(chunk)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _read_all(fd: int, timeout: float) -> bytes:
    """Everything until end of file; TimeoutError when that takes longer than ``timeout`` seconds in all."""
    import select
    import time

    deadline = time.monotonic() + timeout
    parts = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            raise TimeoutError("the helper did not answer")
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
