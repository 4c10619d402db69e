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
from functools import cache
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from mcb.mcp.actions import Action, Refusal

if TYPE_CHECKING:
    from pydantic import BaseModel


@cache
def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The published inputSchema of ``model``: its JSON Schema, where every property also states its top-level
    ``type`` (a ``$ref`` names its definition's; MCP clients such as Inspector read only that to send numbers and
    objects) and no property advertises a null default (an optional argument is left out)."""
    schema = model.model_json_schema()
    if schema.get("type") != "object" or schema.get("additionalProperties") is not False:
        raise ValueError(
            f"{model.__name__}: an input schema must be an object with additionalProperties false "
            "(model_config extra='forbid')"
        )
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
    types = {
        branch.get("type") or definitions.get(branch.get("$ref", "").rsplit("/", 1)[-1], {}).get("type")
        for branch in branches
    }
    if len(types) == 1 and None not in types:
        prop["type"] = types.pop()


def checked_schema(schema: Any) -> dict[str, Any]:
    """An extension's JSON Schema, refused (ValueError) unless it is what MCP-22 and the clients need: a valid
    2020-12 schema of an object with additionalProperties false, no remote $ref, every property with its
    top-level type, every required string with minLength >= 1."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    if not isinstance(schema, dict):
        raise TypeError("input_schema takes a JSON Schema object (a dict)")
    schema = json.loads(json.dumps(schema, allow_nan=False))  # a copy of plain JSON values
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        raise ValueError(f"input_schema is not a valid JSON Schema: {error.message}") from None
    if schema.get("type") != "object" or schema.get("additionalProperties") is not False:
        raise ValueError("input_schema must be an object schema with additionalProperties false")
    remote = [ref for ref in _refs(schema) if not ref.startswith("#")]
    if remote:
        raise ValueError(f"input_schema may not use a remote $ref ({remote[0]})")
    for name, prop in schema.get("properties", {}).items():
        if not isinstance(prop, dict) or not isinstance(prop.get("type"), str):
            raise ValueError(f"input_schema property {name!r} needs a top-level type (MCP clients read it)")
        if name in schema.get("required", []) and prop["type"] == "string" and prop.get("minLength", 0) < 1:
            raise ValueError(f"input_schema property {name!r} is a required string: give it minLength 1")
    return schema


def _refs(value: Any):
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "$ref" and isinstance(item, str):
                yield item
            else:
                yield from _refs(item)
    elif isinstance(value, list):
        for item in value:
            yield from _refs(item)


def published_schema(action: Action) -> dict[str, Any]:
    """The inputSchema ``action`` publishes: an extension's own JSON Schema, else its input model's."""
    return action.schema if action.schema is not None else input_schema(action.input_model)


def accepted_names(action: Action) -> list[str]:
    return list(published_schema(action).get("properties", {}))


def integral_floats_to_ints(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: integral_floats_to_ints(item) for key, item in value.items()}
    if isinstance(value, list):
        return [integral_floats_to_ints(item) for item in value]
    return value


def parse_arguments(action: Action, arguments: dict[str, Any], *, root: Path | None) -> Any:
    """The validated arguments (the input model, or for a JSON Schema tool a :class:`SchemaArguments`), or a
    Refusal naming every problem; paths are checked against ``root``."""
    from pydantic import ValidationError

    _refuse_too_long_numbers(action, arguments)
    normalized = integral_floats_to_ints(arguments)
    if action.schema is not None:
        problems = _problems(action, normalized)
        if problems:
            raise invalid_argument(action, normalized, problems)
        parsed: Any = SchemaArguments(normalized, action.schema)
    else:
        try:
            parsed = action.input_model.model_validate_json(
                json.dumps(normalized, allow_nan=False), strict=True, context={"arguments": normalized}
            )
        except ValidationError as error:
            raise invalid_argument(action, normalized, error.errors(include_url=False)) from None
    return guard_paths(parsed, root, action) if root is not None else parsed


