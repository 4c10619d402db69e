"""A bounded, streaming reader for big-endian Java NBT (the encoder is in :mod:`mcb.schematics.writer`).

Bounded *while reading*: the compressed input is capped before inflating; gzip is inflated lazily, chunk by
chunk (on request, for a big file, by a worker thread a few chunks ahead of the parser:
:mod:`mcb.schematics.inflate`), with a hard cap on the inflated size; every declared string/array/list length is checked against what can
still arrive under that cap before anything is allocated (so a 1 GB decompression bomb is refused after a few
kilobytes); nesting depth and total tag count are capped. Strings are decoded as Java *modified* UTF-8.

Tags are represented by small Python types (cheaper than nbtlib's, which matters for files with 40k block
entities): :class:`Byte`/:class:`Short`/:class:`Int`/:class:`Long` (``int``), :class:`Float`/:class:`Double`
(``float``), :class:`String` (``str``), :class:`ByteArray` (``bytes``, raw signed bytes), :class:`IntArray`/
:class:`LongArray` (``tuple`` of ints), :class:`List` (``list`` with ``.subtype`` tag id) and :class:`Compound`
(``dict``, insertion order = file order); they live in :mod:`mcb.schematics.nbt_tags` and are re-exported here.
Every failure is an :class:`NbtError` (an ``InputError``) with a stable ``rule`` id and an NBT path.
"""

from __future__ import annotations

import gc
import struct
from contextlib import contextmanager
from dataclasses import dataclass, field

from mcb.errors import InputError
from mcb.schematics.inflate import AheadInflater, GzipCorrupt, GzipTruncated, InlineInflater
from mcb.schematics.nbt_tags import (  # noqa: F401  (re-exported: the tag types are part of this module's API)
    TAG_BYTE, TAG_BYTE_ARRAY, TAG_COMPOUND, TAG_DOUBLE, TAG_END, TAG_FLOAT, TAG_INT, TAG_INT_ARRAY, TAG_LIST,
    TAG_LONG, TAG_LONG_ARRAY, TAG_NAMES, TAG_SHORT, TAG_STRING, Byte, ByteArray, Compound, Double, Float, Int,
    IntArray, List, Long, LongArray, Short, String, decode_mutf8, encode_mutf8, tag_type,
)


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


_STRUCTS = {n: struct.Struct(">" + c) for n, c in (("b", "b"), ("h", "h"), ("H", "H"), ("i", "i"), ("q", "q"),
                                                  ("f", "f"), ("d", "d"))}
_SCALAR = {TAG_BYTE: (1, _STRUCTS["b"], Byte), TAG_SHORT: (2, _STRUCTS["h"], Short), TAG_INT: (4, _STRUCTS["i"], Int),
           TAG_LONG: (8, _STRUCTS["q"], Long), TAG_FLOAT: (4, _STRUCTS["f"], Float),
           TAG_DOUBLE: (8, _STRUCTS["d"], Double)}
_LIST_FMT = {TAG_BYTE: "b", TAG_SHORT: "h", TAG_INT: "i", TAG_LONG: "q", TAG_FLOAT: "f", TAG_DOUBLE: "d"}
_CHUNK = 4 * 1024 * 1024
_AHEAD_MIN = 128 * 1024  # compressed bytes from which a worker thread inflates ahead of the parser
_ENTRY_LISTS = frozenset({"BlockEntities", "TileEntities", "Entities"})  # see nbt_skim.Skimmer.entries


