"""The whole catalog in its fixed order, and third-party tools found through the `mcb.tools` entry points.

Order (MCP-20): RPC actions in the bridge's order, offline actions, `tool_batch`, then extension tools by name.
An extension is a class subclassing :class:`Extension`, named by an entry point in the group ``mcb.tools``::

    [project.entry-points."mcb.tools"]
    demo = "mcb_demo:DemoTools"

Its ``register(registry, host)`` adds tools with ``registry.add(name, handler, ToolOptions("description"))``.
An extension that fails in any way (import, ``register()``, a bad name or options) contributes no tools at all, is
reported, and never stops the server. Core code: no typer, rich, click or mcp imports.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from mcb.mcp.actions import NAME_PATTERN, Action, Cancelled, Hints, Outcome, Refusal

ENTRY_POINT_GROUP = "mcb.tools"
RESERVED_PREFIXES = (
    "project_",
    "material_",
    "region_",
    "build_",
    "operation_",
    "part_",
    "camera_",
    "asset_",
    "schematic_",
    "terrain_",
    "chat_",
    "recovery_",
    "schem_",
    "recipe_",
    "block_",
    "tool_",
    "mcb_",
)
log = logging.getLogger("mcb.mcp")


# -- the extension API ------------------------------------------------------------------------------------------


class Extension:
    """Base class of an mcb extension: subclass it and add tools in :meth:`register`."""

    def register(self, registry: ToolRegistry, host: ExtensionHost) -> None:
        raise NotImplementedError("an extension must implement register(registry, host)")


@dataclass(frozen=True)
class ExtensionHost:
    """What an extension may know about the server loading it."""

    mcb_version: str
    entry_point: str


@dataclass(frozen=True)
class Result:
    """What an extension handler returns: :func:`ok` or :func:`fail`."""

    data: dict[str, Any]
    hint: str | None = None
    refusal: Refusal | None = None


def ok(data: dict[str, Any] | None = None, hint: str | None = None) -> Result:
    """A success; ``data`` becomes the structured result, ``hint`` (one sentence) overrides the static hint."""
    return Result(dict(data or {}), hint)


def fail(code: str, message: str, *, remedy: str, **details: Any) -> Result:
    """A refusal; ``details`` may carry field, did_you_mean, retry_with and any other facts."""
    known = {key: details.pop(key) for key in ("field", "did_you_mean", "retry_with") if key in details}
    return Result({}, refusal=Refusal(code, message, remedy=remedy, data=details, **known))


class _NoArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolOptions:
    """Options builder; every method returns the builder. Defaults are MCP's: mutating, destructive,
    non-idempotent, open-world, until marked otherwise."""

    def __init__(self, description: str) -> None:
        if not isinstance(description, str) or not description.strip():
            raise ValueError("a tool needs a description (what it does, its limits, what usually comes next)")
        self._description = description.strip()
        self._title: str | None = None
        self._model: type[BaseModel] | None = _NoArguments
        self._schema: dict | None = None
        self._paths: list[tuple[str, bool]] = []
        self._read_only = False
        self._destructive: bool | None = None
        self._idempotent = False
        self._open_world = True
        self._cancellable = False
        self._success_hint: str | None = None
        self._group = "extensions"
        self._timeout_ms: int | None = None

    def title(self, text: str) -> ToolOptions:
        self._title = text
        return self

    def input_model(self, model: type[BaseModel]) -> ToolOptions:
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise TypeError("input_model takes a pydantic model class")
        if model.model_config.get("extra") != "forbid":
            raise ValueError(f"{model.__name__} must set model_config extra='forbid' (unknown arguments are refused)")
        self._model, self._schema = model, None
        return self

    def input_schema(self, schema: dict) -> ToolOptions:
        """The arguments as a JSON Schema (2020-12) instead of a pydantic model: an object with
        additionalProperties false, every property with its top-level type, no remote $ref. It is published as the
        tool's inputSchema, every call is checked against exactly it, and the handler gets a dict that also reads
        as attributes (``args.text``; a property left out reads as its default, else None)."""
        from mcb.mcp.arguments import checked_schema

        self._model, self._schema = None, checked_schema(schema)
        return self

    def guard_path(self, param: str, write: bool = False) -> ToolOptions:
        """Keep argument ``param`` (a path or a list of paths) inside the workspace root: it is resolved there
        before the handler runs, and one that escapes is refused path_denied (MCP-35). ``write``: a file it names
        that does not exist yet belongs to the call and is removed if the call is cancelled or fails (MCP-49)."""
        self._paths.append((param, bool(write)))
        return self

    def read_only(self) -> ToolOptions:
        self._read_only = True
        return self

    def destructive(self, flag: bool = True) -> ToolOptions:
        self._destructive = flag
        return self

    def idempotent(self, flag: bool = True) -> ToolOptions:
        self._idempotent = flag
        return self

    def open_world(self, flag: bool = True) -> ToolOptions:
        self._open_world = flag
        return self

    def cancellable(self) -> ToolOptions:
        """The handler takes ``(args, ctx)`` and checks ``ctx.check_cancelled()`` between steps."""
        self._cancellable = True
        return self

    def timeout_ms(self, ms: int) -> ToolOptions:
        """The call's deadline; clamped to 1 s .. 300 s (with a warning at registration)."""
        self._timeout_ms = int(ms)
        return self

    def deadline(self, warn: Callable[[str], None]) -> float | None:
        if self._timeout_ms is None:
            return None
        clamped = min(max(self._timeout_ms, 1_000), 300_000)
        if clamped != self._timeout_ms:
            warn(f"timeout_ms {self._timeout_ms} is outside 1000..300000; using {clamped}")
        return clamped / 1000

    def success_hint(self, text: str) -> ToolOptions:
        self._success_hint = text
        return self

    def group(self, name: str, description: str = "") -> ToolOptions:
        self._group = name
        return self

    def hints(self, warn: Callable[[str], None]) -> Hints:
        """The four hints; read-only and destructive together count as mutating (MCP-25)."""
        destructive = (not self._read_only) if self._destructive is None else self._destructive
        read_only = self._read_only
        if read_only and destructive:
            warn("marked both read-only and destructive: treated as mutating (readOnlyHint false)")
            read_only = False
        return Hints(
            read_only=read_only, destructive=destructive, idempotent=self._idempotent, open_world=self._open_world
        )