def _refuse_too_long_numbers(action: Action, arguments: Any, location: tuple = ()) -> None:
    """An integer literal of thousands of digits (mcb.mcp.framing.TooLongNumber) is out of every range: refused
    naming where it is, in plain words."""
    from mcb.mcp.framing import TooLongNumber

    if isinstance(arguments, TooLongNumber):
        problem = f"a number of {arguments.digits:,} digits is out of range"
        raise invalid_argument(action, {}, [{"loc": location, "type": "number_too_long", "msg": problem}])
    if isinstance(arguments, dict):
        for key, value in arguments.items():
            _refuse_too_long_numbers(action, value, (*location, key))
    elif isinstance(arguments, list):
        for index, value in enumerate(arguments):
            _refuse_too_long_numbers(action, value, (*location, index))


class SchemaArguments(dict):
    """A JSON Schema tool's arguments: a dict that also reads as attributes (``args.text``); a property left out
    reads as its schema default, else None."""

    def __init__(self, values: dict[str, Any], schema: dict[str, Any]) -> None:
        super().__init__(values)
        self._defaults = {name: prop.get("default") for name, prop in schema.get("properties", {}).items()}

    def __getattr__(self, name: str) -> Any:
        if name in self:
            return self[name]
        if name in self._defaults:
            return self._defaults[name]
        raise AttributeError(name)


