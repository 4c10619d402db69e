"""The console script. It imports the application inside the Ctrl-C guard, so an interrupt that lands while the
command tree is still being imported exits 130 with the usual words instead of a traceback."""

from __future__ import annotations

import gc
import sys


def main() -> None:
    try:
        from mcb.app import main as run_app
    except KeyboardInterrupt:
        from mcb import boundary
        from mcb.state import AppState

        # argv is not parsed yet; --json anywhere asks for the JSON shape, as the root group decides later
        raise SystemExit(boundary.exit_code_for(AppState(json="--json" in sys.argv[1:]), KeyboardInterrupt())) from None
    try:
        run_app()
    finally:
        # The process ends here. Exiting, the interpreter still runs atexit handlers, flushes stdout and stderr and
        # frees objects by reference counting; freezing only spares its collector from tracing and tearing down
        # the cycles the imports left (Typer's pydantic schemas, typing caches), which the end of the process
        # reclaims anyway. Every output file is already written, closed and fsynced by then. Kept because users
        # feel it: benchmarks/bench_startup.py's "without gc.freeze" row measures every command ~50 ms slower
        # (schem validate SMALL: 1.36x the minimal Typer app's CPU instead of 1.06x; target 1.1x).
        gc.freeze()
