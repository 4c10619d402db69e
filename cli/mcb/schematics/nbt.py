"""The one NBT reader: a bounded, streaming walker over big-endian Java NBT (the encoder is :mod:`.writer`).

Bounded *while reading*: the compressed input is capped before inflating; gzip is inflated chunk by chunk as the
walker needs bytes, with a hard cap on the inflated size; every declared string/array/list length is checked
against what can still arrive under that cap before anything is allocated (a 1 GB decompression bomb is refused
after a few kilobytes); nesting depth and total tag count are capped. Strings are Java *modified* UTF-8.

The caller decides what to keep: ``keep(path)`` is asked for every list or compound inside a kept compound; when
it answers False the container is walked without building anything and left out of the tree, and when it answers
:data:`RAW` it is walked the same way and kept as its encoded bytes (:class:`Encoded`, for a rewrite that copies it). Skipping does
every check that keeping does (tag types, names, duplicate names, MUTF-8, lengths against what remains, depth,
the tag budget) and gathers the same :class:`ReadStats`, so a limit gives the same rule id and message whoever
asked. (fastnbt's ``deserialize_ignored_any`` has this shape.)

Tags are small Python types (:mod:`.nbt_tags`, re-exported here). Every failure is an :class:`NbtError` (an
``InputError``) with a stable ``rule`` id and an NBT path.
"""

from __future__ import annotations

import gc
import struct
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field

from mcb.errors import InputError
from mcb.schematics.nbt_tags import (  # noqa: F401  (re-exported: the tag types are part of this module's API)
    TAG_BYTE, TAG_BYTE_ARRAY, TAG_COMPOUND, TAG_DOUBLE, TAG_END, TAG_FLOAT, TAG_INT, TAG_INT_ARRAY, TAG_LIST,
    TAG_LONG, TAG_LONG_ARRAY, TAG_NAMES, TAG_SHORT, TAG_STRING, Byte, ByteArray, Compound, Double, Encoded, Float,
    Int, IntArray, List, Long, LongArray, NumericArray, Short, String, decode_mutf8, encode_mutf8, tag_type,
)

RAW = "raw"  # an answer of keep(path): keep the container as its encoded bytes (an Encoded value), checked all the same


class NbtError(InputError):
    """Malformed or hostile NBT; ``rule`` is a stable diagnostic id, ``pointer`` the NBT path where it happened."""

    kind = "invalid_nbt"

    def __init__(self, message: str, *, rule: str, pointer: str | None = None, hint: str | None = None):
        super().__init__(message, hint=hint, code=rule)
        self.rule = rule
        self.pointer = pointer


@dataclass(frozen=True)
class ReadLimits:
    """Hard safety caps of the reader (not the server's rules, which are checked as diagnostics)."""

    max_compressed: int = 64 * 1024 * 1024
    max_inflated: int = 512 * 1024 * 1024
    max_depth: int = 200        # far above real files (~10) and the server (16); keeps recursion shallow
    max_tags: int = 5_000_000
    # The most cells a reader puts into the model: 2^25, twice the largest real build in the corpus (256^3); a
    # declared size beyond it is refused before anything that size is allocated (128 MiB of int32 indices).
    max_cells: int = 1 << 25


@dataclass
class ReadStats:
    """Facts gathered while reading, so rules can judge them (server limits, quirks)."""

    compressed: bool = False
    compressed_size: int = 0
    inflated_size: int = 0
    root_name: str = ""
    tag_count: int = 0
    max_depth: int = 0
    max_list_length: int = 0
    max_string_bytes: int = 0
    duplicate_names: list[str] = field(default_factory=list)
    non_mutf8_strings: int = 0
    trailing_nbt_bytes: int = 0
    trailing_gzip_bytes: int = 0


_SIZE = {TAG_BYTE: 1, TAG_SHORT: 2, TAG_INT: 4, TAG_LONG: 8, TAG_FLOAT: 4, TAG_DOUBLE: 8}
_SCALAR = {tag: (size, struct.Struct(">" + code), cls) for tag, size, code, cls in (
    (TAG_BYTE, 1, "b", Byte), (TAG_SHORT, 2, "h", Short), (TAG_INT, 4, "i", Int), (TAG_LONG, 8, "q", Long),
    (TAG_FLOAT, 4, "f", Float), (TAG_DOUBLE, 8, "d", Double))}
