"""The stdio loop of `mcb mcp`: claims stdout for the protocol, reads lines, hands messages to the session.

stdout is the protocol and nothing else (MCP-69): the writer keeps a private duplicate of fd 1, and fd 1 and
``sys.stdout`` point at stderr for the life of the server, so a stray print(), a Rich console or a child process
cannot corrupt the stream.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from mcb.mcp import framing
from mcb.mcp.session import Options, Session

if TYPE_CHECKING:
    from mcb.mcp.extensions import Catalog

log = logging.getLogger("mcb.mcp")
MAX_LINE = 16 * 1024 * 1024  # 16x the plugin's 1 MiB request cap


LOG_LEVELS = ("debug", "info", "warning", "error")


def configure_logging(level: str) -> None:
    """stderr logging at ``level`` (--log-level / MCB_LOG_LEVEL, any case); an unknown level is a usage error."""
    if level.lower() not in LOG_LEVELS:
        from mcb.errors import UsageError

        raise UsageError(
            f"--log-level {level!r} is not a level (--log-level or MCB_LOG_LEVEL)",
            code="invalid_log_level",
            hint="use one of " + ", ".join(LOG_LEVELS),
        )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("mcb mcp: %(levelname)s: %(message)s"))
    logger = logging.getLogger("mcb.mcp")
    logger.handlers[:] = [handler]
    logger.setLevel(getattr(logging, level.upper()))
    logger.propagate = False


def build_catalog(*, disabled: list[str], no_extensions: bool, version: str) -> Catalog:
    from mcb.mcp.extensions import load_catalog

    return load_catalog(disabled=disabled, no_extensions=no_extensions, mcb_version=version, warn=log.warning)


def claim_stdout() -> BinaryIO:
    """A private binary writer on the original fd 1; fd 1 and sys.stdout now lead to stderr."""
    sys.stdout.flush()
    private = os.dup(1)
    os.set_inheritable(private, False)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(private, "wb", buffering=0)


def read_lines(stdin: BinaryIO):
    """Lines of at most MAX_LINE bytes; a longer one yields None once (answered as a parse error) and is skipped."""
    while True:
        line = stdin.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while True:  # drain the rest of the oversized line
                rest = stdin.readline(MAX_LINE)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line


def run(
    catalog: Catalog | Callable[[], Catalog],
    options: Options,
    make_client: Callable[[], Any],
    *,
    stdin: BinaryIO | None = None,
    out: BinaryIO | None = None,
) -> int:
    """Serve until EOF (exit 0) or a Content-Length header (exit 1)."""
    out = out if out is not None else claim_stdout()
    stdin = stdin if stdin is not None else sys.stdin.buffer
    session = Session(catalog, options, out, make_client)
    status = 0
    try:
        for raw in read_lines(stdin):
            if raw is None:
                session.send(framing.error_response(None, framing.PARSE_ERROR, "Parse error: line too long"))
                continue
            decoded = framing.decode_line(raw)
            if decoded.error is not None:
                session.send(decoded.error)
            if decoded.stop:
                log.error("a Content-Length header arrived: this server reads one JSON message per line; stopping")
                status = 1
                break
            if decoded.message is not None:
                session.handle(decoded.message)
    except KeyboardInterrupt:
        from mcb.errors import ExitCode

        status = int(ExitCode.INTERRUPTED)
    finally:
        session.close()
    return status


def make_options(
    *, read_only: bool, offline: bool, root: Path | None, allow_any_path: bool, max_result_kb: int, version: str
) -> Options:
    resolved = None if allow_any_path else (root or Path.cwd()).resolve()
    if resolved is not None and not resolved.is_dir():
        from mcb.errors import UsageError

        raise UsageError(
            f"--root {root}: not an existing folder",
            code="root_not_found",
            hint="give the folder the tools may read and write, or --allow-any-path",
        )
    return Options(
        read_only=read_only, offline=offline, root=resolved, max_result_bytes=max_result_kb * 1024, version=version
    )