class _Reader:
    """Recursive-descent parser over a lazily filled buffer."""

    def __init__(self, data: bytes, compressed: bool, limits: ReadLimits, stats: ReadStats, ahead: bool = False):
        self.limits = limits
        self.stats = stats
        self.path: list[str] = []
        self.skim = None
        self.texts: dict[bytes, str] = {}
        self.skimmer = None  # mcb.schematics.nbt_skim.Skimmer in skim mode
        self.array_sink = None  # read_nbt's array_sink hook
        self.mark: int | None = None  # absolute offset that buffer refills must keep (raw bytes being captured)
        if compressed:
            kind = AheadInflater if ahead and len(data) >= _AHEAD_MIN else InlineInflater
            self.inflater = kind(data, limits.max_inflated)
            self.inflated_total = 0
            self.buf = b""
            self.base = 0  # inflated offset of buf[0]
        else:
            self.inflater = None
            self.buf = data
            self.base = 0
        self.pos = 0

    # --- buffer management -------------------------------------------------------------------------------
    def fail(self, message: str, rule: str, hint: str | None = None) -> NbtError:
        return NbtError(message, rule=rule, pointer=self.pointer(), hint=hint)

    def pointer(self) -> str:
        return "/" + "/".join(self.path) if self.path else "/"

    def budget(self) -> int:
        """How many more bytes can still arrive after the current position."""
        consumed = self.base + self.pos
        if self.inflater is None:
            return len(self.buf) - self.pos
        return self.limits.max_inflated - consumed

    def within_budget(self, n: int) -> None:
        if n > self.budget():
            if self.inflater is None:
                raise self.fail("NBT data is truncated", "nbt.truncated")
            raise self.fail(f"declared length needs {n} more bytes, beyond the {self.limits.max_inflated} byte "
                            "inflated-size limit", "nbt.limit.inflated",
                            hint="the file is corrupt or a decompression bomb")

    def need(self, n: int) -> None:
        if self.pos + n <= len(self.buf):
            return
        self.within_budget(n)
        keep = self.pos if self.mark is None else min(self.pos, self.mark - self.base)
        rest = self.buf[keep:]
        self.base += keep
        self.pos -= keep
        parts = [rest]
        have = len(rest)
        n += self.pos  # bytes needed from the start of ``rest``
        while have < n:
            chunk = self._more(n - have)
            parts.append(chunk)
            have += len(chunk)
        self.buf = b"".join(parts)

    def _more(self, want: int) -> bytes:
        """The next inflated bytes (``want`` or more asked for); NbtError when the gzip stream ends first."""
        chunk = self._inflate(max(want, _CHUNK))
        if not chunk:
            raise self.fail("NBT data is truncated (gzip stream ended early)", "nbt.truncated")
        return chunk

    def _inflate(self, want: int) -> bytes:
        inflater = self.inflater
        if inflater.eof:
            return b""
        try:
            chunk = inflater.read(want)
        except GzipCorrupt as error:
            raise self.fail(f"gzip data is corrupt ({error})", "gzip.corrupt") from None
        except GzipTruncated:
            raise self.fail("gzip stream is truncated", "gzip.truncated") from None
        self.inflated_total += len(chunk)
        if self.inflated_total > self.limits.max_inflated:
            raise self.fail(f"inflated data exceeds the {self.limits.max_inflated} byte limit", "nbt.limit.inflated",
                            hint="the file is corrupt or a decompression bomb")
        return chunk

    def take(self, n: int) -> bytes:
        self.need(n)
        start = self.pos
        self.pos = start + n
        return self.buf[start:self.pos]

    def pour(self, n: int, write) -> None:
        """Pass the next ``n`` bytes to ``write`` piece by piece (memoryviews, valid during the call) instead of
        building them into one bytes object."""
        if self.mark is not None:  # raw bytes are being captured around this array: they stay in the buffer
            write(memoryview(self.take(n)))
            return
        self.within_budget(n)
        buffered = len(self.buf) - self.pos
        with memoryview(self.buf) as view:
            if buffered >= n:
                write(view[self.pos:self.pos + n])
                self.pos += n
                return
            if buffered:
                write(view[self.pos:])
        end = self.base + self.pos + n  # offset just after the array
        remaining = n - buffered
        self.buf, self.base, self.pos = b"", end - remaining, 0
        while remaining:
            chunk = self._more(remaining)
            with memoryview(chunk) as piece:
                write(piece[:remaining])
            if len(chunk) > remaining:  # the rest of the chunk follows the array
                self.buf, self.base, self.pos = chunk, end - remaining, remaining
                return
            remaining -= len(chunk)
        self.base = end

    def take_long(self, n: int) -> bytes:
        """``take(n)`` for a long array (a 256^3 BlockData is 17 MB): the inflated pieces are joined once into the
        result instead of first into the buffer and then sliced out of it (each copy of 17 MB costs ~8 ms)."""
        if self.inflater is None or self.mark is not None or self.pos + n <= len(self.buf):
            return self.take(n)
        self.within_budget(n)
        end = self.base + self.pos + n  # inflated offset just after the array
        parts = [self.buf[self.pos:]]
        have = len(parts[0])
        while have < n:
            chunk = self._more(n - have)
            parts.append(chunk)
            have += len(chunk)
        last = parts[-1]
        cut = len(last) - (have - n)
        parts[-1] = last[:cut]
        self.buf, self.base, self.pos = last[cut:], end, 0
        return b"".join(parts)

    def drain(self) -> int:
        """Inflate the rest of the stream; return how many bytes follow the current position."""
        trailing = len(self.buf) - self.pos
        if self.inflater is None:
            return trailing
        self.base += len(self.buf)
        self.buf, self.pos = b"", 0
        while not self.inflater.eof:
            chunk = self._inflate(_CHUNK)
            if not chunk and not self.inflater.eof:
                raise self.fail("gzip stream is truncated", "gzip.truncated")
            trailing += len(chunk)
        self.stats.trailing_gzip_bytes = self.inflater.trailing()
        return trailing

    # --- primitives ------------------------------------------------------------------------------------------
    def u8(self) -> int:
        pos = self.pos
        if pos >= len(self.buf):
            self.need(1)
            pos = self.pos
        self.pos = pos + 1
        return self.buf[pos]

    def length(self, unit: int, what: str) -> int:
        self.need(4)
        n = _STRUCTS["i"].unpack_from(self.buf, self.pos)[0]
        self.pos += 4
        if n < 0:
            raise self.fail(f"negative {what} length {n}", "nbt.length.negative")
        if n * unit > self.budget():
            if self.inflater is not None and n * unit > self.limits.max_inflated - self.inflated_total:
                raise self.fail(f"{what} length {n} goes beyond the {self.limits.max_inflated} byte inflated-size "
                                "limit", "nbt.limit.inflated", hint="the file is corrupt or a decompression bomb")
            raise self.fail(f"{what} length {n} does not fit in the remaining input", "nbt.length.overflow",
                            hint="the file is truncated or corrupt")
        return n

    def string(self) -> str:
        buf, pos = self.buf, self.pos
        if pos + 2 <= len(buf):
            n = (buf[pos] << 8) | buf[pos + 1]
            end = pos + 2 + n
            if end <= len(buf):
                # Short strings (tag names, ids) repeat a lot: decode each distinct one once.
                raw = buf[pos + 2:end]
                text = self.texts.get(raw)
                if text is not None:
                    self.pos = end
                    return text
        self.need(2)
        n = _STRUCTS["H"].unpack_from(self.buf, self.pos)[0]
        self.pos += 2
        raw = self.take(n)
        if n > self.stats.max_string_bytes:
            self.stats.max_string_bytes = n
        try:
            text, plain = decode_mutf8(raw)
        except UnicodeDecodeError:
            raise self.fail("string is not valid modified UTF-8", "nbt.string.encoding") from None
        if plain:
            self.stats.non_mutf8_strings += 1
        elif n <= 64 and len(self.texts) < 4096:
            self.texts[raw] = text
        return text

    # --- payloads ---------------------------------------------------------------------------------------------
    def payload(self, tag: int, depth: int):
        stats = self.stats
        stats.tag_count += 1
        if stats.tag_count > self.limits.max_tags:
            raise self.fail(f"more than {self.limits.max_tags} tags", "nbt.limit.tags")
        scalar = _SCALAR.get(tag)
        if scalar is not None:
            size, st, cls = scalar
            self.need(size)
            value = cls(st.unpack_from(self.buf, self.pos)[0])
            self.pos += size
            return value
        if tag == TAG_STRING:
            return String(self.string())
        if tag == TAG_COMPOUND:
            return self.compound(depth + 1)
        if tag == TAG_LIST:
            return self.list(depth + 1)
        if tag == TAG_BYTE_ARRAY:
            n = self.length(1, "byte array")
            sink = self.array_sink(self.path, n) if self.array_sink is not None else None
            if sink is not None:
                self.pour(n, sink.write)
                return sink.finish()
            return ByteArray(self.take_long(n))
        if tag == TAG_INT_ARRAY:
            n = self.length(4, "int array")
            return IntArray(struct.unpack(f">{n}i", self.take(4 * n)))
        if tag == TAG_LONG_ARRAY:
            n = self.length(8, "long array")
            return LongArray(struct.unpack(f">{n}q", self.take(8 * n)))
        raise self.fail(f"unknown tag type {tag}", "nbt.tag.unknown")

    def enter(self, depth: int) -> None:
        if depth > self.stats.max_depth:
            self.stats.max_depth = depth
            if depth > self.limits.max_depth:
                raise self.fail(f"nesting deeper than {self.limits.max_depth} levels", "nbt.limit.depth")

    def compound(self, depth: int) -> Compound:
        self.enter(depth)
        result = Compound()
        path = self.path
        stats = self.stats
        skim = self.skim
        while True:
            tag = self.u8()
            if tag == TAG_END:
                return result
            name = self.string()
            path.append(name)
            scalar = _SCALAR.get(tag)
            if scalar is not None:  # inlined scalar payload: the bulk of all tags
                size, st, cls = scalar
                if self.pos + size > len(self.buf):
                    self.need(size)
                value = cls(st.unpack_from(self.buf, self.pos)[0])
                self.pos += size
                stats.tag_count += 1
                if stats.tag_count > self.limits.max_tags:
                    raise self.fail(f"more than {self.limits.max_tags} tags", "nbt.limit.tags")
            elif (tag == TAG_LIST or tag == TAG_COMPOUND) and skim is not None and skim(path):
                value = self.skimmer.skip(tag, depth, name)
            else:
                value = self.payload(tag, depth)
            if name in result:
                stats.duplicate_names.append(self.pointer())
            path.pop()
            result[name] = value

    def list(self, depth: int) -> List:
        self.enter(depth)
        subtype = self.u8()
        if subtype > TAG_LONG_ARRAY:
            raise self.fail(f"unknown list element type {subtype}", "nbt.tag.unknown")
        n = self.length(1 if subtype else 0, "list")
        if n > self.stats.max_list_length:
            self.stats.max_list_length = n
        if subtype == TAG_END:
            if n:
                raise self.fail("non-empty list of element type End", "nbt.list.end")
            return List((), TAG_END)
        fmt = _LIST_FMT.get(subtype)
        if fmt is not None:
            size = struct.calcsize(">" + fmt)
            self.stats.tag_count += n
            cls = _SCALAR[subtype][2]
            return List(map(cls, struct.unpack(f">{n}{fmt}", self.take(size * n))), subtype)
        path = self.path
        if subtype == TAG_COMPOUND and self.skimmer is not None and path and path[-1] in _ENTRY_LISTS:
            return self.skimmer.entries(n, depth)
        items = List((), subtype)
        append = items.append
        for index in range(n):
            path.append(str(index))
            append(self.payload(subtype, depth))
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


