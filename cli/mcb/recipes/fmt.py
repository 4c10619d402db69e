"""Canonical formatting of recipe files (`mcb recipe fmt`).

The layout: two-space indentation; known keys in the schema's order (unknown keys after them, in file order);
positions inline as ``{"x": 0, "y": 64, "z": 0}``; a box, line or cylinder on one line when it fits in 120
columns, else one key per line; a repeat always one key per line with its operations indented. Values are never
changed, numbers keep the spelling the file used (so ``5.0`` stays visible for lint), and the output ends with a
newline. Formatting a formatted file changes nothing.
"""

from __future__ import annotations

import json

from mcb.recipes.jsonpos import SourceMap, join_pointer, parse_with_positions
from mcb.recipes.model import KEY_ORDER

WIDTH = 120


def format_recipe(text: str) -> str:
    """The canonical text of a recipe (any JSON is accepted; recipe objects get the recipe layout)."""
    value, source_map = parse_with_positions(text.removeprefix("\ufeff"))
    return _Formatter(source_map).value(value, "", 0, "recipe") + "\n"


class _Formatter:
    def __init__(self, source_map: SourceMap):
        self.map = source_map

    def value(self, value, pointer: str, indent: int, role: str | None) -> str:
        if isinstance(value, dict):
            return self.object(value, pointer, indent, role)
        if isinstance(value, list):
            return self.array(value, pointer, indent, "operation" if role == "operations" else None)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return self.map.source(pointer) or json.dumps(value)
        return _string(value)

    def object(self, obj: dict, pointer: str, indent: int, role: str | None) -> str:
        if not obj:
            return "{}"
        kind = obj.get("type") if role == "operation" else None
        if role == "operation" and isinstance(kind, str) and kind in KEY_ORDER:  # a list or object is unhashable
            order = KEY_ORDER[kind]
        elif role in KEY_ORDER:
            order = KEY_ORDER[role]
        elif set(obj) <= set("xyz"):
            order, role = KEY_ORDER["position"], "position"
        else:
            order = ()
        keys = [k for k in order if k in obj] + [k for k in obj if k not in order]
        members = [
            (key, self.value(obj[key], join_pointer(pointer, key), indent + 1, self.child_role(role, key)))
            for key in keys
        ]
        inline = "{" + ", ".join(f"{_string(k)}: {v}" for k, v in members) + "}"
        fits = "\n" not in inline and 2 * indent + len(inline) <= WIDTH
        if role == "position" or (role == "operation" and kind != "repeat" and fits):
            return inline
        pad = "  " * (indent + 1)
        body = ",\n".join(f"{pad}{_string(k)}: {v}" for k, v in members)
        return "{\n" + body + "\n" + "  " * indent + "}"

    def child_role(self, role: str | None, key: str) -> str | None:
        if key == "operations" and role in ("recipe", "operation"):
            return "operations"
        if role == "operation" and key in ("min", "max", "from", "to", "center", "offset"):
            return "position"
        return None

    def array(self, items: list, pointer: str, indent: int, role: str | None) -> str:
        if not items:
            return "[]"
        rendered = [self.value(item, join_pointer(pointer, i), indent + 1, role) for i, item in enumerate(items)]
        inline = "[" + ", ".join(rendered) + "]"
        if role is None and "\n" not in inline and 2 * indent + len(inline) <= WIDTH:
            return inline
        pad = "  " * (indent + 1)
        return "[\n" + ",\n".join(pad + item for item in rendered) + "\n" + "  " * indent + "]"


def _string(value) -> str:
    """JSON text of a string (or null/bool) with characters kept as typed, except lone surrogates: a file may spell
    ``"\\ud800"``, which decodes to a character no UTF-8 output can carry, so those keep their escape."""
    text = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, str) or text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(_escape_surrogate(c) for c in text)
    return text


def _escape_surrogate(char: str) -> str:
    return f"\\u{ord(char):04x}" if "\ud800" <= char <= "\udfff" else char
