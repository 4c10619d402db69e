"""The tags side of the NBT reader: recursive descent that builds, skips (checking all the same) or keeps as bytes
each container, as the caller's ``keep`` chooses. Private to :mod:`mcb.schematics.nbt`, which documents the rules."""

from __future__ import annotations

import struct

from mcb.schematics.nbt_input import _INT, Input
from mcb.schematics.nbt_memos import Memos
from mcb.schematics.nbt_tags import (
    TAG_BYTE,
    TAG_BYTE_ARRAY,
    TAG_COMPOUND,
    TAG_DOUBLE,
    TAG_END,
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
    NumericArray,
    Short,
    String,
    decode_mutf8,
)

RAW = "raw"  # an answer of keep(path): keep the container as its encoded bytes (an Encoded value), checked all the same
COLUMNS = "columns"  # a root list named in read_nbt's ``columns``: read as columns (nbt_columns.ColumnList)

_SIZE = {TAG_BYTE: 1, TAG_SHORT: 2, TAG_INT: 4, TAG_LONG: 8, TAG_FLOAT: 4, TAG_DOUBLE: 8}
_SCALAR = {
    tag: (size, struct.Struct(">" + code), cls)
    for tag, size, code, cls in (
        (TAG_BYTE, 1, "b", Byte),
        (TAG_SHORT, 2, "h", Short),
        (TAG_INT, 4, "i", Int),
        (TAG_LONG, 8, "q", Long),
        (TAG_FLOAT, 4, "f", Float),
        (TAG_DOUBLE, 8, "d", Double),
    )
}
_ARRAY_UNIT = {TAG_BYTE_ARRAY: 1, TAG_INT_ARRAY: 4, TAG_LONG_ARRAY: 8}
_ARRAY_NAME = {TAG_BYTE_ARRAY: "byte array", TAG_INT_ARRAY: "int array", TAG_LONG_ARRAY: "long array"}
_LIST_CODE = {TAG_BYTE: "b", TAG_SHORT: "h", TAG_INT: "i", TAG_LONG: "q", TAG_FLOAT: "f", TAG_DOUBLE: "d"}
_THREE_INTS = struct.Struct(">3i")
_SHORT_ARRAYS = {unit: [struct.Struct(f">{n}{code}") for n in range(17)] for unit, code in ((4, "i"), (8, "q"))}
_TEXTS = 8192  # distinct short strings remembered (tag names and ids repeat a lot)
_PACKED_FROM = 64  # int and long arrays longer than this are kept as their bytes (NumericArray)
_LOOK_FOR_REPEATS = 64  # compounds of a list looked up in the reader's memory until one is found (nbt_memos)