def read_nbt(data: bytes, limits: ReadLimits | None = None, skim=None,
             keep_raw: bool = False, array_sink=None, inflate_ahead: bool = False) -> tuple[Compound, ReadStats]:
    """Parse one NBT document (gzip or raw, detected by magic) into (root compound, stats).

    ``skim(path) -> bool`` (optional) is asked for every list/compound inside a compound; when it answers True
    the container is structure-checked without being built (:mod:`mcb.schematics.nbt_skim`) and returned as a
    ``Skipped`` placeholder; with ``keep_raw`` it carries its encoded bytes (``Skipped.raw``) so a writer can copy it
    and :class:`~mcb.schematics.nbt_skim.LazyCompound` can decode it on first access.

    ``array_sink(path, n)`` (optional) is asked before each Byte_Array payload of ``n`` bytes is read (``path`` is
    the reader's live list of names). It answers None, or a sink whose ``write(piece)`` gets the payload in pieces
    (memoryviews, valid only during the call) and whose ``finish()`` gives the value to store for the tag: the
    array can go elsewhere (:mod:`mcb.schematics.offload`) without being built here.

    ``inflate_ahead`` lets a worker thread inflate a big gzip file ahead of the parser. That pays when the
    process has a core to spare for it; beside another busy thread (a numpy import) it costs more than it saves.
    """
    limits = limits or ReadLimits()
    stats = ReadStats(compressed=is_gzip(data), compressed_size=len(data))
    if len(data) > limits.max_compressed:
        raise NbtError(f"file is {len(data)} bytes, above the {limits.max_compressed} byte limit",
                       rule="nbt.limit.compressed", pointer="/")
    if not data:
        raise NbtError("file is empty", rule="nbt.empty", pointer="/")
    with gc_paused():
        return _read(data, limits, skim, keep_raw, stats, array_sink, inflate_ahead)


