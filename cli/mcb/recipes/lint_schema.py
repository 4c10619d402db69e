"""Turn ``jsonschema`` errors on a recipe into lint findings that speak the server's language.

Each finding names the rule, the JSON pointer, the message the server would answer (``server: "..."``) and a hint.
``lint`` is the file's :class:`mcb.recipes.lint._FileLint` (its ``add`` and ``source_map`` are used).
"""

from __future__ import annotations

import json
import re

from mcb.recipes import rules as R
from mcb.recipes.compile import BLOCK_PATTERN, INT32_MAX, INT32_MIN, MAX_DEPTH
from mcb.recipes.jsonpos import join_pointer

JSON_TYPES = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    type(None): "null",
    int: "an integer",
    float: "a number",
}
_TYPE_NAMES = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "boolean": "a boolean",
    "integer": "an integer",
    "number": "a number",
    "null": "null",
}
_POSITION_KEYS = {"min", "max", "from", "to", "center", "offset"}
_INTEGER_TEXT = re.compile(r"-?(0|[1-9][0-9]*)")


def explain_schema_error(lint, error) -> None:
    pointer = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in error.absolute_path)
    keyword, instance, expected = error.validator, error.instance, error.validator_value
    where = _describe_parent(error)
    if keyword == "additionalProperties":
        allowed = list(error.schema.get("properties", {}))
        for key in instance:
            if key in allowed:
                continue
            hint = f"allowed keys{where}: {', '.join(allowed)}"
            rule = R.UNKNOWN_KEY
            if key == "$schema":
                rule = R.SCHEMA_KEY
                hint = (
                    "the server refuses every key it does not know; associate recipes/recipe.schema.json in your "
                    "editor settings (e.g. VS Code json.schemas) instead"
                )
            lint.add(
                rule,
                f'unknown key {key!r}{where} (server: "Unknown field: {key}")',
                join_pointer(pointer, key),
                hint,
                at_key=True,
            )
    elif keyword == "required":
        for key in expected:
            if key not in instance:
                lint.add(
                    R.MISSING_KEY,
                    f'missing key {key!r}{where} (server: "Missing field: {key}")',
                    pointer,
                    f'add "{key}"',
                )
    elif keyword == "type" and instance is None and pointer and _last(pointer) != "hollow":
        name = _last(pointer)
        lint.add(
            R.MISSING_KEY,
            f'{name} is null (server: "Missing field: {name}")',
            pointer,
            f"give {name} a value; null counts as missing",
        )
    elif keyword == "type" and expected == "integer":
        _explain_not_integer(lint, pointer, instance)
    elif keyword == "type":
        found = JSON_TYPES.get(type(instance), "a value")
        lint.add(
            R.TYPE,
            f"expected {_type_name(expected)}, found {found}{_server_type_message(pointer, expected)}",
            pointer,
            f"write {_type_name(expected)}",
        )
    elif keyword in ("minimum", "maximum") and isinstance(instance, float):
        pass  # not an integer literal (1e10, 5.0): the server stops at "must be an integer", reported on its own
    elif keyword in ("minimum", "maximum") and (instance < INT32_MIN or instance > INT32_MAX):
        lint.add(
            R.INT32,
            f'{instance} does not fit in a 32-bit integer (server: "{_last(pointer)} exceeds 32-bit bounds")',
            pointer,
            f"use a value in {INT32_MIN}..{INT32_MAX}",
        )
    elif keyword in ("minimum", "maximum"):
        _explain_range(lint, pointer, instance)
    elif keyword == "const" and pointer == "/version":
        lint.add(
            R.VERSION,
            f'version must be 1, found {json.dumps(instance)} (server: "Unsupported recipe version")',
            pointer,
            'write "version": 1',
        )
    elif keyword == "enum" and instance == "repeat":
        lint.add(
            R.NESTING,
            f'repeat nested more than {MAX_DEPTH} levels deep (server: "Recipe nesting exceeds limit")',
            pointer,
            "flatten the innermost repeats",
        )
    elif keyword == "enum":
        lint.add(
            R.OPERATION_TYPE,
            f'unsupported operation type {json.dumps(instance)} (server: "Unsupported operation: {instance}")',
            pointer,
            "use box, line, cylinder or repeat",
        )
    elif keyword in ("pattern", "maxLength"):
        lint.add(
            R.BLOCK_SYNTAX,
            f'{_excerpt(instance)} is not a recipe block state (server: "Expected a Minecraft block state string")',
            pointer,
            _block_hint(instance),
        )
    elif keyword == "maxItems":
        lint.add(
            R.BUDGET_ARRAY,
            f'{len(instance):,} operations in one array; the limit is {expected:,} (server: "Too many operations")',
            pointer,
            "split the recipe",
        )
    else:
        lint.add(R.SCHEMA, error.message, pointer, "see `mcb recipe schema` for the recipe format")


