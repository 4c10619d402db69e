"""NBT tag types (small Python subclasses carrying ``tag_id``) and Java modified UTF-8."""

from __future__ import annotations

TAG_END, TAG_BYTE, TAG_SHORT, TAG_INT, TAG_LONG, TAG_FLOAT, TAG_DOUBLE = 0, 1, 2, 3, 4, 5, 6
TAG_BYTE_ARRAY, TAG_STRING, TAG_LIST, TAG_COMPOUND, TAG_INT_ARRAY, TAG_LONG_ARRAY = 7, 8, 9, 10, 11, 12
TAG_NAMES = [
    "End",
    "Byte",
    "Short",
    "Int",
    "Long",
    "Float",
    "Double",
    "Byte_Array",
    "String",
    "List",
    "Compound",
    "Int_Array",
    "Long_Array",
]


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


class NumericArray:
    """A long Int_Array or Long_Array kept as its big-endian bytes (a Litematica region's BlockStates): it costs its
    bytes, not a Python int per element. Reads as a sequence of ints; :meth:`numpy` gives them as an array."""

    __slots__ = ("tag_id", "raw")

    def __init__(self, tag_id: int, raw: bytes):
        self.tag_id, self.raw = tag_id, raw

    def numpy(self):
        import numpy as np

        return np.frombuffer(self.raw, dtype=">i8" if self.tag_id == TAG_LONG_ARRAY else ">i4")

    def __len__(self) -> int:
        return len(self.raw) // (8 if self.tag_id == TAG_LONG_ARRAY else 4)

    def __iter__(self):
        return iter(self.numpy().tolist())

    def __getitem__(self, index):
        return self.numpy().tolist()[index]

    def __eq__(self, other):
        if isinstance(other, NumericArray):
            return self.tag_id == other.tag_id and self.raw == other.raw
        return isinstance(other, (tuple, list)) and tuple(self) == tuple(other)

    def __hash__(self):
        return hash((self.tag_id, self.raw))

    def __repr__(self) -> str:
        return f"NumericArray({TAG_NAMES[self.tag_id]}, {len(self)} values)"


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


def is_list_of(value, *subtypes: int) -> bool:
    """A list tag whose elements are of one of ``subtypes``. An empty list of any element type is an empty list:
    MCEdit writes an empty ``TileEntities`` as a list of Byte, and readers take it as no entries."""
    return tag_type(value) == TAG_LIST and (not value or value.subtype in subtypes)


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


class Encoded:
    """A list or compound kept as its encoded payload bytes (immutable, compared and hashed by its bytes): what a
    reader hands a rewrite that copies block-entity contents without looking into them; the writer copies it.
    ``tags`` and ``depth`` are what reading it counts (itself included: a reader's limits apply to them)."""

    __slots__ = ("tag_id", "payload", "tags", "depth")

    def __init__(self, tag_id: int, payload: bytes, tags: int = 1, depth: int = 1):
        self.tag_id, self.payload, self.tags, self.depth = tag_id, payload, tags, depth

    def __eq__(self, other):
        return type(other) is Encoded and other.tag_id == self.tag_id and other.payload == self.payload

    def __hash__(self):
        return hash((self.tag_id, self.payload))

    def __repr__(self) -> str:
        return f"Encoded({TAG_NAMES[self.tag_id]}, {len(self.payload)} bytes)"
