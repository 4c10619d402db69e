"""A bounded, streaming reader and a writer for big-endian Java NBT.

Bounded *while reading*: the compressed input is capped before inflating; gzip is inflated lazily, chunk by
chunk, with a hard cap on the inflated size; every declared string/array/list length is checked against what can
still arrive under that cap before anything is allocated (so a 1 GB decompression bomb is refused after a few
kilobytes); nesting depth and total tag count are capped. Strings are decoded as Java *modified* UTF-8.

Tags are represented by small Python types (cheaper than nbtlib's, which matters for files with 40k block
entities): :class:`Byte`/:class:`Short`/:class:`Int`/:class:`Long` (``int``), :class:`Float`/:class:`Double`
(``float``), :class:`String` (``str``), :class:`ByteArray` (``bytes``, raw signed bytes), :class:`IntArray`/
:class:`LongArray` (``tuple`` of ints), :class:`List` (``list`` with ``.subtype`` tag id) and :class:`Compound`
(``dict``, insertion order = file order). ``to_nbtlib``/``from_nbtlib`` convert for callers who prefer nbtlib.
Every failure is an :class:`NbtError` (an ``InputError``) with a stable ``rule`` id and an NBT path.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

from mcb.errors import InputError

TAG_END, TAG_BYTE, TAG_SHORT, TAG_INT, TAG_LONG, TAG_FLOAT, TAG_DOUBLE = 0, 1, 2, 3, 4, 5, 6
TAG_BYTE_ARRAY, TAG_STRING, TAG_LIST, TAG_COMPOUND, TAG_INT_ARRAY, TAG_LONG_ARRAY = 7, 8, 9, 10, 11, 12
TAG_NAMES = ["End", "Byte", "Short", "Int", "Long", "Float", "Double", "Byte_Array", "String", "List", "Compound",
             "Int_Array", "Long_Array"]


class Byte(int):
    tag_id = TAG_BYTE


class Short(int):
    tag_id = TAG_SHORT


class Int(int):
    tag_id = TAG_INT


class Long(int):
    tag_id = TAG_LONG


class Float(float):
    tag_id = TAG_FLOAT


class Double(float):
    tag_id = TAG_DOUBLE


class String(str):
    tag_id = TAG_STRING


class ByteArray(bytes):
    tag_id = TAG_BYTE_ARRAY


class IntArray(tuple):
    tag_id = TAG_INT_ARRAY


class LongArray(tuple):
    tag_id = TAG_LONG_ARRAY


class List(list):
    """An NBT list; ``subtype`` is the element tag id (0 for an empty list of unknown type)."""

    __slots__ = ("subtype",)
    tag_id = TAG_LIST

    def __init__(self, items=(), subtype: int = TAG_END):
        super().__init__(items)
        self.subtype = subtype


class Compound(dict):
    tag_id = TAG_COMPOUND


def tag_type(value) -> int:
    return getattr(value, "tag_id", -1)


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


def decode_mutf8(raw: bytes) -> tuple[str, bool]:
    """Java modified UTF-8 -> str. Returns (text, was_plain_utf8) where the flag marks 4-byte UTF-8 sequences,
    which Java's readUTF refuses but some old writers produced. Raises UnicodeDecodeError on garbage."""
    if raw.isascii() and b"\x00" not in raw:
        return raw.decode("ascii"), False
    text = raw.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
    plain = any(ord(ch) > 0xFFFF for ch in text)
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        text = text.encode("utf-16-be", "surrogatepass").decode("utf-16-be")  # join surrogate pairs
    return text, plain


def encode_mutf8(text: str) -> bytes:
    if text.isascii() and "\x00" not in text:
        return text.encode("ascii")
    out = text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")
    # Characters above U+FFFF are written as two 3-byte surrogates, NUL as C0 80 (Java DataOutput.writeUTF).
    units = "".join(ch if ord(ch) <= 0xFFFF else _surrogates(ch) for ch in out)
    return units.encode("utf-8", "surrogatepass").replace(b"\x00", b"\xc0\x80")


def _surrogates(ch: str) -> str:
    code = ord(ch) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


