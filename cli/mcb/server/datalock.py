"""One `mcb serve` per data directory: an OS lock on ``DATA/serve.lock`` held for the server's whole life.

Two servers on one directory would each keep their own world in memory and append to one journal, so their worlds
and journals diverge. The lock is ``fcntl.flock`` on an open file: the kernel drops it when the holder's process
ends, however it ends (kill -9 included), so nothing stale is ever left to clean up. The file also carries the
holder's pid, for the refusal message only; the file itself is never deleted (a new holder may already have it open).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

LOCK_FILE = "serve.lock"


class DataDirInUse(Exception):
    """Another process holds the data directory's lock."""

    def __init__(self, data_dir: Path, pid: int | None):
        holder = f"pid {pid}" if pid is not None else "pid unknown"
        super().__init__(f"data directory {data_dir} is in use by another mcb serve ({holder})")
        self.data_dir = data_dir
        self.pid = pid


class DataDirLock:
    """``DataDirLock.acquire(data_dir)`` takes the lock or raises :class:`DataDirInUse`; ``release()`` drops it."""

    def __init__(self, fd: int | None):
        self._fd = fd

    @classmethod
    def acquire(cls, data_dir: Path) -> DataDirLock:
        if sys.platform == "win32":  # no flock there: the server runs unguarded
            return cls(None)
        import fcntl

        path = Path(data_dir) / LOCK_FILE
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise DataDirInUse(Path(data_dir), _holder_pid(path)) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        return cls(fd)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor drops the flock
            self._fd = None


def _holder_pid(path: Path) -> int | None:
    try:
        text = path.read_text("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None  # empty while the holder is between its lock and its write