def _read(data: bytes, limits: ReadLimits, skim, keep_raw: bool, stats: ReadStats,
          array_sink=None, ahead: bool = False) -> tuple[Compound, ReadStats]:
    reader = _Reader(data, stats.compressed, limits, stats, ahead)
    try:
        return _parse(reader, data, skim, keep_raw, stats, array_sink)
    finally:
        if reader.inflater is not None:
            reader.inflater.close()


def _parse(reader: _Reader, data: bytes, skim, keep_raw: bool, stats: ReadStats,
           array_sink) -> tuple[Compound, ReadStats]:
    reader.array_sink = array_sink
    if skim is not None:
        from mcb.schematics.nbt_skim import Skimmer

        reader.skim = skim
        reader.skimmer = Skimmer(reader, keep_raw=keep_raw)
    first = reader.u8()
    if first != TAG_COMPOUND:
        what = f"a {TAG_NAMES[first]} tag" if first < len(TAG_NAMES) else f"byte 0x{first:02x}, not a tag type"
        raise NbtError(f"not an NBT compound: the file starts with {what}",
                       rule="nbt.root.type", pointer="/",
                       hint=None if stats.compressed else "not an NBT file (and not gzip-compressed)")
    stats.root_name = reader.string()
    root = reader.payload(TAG_COMPOUND, 0)
    stats.trailing_nbt_bytes = reader.drain()
    stats.inflated_size = len(data) if reader.inflater is None else reader.inflated_total
    return root, stats