_ARRAY_UNIT = {TAG_BYTE_ARRAY: 1, TAG_INT_ARRAY: 4, TAG_LONG_ARRAY: 8}
_ARRAY_NAME = {TAG_BYTE_ARRAY: "byte array", TAG_INT_ARRAY: "int array", TAG_LONG_ARRAY: "long array"}
_LIST_CODE = {TAG_BYTE: "b", TAG_SHORT: "h", TAG_INT: "i", TAG_LONG: "q", TAG_FLOAT: "f", TAG_DOUBLE: "d"}
_INT = struct.Struct(">i")
_THREE_INTS = struct.Struct(">3i")
_CHUNK = 1024 * 1024  # inflate step: a bomb's refusal holds a few MiB, not 4 MiB chunks and their joins
_SHORT_ARRAYS = {unit: [struct.Struct(f">{n}{code}") for n in range(17)] for unit, code in ((4, "i"), (8, "q"))}
_TEXTS = 8192  # distinct short strings remembered (tag names and ids repeat a lot)
_PACKED_FROM = 64  # int and long arrays longer than this are kept as their bytes (NumericArray)


class _Walker:
    """Recursive descent over a lazily inflated buffer; ``keep(path)`` chooses which containers are built."""

    def __init__(self, data: bytes, compressed: bool, limits: ReadLimits, stats: ReadStats, keep):
        self.limits, self.stats, self.keep = limits, stats, keep
        self.path: list[str] = []
        self.texts: dict[bytes, str] = {}
        self.strings: dict[bytes, String] = {}  # the same texts as String values, shared (they are immutable)
        self.scalars = {tag: (*shape, {}) for tag, shape in _SCALAR.items()}  # + the values built so far, by bytes
        self.seen: dict[tuple, list[tuple]] = {}  # skipped containers by (tag, name): (Encoded, facts of the walk)
        self.inflater = zlib.decompressobj(wbits=31) if compressed else None
        self.pending = data if compressed else b""   # compressed bytes not yet given to zlib
        self.inflated = 0 if compressed else len(data)
        self.buf = b"" if compressed else data
        self.base = 0  # input offset of buf[0]
        self.pos = 0
        self.mark: int | None = None  # input offset from which refills keep the bytes (a RAW container's start)

    # --- input ------------------------------------------------------------------------------------------------
    def fail(self, message: str, rule: str, hint: str | None = None) -> NbtError:
        return NbtError(message, rule=rule, pointer="/" + "/".join(map(str, self.path)), hint=hint)

    def room(self) -> int:
        """How many more bytes can still arrive after the current position."""
        if self.inflater is None:
            return len(self.buf) - self.pos
        return self.limits.max_inflated - (self.base + self.pos)

    def check_room(self, n: int, what: str) -> None:
        if n <= self.room():
            return
        if self.inflater is None:
            raise self.fail(f"{what} does not fit in the remaining input", "nbt.length.overflow",
                            hint="the file is truncated or corrupt")
        raise self.fail(f"{what} goes beyond the {self.limits.max_inflated} byte inflated-size limit",
                        "nbt.limit.inflated", hint="the file is corrupt or a decompression bomb")

    def inflate(self, want: int) -> bytes:
        """The next inflated bytes, ``b""`` at the end of the gzip member."""
        inflater = self.inflater
        if inflater is None or inflater.eof:
            return b""
        cap = self.limits.max_inflated
        try:
            chunk = inflater.decompress(self.pending, max(1, min(want, cap - self.inflated + 1)))
        except zlib.error as error:
            raise self.fail(f"gzip data is corrupt ({error})", "gzip.corrupt") from None
        self.pending = inflater.unconsumed_tail
        self.inflated += len(chunk)
        if self.inflated > cap:
            raise self.fail(f"inflated data exceeds the {cap} byte limit", "nbt.limit.inflated",
                            hint="the file is corrupt or a decompression bomb")
        if not chunk and not inflater.eof and not self.pending:
            raise self.fail("gzip stream is truncated", "gzip.truncated")
        return chunk

    def need(self, n: int) -> None:
        """Make ``buf[pos:pos + n]`` available."""
        if self.pos + n <= len(self.buf):
            return
        if self.inflater is None:
            raise self.fail("NBT data is truncated", "nbt.truncated")
        self.check_room(n, f"a value of {n} bytes")
        start = self.pos if self.mark is None else self.mark - self.base
        parts = [self.buf[start:]]
        have = len(parts[0])
        n += self.pos - start
        while have < n:
            chunk = self.inflate(max(n - have, _CHUNK))
            if not chunk:
                raise self.fail("NBT data is truncated (gzip stream ended early)", "nbt.truncated")
            parts.append(chunk)
            have += len(chunk)
        self.base += start
        self.buf, self.pos = b"".join(parts), self.pos - start

    def take(self, n: int) -> bytes:
        self.need(n)
        start = self.pos
        self.pos = start + n
        return self.buf[start:self.pos]

    def skip(self, n: int, parts: list | None = None) -> None:
        """Pass over ``n`` bytes (``parts`` receives them in pieces when given): a big array is never joined with
        the bytes around it (a 256^3 file's 17 MB BlockData is joined once and copied once, not copied three times)."""
        if self.pos + n <= len(self.buf) or self.mark is not None or self.inflater is None:
            self.need(n)  # in the buffer already, or inside a RAW container whose bytes stay (or truncated)
            if parts is not None:  # a view: the array is copied once, into its tag
                parts.append(memoryview(self.buf)[self.pos:self.pos + n])
            self.pos += n
            return
        self.check_room(n, f"a value of {n} bytes")  # as need() would
        if parts is not None:
            parts.append(memoryview(self.buf)[self.pos:])
        n -= len(self.buf) - self.pos
        self.base += len(self.buf)
        self.buf, self.pos = b"", 0
        while n:
            chunk = self.inflate(max(n, _CHUNK))
            if not chunk:
                raise self.fail("NBT data is truncated (gzip stream ended early)", "nbt.truncated")
            if parts is not None:
                parts.append(memoryview(chunk)[:n])
            if len(chunk) > n:
                self.buf, self.pos = chunk, n
                return
            self.base += len(chunk)
            n -= len(chunk)

    def drain(self) -> int:
        """Inflate the rest of the stream; return how many bytes follow the current position. As in Java's
        GZIPInputStream (the plugin's reader), a further gzip member continues the same stream, so its bytes
        follow the root too; anything else after the last member is not read (``trailing_gzip_bytes``)."""
        trailing = len(self.buf) - self.pos
        while self.inflater is not None:
            while not self.inflater.eof:
                trailing += len(self.inflate(_CHUNK))
            rest = self.inflater.unused_data + self.pending
            if not rest.startswith(b"\x1f\x8b\x08"):  # no member header (magic, deflate): Java stops here
                self.stats.trailing_gzip_bytes = len(rest)
                break
            self.inflater, self.pending = zlib.decompressobj(wbits=31), rest
        return trailing

    # --- primitives -------------------------------------------------------------------------------------------
    def u8(self) -> int:
        if self.pos >= len(self.buf):
            self.need(1)
        self.pos += 1
        return self.buf[self.pos - 1]

    def length(self, unit: int, what: str) -> int:
        self.need(4)
        n = _INT.unpack_from(self.buf, self.pos)[0]
        self.pos += 4
        if n < 0:
            raise self.fail(f"negative {what} length {n}", "nbt.length.negative")
        self.check_room(n * unit, f"{what} length {n}")
        return n

    def string(self) -> str:
        buf, pos = self.buf, self.pos
        if pos + 2 <= len(buf):
            end = pos + 2 + ((buf[pos] << 8) | buf[pos + 1])
            if end <= len(buf):  # in the buffer already: one slice, looked up, else decoded
                raw = buf[pos + 2:end]
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
            raise self.fail(f"more than {self.limits.max_tags} tags", "nbt.limit.tags")

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
                return (IntArray if unit == 4 else LongArray)(_SHORT_ARRAYS[unit][n].unpack_from(buf, pos + 4)) \
                    if build else None
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
            struct.unpack_from(f">{n}{'i' if unit == 4 else 'q'}", self.buf, start))

    def compound(self, depth: int, build: bool) -> Compound | None:
        """The hot loop (~10^6 tags in a 256^3 file): tag headers, names seen before, scalars and short strings
        are read straight from the buffer, ``pos`` kept local and stored before anything that may refill it."""
        stats = self.stats
        if depth > stats.max_depth:
            self.enter(depth)
        result = Compound() if build else None
        names: set[str] = set()
        path, keep, texts, strings, max_tags = self.path, self.keep, self.texts, self.strings, self.limits.max_tags
        buf, pos = self.buf, self.pos
        avail = len(buf)
        while True:
            if pos + 3 <= avail:
                tag = buf[pos]
                if not tag:
                    self.pos = pos + 1
                    return result
                end = pos + 3 + ((buf[pos + 1] << 8) | buf[pos + 2])
                name = texts.get(buf[pos + 3:end]) if end <= avail else None
                if name is None:
                    self.pos = pos + 1
                    name = self.string()
                    buf, pos = self.buf, self.pos
                    avail = len(buf)
                else:
                    pos = end
            else:
                self.pos = pos
                tag = self.u8()
                if tag == TAG_END:
                    return result
                name = self.string()
                buf, pos = self.buf, self.pos
                avail = len(buf)
            if name in names:
                stats.duplicate_names.append("/" + "/".join(map(str, [*path, name])))
            names.add(name)
            if tag < TAG_BYTE_ARRAY or tag == TAG_STRING:  # the bulk of all tags
                stats.tag_count += 1
                if stats.tag_count > max_tags:
                    path.append(name)
                    raise self.fail(f"more than {max_tags} tags", "nbt.limit.tags")
                if tag == TAG_STRING:
                    end = pos + 2 + ((buf[pos] << 8) | buf[pos + 1]) if pos + 2 <= avail else avail + 1
                    value = strings.get(buf[pos + 2:end]) if end <= avail else None
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
                size, unpack, cls, seen = self.scalars[tag]
                if pos + size > avail:
                    path.append(name)
                    self.pos = pos
                    self.need(size)
                    path.pop()
                    buf, pos = self.buf, self.pos
                    avail = len(buf)
                if build:  # scalars repeat (ids, counts, flags): each distinct encoding is built once
                    value = seen.get(buf[pos:pos + size])
                    if value is None:
                        value = cls(unpack.unpack_from(buf, pos)[0])
                        if len(seen) < _TEXTS:
                            seen[buf[pos:pos + size]] = value
                    result[name] = value
                pos += size
                continue
            if tag == TAG_INT_ARRAY and pos + 16 <= avail and buf[pos:pos + 4] == b"\0\0\0\3":  # a Pos: inlined
                stats.tag_count += 1
                if stats.tag_count > max_tags:
                    path.append(name)
                    raise self.fail(f"more than {max_tags} tags", "nbt.limit.tags")
                if build:
                    result[name] = IntArray(_THREE_INTS.unpack_from(buf, pos + 4))
                pos += 16
                continue
            path.append(name)
            self.pos = pos
            if tag == TAG_LIST or tag == TAG_COMPOUND:
                wanted = True if not build or keep is None else keep(path)
                if wanted is True:
                    value = self.payload(tag, depth, build)
                    if build:
                        result[name] = value
                elif wanted == RAW:
                    result[name] = self.encoded(tag, depth, name)
                else:
                    self.skipped(tag, depth, name)
            else:
                stats.tag_count += 1
                if stats.tag_count > max_tags:
                    raise self.fail(f"more than {max_tags} tags", "nbt.limit.tags")
                if tag not in _ARRAY_UNIT:
                    raise self.fail(f"unknown tag type {tag}", "nbt.tag.unknown")
                value = self.array(tag, build)
                if build:
                    result[name] = value
            path.pop()
            buf, pos = self.buf, self.pos
            avail = len(buf)

    def encoded(self, tag: int, depth: int, name: str) -> Encoded:
        """A container walked unbuilt (:meth:`skipped`) and kept as its payload bytes (the memo's own value when it
        equals a container seen before: one shared object, its hash computed once)."""
        start = self.base + self.pos
        outer, self.mark = self.mark, start if self.mark is None else self.mark
        try:
            same = self.skipped(tag, depth, name)
        finally:
            self.mark = outer
        return same if same is not None else Encoded(tag, self.buf[start - self.base:self.pos])

    def skipped(self, tag: int, depth: int, name: str) -> Encoded | None:
        """Walk a container the caller does not keep; return the remembered one it equals (or now is), if any.

        Equal bytes walk equally (an NBT payload is self-delimiting), and real files repeat block-entity contents
        (11,820 barrels holding the same items in the 256^3 corpus file): a container byte-identical to a clean one
        walked before under the same name and tag type adds that walk's facts instead of being walked again."""
        seen = self.seen.get((tag, name))
        if seen is None:
            seen = self.seen[tag, name] = []
        buf, pos, stats = self.buf, self.pos, self.stats
        for known, size, tags, depth_below, longest_list, longest_string in seen:
            if buf.startswith(known.payload, pos):
                self.pos = pos + size
                self.count(tags)
                if depth + depth_below > stats.max_depth:
                    self.enter(depth + depth_below)
                if longest_list > stats.max_list_length:
                    stats.max_list_length = longest_list
                if longest_string > stats.max_string_bytes:
                    stats.max_string_bytes = longest_string
                return known
        outer = (stats.tag_count, stats.max_depth, stats.max_list_length, stats.max_string_bytes,
                 len(stats.duplicate_names), stats.non_mutf8_strings)
        stats.max_depth, stats.max_list_length, stats.max_string_bytes = depth, 0, 0
        start = self.base + self.pos
        try:
            self.payload(tag, depth, False)
        finally:
            facts = (stats.tag_count - outer[0], stats.max_depth - depth, stats.max_list_length,
                     stats.max_string_bytes)
            stats.max_depth = max(stats.max_depth, outer[1])
            stats.max_list_length = max(stats.max_list_length, outer[2])
            stats.max_string_bytes = max(stats.max_string_bytes, outer[3])
        clean = len(stats.duplicate_names) == outer[4] and stats.non_mutf8_strings == outer[5]
        size = self.base + self.pos - start
        if clean and len(seen) < 16 and size <= 65536 and start >= self.base:  # still in the buffer
            seen.append((Encoded(tag, self.buf[start - self.base:self.pos]), size, *facts))
            return seen[-1][0]

    def list(self, depth: int, build: bool) -> List | None:
        self.enter(depth)
        subtype = self.u8()
        if subtype > TAG_LONG_ARRAY:
            raise self.fail(f"unknown list element type {subtype}", "nbt.tag.unknown")
        n = self.length(_SIZE.get(subtype, 1 if subtype else 0), "list")
        if n > self.stats.max_list_length:
            self.stats.max_list_length = n
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
        items = List((), subtype) if build else None
        path, stats, max_tags = self.path, self.stats, self.limits.max_tags
        path.append("")
        for index in range(n):
            path[-1] = index  # an int: made a string only for a pointer
            if subtype == TAG_COMPOUND:  # payload() inlined for the common list of compounds
                stats.tag_count += 1
                if stats.tag_count > max_tags:
                    raise self.fail(f"more than {max_tags} tags", "nbt.limit.tags")
                value = self.compound(depth + 1, build)
            else:
                value = self.payload(subtype, depth, build)
            if build:
                items.append(value)
        path.pop()
        return items


