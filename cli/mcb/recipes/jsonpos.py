"""A small strict JSON parser that remembers where every value came from.

``parse_with_positions(text)`` returns the same Python value as ``json.loads(text)`` (ints for integer literals,
floats otherwise, later duplicate keys win, lone surrogate escapes kept) plus a :class:`SourceMap` that gives the
1-based line and column of any value, or of an object member's key, addressed by JSON pointer. Columns count
code points. Unlike ``json.loads`` it refuses ``NaN``/``Infinity`` (not JSON) and caps nesting depth, so hostile
input cannot exhaust the stack. Every failure is a :class:`JsonSyntaxError` carrying line:column.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from mcb.errors import InputError

MAX_DEPTH = 128
# CPython refuses to convert longer digit strings to int (sys.int_info.str_digits_check_threshold).
MAX_INT_DIGITS = 4300

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_STRING_RUN = re.compile(r'[^"\\\x00-\x1f]*')
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")


class JsonSyntaxError(InputError):
    """The text is not JSON; ``line``/``column`` are 1-based, ``offset`` 0-based."""

    kind = "json.syntax"

    def __init__(self, reason: str, text: str, offset: int):
        self.reason = reason
        self.offset = offset
        self.line, self.column = line_column(text, offset)
        super().__init__(
            f"invalid JSON: {reason} at line {self.line} column {self.column}",
            details={"line": self.line, "column": self.column},
        )


def line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def escape_pointer_token(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def join_pointer(parent: str, token: str | int) -> str:
    return f"{parent}/{escape_pointer_token(token)}"


@dataclass
class SourceMap:
    """Offsets of every value (``spans``) and member key (``keys``) by JSON pointer; ``""`` is the root."""

    text: str
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    keys: dict[str, tuple[int, int]] = field(default_factory=dict)
    duplicate_keys: list[str] = field(default_factory=list)
    _line_starts: list[int] | None = None

    def position(self, offset: int) -> tuple[int, int]:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        index = bisect.bisect_right(self._line_starts, offset) - 1
        return index + 1, offset - self._line_starts[index] + 1

    def locate(self, pointer: str, *, key: bool = False) -> tuple[int, int] | None:
        """Line and column of the value at ``pointer`` (or of its key when ``key``); the nearest ancestor if absent."""
        probe = pointer
        while True:
            span = (self.keys.get(probe) if key else None) or self.spans.get(probe)
            if span is not None:
                return self.position(span[0])
            if not probe:
                return None
            probe = probe.rsplit("/", 1)[0]
            key = False

    def source(self, pointer: str) -> str | None:
        """The exact source text of the value at ``pointer``."""
        span = self.spans.get(pointer)
        return None if span is None else self.text[span[0] : span[1]]


def parse_with_positions(text: str, *, max_depth: int = MAX_DEPTH) -> tuple[object, SourceMap]:
    source_map = SourceMap(text)
    parser = _Parser(text, source_map, max_depth)
    index = parser.skip(0)
    value, index = parser.value(index, "", 0)
    index = parser.skip(index)
    if index != len(text):
        raise JsonSyntaxError("extra data after the JSON value", text, index)
    return value, source_map


class _Parser:
    def __init__(self, text: str, source_map: SourceMap, max_depth: int):
        self.text = text
        self.map = source_map
        self.max_depth = max_depth

    def fail(self, reason: str, index: int) -> JsonSyntaxError:
        return JsonSyntaxError(reason, self.text, index)

    def skip(self, index: int) -> int:
        return _WHITESPACE.match(self.text, index).end()

    def value(self, index: int, pointer: str, depth: int) -> tuple[object, int]:
        text = self.text
        if index >= len(text):
            raise self.fail("unexpected end of input, expected a value", index)
        char = text[index]
        if char == "{":
            value, end = self.object(index, pointer, depth + 1)
        elif char == "[":
            value, end = self.array(index, pointer, depth + 1)
        elif char == '"':
            value, end = self.string(index)
        elif char == "-" or "0" <= char <= "9":
            value, end = self.number(index)
        elif text.startswith("true", index):
            value, end = True, index + 4
        elif text.startswith("false", index):
            value, end = False, index + 5
        elif text.startswith("null", index):
            value, end = None, index + 4
        else:
            raise self.fail(f"unexpected character {char!r}, expected a value", index)
        self.map.spans[pointer] = (index, end)
        return value, end

    def object(self, start: int, pointer: str, depth: int) -> tuple[dict, int]:
        if depth > self.max_depth:
            raise self.fail(f"nesting deeper than {self.max_depth} levels", start)
        result: dict = {}
        index = self.skip(start + 1)
        if self.text.startswith("}", index):
            return result, index + 1
        while True:
            if not self.text.startswith('"', index):
                raise self.fail("expected a string key", index)
            key_start = index
            key, index = self.string(index)
            child = join_pointer(pointer, key)
            if key in result:
                self.map.duplicate_keys.append(child)
            self.map.keys[child] = (key_start, index)
            index = self.skip(index)
            if not self.text.startswith(":", index):
                raise self.fail("expected ':' after the key", index)
            index = self.skip(index + 1)
            result[key], index = self.value(index, child, depth)
            index = self.skip(index)
            if self.text.startswith(",", index):
                index = self.skip(index + 1)
            elif self.text.startswith("}", index):
                return result, index + 1
            else:
                raise self.fail("expected ',' or '}' after an object member", index)

    def array(self, start: int, pointer: str, depth: int) -> tuple[list, int]:
        if depth > self.max_depth:
            raise self.fail(f"nesting deeper than {self.max_depth} levels", start)
        result: list = []
        index = self.skip(start + 1)
        if self.text.startswith("]", index):
            return result, index + 1
        while True:
            item, index = self.value(index, join_pointer(pointer, len(result)), depth)
            result.append(item)
            index = self.skip(index)
            if self.text.startswith(",", index):
                index = self.skip(index + 1)
            elif self.text.startswith("]", index):
                return result, index + 1
            else:
                raise self.fail("expected ',' or ']' after an array element", index)

    def number(self, index: int) -> tuple[int | float, int]:
        match = _NUMBER.match(self.text, index)
        if match is None:
            raise self.fail("invalid number", index)
        lexeme = match.group()
        if match.group(1) is None and match.group(2) is None:
            if len(lexeme) > MAX_INT_DIGITS:
                raise self.fail(f"integer longer than {MAX_INT_DIGITS} digits", index)
            return int(lexeme), match.end()
        return float(lexeme), match.end()

    def string(self, start: int) -> tuple[str, int]:
        text = self.text
        parts: list[str] = []
        index = start + 1
        while True:
            run = _STRING_RUN.match(text, index)
            parts.append(run.group())
            index = run.end()
            if index >= len(text):
                raise self.fail("unterminated string", start)
            char = text[index]
            if char == '"':
                return "".join(parts), index + 1
            if char != "\\":
                raise self.fail("control character in string", index)
            index = self.escape(index, parts)

    def escape(self, index: int, parts: list[str]) -> int:
        text = self.text
        code = text[index + 1 : index + 2]
        if code in _ESCAPES:
            parts.append(_ESCAPES[code])
            return index + 2
        if code != "u":
            raise self.fail("invalid escape sequence", index)
        unit = self.hex4(index)
        if 0xD800 <= unit <= 0xDBFF and text.startswith("\\u", index + 6):
            low = self.hex4(index + 6)
            if 0xDC00 <= low <= 0xDFFF:
                # A surrogate pair written as two escapes stands for one astral character.
                parts.append(chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)))
                return index + 12
        parts.append(chr(unit))
        return index + 6

    def hex4(self, index: int) -> int:
        match = _HEX4.match(self.text, index + 2)
        if match is None:
            raise self.fail("invalid \\u escape", index)
        return int(match.group(), 16)
