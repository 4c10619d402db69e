"""Helpers for tests: run a real server in-process (thread) or as a ``python -m mcb serve`` subprocess.

    from mcb.server.testing import run_server, spawn_server

    with run_server(tmp_path) as server:          # port 0, tick 5 ms, test hooks on
        httpx.post(server.url + "/v1/rpc", headers={"Authorization": f"Bearer {server.agent_token}"}, json=...)

    proc = spawn_server(tmp_path, tick_ms=50)      # for kill/restart tests
    proc.kill(); proc = spawn_server(tmp_path)     # same data dir: world and journal survive

    with run_server(tmp_path, limits=Limits(head_timeout=0.5, workers=2)) as server:   # short client deadlines
    proc = spawn_server(tmp_path, head_timeout=0.5, body_timeout=0.5)                  # the same for a process

Both give ``.url``, ``.admin_token``, ``.agent_token``, ``.data_dir``, ``.owner_uuid``, ``.project_id`` and
``.world_id``; ``run_server`` also gives ``.state`` (the live ServerState) and ``.httpd`` (the RpcHttpServer),
``spawn_server`` ``.process``. Config keywords (``owner_uuid``, ``project_id``, ``allow_local_automation``,
``region_min``/``region_max``, ``loaded_chunk_radius``, ``world_border``, ``max_plan_blocks``, ``data_version``,
``ground``) are passed through.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from mcb.fileio import loads_json
from mcb.server.app import LocalServer, ServeOptions
from mcb.server.config import CONFIG_FILE, TOKENS_FILE
from mcb.server.http import Limits

_CLI_FLAGS = {
    "owner_uuid": "--owner",
    "project_id": "--project",
    "loaded_chunk_radius": "--loaded-chunk-radius",
    "world_border": "--world-border",
    "max_plan_blocks": "--max-plan-blocks",
    "data_version": "--data-version",
    "ground": "--ground",
    "head_timeout": "--head-timeout",
    "body_timeout": "--body-timeout",
}


@dataclass
class ServerHandle:
    url: str
    admin_token: str
    agent_token: str
    data_dir: Path
    owner_uuid: str
    project_id: str
    world_id: str
    state: object = None
    httpd: object = None  # run_server: the live RpcHttpServer (connections, in_work)
    process: subprocess.Popen | None = None
    stderr_path: Path | None = None
    _extra: dict = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        return f"ServerHandle(url={self.url!r}, data_dir={str(self.data_dir)!r})"

    # subprocess control
    def kill(self) -> None:
        """SIGKILL (no clean shutdown), then reap."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def stop(self, timeout: float = 10) -> int | None:
        """SIGINT (like Ctrl-C) and wait; returns the exit code."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            import signal

            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        return self.process.returncode


def _handle(data_dir: Path, url: str, **extra) -> ServerHandle:
    tokens = loads_json((data_dir / TOKENS_FILE).read_text("utf-8"))
    config = loads_json((data_dir / CONFIG_FILE).read_text("utf-8"))
    return ServerHandle(
        url=url,
        admin_token=tokens["admin_token"],
        agent_token=tokens["agent_token"],
        data_dir=data_dir,
        owner_uuid=config["owner_uuid"],
        project_id=config["project_id"],
        world_id=config["world_id"],
        **extra,
    )


@contextlib.contextmanager
def run_server(
    data_dir,
    *,
    tick_ms: int = 5,
    test_hooks: bool = True,
    host: str = "127.0.0.1",
    port: int = 0,
    verbose: bool = False,
    limits: Limits | None = None,
    **config,
):
    """Start a server on a background thread; yields a :class:`ServerHandle` (with ``.state``).

    ``limits=Limits(head_timeout=0.5, workers=2, ...)`` makes the per-client deadlines short for a test."""
    data_dir = Path(data_dir)
    options = ServeOptions(
        host=host,
        port=port,
        tick_ms=tick_ms,
        test_hooks=test_hooks,
        verbose=verbose,
        config_overrides=config,
        limits=limits or Limits(),
    )
    server = LocalServer(data_dir, options).start()
    try:
        yield _handle(data_dir, server.url, state=server.state, httpd=server.httpd)
    finally:
        server.close()


def spawn_server(
    data_dir,
    *,
    tick_ms: int = 5,
    test_hooks: bool = True,
    port: int = 0,
    timeout: float = 30,
    extra_args: tuple = (),
    env: dict | None = None,
    **config,
) -> ServerHandle:
    """Start ``python -m mcb serve`` on ``data_dir`` and wait until it is ready; returns a :class:`ServerHandle`."""
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    ready = data_dir / f".ready-{os.getpid()}-{time.monotonic_ns()}.json"
    args = [
        sys.executable,
        "-m",
        "mcb",
        "serve",
        "--data",
        str(data_dir),
        "--port",
        str(port),
        "--tick-ms",
        str(tick_ms),
        "--ready-file",
        str(ready),
    ]
    if test_hooks:
        args.append("--test-hooks")
    if "ground" not in config and not (data_dir / CONFIG_FILE).exists():
        config["ground"] = "flat"  # tests pin down the flat world; `mcb serve` itself starts new worlds on hills
    for key, value in config.items():
        if key == "allow_local_automation":
            args.append("--local-automation" if value else "--no-local-automation")
        elif key == "region":
            args += ["--region", ",".join(str(v) for v in (*value[0], *value[1]))]
        elif key in _CLI_FLAGS:
            args += [_CLI_FLAGS[key], str(value)]
        else:
            raise TypeError(f"spawn_server: unsupported setting {key!r}")
    args += list(extra_args)
    stderr_path = data_dir / f".serve-{time.monotonic_ns()}.log"
    with open(stderr_path, "wb") as log:
        process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=log, stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})}
        )
    deadline = time.monotonic() + timeout
    while not ready.exists():
        if process.poll() is not None:
            raise RuntimeError(f"mcb serve exited with {process.returncode}: {stderr_path.read_text()[-2000:]}")
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("mcb serve did not become ready in time")
        time.sleep(0.05)
    info = loads_json(ready.read_text("utf-8"))
    ready.unlink(missing_ok=True)
    return _handle(data_dir, info["url"], process=process, stderr_path=stderr_path)
