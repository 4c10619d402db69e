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
        raise SystemExit(boundary.exit_code_for(AppState(json="--json" in sys.argv[1:]), KeyboardInterrupt()))
    try:
        run_app()
    finally:
        # The process ends here. Exiting, the interpreter still runs atexit handlers, flushes stdout and stderr and
        # frees objects by reference counting; freezing only spares its collector from tracing, several times,
        # the ~10^5 objects the imports left (typer's pydantic schemas, typing caches) for cycles that the end of
        # the process reclaims anyway. Every output file is already written, closed and fsynced by then.
        # Measured: `mcb schem validate SMALL` 147 -> 121 ms CPU.
        gc.freeze()
