"""Lists of one-shaped compounds read as columns: a structure's ``blocks`` (millions of ``{state, pos: [x, y, z]}``)
become a few numpy arrays instead of millions of dicts (3.1 M cells: 21 s and 1.8 GB as tags, about a second and
16 bytes a cell as columns).

The walker reads an entry the ordinary way and keeps its bytes; when the entry holds only fixed-size values
(numbers, lists and arrays of numbers), its bytes are a template: the entries that follow are compared with it many
at a time, and every byte but the values' must be equal (the same names, tag types, list lengths, the same order).
Those entries are counted as the ordinary walk counts them (tags, depth, list lengths: the template's own walk
recorded the rest) and their values cut out as columns; the first entry that differs is walked the ordinary way and
may start a template of its own. Whatever an entry holds, every check of the reader applies to it.

Private to :mod:`mcb.schematics.nbt`, whose ``keep`` answer :data:`~mcb.schematics.nbt_walker.COLUMNS` asks for it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from mcb.schematics.nbt_tags import (
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
    decode_mutf8,
)

_STEP = 1 << 22  # bytes of entries compared per numpy pass
# tag -> (bytes of one value, big-endian numpy type, tag class of one value)
_NUMBER = {
    TAG_BYTE: (1, ">i1", Byte),
    TAG_SHORT: (2, ">i2", Short),
    TAG_INT: (4, ">i4", Int),
    TAG_LONG: (8, ">i8", Long),
    TAG_FLOAT: (4, ">f4", Float),
    TAG_DOUBLE: (8, ">f8", Double),
}
_ARRAY_OF = {TAG_BYTE_ARRAY: TAG_BYTE, TAG_INT_ARRAY: TAG_INT, TAG_LONG_ARRAY: TAG_LONG}


@dataclass(frozen=True)
class Field:
    """One named value of a layout: ``tag`` (a number, a list of numbers or an array), ``element`` the numbers'
    tag, ``count`` numbers (None: a single number), at byte ``offset`` of the entry."""

    name: str
    tag: int
    element: int
    count: int | None
    offset: int

    @property
    def tags(self) -> int:
        """Tags the reader counts for it: the value, and a list's elements."""
        return 1 + (self.count if self.tag == TAG_LIST else 0)

    def cut(self, rows: np.ndarray) -> np.ndarray:
        size, dtype, _ = _NUMBER[self.element]
        width = size * (1 if self.count is None else self.count)
        values = np.ascontiguousarray(rows[:, self.offset : self.offset + width]).view(dtype)
        values = values.astype(dtype[1:], copy=False)  # native byte order
        return values.reshape(len(rows)) if self.count is None else values.reshape(len(rows), self.count)

    def value(self, values):
        """The tag of one entry's value (``values``: its row of the column)."""
        cls = _NUMBER[self.element][2]
        if self.count is None:
            return cls(values.item())
        items = [cls(v) for v in values.tolist()]
        if self.tag == TAG_LIST:
            return List(items, self.element)
        return {TAG_BYTE_ARRAY: ByteArray, TAG_INT_ARRAY: IntArray, TAG_LONG_ARRAY: LongArray}[self.tag](
            bytes(values.astype(np.int8)) if self.tag == TAG_BYTE_ARRAY else items
        )