def _explain_not_integer(lint, pointer: str, instance) -> None:
    name = _last(pointer)
    server = f'(server: "{name} must be an integer")'
    if isinstance(instance, float):
        written = lint.source_map.source(pointer) or repr(instance)
        fits = instance.is_integer() and INT32_MIN <= instance <= INT32_MAX
        hint = f"write {int(instance)}" if fits else f"use a whole number in {INT32_MIN}..{INT32_MAX}"
        lint.add(R.STRICT_INTEGER, f"{written} is not an integer literal {server}", pointer, hint)
    elif isinstance(instance, str) and _INTEGER_TEXT.fullmatch(instance):
        lint.add(
            R.STRICT_INTEGER,
            f'the string "{instance}" is not an integer {server}',
            pointer,
            f"write {instance} without quotes",
        )
    else:
        lint.add(
            R.TYPE,
            f"expected an integer, found {JSON_TYPES.get(type(instance), 'a value')} {server}",
            pointer,
            "write digits only, e.g. 64 or -3",
        )


def _explain_range(lint, pointer: str, value: int) -> None:
    name = _last(pointer)
    if name == "count":
        lint.add(
            R.RANGE,
            f'count {value} is outside 1..1024 (server: "Repeat count must be 1..1024")',
            pointer,
            "use 1..1024 iterations; nest a second repeat for more",
        )
    else:
        lint.add(
            R.RANGE,
            f'{name} {value} is out of range: radius must be ≥ 0 and height ≥ 1 (server: "Cylinder '
            'radius must be nonnegative and height positive")',
            pointer,
            "radius 0 is a one-block column; height counts layers upward from center.y",
        )


def _server_type_message(pointer: str, expected) -> str:
    """The compiler's wording for a value of the wrong type at ``pointer`` (empty when it has none)."""
    name = _last(pointer)
    parent = pointer.rsplit("/", 2)[-2] if pointer.count("/") >= 2 else ""
    if expected == "object" and name.isdigit() and parent == "operations":
        return ' (server: "Operation must be an object")'
    if expected == "object" and name in _POSITION_KEYS:
        return f' (server: "{name} must be a position object")'
    if expected == "object" and pointer == "":
        return ' (server: "Expected an object")'
    words = {"array": "an array", "string": "a string", "boolean": "a boolean"}
    if expected in words and name:
        return f' (server: "{name} must be {words[expected]}")'
    return ""


def _block_hint(value) -> str:
    general = "write minecraft:<id> or minecraft:<id>[k=v,...]: lowercase, no spaces, no NBT, at most 1024 characters"
    if isinstance(value, str):
        guess = value.strip().lower().replace(" ", "")
        if ":" not in guess:
            guess = "minecraft:" + guess
        if BLOCK_PATTERN.fullmatch(guess) and guess != value:
            return f"did you mean {guess}? ({general})"
    return general


def _describe_parent(error) -> str:
    instance = error.instance
    if isinstance(instance, dict) and isinstance(instance.get("type"), str):
        return f" in a {instance['type']} operation"
    path = list(error.absolute_path)
    if not path:
        return " in the recipe"
    if isinstance(path[-1], str) and path[-1] != "operations":
        return f" in position {path[-1]!r}"
    return ""


def _type_name(expected) -> str:
    if isinstance(expected, list):
        return " or ".join(_TYPE_NAMES.get(e, e) for e in expected)
    return _TYPE_NAMES.get(expected, expected)


def _last(pointer: str) -> str:
    return pointer.rsplit("/", 1)[-1] if pointer else ""


def _excerpt(value, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + '…"'
