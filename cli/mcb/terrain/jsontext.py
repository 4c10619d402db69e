"""JSON values that remember the literal text of every number.

The server's ``terrain_id`` hashes each number exactly as it arrived (``12`` and ``12.0`` differ) and its integer
fields demand an integer-looking literal, so recipes are parsed into plain dicts/lists/strings with every number
kept as a :class:`JsonNumber` (literal text + float value).
"""

from __future__ import annotations

import json
import math
import re

_INTEGER_LITERAL = re.compile(r"-?(0|[1-9][0-9]*)")


class JsonNumber:
    """A JSON number with its source text; compares by text so literals stay distinguishable."""

    __slots__ = ("text", "value")

    def __init__(self, text: str):
        self.text = text
        self.value = float(text)

    def looks_integral(self) -> bool:
        """True when the literal is written as an integer (``5``, ``-12``; not ``5.0`` or ``5e0``)."""
        return _INTEGER_LITERAL.fullmatch(self.text) is not None

    def __eq__(self, other):
        return isinstance(other, JsonNumber) and other.text == self.text

    def __hash__(self):
        return hash(self.text)

    def __repr__(self):
        return f"JsonNumber({self.text!r})"


class LiteralFloat(float):
    """A ``float`` that also remembers its literal; a drop-in ``json.loads(parse_float=LiteralFloat)`` for servers.

    Everywhere else it is an ordinary float, so only code that asks for :func:`number_text` sees the difference.
    """

    def __new__(cls, text: str):
        obj = super().__new__(cls, text)
        obj.literal = text
        return obj


class LiteralInt(int):
    """An ``int`` that remembers a literal ``str(int)`` would not give back: ``-0`` is the only JSON one."""

    def __new__(cls, value: int, literal: str):
        obj = super().__new__(cls, value)
        obj.literal = literal
        return obj


def parse_int_literal(text: str) -> int:
    """``json.loads(parse_int=...)`` for servers: plain ints, except ``-0``, which keeps its literal."""
    value = int(text)
    return LiteralInt(value, text) if text.startswith("-0") else value


def loads_keeping_numbers(text: str):
    """Parse JSON text; numbers become :class:`JsonNumber` (NaN/Infinity too, rejected later as out of range)."""
    try:
        return json.loads(text, parse_int=JsonNumber, parse_float=JsonNumber, parse_constant=JsonNumber)
    except RecursionError:  # every caller reports ValueError as "not valid JSON"; a deep document is just that
        raise ValueError("nesting too deep") from None


def number_text(value) -> str | None:
    """Literal text of a number from either parser (ours or plain ``json``); ``None`` for non-numbers."""
    if isinstance(value, JsonNumber):
        return value.text
    if isinstance(value, bool):
        return None
    if isinstance(value, (LiteralFloat, LiteralInt)):
        return value.literal
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        # Plain json lost the literal; repr is the closest stable rendering (what Python clients send).
        if math.isfinite(value):
            return repr(value)
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return None


def number_value(value) -> float | None:
    if isinstance(value, JsonNumber):
        return value.value
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    return None


def canonical_text(value) -> str:
    """Compact JSON with object keys sorted recursively and number literals kept verbatim (§1.7)."""
    if isinstance(value, dict):
        # Java String order compares UTF-16 code units; encode to utf-16-be for non-BMP safety.
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(_string(k) + ":" + canonical_text(value[k]) for k in keys) + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical_text(v) for v in value) + "]"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    text = number_text(value)
    if text is None:
        raise TypeError(f"not a JSON value: {type(value).__name__}")
    return text


def from_source_map(value, source_map, pointer: str = ""):
    """Re-type numbers of a ``mcb.recipes.jsonpos`` parse as :class:`JsonNumber` using their exact source text."""
    if isinstance(value, dict):
        return {k: from_source_map(v, source_map, f"{pointer}/{_escape(k)}") for k, v in value.items()}
    if isinstance(value, list):
        return [from_source_map(v, source_map, f"{pointer}/{i}") for i, v in enumerate(value)]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return JsonNumber(source_map.source(pointer) or repr(value))
    return value


def _escape(key: str) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def _string(text: str) -> str:
    """Gson's JsonWriter escaping (non-HTML-safe): controls, quote and backslash, plus U+2028/U+2029."""
    return json.dumps(text, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def to_plain(value):
    """Convert a parsed value to ordinary Python JSON types (numbers as int when integral-looking)."""
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    if isinstance(value, JsonNumber):
        return int(value.text) if value.looks_integral() else value.value
    return value