class _Reader:
    """Recursive-descent parser over a lazily filled buffer."""

    def __init__(self, data: bytes, compressed: bool, limits: ReadLimits, stats: ReadStats):
        self.limits = limits
        self.stats = stats
        self.path: list[str] = []
        self.skim = None
        self.texts: dict[bytes, str] = {}
        # name -> encodings of containers already walked under that name, with their stats (see skip_remembered)
        self.seen: dict[str, list[tuple[bytes, int, int, int, int]]] = {}
        if compressed:
            self.inflater = zlib.decompressobj(wbits=31)
            self.pending = data
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

    def need(self, n: int) -> None:
        if self.pos + n <= len(self.buf):
            return
        if n > self.budget():
            if self.inflater is None:
                raise self.fail("NBT data is truncated", "nbt.truncated")
            raise self.fail(f"declared length needs {n} more bytes, beyond the {self.limits.max_inflated} byte "
                            "inflated-size limit", "nbt.limit.inflated",
                            hint="the file is corrupt or a decompression bomb")
        rest = self.buf[self.pos:]
        self.base += self.pos
        self.pos = 0
        parts = [rest]
        have = len(rest)
        while have < n:
            chunk = self._inflate(max(n - have, _CHUNK))
            if not chunk:
                raise self.fail("NBT data is truncated (gzip stream ended early)", "nbt.truncated")
            parts.append(chunk)
            have += len(chunk)
        self.buf = b"".join(parts)

    def _inflate(self, want: int) -> bytes:
        inflater = self.inflater
        if inflater.eof:
            return b""
        allowed = self.limits.max_inflated - self.inflated_total + 1
        try:
            chunk = inflater.decompress(self.pending, min(want, allowed))
        except zlib.error as error:
            raise self.fail(f"gzip data is corrupt ({error})", "gzip.corrupt") from None
        self.pending = inflater.unconsumed_tail
        self.inflated_total += len(chunk)
        if self.inflated_total > self.limits.max_inflated:
            raise self.fail(f"inflated data exceeds the {self.limits.max_inflated} byte limit", "nbt.limit.inflated",
                            hint="the file is corrupt or a decompression bomb")
        if not chunk and not inflater.eof and not self.pending:
            raise self.fail("gzip stream is truncated", "gzip.truncated")
        return chunk

    def take(self, n: int) -> bytes:
        self.need(n)
        start = self.pos
        self.pos = start + n
        return self.buf[start:self.pos]

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
        self.stats.trailing_gzip_bytes = len(self.inflater.unused_data) + len(self.pending)
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
            return ByteArray(self.take(self.length(1, "byte array")))
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
                value = self.skip_remembered(tag, depth, name)
            else:
                value = self.payload(tag, depth)
            if name in result:
                stats.duplicate_names.append(self.pointer())
            path.pop()
            result[name] = value

    def skip_remembered(self, tag: int, depth: int, name: str) -> Skipped:
        """Skip a container, reusing earlier walks of byte-identical containers.

        An NBT payload is self-delimiting, so bytes equal to an encoding that was already checked parse the same
        way and end at the same place; real files repeat block-entity contents (barrels of the same items) a lot.
        """
        seen = self.seen.setdefault(name, [])
        buf, pos = self.buf, self.pos
        for encoding, tags, rel_depth, max_list, max_str in seen:
            if buf.startswith(encoding, pos):
                self.pos = pos + len(encoding)
                stats = self.stats
                stats.tag_count += tags
                stats.max_depth = max(stats.max_depth, depth + rel_depth)
                stats.max_list_length = max(stats.max_list_length, max_list)
                stats.max_string_bytes = max(stats.max_string_bytes, max_str)
                if stats.tag_count > self.limits.max_tags:
                    raise self.fail(f"more than {self.limits.max_tags} tags", "nbt.limit.tags")
                return Skipped(tag, len(encoding))
        stats = self.stats
        before = (stats.tag_count, stats.max_depth, stats.max_list_length, stats.max_string_bytes)
        stats.max_depth = stats.max_list_length = stats.max_string_bytes = 0
        start_abs = self.base + self.pos
        try:
            skipped = skip_container(self, tag, depth)
        finally:
            walked = (stats.tag_count - before[0], stats.max_depth - depth, stats.max_list_length,
                      stats.max_string_bytes)
            stats.max_depth = max(before[1], stats.max_depth)
            stats.max_list_length = max(before[2], stats.max_list_length)
            stats.max_string_bytes = max(before[3], stats.max_string_bytes)
        start = start_abs - self.base
        if len(seen) < 16 and start >= 0 and skipped.size <= 65536:
            seen.append((self.buf[start:self.pos], *walked))
        return skipped

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
        items = List((), subtype)
        append = items.append
        for index in range(n):
            path.append(str(index))
            append(self.payload(subtype, depth))
            path.pop()
        return items


