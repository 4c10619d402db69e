"""Assemble and run the local reference server: state + method modules + HTTP listener + tick loop."""

from __future__ import annotations

import ipaddress
import threading
from dataclasses import dataclass, field
from pathlib import Path

from mcb.server.config import TOKENS_FILE
from mcb.server.datalock import DataDirLock
from mcb.server.dispatch import load_method_modules
from mcb.server.http import Limits, RpcHttpServer, open_listener
from mcb.server.state import ServerState


class NonLoopbackRefused(ValueError):
    pass


class ListenError(OSError):
    """The listening socket could not be opened (port in use, host that does not resolve); the original error is
    its ``__cause__``. Nothing was created."""

    def __init__(self, cause: OSError):
        super().__init__(cause.errno, cause.strerror or str(cause))


@dataclass
class ServeOptions:
    host: str = "127.0.0.1"
    port: int = 8765
    tick_ms: int = 50
    test_hooks: bool = False
    allow_remote: bool = False
    verbose: bool = False
    config_overrides: dict | None = None
    limits: Limits = field(default_factory=Limits)  # per-client deadlines and the worker bound


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class LocalServer:
    """A server. Construction binds the listener and opens the data directory; ``start()`` starts the threads;
    ``close()`` stops them and closes the journal.

    It holds the data directory's lock from construction to ``close()``: a second server on the same directory
    raises :class:`mcb.server.datalock.DataDirInUse`. A port that cannot be opened raises :class:`ListenError`
    before a missing data directory is created.
    """

    def __init__(self, data_dir: Path, options: ServeOptions):
        if not is_loopback(options.host) and not options.allow_remote:
            raise NonLoopbackRefused(f"refusing to listen on non-loopback address {options.host}")
        overrides = dict(options.config_overrides or {})
        overrides.update(tick_ms=options.tick_ms, test_hooks=options.test_hooks)
        self.data_dir = Path(data_dir)
        self.options = options
        self.modules = load_method_modules(test_hooks=options.test_hooks)
        # Refusals come before anything is created: a second server on an existing directory refuses first (its
        # lock), then a port in use or a host that does not resolve; only then is a new directory made.
        lock = DataDirLock.acquire(self.data_dir) if self.data_dir.is_dir() else None
        listener = None
        try:
            try:
                listener = open_listener((options.host, options.port))
            except OSError as error:
                raise ListenError(error) from error
            if lock is None:
                self.data_dir.mkdir(parents=True, exist_ok=True)
                lock = DataDirLock.acquire(self.data_dir)
            self.state = ServerState(self.data_dir, overrides)
        except BaseException:
            if listener is not None:
                listener.close()
            if lock is not None:
                lock.release()
            raise
        self._lock = lock
        self._listener = listener
        self.httpd: RpcHttpServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        host = f"[{host}]" if ":" in str(host) else host
        return f"http://{host}:{port}"

    @property
    def token_file(self) -> Path:
        return self.data_dir / TOKENS_FILE

    def start(self) -> LocalServer:
        self.httpd = RpcHttpServer(self._listener, self.state, verbose=self.options.verbose, limits=self.options.limits)
        self.state.start()
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="mcb-http", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
        else:  # never started
            self._listener.close()
        try:
            self.state.close()
        finally:
            self._lock.release()