class ToolRegistry:
    """Collects one extension's tools; nothing is kept unless the whole ``register()`` succeeds."""

    def __init__(self, prefix: str, taken: set[str], warn: Callable[[str], None]) -> None:
        self._prefix = prefix
        self._taken = taken
        self._warn = warn
        self.actions: list[Action] = []

    def add(self, name: str, handler: Callable[..., Result], options: ToolOptions) -> None:
        if not isinstance(options, ToolOptions):
            raise TypeError(f"{name}: options must be a ToolOptions")
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise ValueError(f"tool name {name!r} does not match {NAME_PATTERN.pattern}")
        reserved = next((p for p in RESERVED_PREFIXES if name.startswith(p)), None)
        if reserved:
            raise ValueError(f"tool name {name!r} uses the prefix {reserved!r}, reserved for mcb's own tools")
        if not name.startswith(self._prefix):
            raise ValueError(f"tool name {name!r} must start with {self._prefix!r} (the entry point's name)")
        if name in self._taken or any(action.name == name for action in self.actions):
            self._warn(f"tool {name} is already registered by an earlier extension; this one is ignored")
            return
        if not callable(handler):
            raise TypeError(f"{name}: handler is not callable")
        hints = options.hints(lambda text: self._warn(f"tool {name}: {text}"))
        title = options._title or name.replace("_", " ").capitalize()
        action = Action(
            name=name,
            title=title,
            description=options._description,
            input_model=options._model,
            hints=hints,
            run=_adapter(name, handler, options._cancellable, options._success_hint),
            group=options._group,
            deadline_s=options.deadline(lambda text: self._warn(f"tool {name}: {text}")),
            schema=options._schema,
            paths=tuple(options._paths),
        )
        from mcb.mcp.arguments import accepted_names

        unknown = [param for param, _write in action.paths if param not in accepted_names(action)]
        if unknown:
            raise ValueError(f"{name}: guard_path names {', '.join(map(repr, unknown))}, not an argument of the tool")
        self.actions.append(action)


SECRET_ENV = ("MCB_TOKEN", "MCB_AGENT_TOKEN")


def redact_secrets(text: str) -> str:
    """``text`` without the tokens mcb knows (MCP-70): an extension's error may quote them back."""
    import os

    from mcb.redact import redact_urls_in

    for variable in SECRET_ENV:
        value = os.environ.get(variable, "")
        if len(value) >= 4:
            text = text.replace(value, "***")
    return redact_urls_in(text)


def _extension_fault(name: str, what: str) -> Refusal:
    return Refusal(
        "internal",
        f"extension tool {name} {what}; this is the extension's fault, not mcb's",
        remedy="report it to the extension's authors (mcb mcp --dump-manifest names the package)",
        data={"no_remedy": "no argument can fix a broken extension tool", "extension_fault": True},
    )