def is_gzip(data: bytes) -> bool:
    return data[:2] == b"\x1f\x8b"


def read_nbt(data: bytes, limits: ReadLimits | None = None, skim=None) -> tuple[Compound, ReadStats]:
    """Parse one NBT document (gzip or raw, detected by magic) into (root compound, stats).

    ``skim(path) -> bool`` (optional) is asked for every list/compound inside a compound; when it answers True
    the container is structure-checked by :func:`skip_container` and returned as a :class:`Skipped` placeholder.
    """
    limits = limits or ReadLimits()
    stats = ReadStats(compressed=is_gzip(data), compressed_size=len(data))
    if len(data) > limits.max_compressed:
        raise NbtError(f"file is {len(data)} bytes, above the {limits.max_compressed} byte limit",
                       rule="nbt.limit.compressed", pointer="/")
    if not data:
        raise NbtError("file is empty", rule="nbt.empty", pointer="/")
    reader = _Reader(data, stats.compressed, limits, stats)
    reader.skim = skim
    first = reader.u8()
    if first != TAG_COMPOUND:
        raise NbtError(f"root tag is {TAG_NAMES[first] if first < len(TAG_NAMES) else first}, not Compound",
                       rule="nbt.root.type", pointer="/",
                       hint=None if stats.compressed else "not an NBT file (and not gzip-compressed)")
    stats.root_name = reader.string()
    root = reader.payload(TAG_COMPOUND, 0)
    stats.trailing_nbt_bytes = reader.drain()
    stats.inflated_size = len(data) if reader.inflater is None else reader.inflated_total
    return root, stats


class Skipped:
    """Placeholder for a container whose structure was checked but not materialised (fast validation path)."""

    __slots__ = ("tag_id", "size")

    def __init__(self, tag_id: int, size: int):
        self.tag_id = tag_id
        self.size = size

    def __repr__(self) -> str:
        return f"Skipped({TAG_NAMES[self.tag_id]}, {self.size} bytes)"


_FIXED = (0, 1, 2, 4, 8, 4, 8)  # payload sizes of End..Double
_HEAD = (0, 1, 2, 4, 8, 4, 8, 4, 2, 5, 0, 4, 4)  # bytes needed before the payload size is known