def _problems(action: Action, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """What is wrong with ``arguments``, as pydantic's error items (loc, type, msg, ctx); [] when they are valid."""
    if action.schema is not None:
        return [_item(error, action.schema, arguments) for error in _validator(action).iter_errors(arguments)]
    from pydantic import ValidationError

    try:
        action.input_model.model_validate_json(json.dumps(arguments, allow_nan=False), strict=True)
    except ValidationError as error:
        return error.errors(include_url=False)
    return []


_VALIDATORS: dict[int, Any] = {}  # id(schema) -> its validator; an extension's schema lives as long as the process


def _validator(action: Action):
    from jsonschema import Draft202012Validator

    key = id(action.schema)
    if key not in _VALIDATORS:
        _VALIDATORS[key] = Draft202012Validator(action.schema)
    return _VALIDATORS[key]


def _item(error, schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """A jsonschema error as a pydantic error item, so both kinds of tool refuse alike (MCP-29)."""
    location = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and not location:
        extra = sorted(set(arguments) - set(schema.get("properties", {})))
        return {"loc": (extra[0],) if extra else (), "type": "extra_forbidden", "msg": "Extra inputs are not permitted"}
    if error.validator == "required" and not location:
        absent = [name for name in schema.get("required", []) if name not in arguments]
        return {"loc": (absent[0],) if absent else (), "type": "missing", "msg": "Field required"}
    item = {"loc": location, "type": str(error.validator), "msg": error.message, "input": error.instance}
    if error.validator in ("minimum", "maximum"):
        item["ctx"] = {"ge" if error.validator == "minimum" else "le": error.validator_value}
    return item


def _pointer(location: tuple) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in location)


def invalid_argument(action: Action, arguments: dict[str, Any], items: list[dict[str, Any]]) -> Refusal:
    accepted = accepted_names(action)
    unknown: list[str] = []
    missing: list[str] = []
    problems: list[dict[str, Any]] = []
    for item in items:
        location = tuple(item["loc"])
        kind = item["type"]
        if kind == "extra_forbidden" and len(location) == 1:
            unknown.append(str(location[0]))
        elif kind == "missing" and len(location) == 1:
            missing.append(str(location[0]))
        problems.append({"pointer": _pointer(location), "problem": kind, "message": _plain(item)})
    injected = [name for name in unknown if name in INJECTED_KEYS]
    suggestions = _renames(action, arguments, [name for name in unknown if name not in INJECTED_KEYS], accepted)
    first = items[0]["loc"]
    # the argument at fault: a misspelt key first (that is what the model wrote), then a missing one
    field = (unknown or missing or [str(first[0]) if first else None])[0]
    parts = []
    if unknown:
        named = ", ".join(
            f"{name!r}" + (f" (did you mean {suggestions[name]!r}?)" if name in suggestions else "") for name in unknown
        )
        parts.append(f"unknown argument{'s' if len(unknown) > 1 else ''} {named}")
    if injected:
        parts.append(
            ", ".join(repr(name) for name in injected)
            + " "
            + ("is" if len(injected) == 1 else "are")
            + " injected by mcb from its settings (MCB_PLAYER_ID, MCB_PROJECT_ID) and must be dropped"
        )
    if missing:
        parts.append("missing required " + ", ".join(repr(name) for name in missing))
    others = [p for p in problems if p["problem"] not in ("extra_forbidden", "missing") or p["pointer"].count("/") > 1]
    if others:
        parts.append("; ".join(f"{p['pointer'][1:] or '(arguments)'}: {p['message']}" for p in others[:5]))
    message = (
        f"{action.name}: "
        + "; ".join(parts)
        + ". Accepted arguments: "
        + (", ".join(accepted) if accepted else "none")
        + "."
    )
    data: dict[str, Any] = {"unknown": unknown, "missing": missing, "accepted": accepted, "problems": problems}
    if len(first) > 1:
        data["pointer"] = _pointer(tuple(first))
    retry_with = None
    if unknown and set(unknown) == set(suggestions) | set(injected) and not missing and not others:
        # the whole call again: injected keys dropped, misspelt keys renamed onto keys the call did not give
        retry_with = {suggestions.get(key, key): value for key, value in arguments.items() if key not in injected}
        if not _valid(action, retry_with):
            retry_with = None
    elif not unknown and not missing and others:
        retry_with = _nearest_in_range(action, arguments, items)
    if field is None:  # a rule over several arguments (a model validator): still a remedy (MCP-32)
        field = next(
            (
                str(item["ctx"]["field"])
                for item in items
                if isinstance(item.get("ctx"), dict) and item["ctx"].get("field")
            ),
            None,
        )
        if field is None:
            data["no_remedy"] = "the arguments together break a rule the message states; change them as it says"
    return Refusal(
        "invalid_argument",
        message,
        field=field,
        retry_with=retry_with,
        data=data,
        did_you_mean=suggestions or None,
        remedy=f"call {action.name} again with only its accepted arguments, fixed as described",
    )


def _plain(item: dict[str, Any]) -> str:
    """A bound the value broke in plain words ("5 is below the least allowed, 10"; "needs at least 1 item, got
    0"), where pydantic says "Input should be greater than or equal to 10"; other problems keep their message."""
    from mcb.wording import plural

    context, kind = item.get("ctx") or {}, item["type"]
    value = json.dumps(item["input"], default=str) if "input" in item else "the value"
    words = {
        "greater_than_equal": ("ge", lambda n: f"{value} is below the least allowed, {n}"),
        "minimum": ("ge", lambda n: f"{value} is below the least allowed, {n}"),
        "less_than_equal": ("le", lambda n: f"{value} is above the most allowed, {n}"),
        "maximum": ("le", lambda n: f"{value} is above the most allowed, {n}"),
        "greater_than": ("gt", lambda n: f"{value} must be more than {n}"),
        "less_than": ("lt", lambda n: f"{value} must be less than {n}"),
        "too_short": (
            "min_length",
            lambda n: f"needs at least {plural(n, 'item')}, got {context.get('actual_length')}",
        ),
        "too_long": ("max_length", lambda n: f"takes at most {plural(n, 'item')}, got {context.get('actual_length')}"),
        "string_too_short": ("min_length", lambda n: f"needs at least {plural(n, 'character')}"),
        "string_too_long": ("max_length", lambda n: f"takes at most {plural(n, 'character')}"),
    }
    if kind in words and words[kind][0] in context:
        key, say = words[kind]
        return say(context[key])
    return item["msg"].removeprefix("Value error, ")  # mcb's own validators' words, without pydantic's label


INJECTED_KEYS = ("player_id", "project_id")  # scope mcb adds to every scoped call; never asked of the model


_BOUNDS = {"greater_than_equal": "ge", "less_than_equal": "le", "minimum": "ge", "maximum": "le"}


def _nearest_in_range(action: Action, arguments: dict[str, Any], items: list[dict[str, Any]]) -> dict | None:
    """When every fault is a top-level number past an inclusive bound (wait_seconds 5 where 10 is the least),
    the bound itself: the retry that passes, to merge into the same call (MCP-32)."""
    nearest: dict[str, Any] = {}
    for item in items:
        bound = _BOUNDS.get(item["type"])
        context = item.get("ctx") or {}
        if bound is None or len(item["loc"]) != 1 or bound not in context:
            return None
        nearest[str(item["loc"][0])] = context[bound]
    return nearest if _valid(action, {**arguments, **nearest}) else None


def _valid(action: Action, arguments: dict[str, Any]) -> bool:
    return not _problems(action, arguments)


def _renames(action: Action, arguments: dict[str, Any], unknown: list[str], accepted: list[str]) -> dict[str, str]:
    """{given: suggestion} for misspelt keys: only onto an accepted key the call did not give, and only when the
    given value would be valid there (a rename never overwrites a value nor moves one where it cannot go)."""
    free = [name for name in accepted if name not in arguments]
    taken: set[str] = set()
    suggestions: dict[str, str] = {}
    for name in unknown:
        for match in difflib.get_close_matches(name, [f for f in free if f not in taken], n=3, cutoff=0.6):
            trial = {key: value for key, value in arguments.items() if key != name}
            trial[match] = arguments[name]
            if any(item["loc"] and item["loc"][0] == match for item in _problems(action, trial)):
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


@cache
def path_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """Fields holding workspace paths: typed as paths, or named like one (path, paths, output, *_path, ...)."""
    return tuple(
        name for name, info in model.model_fields.items() if _mentions_path(info.annotation) or _is_path_name(name)
    )


def guard_paths(parsed: Any, root: Path, action: Action | None = None) -> Any:
    """Resolve every path argument inside ``root``; a path that escapes it is refused with its field. The paths
    are the model's path-typed or path-named fields, and those an extension named with ``guard_path``."""
    declared = tuple(name for name, _write in (action.paths if action is not None else ()))
    if isinstance(parsed, SchemaArguments):
        fields = tuple(dict.fromkeys([*declared, *(name for name in parsed if _is_path_name(name))]))
    else:
        fields = tuple(dict.fromkeys([*declared, *path_fields(type(parsed))]))
    updates: dict[str, Any] = {}
    for name in fields:
        value = parsed.get(name) if isinstance(parsed, SchemaArguments) else getattr(parsed, name, None)
        if isinstance(value, (PurePath, str)):
            updates[name] = _same_type(value, _inside(Path(value), root, name))
        elif isinstance(value, (list, tuple)):
            updates[name] = type(value)(
                _same_type(item, _inside(Path(item), root, f"{name}[{index}]"))
                if isinstance(item, (PurePath, str))
                else item
                for index, item in enumerate(value)
            )
    if not updates:
        return parsed
    if isinstance(parsed, SchemaArguments):
        parsed.update(updates)
        return parsed
    return parsed.model_copy(update=updates)


def written_files(action: Action, parsed: Any) -> list[Path]:
    """The files named by the arguments an extension guards with ``write=True`` that do not exist yet: the call
    creates them, so a cancel or a failure removes them (MCP-49)."""
    found = []
    for name, write in action.paths:
        value = parsed.get(name) if isinstance(parsed, SchemaArguments) else getattr(parsed, name, None)
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if write and isinstance(item, (PurePath, str)) and not Path(item).exists():
                found.append(Path(item))
    return found


def _same_type(original: Any, resolved: Path) -> Any:
    return str(resolved) if isinstance(original, str) else resolved


def _inside(path: Path, root: Path, field: str) -> Path:
    try:
        candidate = (path if path.is_absolute() else root / path).resolve()
    except (OSError, RuntimeError, ValueError) as error:  # a symlink loop (RuntimeError), a NUL (ValueError)
        raise Refusal(
            "invalid_argument",
            f"{field}: {str(path)!r} cannot be resolved ({error})",
            field=field,
            remedy="name a file or folder that resolves (no symlink loop, no NUL character)",
        ) from None
    if not candidate.is_relative_to(root):
        raise Refusal(
            "path_denied",
            f"{field}: {str(path)!r} is outside the workspace root",
            field=field,
            remedy="use a path inside the workspace root, or restart mcb mcp with --root or --allow-any-path",
            data={"restart_with": "mcb mcp --root DIR (or --allow-any-path)"},
        )
    return candidate