def _adapter(name: str, handler: Callable[..., Any], cancellable: bool, static_hint: str | None):
    def run(args: BaseModel, ctx) -> Outcome:
        try:
            result = handler(args, ctx) if cancellable else handler(args)
        except (Refusal, Cancelled):
            raise
        except Exception as error:
            import traceback

            trace = redact_secrets("".join(traceback.format_exception(error)))
            log.error("extension tool %s raised:\n%s", name, trace.rstrip())
            raise _extension_fault(name, f"raised {type(error).__name__}: {redact_secrets(str(error))[:500]}") from None
        if not isinstance(result, Result):
            raise _extension_fault(name, f"returned {type(result).__name__}, not ok(...) or fail(...)")
        if result.refusal is not None:
            raise result.refusal
        data = dict(result.data)
        hint = result.hint or static_hint
        if hint and "hint" not in data:
            data["hint"] = hint
        return Outcome(data)

    return run


# -- loading ---------------------------------------------------------------------------------------------------


@dataclass
class ExtensionReport:
    name: str
    distribution: str
    version: str
    status: str  # loaded | disabled | failed
    tools: list[str] = field(default_factory=list)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "status": self.status,
            "tools": list(self.tools),
        }
        if self.error is not None:
            data["error"] = self.error
        return data


@dataclass
class Catalog:
    actions: list[Action]
    extensions: list[ExtensionReport]

    def by_name(self) -> dict[str, Action]:
        return {action.name: action for action in self.actions}

    def extension_for(self, tool_name: str) -> ExtensionReport | None:
        """The disabled or failed extension whose prefix ``tool_name`` carries, if any."""
        for report in self.extensions:
            if report.status != "loaded" and tool_name.startswith(report.name + "_"):
                return report
        return None


def load_catalog(
    *,
    disabled: Iterable[str] = (),
    no_extensions: bool = False,
    mcb_version: str = "",
    warn: Callable[[str], None] | None = None,
) -> Catalog:
    """Built-ins first, then every ``mcb.tools`` entry point sorted by (name, distribution)."""
    warn = warn or log.warning
    from mcb.mcp.tools import builtin_actions

    actions = builtin_actions()
    names = [action.name for action in actions]
    if len(set(names)) != len(names):
        raise RuntimeError(f"duplicate built-in tool names: {sorted({n for n in names if names.count(n) > 1})}")
    taken = set(names)
    reports: list[ExtensionReport] = []
    extension_actions: list[Action] = []
    disabled = set(disabled)
    for entry_point in _entry_points():
        distribution = entry_point.dist.name if entry_point.dist is not None else "?"
        version = entry_point.dist.version if entry_point.dist is not None else "?"
        report = ExtensionReport(entry_point.name, distribution, version, "loaded")
        reports.append(report)
        if no_extensions or entry_point.name in disabled:
            report.status = "disabled"
            continue
        try:
            added = _load_one(entry_point, taken, mcb_version, warn)
        except Exception as error:  # an extension's fault never stops the server (MCP-67)
            report.status, report.error = "failed", f"{type(error).__name__}: {error}"
            warn(
                f"extension {entry_point.name} ({distribution} {version}, {entry_point.value}) failed and "
                f"registers no tools: {report.error}"
            )
            continue
        report.tools = [action.name for action in added]
        taken.update(report.tools)
        extension_actions.extend(added)
    actions.extend(sorted(extension_actions, key=lambda action: action.name))
    return Catalog(actions, reports)


def _entry_points():
    from importlib.metadata import entry_points

    found = entry_points(group=ENTRY_POINT_GROUP)
    return sorted(found, key=lambda ep: (ep.name, ep.dist.name if ep.dist is not None else ""))


def _load_one(entry_point, taken: set[str], mcb_version: str, warn: Callable[[str], None]) -> list[Action]:
    target = entry_point.load()
    if not (isinstance(target, type) and issubclass(target, Extension)):
        raise TypeError(f"{entry_point.value} is not a subclass of mcb.mcp.Extension")
    registry = ToolRegistry(entry_point.name + "_", taken, lambda text: warn(f"extension {entry_point.name}: {text}"))
    target().register(registry, ExtensionHost(mcb_version, entry_point.name))
    from mcb.mcp.arguments import published_schema

    for action in registry.actions:  # a schema that cannot be generated is the extension's fault, found now
        published_schema(action)
    return registry.actions


_cached: Catalog | None = None
_cache_lock = threading.Lock()


def all_actions() -> list[Action]:
    """Every action in the fixed order, extensions included (loaded once per process)."""
    global _cached
    with _cache_lock:
        if _cached is None:
            _cached = load_catalog()
        return list(_cached.actions)


__all__ = [
    "ENTRY_POINT_GROUP",
    "Catalog",
    "Extension",
    "ExtensionHost",
    "ExtensionReport",
    "Result",
    "ToolOptions",
    "ToolRegistry",
    "all_actions",
    "fail",
    "load_catalog",
    "ok",
]