def skip_container(reader: _Reader, tag: int, depth: int) -> Skipped:
    """Walk a compound/list payload without building objects, enforcing the same limits as the full parser.

    One flat loop with an explicit stack: this is the hot path for files with 10^6 block-entity tags. Strings
    inside are length-checked but not decoded, and duplicate names are not detected here (the full parser does).
    """
    stats, limits = reader.stats, reader.limits
    stats.tag_count += 1  # the container itself
    start_abs = reader.base + reader.pos
    buf, p = reader.buf, reader.pos
    end = len(buf)
    # stack entries: [kind, remaining] ; kind -1 = compound, >=0 = list of that element type
    stack = [[-1, 0]] if tag == TAG_COMPOUND else None
    tags = 0
    max_str = stats.max_string_bytes
    if tag == TAG_LIST:
        reader.pos = p
        reader.need(5)
        buf, p = reader.buf, reader.pos
        end = len(buf)
        sub = buf[p]
        n = int.from_bytes(buf[p + 1:p + 5], "big", signed=True)
        p += 5
        stack = [[sub, n]]
        if n < 0 or sub > TAG_LONG_ARRAY or (sub == 0 and n):
            reader.pos = p
            raise reader.fail("malformed list header", "nbt.list.header")
        if n > stats.max_list_length:
            stats.max_list_length = n
        stats.max_depth = max(stats.max_depth, depth + 1)
        if 1 <= sub <= 6:  # a list of fixed-size scalars: one jump
            stack = []
            tags += n
            size = n * _FIXED[sub]
            if size > reader.budget() + reader.pos - p:
                reader.pos = p
                raise reader.fail(f"list length {n} does not fit in the remaining input", "nbt.length.overflow")
            reader.pos = p
            reader.need(size)
            buf, p, end = reader.buf, reader.pos + size, len(reader.buf)
        elif n > reader.budget() + reader.pos - p:
            reader.pos = p
            raise reader.fail(f"list length {n} does not fit in the remaining input", "nbt.length.overflow")
    while stack:
        level = len(stack) + depth
        if level > stats.max_depth:
            stats.max_depth = level
            if level > limits.max_depth:
                reader.pos = p
                raise reader.fail(f"nesting deeper than {limits.max_depth} levels", "nbt.limit.depth")
        top = stack[-1]
        kind = top[0]
        if kind == -1:
            if p + 3 > end:
                reader.pos = p
                reader.need(1)
                if reader.buf[reader.pos]:
                    reader.need(3)
                buf, p, end = reader.buf, reader.pos, len(reader.buf)
            t = buf[p]
            if t == 0:
                p += 1
                stack.pop()
                continue
            nl = (buf[p + 1] << 8) | buf[p + 2]
            if nl > max_str:
                max_str = nl
            if p + 3 + nl > end:
                reader.pos = p
                reader.need(3 + nl)
                buf, p, end = reader.buf, reader.pos, len(reader.buf)
            p += 3 + nl
        else:
            if top[1] == 0:
                stack.pop()
                continue
            top[1] -= 1
            t = kind
        tags += 1
        head = _HEAD[t] if t < 13 else 0
        if p + head > end:
            reader.pos = p
            reader.need(head)
            buf, p, end = reader.buf, reader.pos, len(reader.buf)
        if t <= 6:
            if t == 0:
                reader.pos = p
                raise reader.fail("unexpected End tag", "nbt.tag.unknown")
            p += head
            continue
        if t == TAG_STRING:
            n = (buf[p] << 8) | buf[p + 1]
            if n > max_str:
                max_str = n
            size = 2 + n
        elif t == TAG_COMPOUND:
            stack.append([-1, 0])
            continue
        elif t == TAG_LIST:
            sub = buf[p]
            n = int.from_bytes(buf[p + 1:p + 5], "big", signed=True)
            p += 5
            if n < 0 or sub > TAG_LONG_ARRAY or (sub == 0 and n):
                reader.pos = p
                raise reader.fail("malformed list header", "nbt.list.header")
            if n > stats.max_list_length:
                stats.max_list_length = n
            if level + 1 > stats.max_depth:  # the list is one level below its parent
                stats.max_depth = level + 1
                if level + 1 > limits.max_depth:
                    reader.pos = p
                    raise reader.fail(f"nesting deeper than {limits.max_depth} levels", "nbt.limit.depth")
            if 1 <= sub <= 6:
                tags += n
                size = n * _FIXED[sub]
            else:
                if n > reader.budget() + reader.pos - p:
                    reader.pos = p
                    raise reader.fail(f"list length {n} does not fit in the remaining input", "nbt.length.overflow")
                stack.append([sub, n])
                continue
        elif t == TAG_BYTE_ARRAY or t == TAG_INT_ARRAY or t == TAG_LONG_ARRAY:
            n = int.from_bytes(buf[p:p + 4], "big", signed=True)
            if n < 0:
                reader.pos = p
                raise reader.fail("negative array length", "nbt.length.negative")
            size = 4 + n * (1 if t == TAG_BYTE_ARRAY else 4 if t == TAG_INT_ARRAY else 8)
        else:
            reader.pos = p
            raise reader.fail(f"unknown tag type {t}", "nbt.tag.unknown")
        if p + size > end:
            reader.pos = p
            if size > reader.budget():
                raise reader.fail("declared length does not fit in the remaining input", "nbt.length.overflow")
            reader.need(size)
            buf, p, end = reader.buf, reader.pos, len(reader.buf)
        p += size
    if p > end:
        reader.pos = end
        raise reader.fail("NBT data is truncated", "nbt.truncated")
    reader.pos = p
    stats.tag_count += tags
    stats.max_string_bytes = max_str
    if stats.tag_count > limits.max_tags:
        raise reader.fail(f"more than {limits.max_tags} tags", "nbt.limit.tags")
    return Skipped(tag, reader.base + p - start_abs)
