"""Exception hierarchy, the one exit-code table, and the words each face gives an error.

Core modules raise these; the CLI boundary (``mcb.boundary``) turns them into a one-line message, a hint and an exit
code, and mcb mcp into a refusal. No other module decides exit codes.

An error's message and hint are templates: they name an argument, or a tool, by the one model's name in braces, never
by a face's spelling, and ``details["field"]`` names the argument at fault. ``{drop_extras}``, ``{format}`` and
``{output=NEW_NAME}`` are arguments (a value after ``=``, ``true`` for a switch); ``{project_context}`` is a tool (the
names of :data:`mcb.summaries.SUMMARIES`). The face that shows the error chooses the words: the CLI its flags and
commands (``--drop-extras``, ``--to``, ``-o NEW_NAME``, `mcb context`), mcb mcp its arguments and tools
(``drop_extras``, ``format``, ``output=NEW_NAME``, ``project_context``). A face runs its work inside
:func:`face_words`; reading ``message`` or ``hint`` (and so ``to_json()``) renders the template in its words.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar
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
    ExitCode.FAILURE: "validate/lint found errors, an input file is unreadable or invalid, an operation ended badly, "
    "or a question before a write was answered no",
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


# -- the words of a face ---------------------------------------------------------------------------------------------
PLACEHOLDER = re.compile(r"\{\{|\{([a-z][a-z0-9_]*)(?:=([^{}\s]+))?\}")  # "{{": a brace of outside text
Words = Callable[[str, str | None], str]  # (name, value or None) -> the face's words for it


def model_words(name: str, value: str | None) -> str:
    """The one model's own names (``drop_extras``, ``output=FILE``): the words when no face chose others."""
    return name if value is None else f"{name}={value}"


_FACE_WORDS: ContextVar[Words] = ContextVar("mcb_face_words", default=model_words)


@contextlib.contextmanager
def face_words(words: Words) -> Iterator[None]:
    """Errors read inside this block speak ``words`` (each face's entry point runs its work in one)."""
    token = _FACE_WORDS.set(words)
    try:
        yield
    finally:
        _FACE_WORDS.reset(token)


def render(text: str | None, words: Words | None = None) -> str | None:
    """``text`` with each ``{name}`` / ``{name=value}`` in ``words`` (default: the face at work)."""
    if not text or "{" not in text:
        return text
    words = words or _FACE_WORDS.get()
    return PLACEHOLDER.sub(lambda found: "{" if found[1] is None else words(found[1], found[2]), text)


def fill(text: str, values: dict[str, str]) -> str:
    """``text`` with the placeholders ``values`` has a value for (numbers read from a server's message), the others
    (arguments and tools) kept for the face."""
    if not values:
        return text
    return PLACEHOLDER.sub(lambda found: values.get(found[1], found[0]) if found[1] else found[0], text)


def escaped(text: str) -> str:
    """Outside text (a server's message, Typer's words with what the user typed) put into a template as it is."""
    return text.replace("{", "{{")


class McbError(Exception):
    """Base of every error a user can cause or meet; never shown as a traceback. ``message`` and ``hint`` read in
    the words of the face at work (see the module's docstring); the templates are ``template``/``hint_template``."""

    exit_code: int = ExitCode.FAILURE
    kind: str = "error"

    def __init__(self, message: str, *, hint: str | None = None, code: str | None = None, details: dict | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.code = code or self.kind
        self.details = details or {}

    @property
    def message(self) -> str:
        return render(self.template)

    @message.setter
    def message(self, value: str) -> None:
        self.template = value

    @property
    def hint(self) -> str | None:
        return render(self.hint_template)

    @hint.setter
    def hint(self, value: str | None) -> None:
        self.hint_template = value

    def __str__(self) -> str:
        return self.message

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
