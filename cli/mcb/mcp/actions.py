"""What every tool of the MCP face is made of: Action (the table's row), Hints, Outcome, Image, Refusal, Context."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # only annotations need it: importing the types costs no pydantic (mcb mcp's handshake)
    from pydantic import BaseModel

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


@dataclass(frozen=True)
class Hints:
    """The four MCP tool annotations; every action states all four."""

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool


@dataclass(frozen=True)
class Image:
    """A PNG the action produced; the face sends it as image content."""

    png: bytes
    caption: str = ""


@dataclass
class Outcome:
    """A successful result: `data` becomes structuredContent (and its JSON text copy)."""

    data: dict[str, Any]
    images: list[Image] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)  # the result's _meta (e.g. "mcb/transport": {repeats})


class Refusal(Exception):
    """A domain failure: becomes a tools/call result with isError true (never a JSON-RPC error)."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        remedy: str,
        field: str | None = None,
        did_you_mean: dict[str, str] | list[str] | None = None,
        retry_with: dict | None = None,
        data: dict | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.remedy = remedy
        self.field = field
        self.did_you_mean = did_you_mean_of(did_you_mean, field)
        self.retry_with = dict(retry_with) if retry_with is not None else None  # {}: the call with keys dropped
        self.data = dict(data) if data else {}

    def to_dict(self) -> dict:
        """``{"error": {code, message, data}}`` (MCP-32): the remedy sentence and every machine remedy (field,
        did_you_mean, retry_with, next_call, ...) and fact sit in ``data``."""
        data: dict[str, Any] = {"remedy": self.remedy}
        if self.field is not None:
            data["field"] = self.field
        if self.did_you_mean:
            data["did_you_mean"] = dict(self.did_you_mean)
        if self.retry_with is not None:
            data["retry_with"] = dict(self.retry_with)
        for key, value in self.data.items():
            data.setdefault(key, value)
        return {"error": {"code": self.code, "message": self.message, "data": data}}

    def __repr__(self) -> str:
        return f"Refusal({self.code!r}, {self.message!r})"


def did_you_mean_of(value: dict | list | None, given: str | None = None) -> dict[str, str] | None:
    """The one did_you_mean shape (spec MCP-29): ``{given: suggestion}``. A bare suggestion, or a list of them (an
    extension's), is read as suggestions for ``given`` (the field at fault), the closest first."""
    if not value:
        return None
    if isinstance(value, dict):
        return {str(key): str(item) for key, item in value.items()}
    if isinstance(value, str):  # one suggestion (MCP-28's shape), never read as a list of its letters
        return {given or "value": value}
    return {given or "value": str(list(value)[0])}


class Cancelled(Exception):
    """Raised by Context.check_cancelled(); the face sends no response for a cancelled call."""


class Context(Protocol):
    """What an action's `run` may ask of the face that called it."""

    def client(self) -> Any:
        """The RPC client the CLI uses, built with the agent token; player/project ids injected."""
        ...

    def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        """Report work done so far (the face throttles and keeps it strictly increasing)."""
        ...

    def check_cancelled(self) -> None:
        """Raise Cancelled when the client cancelled this call; call it between slices or files."""
        ...

    def created(self, path: Path) -> None:
        """Record a file this call created; it is removed if the call is cancelled."""
        ...


@dataclass(frozen=True)
class Action:
    """One tool: the same description, schema and hints for every face."""

    name: str
    title: str
    description: str
    input_model: type[BaseModel] | None  # None: the arguments are checked against ``schema``
    hints: Hints
    run: Callable[[Any, Context], Outcome]
    group: str
    deadline_s: float | None = None  # the face's default (30 s) when None; an action that waits longer says so
    schema: dict | None = None  # an extension's own JSON Schema (ToolOptions.input_schema) instead of a model
    paths: tuple[tuple[str, bool], ...] = ()  # (argument, written) kept inside the workspace root (guard_path)

    def __post_init__(self) -> None:
        if not NAME_PATTERN.match(self.name):
            raise ValueError(f"action name {self.name!r} does not match {NAME_PATTERN.pattern}")
        if not self.description.strip():
            raise ValueError(f"action {self.name!r} has no description")
        if not self.title.strip():
            raise ValueError(f"action {self.name!r} has no title")
