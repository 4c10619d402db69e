"""Run the server in the foreground for ``mcb serve``: resolve options, start, report readiness, stop cleanly."""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mcb.server.app import ListenError, LocalServer, ServeOptions, is_loopback
from mcb.server.config import CONFIG_FILE, TokenFileError, write_atomic
from mcb.server.http import Limits


class ServeSetupError(Exception):
    """The data directory or its files cannot be used (unreadable, corrupt, not writable)."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


class ServeListenError(Exception):
    """The listening socket cannot be opened (address in use, not permitted, unknown host)."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


@dataclass
class ServeRequest:
    data_dir: Path | None = None
    host: str = "127.0.0.1"
    port: int = 8765
    allow_remote: bool = False
    tick_ms: int = 50
    test_hooks: bool = False
    owner: str | None = None
    project: str | None = None
    local_automation: bool | None = None
    region: str | None = None
    loaded_chunk_radius: int | None = None
    world_border: int | None = None
    max_plan_blocks: int | None = None
    data_version: int | None = None
    ground: str | None = None
    camera_player: str | None = None
    ready_file: Path | None = None
    verbose: bool = False
    head_timeout: float = Limits.head_timeout
    body_timeout: float = Limits.body_timeout


NEW_WORLD_GROUND = "hills"


def default_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("mcb")) / "server"


def parse_region(text: str) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    try:
        numbers = [int(part) for part in text.replace(" ", "").split(",")]
    except ValueError:
        raise ValueError(f"--region needs six integers X1,Y1,Z1,X2,Y2,Z2, got {text!r}") from None
    if len(numbers) != 6:
        raise ValueError(f"--region needs six integers X1,Y1,Z1,X2,Y2,Z2, got {text!r}")
    low, high = tuple(numbers[:3]), tuple(numbers[3:])
    if any(a > b for a, b in zip(low, high)):
        raise ValueError("--region minimum must be <= maximum on every axis")
    return low, high  # type: ignore[return-value]


def parse_camera_player(text: str) -> str:
    if text.strip().lower() in ("", "none"):
        return ""
    import uuid

    try:
        return str(uuid.UUID(text.strip()))
    except ValueError:
        raise ValueError(f"--camera-player needs a UUID (or 'none'), got {text!r}") from None


def build_server(request: ServeRequest) -> LocalServer:
    overrides: dict = {}
    if request.owner is not None:
        overrides["owner_uuid"] = request.owner.strip().lower()
    if request.project is not None:
        overrides["project_id"] = request.project
    if request.local_automation is not None:
        overrides["allow_local_automation"] = request.local_automation
    if request.region is not None:
        overrides["region_min"], overrides["region_max"] = parse_region(request.region)
    for key in ("loaded_chunk_radius", "world_border", "max_plan_blocks", "data_version", "ground"):
        if getattr(request, key) is not None:
            overrides[key] = getattr(request, key)
    if request.camera_player is not None:
        overrides["camera_player_uuid"] = parse_camera_player(request.camera_player)
    options = ServeOptions(
        host=request.host,
        port=request.port,
        tick_ms=request.tick_ms,
        test_hooks=request.test_hooks,
        allow_remote=request.allow_remote,
        verbose=request.verbose,
        config_overrides=overrides,
        limits=Limits(head_timeout=request.head_timeout, body_timeout=request.body_timeout),
    )
    data_dir = request.data_dir or default_data_dir()
    if request.ground is None and not (Path(data_dir) / CONFIG_FILE).exists():
        # A new world gets the terrain height field; an existing one keeps the ground saved with it.
        request.ground = NEW_WORLD_GROUND
        overrides["ground"] = NEW_WORLD_GROUND
    if not is_loopback(request.host) and not request.allow_remote:
        raise ValueError(f"refusing to listen on non-loopback address {request.host}; add --allow-remote to insist")
    if request.ground is not None:
        from mcb.server.dispatch import load_method_modules
        from mcb.server.world import ground_names

        load_method_modules(test_hooks=request.test_hooks)  # modules may register grounds
        if request.ground not in ground_names():
            raise ValueError(f"unknown --ground {request.ground!r}; known: {', '.join(ground_names())}")
    if Path(data_dir).exists() and not Path(data_dir).is_dir():
        raise ServeSetupError(
            f"cannot use data directory {data_dir}: it is a file, not a directory",
            hint="give --data a directory (a missing one is created)",
        )
    try:
        return LocalServer(data_dir, options)
    except ListenError as error:
        if isinstance(error.__cause__, socket.gaierror):
            raise ServeListenError(
                f"cannot listen on {request.host}: the host name does not resolve",
                hint="use an address such as 127.0.0.1, or a host name that resolves",
            ) from None
        hint = None
        if error.errno == errno.EADDRINUSE:
            hint = (
                f"another program holds port {request.port} (another mcb serve?): stop it, or start this one "
                "with --port 0 (any free port)"
            )
        raise ServeListenError(
            f"cannot listen on {request.host}:{request.port}: {error.strerror or error}", hint=hint
        ) from None
    except TokenFileError as error:
        raise ServeSetupError(f"cannot use data directory {data_dir}: {error}", hint=error.hint) from None
    except (OSError, ValueError, KeyError, TypeError, RecursionError, sqlite3.DatabaseError) as error:
        raise ServeSetupError(f"cannot use data directory {data_dir}: {error}") from error


def run_until_stopped(request: ServeRequest, on_ready: Callable[[dict], None]) -> None:
    """Serve until SIGINT/SIGTERM; always closes the listener, the tick loop and the journal."""
    server = build_server(request)
    stop = threading.Event()
    # Both signals only set the event: a Ctrl-C at any moment (even during start-up) ends in a clean close.
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.start()
        info = {
            "url": server.url,
            "data_dir": str(server.data_dir),
            "token_file": str(server.token_file),
            "pid": os.getpid(),
            "recovery_required": [o.id for o in server.state.engine.ops.values() if o.status == "recovery_required"],
        }
        if not is_loopback(request.host):
            info["remote_warning"] = (
                f"listening on non-loopback address {request.host}: anyone who can reach it "
                "and holds a token can edit the world; there is no TLS"
            )
        if request.ready_file is not None:
            write_atomic(Path(request.ready_file), json.dumps(info), mode=0o600)
        on_ready(info)
        while not stop.wait(0.5):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.close()