@contextmanager
def gc_paused():
    """Pause the cyclic garbage collector while building or encoding a big acyclic tree: with ~10^5 live tag
    objects its repeated full scans cost a third of a 256^3 model read, and they free nothing here."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def is_gzip(data: bytes) -> bool:
    return data[:2] == b"\x1f\x8b"


def read_nbt(data: bytes, limits: ReadLimits | None = None, keep=None) -> tuple[Compound, ReadStats]:
    """Parse one NBT document (gzip or raw, detected by magic) into (root compound, stats).

    ``keep(path)`` (optional; ``path`` is the live list of names, and list indices as ints, from the root) is
    asked for every list or compound inside a kept compound: True builds it, False walks it with every check and
    leaves it out of the tree, and :data:`RAW` walks it the same way and keeps its encoded bytes (:class:`Encoded`).
    """
    limits = limits or ReadLimits()
    stats = ReadStats(compressed=is_gzip(data), compressed_size=len(data))
    if len(data) > limits.max_compressed:
        raise NbtError(f"file is {len(data)} bytes, above the {limits.max_compressed} byte limit",
                       rule="nbt.limit.compressed", pointer="/")
    if not data:
        raise NbtError("file is empty", rule="nbt.empty", pointer="/")
    walker = _Walker(data, stats.compressed, limits, stats, keep)
    with gc_paused():
        first = walker.u8()
        if first != TAG_COMPOUND:
            what = f"a {TAG_NAMES[first]} tag" if first < len(TAG_NAMES) else f"byte 0x{first:02x}, not a tag type"
            raise NbtError(f"not an NBT compound: the file starts with {what}", rule="nbt.root.type", pointer="/",
                           hint=None if stats.compressed else "not an NBT file (and not gzip-compressed)")
        stats.root_name = walker.string()
        root = walker.payload(TAG_COMPOUND, 0, True)
    stats.trailing_nbt_bytes = walker.drain()
    stats.inflated_size = walker.inflated
    return root, stats
