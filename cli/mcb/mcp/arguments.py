"""Tool arguments: checked against the published schema before any work (MCP-29..31, MCP-35).

The one place an integral float becomes an integer (``5.0`` → ``5``, MCP-30), for every tool and every nested value
(recipes go out as the caller wrote them, with that one change).

The schema a tool publishes is its pydantic model's JSON Schema, and the same model checks the call, in strict JSON
mode (no coercion: "5", true and 5.5 are not integers). Integral floats become integers first (MCP-30), so 5.0
passes where an integer is expected and is sent on as 5.
"""

from __future__ import annotations

import difflib
import json
import types
import typing
from functools import lru_cache
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from mcb.mcp.actions import Action, Refusal

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError


@lru_cache(maxsize=None)
def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The published inputSchema of ``model``: its JSON Schema, where every property also states its top-level
    ``type`` (a ``$ref`` names its definition's; MCP clients such as Inspector read only that to send numbers and
    objects) and no property advertises a null default (an optional argument is left out)."""
    schema = model.model_json_schema()
    if schema.get("type") != "object" or schema.get("additionalProperties") is not False:
        raise ValueError(f"{model.__name__}: an input schema must be an object with additionalProperties false "
                         "(model_config extra='forbid')")
    definitions = schema.get("$defs", {})
    for holder in (schema, *definitions.values()):
        for prop in holder.get("properties", {}).values():
            _state_type(prop, definitions)
    for name in schema.get("required", []):  # MCP-22: a required string is never empty (an enum says so already)
        prop = schema["properties"][name]
        if prop.get("type") == "string" and "minLength" not in prop and all(prop.get("enum", [""])):
            prop["minLength"] = 1
    return schema


def _state_type(prop: dict[str, Any], definitions: dict[str, Any]) -> None:
    if "default" in prop and prop["default"] is None:
        del prop["default"]
    if "type" in prop:
        return
    if "$ref" in prop:
        target = definitions.get(prop["$ref"].rsplit("/", 1)[-1], {})
        if "type" in target:
            prop["type"] = target["type"]
        return
    branches = prop.get("anyOf") or prop.get("oneOf") or []
    types = {branch.get("type") or definitions.get(branch.get("$ref", "").rsplit("/", 1)[-1], {}).get("type")
             for branch in branches}
    if len(types) == 1 and None not in types:
        prop["type"] = types.pop()


def accepted_names(model: type[BaseModel]) -> list[str]:
    return list(input_schema(model).get("properties", {}))


def integral_floats_to_ints(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: integral_floats_to_ints(item) for key, item in value.items()}
    if isinstance(value, list):
        return [integral_floats_to_ints(item) for item in value]
    return value


def parse_arguments(action: Action, arguments: dict[str, Any], *, root: Path | None) -> BaseModel:
    """The validated input model, or a Refusal naming every problem; paths are checked against ``root``."""
    from pydantic import ValidationError

    normalized = integral_floats_to_ints(arguments)
    try:
        parsed = action.input_model.model_validate_json(json.dumps(normalized, allow_nan=False), strict=True,
                                                        context={"arguments": normalized})
    except ValidationError as error:
        raise invalid_argument(action, normalized, error) from None
    return guard_paths(parsed, root) if root is not None else parsed


def _pointer(location: tuple) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in location)


def invalid_argument(action: Action, arguments: dict[str, Any], error: ValidationError) -> Refusal:
    accepted = accepted_names(action.input_model)
    unknown: list[str] = []
    missing: list[str] = []
    problems: list[dict[str, Any]] = []
    for item in error.errors(include_url=False):
        location = tuple(item["loc"])
        kind = item["type"]
        if kind == "extra_forbidden" and len(location) == 1:
            unknown.append(str(location[0]))
        elif kind == "missing" and len(location) == 1:
            missing.append(str(location[0]))
        problems.append({"pointer": _pointer(location), "problem": kind, "message": item["msg"]})
    injected = [name for name in unknown if name in INJECTED_KEYS]
    suggestions = _renames(action, arguments, [name for name in unknown if name not in INJECTED_KEYS], accepted)
    first = error.errors(include_url=False)[0]["loc"]
    # the argument at fault: a misspelt key first (that is what the model wrote), then a missing one
    field = (unknown or missing or [str(first[0]) if first else None])[0]
    parts = []
    if unknown:
        named = ", ".join(f"{name!r}" + (f" (did you mean {suggestions[name]!r}?)" if name in suggestions else "")
                          for name in unknown)
        parts.append(f"unknown argument{'s' if len(unknown) > 1 else ''} {named}")
    if injected:
        parts.append(", ".join(repr(name) for name in injected) + " " + ("is" if len(injected) == 1 else "are")
                     + " injected by mcb from its settings (MCB_PLAYER_ID, MCB_PROJECT_ID) and must be dropped")
    if missing:
        parts.append("missing required " + ", ".join(repr(name) for name in missing))
    others = [p for p in problems if p["problem"] not in ("extra_forbidden", "missing") or p["pointer"].count("/") > 1]
    if others:
        parts.append("; ".join(f"{p['pointer'][1:] or '(arguments)'}: {p['message']}" for p in others[:5]))
    message = (f"{action.name}: " + "; ".join(parts) + ". Accepted arguments: "
               + (", ".join(accepted) if accepted else "none") + ".")
    data: dict[str, Any] = {"unknown": unknown, "missing": missing, "accepted": accepted, "problems": problems}
    if len(first) > 1:
        data["pointer"] = _pointer(tuple(first))
    retry_with = None
    if unknown and set(unknown) == set(suggestions) | set(injected) and not missing and not others:
        # the whole call again: injected keys dropped, misspelt keys renamed onto keys the call did not give
        retry_with = {suggestions.get(key, key): value for key, value in arguments.items() if key not in injected}
        if not _valid(action, retry_with):
            retry_with = None
    if field is None:  # a rule over several arguments (a model validator): still a remedy (MCP-32)
        field = next((str(item["ctx"]["field"]) for item in error.errors(include_url=False)
                      if isinstance(item.get("ctx"), dict) and item["ctx"].get("field")), None)
        if field is None:
            data["no_remedy"] = "the arguments together break a rule the message states; change them as it says"
    return Refusal("invalid_argument", message, field=field, retry_with=retry_with, data=data,
                   did_you_mean=suggestions or None,
                   remedy=f"call {action.name} again with only its accepted arguments, fixed as described")


INJECTED_KEYS = ("player_id", "project_id")  # scope mcb adds to every scoped call; never asked of the model


def _valid(action: Action, arguments: dict[str, Any]) -> bool:
    from pydantic import ValidationError

    try:
        action.input_model.model_validate_json(json.dumps(arguments, allow_nan=False), strict=True)
    except ValidationError:
        return False
    return True


def _renames(action: Action, arguments: dict[str, Any], unknown: list[str], accepted: list[str]) -> dict[str, str]:
    """{given: suggestion} for misspelt keys: only onto an accepted key the call did not give, and only when the
    given value would be valid there (a rename never overwrites a value nor moves one where it cannot go)."""
    from pydantic import ValidationError

    free = [name for name in accepted if name not in arguments]
    taken: set[str] = set()
    suggestions: dict[str, str] = {}
    for name in unknown:
        for match in difflib.get_close_matches(name, [f for f in free if f not in taken], n=3, cutoff=0.6):
            trial = {key: value for key, value in arguments.items() if key != name}
            trial[match] = arguments[name]
            try:
                action.input_model.model_validate_json(json.dumps(trial, allow_nan=False), strict=True)
            except ValidationError as error:
                if any(item["loc"] and item["loc"][0] == match for item in error.errors(include_url=False)):
                    continue  # the value does not fit there
            suggestions[name] = match
            taken.add(match)
            break
    return suggestions


# -- workspace paths (MCP-35) -----------------------------------------------------------------------------------


def _mentions_path(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, PurePath):
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _mentions_path(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType, list, tuple):
        return any(_mentions_path(arg) for arg in typing.get_args(annotation) if arg is not Ellipsis)
    return False


PATH_NAMES = frozenset({"path", "paths", "output", "outputs", "file", "files", "directory", "dir"})


def _is_path_name(name: str) -> bool:
    return name in PATH_NAMES or name.endswith(("_path", "_paths", "_file", "_dir", "_output"))


@lru_cache(maxsize=None)
def path_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """Fields holding workspace paths: typed as paths, or named like one (path, paths, output, *_path, ...)."""
    return tuple(name for name, info in model.model_fields.items()
                 if _mentions_path(info.annotation) or _is_path_name(name))


def guard_paths(parsed: BaseModel, root: Path) -> BaseModel:
    """Resolve every path argument inside ``root``; a path that escapes it is refused with its field."""
    fields = path_fields(type(parsed))
    if not fields:
        return parsed
    updates: dict[str, Any] = {}
    for name in fields:
        value = getattr(parsed, name)
        if isinstance(value, (PurePath, str)):
            updates[name] = _same_type(value, _inside(Path(value), root, name))
        elif isinstance(value, (list, tuple)):
            updates[name] = type(value)(
                _same_type(item, _inside(Path(item), root, f"{name}[{index}]")) if isinstance(item, (PurePath, str))
                else item for index, item in enumerate(value))
    return parsed.model_copy(update=updates)


def _same_type(original: Any, resolved: Path) -> Any:
    return str(resolved) if isinstance(original, str) else resolved


def _inside(path: Path, root: Path, field: str) -> Path:
    try:
        candidate = (path if path.is_absolute() else root / path).resolve()
    except (OSError, RuntimeError, ValueError) as error:  # a symlink loop (RuntimeError), a NUL (ValueError)
        raise Refusal("invalid_argument", f"{field}: {str(path)!r} cannot be resolved ({error})", field=field,
                      remedy="name a file or folder that resolves (no symlink loop, no NUL character)") from None
    if not candidate.is_relative_to(root):
        raise Refusal("path_denied", f"{field}: {str(path)!r} is outside the workspace root", field=field,
                      remedy="use a path inside the workspace root, or restart mcb mcp with --root or "
                             "--allow-any-path", data={"restart_with": "mcb mcp --root DIR (or --allow-any-path)"})
    return candidate
