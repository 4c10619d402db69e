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
from functools import lru_cache

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
    Byte,
    ByteArray,
    Compound,
    Double,
    Float,
    Int,
    IntArray,
    List,
    Long,
    LongArray,
    Short,
    String,
    tag_type,
)

_BARE_KEY = re.compile(r"[0-9A-Za-z_.+-]+")
_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_SPECIAL = {mark: re.compile(f"[\\\\\\x00-\\x1f\\x7f{mark}]") for mark in "\"'"}  # what a quoted string escapes
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
    special = _SPECIAL[mark]
    if special.search(text) is None:  # the common case: nothing to escape
        return mark + text + mark
    return mark + special.sub(_escaped, text) + mark


def _escaped(match: re.Match) -> str:
    ch = match.group()
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if ch in "'\"":
        return "\\" + ch
    return f"\\x{ord(ch):02x}"


@lru_cache(maxsize=4096)
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
    write = _BY_CLASS.get(type(value))
    if write is None:
        write = _BY_KIND[_kind(value)]
    write(value, out)


def _compound(value, out: list[str]) -> None:
    out.append("{")
    first = True
    for name, item in value.items():
        if not first:
            out.append(",")
        first = False
        out.append(key(str(name)))
        out.append(":")
        _write(item, out)
    out.append("}")


def _list(value, out: list[str]) -> None:
    out.append("[")
    for index, item in enumerate(value):
        if index:
            out.append(",")
        _write(item, out)
    out.append("]")


def _string(value, out: list[str]) -> None:
    out.append(quote(str(value)))


def _whole(suffix: str):
    return lambda value, out: out.append(f"{int(value)}{suffix}")


def _real(kind: int):
    return lambda value, out: out.append(_decimal(float(value), kind))


def _array(kind: int):
    letter, suffix = _ARRAY[kind]

    def write(value, out: list[str]) -> None:
        numbers = value if kind != TAG_BYTE_ARRAY else np.frombuffer(bytes(value), dtype=np.int8).tolist()
        out.append(f"[{letter};" + ",".join(f"{int(n)}{suffix}" for n in numbers) + "]")

    return write


_BY_KIND = {
    TAG_COMPOUND: _compound,
    TAG_LIST: _list,
    TAG_STRING: _string,
    **{kind: _whole(suffix) for kind, suffix in _SUFFIX.items()},
    TAG_FLOAT: _real(TAG_FLOAT),
    TAG_DOUBLE: _real(TAG_DOUBLE),
    **{kind: _array(kind) for kind in _ARRAY},
}
# The tag classes by their own type: one dict lookup per value instead of the checks of _kind.
_BY_CLASS = {
    cls: _BY_KIND[cls.tag_id]
    for cls in (Byte, Short, Int, Long, Float, Double, String, ByteArray, IntArray, LongArray, List, Compound)
}


def _decimal(number: float, kind: int) -> str:
    if not math.isfinite(number):
        raise SnbtError(f"{number} has no SNBT form")
    if kind == TAG_FLOAT:
        text = str(np.float32(number))  # the shortest text that reads back as the same 32-bit float
        return (text if any(c in text for c in ".en") else text + ".0") + "f"
    return repr(number) + "d"