@dataclass(frozen=True, eq=False)
class Layout:
    """The byte shape of an entry: its size, its fixed bytes (names, tag types, lengths) and its value fields."""

    size: int
    fixed_at: np.ndarray
    fixed: np.ndarray
    fields: tuple[Field, ...]

    @property
    def key(self) -> tuple:
        """Equal for equal layouts."""
        return self.size, self.fields, self.fixed.tobytes()

    @property
    def tags(self) -> int:
        return 1 + sum(f.tags for f in self.fields)

    def matches(self, rows: np.ndarray) -> np.ndarray:
        return (rows[:, self.fixed_at] == self.fixed).all(axis=1)

    def cut(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        return {f.name: f.cut(rows) for f in self.fields}

    @staticmethod
    def of(raw: bytes) -> Layout | None:
        """The layout of one compound's payload bytes, or None when it holds a string or a container of
        containers (no fixed size)."""
        pos, fields, values = 0, [], np.zeros(len(raw), dtype=bool)
        while True:
            tag = raw[pos]
            if tag == 0:
                break
            name_end = pos + 3 + ((raw[pos + 1] << 8) | raw[pos + 2])
            name = decode_mutf8(raw[pos + 3 : name_end])[0]
            pos = name_end
            if tag in _NUMBER:
                element, count, start = tag, None, pos
            elif tag == TAG_LIST and raw[pos] in _NUMBER:
                element, count, start = raw[pos], struct.unpack_from(">i", raw, pos + 1)[0], pos + 5
            elif tag in _ARRAY_OF:
                element, count, start = _ARRAY_OF[tag], struct.unpack_from(">i", raw, pos)[0], pos + 4
            else:
                return None
            width = _NUMBER[element][0] * (1 if count is None else count)
            fields.append(Field(name, tag, element, count, start))
            values[start : start + width] = True
            pos = start + width
        fixed_at = np.flatnonzero(~values)
        return Layout(len(raw), fixed_at, np.frombuffer(raw, dtype=np.uint8)[fixed_at], tuple(fields))


@dataclass(eq=False)
class Run:
    """Consecutive entries ``start .. start + count - 1`` of one layout, as a column per field."""

    start: int
    layout: Layout
    count: int = 0
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    _pieces: list = field(default_factory=list, repr=False)

    def entry(self, i: int) -> Compound:
        """Entry ``start + i`` as a compound (the slow way, for a reader that wants tags)."""
        return Compound((f.name, f.value(self.columns[f.name][i])) for f in self.layout.fields)


class ColumnList:
    """A list of compounds read as columns: ``runs`` of one-shaped entries, and the ``others`` as ``(index,
    Compound)``; iterating gives every entry as a compound, in order (the slow way)."""

    tag_id = TAG_LIST
    subtype = TAG_COMPOUND

    def __init__(self, length: int):
        self.length = length
        self.runs: list[Run] = []
        self.others: list[tuple[int, Compound]] = []

    def __len__(self) -> int:
        return self.length

    def __bool__(self) -> bool:
        return self.length > 0

    def __iter__(self):
        parts = [(run.start, run) for run in self.runs] + [(index, entry) for index, entry in self.others]
        for _, part in sorted(parts, key=lambda item: item[0]):
            if isinstance(part, Run):
                yield from (part.entry(i) for i in range(part.count))
            else:
                yield part

    def __repr__(self) -> str:
        return f"ColumnList({self.length} entries, {len(self.runs)} runs, {len(self.others)} others)"

    def add(self, index: int, layout: Layout, rows: np.ndarray) -> None:
        """Entries ``index ..`` of ``layout``, given as their bytes (one row each)."""
        last = self.runs[-1] if self.runs else None
        if last is None or last.layout.key != layout.key or last.start + last.count != index:
            last = Run(index, layout)
            self.runs.append(last)
        last._pieces.append(layout.cut(rows))
        last.count += len(rows)

    def finish(self) -> None:
        for run in self.runs:
            run.columns = {f.name: np.concatenate([piece[f.name] for piece in run._pieces]) for f in run.layout.fields}
            run._pieces = []


def read_columns(walker, depth: int):
    """The list that starts at the walker's position (``depth``: its own), as a :class:`ColumnList` when it holds
    compounds, else as the ordinary walk reads it."""
    walker.enter(depth)
    subtype, n = walker.list_header()
    if subtype != TAG_COMPOUND or not n:
        return walker.list_items(subtype, n, depth, True)
    out = ColumnList(n)
    path = walker.path
    path.append(0)
    index = 0
    while index < n:
        path[-1] = index
        layout, entry = _template(walker, depth)
        if layout is None:
            out.others.append((index, entry))
            index += 1
            continue
        out.add(index, layout, np.frombuffer(entry, dtype=np.uint8).reshape(1, -1))
        index += 1
        while index < n:  # the entries of the same layout that follow, many at a time
            want = min(n - index, max(1, _STEP // layout.size))
            k = min(want, walker.fill(want * layout.size) // layout.size)
            if not k:
                break
            rows = np.frombuffer(walker.buf, dtype=np.uint8, count=k * layout.size, offset=walker.pos)
            rows = rows.reshape(k, layout.size)
            same = layout.matches(rows)
            m = k if same.all() else int(np.argmin(same))
            if m:
                _count(walker, m, layout.tags, index)
                out.add(index, layout, rows[:m])
                walker.pos += m * layout.size
                index += m
            if m < k:
                break
    path.pop()
    out.finish()
    return out


def _template(walker, depth: int) -> tuple[Layout | None, object]:
    """Walk one entry the ordinary way: (its layout, its bytes) when it can be a template, else (None, the
    compound)."""
    stats = walker.stats
    start = walker.base + walker.pos
    outer, walker.mark = walker.mark, start if walker.mark is None else walker.mark
    marks = (len(stats.duplicate_names), stats.non_mutf8_strings)
    try:
        walker.count()
        entry = walker.compound(depth + 1, True)
    finally:
        walker.mark = outer
    raw = walker.buf[start - walker.base : walker.pos]
    clean = marks == (len(stats.duplicate_names), stats.non_mutf8_strings)
    layout = Layout.of(raw) if clean else None
    return (layout, raw) if layout is not None else (None, entry)


def _count(walker, rows: int, per_row: int, index: int) -> None:
    """Count ``rows`` entries of ``per_row`` tags as the ordinary walk would, refusing at the entry that passes the
    tag limit."""
    stats, limit = walker.stats, walker.limits.max_tags
    if stats.tag_count + rows * per_row > limit:
        walker.path[-1] = index + (limit - stats.tag_count) // per_row
        raise walker.fail(f"more than {limit:,} tags", "nbt.limit.tags")
    stats.tag_count += rows * per_row
