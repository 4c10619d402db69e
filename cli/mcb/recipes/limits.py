"""The one size limit of a build recipe, and its one message: the server's 1 MiB request limit (protocol §1.2).

A recipe larger than that can never reach `build_prepare`, so every command and MCP tool that reads one (lint,
compile, fmt) refuses it, reading no more than the limit plus one byte.
"""

from __future__ import annotations

from mcb.fileio import SERVER_REQUEST_BYTES

MAX_RECIPE_BYTES = SERVER_REQUEST_BYTES
TOO_LARGE_HINT = "split it into several recipes"


def too_large(size: int | None = None) -> str:
    """The message for a recipe of ``size`` bytes (None: more than the limit, read no further)."""
    what = f"{size:,} bytes" if size is not None else f"more than {MAX_RECIPE_BYTES:,} bytes"
    return f"recipe is {what}; the server refuses requests over 1 MiB ({MAX_RECIPE_BYTES:,} bytes)"
