"""Exception hierarchy and the one exit-code table.

Core modules raise these; the CLI boundary (``mcb.app``) turns them into a one-line message, a hint and an exit
code. No other module decides exit codes.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FAILURE = 1
    USAGE = 2
    CONFIG = 3
    AUTH = 4
    SERVER = 5
    NETWORK = 6
    CONFLICT = 7
    INTERRUPTED = 130


# The one exit-code table: `mcb help exit-codes`, every command's help epilog and the README say what it says
# (tests/test_cli_docs.py compares the README's table with it).
EXIT_CODE_MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: "success; validate/lint: no errors (warnings fail only with --strict)",
    ExitCode.FAILURE: "validate/lint found errors, an input file is unreadable or invalid, or an operation ended badly",
    ExitCode.USAGE: "bad command line: unknown option, missing argument, malformed value",
    ExitCode.CONFIG: "configuration problem: unreadable config file, unknown profile, unsafe token file",
    ExitCode.AUTH: "no token, token rejected, or permission_denied from the server",
    ExitCode.SERVER: "the server answered with an error (invalid_request, unsupported_block, internal_error, ...)",
    ExitCode.NETWORK: "connection refused or dropped, timeout, or --wait ran out of time",
    ExitCode.CONFLICT: "stale or expired plan, conflict, busy, another operation active, recovery required, a data "
    "directory another mcb serve holds",
    ExitCode.INTERRUPTED: "interrupted by Ctrl-C (SIGINT)",
}

EXIT_CODE_TABLE: list[tuple[int, str, str]] = [
    (int(code), code.name.lower(), meaning) for code, meaning in EXIT_CODE_MEANINGS.items()
]


def exit_codes_epilog(*codes: ExitCode) -> str:
    """A command's help epilog, from the table: ``codes`` (all when none are named) by number and name."""
    rows = [(code, name) for code, name, _ in EXIT_CODE_TABLE if not codes or code in codes]
    return "Exit codes: " + " · ".join(f"{code} {name}" for code, name in rows) + " (mcb help exit-codes)."


class McbError(Exception):
    """Base of every error a user can cause or meet; never shown as a traceback."""

    exit_code: int = ExitCode.FAILURE
    kind: str = "error"

    def __init__(self, message: str, *, hint: str | None = None, code: str | None = None, details: dict | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.code = code or self.kind
        self.details = details or {}

    def to_json(self) -> dict:
        data = {"code": self.code, "message": self.message, "exit_code": int(self.exit_code)}
        if self.hint:
            data["hint"] = self.hint
        if self.details:
            data["details"] = self.details
        return data


class InputError(McbError):
    """An input file or value is unreadable, malformed or hostile."""

    exit_code = ExitCode.FAILURE
    kind = "invalid_input"


class FindingsError(McbError):
    """Validation or lint found errors (already reported)."""

    exit_code = ExitCode.FAILURE
    kind = "findings"


class UsageError(McbError):
    exit_code = ExitCode.USAGE
    kind = "usage"


class ConfigError(McbError):
    exit_code = ExitCode.CONFIG
    kind = "config"


class AuthError(McbError):
    exit_code = ExitCode.AUTH
    kind = "auth"


class ServerError(McbError):
    """The server answered with an error envelope; ``code`` is the protocol's error code."""

    exit_code = ExitCode.SERVER
    kind = "server_error"


class NetworkError(McbError):
    exit_code = ExitCode.NETWORK
    kind = "network"


class ConflictError(McbError):
    exit_code = ExitCode.CONFLICT
    kind = "conflict"