class Walker(Input, Memos):
    """Recursive descent over the input; ``keep(path)`` chooses which containers are built."""

    def __init__(self, data: bytes, compressed: bool, limits, stats, keep, columns=frozenset()):
        super().__init__(data, compressed, limits, stats)
        self.keep = keep
        self.columns = columns  # names of root lists read as columns (nbt_columns)
        self.texts: dict[bytes, str] = {}
        self.strings: dict[bytes, String] = {}  # the same texts as String values, shared (they are immutable)
        self.scalars = {tag: (*shape, {}) for tag, shape in _SCALAR.items()}  # + the values built so far, by bytes
        self.start_memos()

    # --- primitives -------------------------------------------------------------------------------------------
    def string(self) -> str:
        buf, pos = self.buf, self.pos
        if pos + 2 <= len(buf):
            end = pos + 2 + ((buf[pos] << 8) | buf[pos + 1])
            if end <= len(buf):  # in the buffer already: one slice, looked up, else decoded
                raw = buf[pos + 2 : end]
                self.pos = end
                text = self.texts.get(raw)
                return text if text is not None else self.decoded(raw)
        self.need(2)
        n = (self.buf[self.pos] << 8) | self.buf[self.pos + 1]
        self.pos += 2
        return self.decoded(self.take(n))

    def decoded(self, raw: bytes) -> str:
        """A string's text, checked and counted; short ones are remembered (tag names and ids repeat a lot)."""
        stats = self.stats
        if len(raw) > stats.max_string_bytes:
            stats.max_string_bytes = len(raw)
        try:
            text, plain = decode_mutf8(raw)
        except UnicodeDecodeError:
            raise self.fail("string is not valid modified UTF-8", "nbt.string.encoding") from None
        if plain:
            stats.non_mutf8_strings += 1
        elif len(raw) <= 64 and len(self.texts) < _TEXTS:
            self.texts[raw] = text
            self.strings[raw] = String(text)
        return text

    def count(self, n: int = 1) -> None:
        stats = self.stats
        stats.tag_count += n
        if stats.tag_count > self.limits.max_tags:
            raise self.fail(f"more than {self.limits.max_tags:,} tags", "nbt.limit.tags")

    def enter(self, depth: int) -> None:
        if depth > self.stats.max_depth:
            self.stats.max_depth = depth
            if depth > self.limits.max_depth:
                raise self.fail(f"nesting deeper than {self.limits.max_depth} levels", "nbt.limit.depth")

    # --- payloads ---------------------------------------------------------------------------------------------
    def payload(self, tag: int, depth: int, build: bool):
        """The value of a ``tag`` payload (None when not ``build``); ``depth`` is the enclosing container's."""
        self.count()
        scalar = _SCALAR.get(tag)
        if scalar is not None:
            size, unpack, cls = scalar
            if not build:
                self.skip(size)
                return None
            self.need(size)
            value = cls(unpack.unpack_from(self.buf, self.pos)[0])
            self.pos += size
            return value
        if tag == TAG_STRING:
            text = self.string()
            return String(text) if build else None
        if tag == TAG_COMPOUND:
            return self.compound(depth + 1, build)
        if tag == TAG_LIST:
            return self.list(depth + 1, build)
        if tag in _ARRAY_UNIT:
            return self.array(tag, build)
        raise self.fail(f"unknown tag type {tag}", "nbt.tag.unknown")

    def array(self, tag: int, build: bool):
        unit = _ARRAY_UNIT[tag]
        buf, pos = self.buf, self.pos
        if pos + 4 <= len(buf) and tag != TAG_BYTE_ARRAY:  # a short array already in the buffer (Pos): one read
            n = _INT.unpack_from(buf, pos)[0]
            end = pos + 4 + unit * n
            if 0 <= n <= 16 and end <= len(buf):  # in the buffer, so within every length limit
                self.pos = end
                return (
                    (IntArray if unit == 4 else LongArray)(_SHORT_ARRAYS[unit][n].unpack_from(buf, pos + 4))
                    if build
                    else None
                )
        n = self.length(unit, _ARRAY_NAME[tag])
        if not build or tag == TAG_BYTE_ARRAY:
            parts = [] if build else None
            self.skip(unit * n, parts)
            return ByteArray(parts[0] if len(parts) == 1 else b"".join(parts)) if build else None
        if n > _PACKED_FROM:  # a long array: its bytes, not a Python int per element
            parts = []
            self.skip(unit * n, parts)
            return NumericArray(tag, b"".join(parts))
        self.need(unit * n)
        start = self.pos
        self.pos += unit * n
        return (IntArray if tag == TAG_INT_ARRAY else LongArray)(
            struct.unpack_from(f">{n}{'i' if unit == 4 else 'q'}", self.buf, start)
        )

    def compound(self, depth: int, build: bool) -> Compound | None:
        """The hot loop (~10^6 tags in a 256^3 file): tag headers, names seen before, scalars and short strings
        are read straight from the buffer, ``pos`` kept local and stored before anything that may refill it."""
        stats = self.stats
        if depth > stats.max_depth:
            self.enter(depth)
        result = Compound() if build else None
        # the names read so far, for duplicates: a built compound's own keys (and the names of containers left out of
        # it), a skipped one's in a set
        names: dict | set = result if build else set()
        left_out: set[str] | None = None
        path, keep, texts, strings, max_tags = self.path, self.keep, self.texts, self.strings, self.limits.max_tags
        scalars = self.scalars
        buf, pos = self.buf, self.pos
        avail = len(buf)
        while True:
            if pos + 3 <= avail:
                tag = buf[pos]
                if not tag:
                    self.pos = pos + 1
                    return result
                end = pos + 3 + ((buf[pos + 1] << 8) | buf[pos + 2])
                if end <= avail:  # the name is in the buffer: looked up, or decoded from the same slice
                    raw = buf[pos + 3 : end]
                    name = texts.get(raw)
                    if name is None:
                        self.pos = end
                        name = self.decoded(raw)
                    pos = end
                else:
                    self.pos = pos + 1
                    name = self.string()
                    buf, pos = self.buf, self.pos
                    avail = len(buf)
            else:
                self.pos = pos
                tag = self.u8()
                if tag == TAG_END:
                    return result
                name = self.string()
                buf, pos = self.buf, self.pos
                avail = len(buf)
            if name in names or (left_out is not None and name in left_out):
                stats.duplicate_names.append("/" + "/".join(map(str, [*path, name])))
            if not build:
                names.add(name)
            if tag < TAG_BYTE_ARRAY or tag == TAG_STRING:  # the bulk of all tags
                stats.tag_count += 1
                if stats.tag_count > max_tags:
                    path.append(name)
                    raise self.fail(f"more than {max_tags:,} tags", "nbt.limit.tags")
                if tag == TAG_STRING:
                    end = pos + 2 + ((buf[pos] << 8) | buf[pos + 1]) if pos + 2 <= avail else avail + 1
                    value = strings.get(buf[pos + 2 : end]) if end <= avail else None
                    if value is None:  # not seen before (or not in the buffer yet): decode and check it
                        path.append(name)
                        self.pos = pos
                        value = String(self.string())
                        path.pop()
                        buf, pos = self.buf, self.pos
                        avail = len(buf)
                    else:
                        pos = end
                    if build:
                        result[name] = value
                    continue
                size, unpack, cls, seen = scalars[tag]
                if pos + size > avail:
                    path.append(name)
                    self.pos = pos
                    self.need(size)
                    path.pop()
                    buf, pos = self.buf, self.pos
                    avail = len(buf)
                if build:  # scalars repeat (ids, counts, flags): each distinct encoding is built once
                    value = seen.get(buf[pos : pos + size])
                    if value is None:
                        value = cls(unpack.unpack_from(buf, pos)[0])
                        if len(seen) < _TEXTS:
                            seen[buf[pos : pos + size]] = value
                    result[name] = value
                pos += size
                continue
            if tag == TAG_INT_ARRAY and pos + 16 <= avail and buf[pos : pos + 4] == b"\0\0\0\3":  # a Pos: inlined
                stats.tag_count += 1
                if stats.tag_count > max_tags:
                    path.append(name)
                    raise self.fail(f"more than {max_tags:,} tags", "nbt.limit.tags")
                if build:
                    result[name] = IntArray(_THREE_INTS.unpack_from(buf, pos + 4))
                pos += 16
                continue
            path.append(name)
            self.pos = pos
            if tag == TAG_LIST or tag == TAG_COMPOUND:
                wanted = True if not build or keep is None else keep(path)
                if depth == 1 and build and tag == TAG_LIST and name in self.columns and wanted is True:
                    wanted = COLUMNS
                if wanted is True:
                    value = self.payload(tag, depth, build)
                    if build:
                        result[name] = value
                elif wanted == RAW:
                    result[name] = self.encoded(tag, depth, name)
                elif wanted == COLUMNS:
                    from mcb.schematics.nbt_columns import read_columns

                    self.count()
                    result[name] = read_columns(self, depth + 1)
                else:
                    self.skipped(tag, depth, name)
                    if build:
                        left_out = left_out or set()
                        left_out.add(name)
            else:
                stats.tag_count += 1
                if stats.tag_count > max_tags:
                    raise self.fail(f"more than {max_tags:,} tags", "nbt.limit.tags")
                if tag not in _ARRAY_UNIT:
                    raise self.fail(f"unknown tag type {tag}", "nbt.tag.unknown")
                value = self.array(tag, build)
                if build:
                    result[name] = value
            path.pop()
            buf, pos = self.buf, self.pos
            avail = len(buf)

    def list(self, depth: int, build: bool) -> List | None:
        self.enter(depth)
        subtype, n = self.list_header()
        return self.list_items(subtype, n, depth, build)

    def list_header(self) -> tuple[int, int]:
        """(element type, length) of the list that starts here, checked."""
        subtype = self.u8()
        if subtype > TAG_LONG_ARRAY:
            raise self.fail(f"unknown list element type {subtype}", "nbt.tag.unknown")
        n = self.length(_SIZE.get(subtype, 1 if subtype else 0), "list")
        if n > self.stats.max_list_length:
            self.stats.max_list_length = n
        return subtype, n

    def list_items(self, subtype: int, n: int, depth: int, build: bool) -> List | None:
        """The ``n`` elements of a list whose header was read (``depth``: the list's own)."""
        if subtype == TAG_END:
            if n:
                raise self.fail("non-empty list of element type End", "nbt.list.end")
            return List((), TAG_END) if build else None
        code = _LIST_CODE.get(subtype)
        if code is not None:  # a list of fixed-size scalars: one read
            self.count(n)
            if not build:
                self.skip(_SIZE[subtype] * n)
                return None
            cls = _SCALAR[subtype][2]
            return List(map(cls, struct.unpack(f">{n}{code}", self.take(_SIZE[subtype] * n))), subtype)
        if build and subtype == TAG_COMPOUND and n:  # a list of leaf compounds byte for byte as one read before
            known = self.leaf_list(n, depth + 1)
            if known is not None:
                return known
            list_start = self.base + self.pos
            list_facts = (self.stats.tag_count, self.stats.non_mutf8_strings, len(self.stats.duplicate_names))
        looking = _LOOK_FOR_REPEATS  # elements left to look up before a list of different ones is walked plainly
        items = List((), subtype) if build else None
        path, stats, max_tags = self.path, self.stats, self.limits.max_tags
        path.append("")
        for index in range(n):
            path[-1] = index  # an int: made a string only for a pointer
            if subtype == TAG_COMPOUND:  # payload() inlined for the common list of compounds
                stats.tag_count += 1
                if stats.tag_count > max_tags:
                    raise self.fail(f"more than {max_tags:,} tags", "nbt.limit.tags")
                if build and looking:
                    value = self.leaf(depth + 1)
                    if value is None:
                        start = self.base + self.pos
                        facts = (stats.tag_count, stats.non_mutf8_strings, len(stats.duplicate_names))
                        value = self.compound(depth + 1, build)
                        self.remember(value, start, facts)
                        looking -= 1
                    else:
                        looking = n  # repeats: look every element up
                else:
                    value = self.compound(depth + 1, build)
            else:
                value = self.payload(subtype, depth, build)
            if build:
                items.append(value)
        path.pop()
        if build and subtype == TAG_COMPOUND and n:
            self.remember_list(items, list_start, list_facts)
        return items
