"""Stringified NBT (SNBT), the text commands take (``data merge block X Y Z {...}``, ``summon ID X Y Z {...}``).

    to_snbt(Compound(id=String("minecraft:stone"), count=Int(3)))   # '{id:"minecraft:stone",count:3}'

Written for the parser of Minecraft 1.21.5 and later (every release mcb builds for): a value keeps its tag type
(``1b``, ``2s``, ``3``, ``4L``, ``5.0f``, ``6.0d``, ``[B;..]``, ``[I;..]``, ``[L;..]``), a string is always quoted
(an unquoted ``true`` would read as a byte), a key is quoted only when it needs to be, and a string's control
characters are escaped (``\\n``), so one value is always one line. Plain Python values are typed as the NBT writer
types them (int: Int, float: Double, str: String, dict: Compound, list: List). NaN and infinities have no SNBT
form: :class:`SnbtError`.
"""

from __future__ import annotations

import math
import re

import numpy as np

from mcb.schematics.nbt import (
    TAG_BYTE,
    TAG_BYTE_ARRAY,
    TAG_COMPOUND,
    TAG_DOUBLE,
    TAG_FLOAT,
    TAG_INT,
    TAG_INT_ARRAY,
    TAG_LIST,
    TAG_LONG,
    TAG_LONG_ARRAY,
    TAG_SHORT,
    TAG_STRING,
    tag_type,
)

_BARE_KEY = re.compile(r"[0-9A-Za-z_.+-]+")
_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_SUFFIX = {TAG_BYTE: "b", TAG_SHORT: "s", TAG_INT: "", TAG_LONG: "L"}
_ARRAY = {TAG_BYTE_ARRAY: ("B", "b"), TAG_INT_ARRAY: ("I", ""), TAG_LONG_ARRAY: ("L", "L")}


class SnbtError(ValueError):
    """A value SNBT cannot write (NaN or an infinity)."""


def to_snbt(value) -> str:
    """The SNBT text of one NBT value (a tag of :mod:`mcb.schematics.nbt`, or a plain Python value)."""
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


def quote(text: str) -> str:
    """A quoted SNBT string: double quotes unless the text has more of them than single quotes."""
    mark = "'" if text.count('"') > text.count("'") else '"'
    out = [mark]
    for ch in text:
        if ch == mark:
            out.append("\\" + ch)
        elif ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    out.append(mark)
    return "".join(out)


def key(name: str) -> str:
    """A compound key as SNBT writes it: bare when it is only letters, digits and ``_-.+``, else quoted."""
    return name if _BARE_KEY.fullmatch(name) else quote(name)


def _kind(value) -> int:
    tid = tag_type(value)
    if tid > 0:
        return tid
    if isinstance(value, (bool, int)):
        return TAG_INT
    if isinstance(value, float):
        return TAG_DOUBLE
    if isinstance(value, str):
        return TAG_STRING
    if isinstance(value, dict):
        return TAG_COMPOUND
    if isinstance(value, (bytes, bytearray)):
        return TAG_BYTE_ARRAY
    if isinstance(value, (list, tuple)):
        return TAG_LIST
    raise TypeError(f"no NBT type for {type(value).__name__}")


def _write(value, out: list[str]) -> None:
    kind = _kind(value)
    if kind == TAG_COMPOUND:
        out.append("{")
        for index, (name, item) in enumerate(value.items()):
            if index:
                out.append(",")
            out.append(key(str(name)))
            out.append(":")
            _write(item, out)
        out.append("}")
    elif kind == TAG_LIST:
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out)
        out.append("]")
    elif kind == TAG_STRING:
        out.append(quote(str(value)))
    elif kind in _SUFFIX:
        out.append(f"{int(value)}{_SUFFIX[kind]}")
    elif kind in (TAG_FLOAT, TAG_DOUBLE):
        out.append(_decimal(float(value), kind))
    elif kind in _ARRAY:
        letter, suffix = _ARRAY[kind]
        numbers = value if kind != TAG_BYTE_ARRAY else np.frombuffer(bytes(value), dtype=np.int8).tolist()
        out.append(f"[{letter};" + ",".join(f"{int(n)}{suffix}" for n in numbers) + "]")
    else:  # pragma: no cover - every tag type is handled above
        raise TypeError(f"no SNBT form for tag type {kind}")


def _decimal(number: float, kind: int) -> str:
    if not math.isfinite(number):
        raise SnbtError(f"{number} has no SNBT form")
    if kind == TAG_FLOAT:
        text = str(np.float32(number))  # the shortest text that reads back as the same 32-bit float
        return (text if any(c in text for c in ".en") else text + ".0") + "f"
    return repr(number) + "d"
