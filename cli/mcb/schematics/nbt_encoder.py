"""The one NBT encoder (the reader is :mod:`mcb.schematics.nbt`): big-endian Java NBT of a tree of tags, and the
gzip container every schematic writer puts it in.

    raw = encode_nbt(root, root_name)     # uncompressed
    raw, (tags, depth) = encode_counted(root, root_name)   # and what a reader counts of it
    data = compress(raw)                  # gzip at the level below

Tags are :mod:`mcb.schematics.nbt_tags` values; plain Python values are given a tag by their type. A container read
as its bytes (:class:`~mcb.schematics.nbt_tags.Encoded`) or already encoded in pieces (:class:`EncodedPieces`) is
copied, not walked.
"""

from __future__ import annotations

import gzip
import struct
from collections.abc import Callable

import numpy as np

from mcb.schematics.nbt_tags import TAG_COMPOUND, Compound, Encoded, List, NumericArray, encode_mutf8, tag_type


def _infer(value):
    """Tag id for a value: our tag classes carry ``tag_id``; plain Python values are inferred."""
    tid = tag_type(value)
    if tid > 0:
        return tid
    if isinstance(value, bool) or isinstance(value, int):
        return 3
    if isinstance(value, float):
        return 6
    if isinstance(value, str):
        return 8
    if isinstance(value, dict):
        return 10
    if isinstance(value, (bytes, bytearray)):
        return 7
    if isinstance(value, np.ndarray):
        return {1: 7, 4: 11, 8: 12}[value.dtype.itemsize]
    if isinstance(value, (list, tuple)):
        return 9
    raise TypeError(f"cannot encode {type(value).__name__} as NBT")


def _list_subtype(value) -> int:
    sub = getattr(value, "subtype", None)
    if isinstance(sub, int):
        return sub
    return _infer(value[0]) if len(value) else 0


_SCALAR_PACK = {
    tid: struct.Struct(code).pack for tid, code in ((1, ">b"), (2, ">h"), (3, ">i"), (4, ">q"), (5, ">f"), (6, ">d"))
}
_LEAF = (1, 0)  # (tags, depth) of a scalar, string or array


class EncodedPieces:
    """A payload already encoded as pieces (the 12.9 MB of a big build's block entities): copied into the output
    piece by piece instead of being joined first. ``tags`` and ``depth``: as :class:`tree_facts` counts them."""

    __slots__ = ("tag_id", "pieces", "tags", "depth")

    def __init__(self, tag_id: int, pieces: list[bytes], tags: int = 1, depth: int = 1):
        self.tag_id, self.pieces, self.tags, self.depth = tag_id, pieces, tags, depth


class EncodingMemo:
    """Encodings of block-entity data (a big build has 42,010 block entities, a few hundred different ones), each
    made once: remembered by the id, the tag names and the identity of the values (the reader shares equal values),
    and then by the same with lists of compounds looked into (it builds a repeated inventory's items as copies
    sharing their values). Every entry holds the data of its key, so no id in a key is reused meanwhile."""

    def __init__(self, limit: int = 4096):
        self.found: dict[tuple, tuple] = {}
        self.limit = limit

    def get(self, ident: str, data, encode: Callable[..., tuple[bytes, tuple[int, int]]], *args) -> tuple:
        """(bytes, facts, data) of ``data``: remembered, else ``encode(*args)``."""
        found = self.found
        if not isinstance(data, dict):  # None, or contents kept as their bytes
            key = (ident, id(data))
            known = found.get(key)
            if known is None:
                known = (*encode(*args), data)
                self._keep(key, known)
            return known
        shallow = (ident, *data, *map(id, data.values()))
        known = found.get(shallow)
        if known is not None:
            return known
        deep = (ident, *self._looked_into(data))
        known = found.get(deep)
        if known is None:
            known = (*encode(*args), data)
            self._keep(deep, known)
        self._keep(shallow, (known[0], known[1], data))
        return known

    def _keep(self, key: tuple, value: tuple) -> None:
        if len(self.found) < self.limit:
            self.found[key] = value

    @staticmethod
    def _looked_into(data) -> list:
        parts: list = []
        for key, value in data.items():
            parts.append(key)
            if type(value) is List and value.subtype == TAG_COMPOUND:
                parts.append(
                    tuple([(*item, *map(id, item.values())) if type(item) is Compound else id(item) for item in value])
                )
            else:
                parts.append(id(value))
        return parts


def encode_payload(out: list[bytes], tid: int, value) -> tuple[int, int]:
    """Append the encoded payload of ``value`` (tag ``tid``: no id, no name) to ``out``; its (tags, depth) as
    :func:`tree_facts` counts them (one walk where a writer needs both)."""
    pack = _SCALAR_PACK.get(tid)
    if pack is not None:
        out.append(pack(value))
        return _LEAF
    kind = type(value)
    if kind is EncodedPieces:
        out += value.pieces
        return value.tags, value.depth
    if kind is Encoded:  # a container read as its bytes and never looked into: copied
        out.append(value.payload)
        return value.tags, value.depth
    if tid == 8:
        out.append(string_payload(value))
        return _LEAF
    if tid == 10:
        # _named inlined, scalars and strings first: the bulk of a big build's block entities (10^6 item tags)
        tags, depth = 1, 0
        for key, item in value.items():
            item_tid = getattr(item, "tag_id", None)
            if type(item_tid) is not int or item_tid <= 0:
                item_tid = _infer(item)
            header = _HEADERS.get((item_tid, key)) or _header(item_tid, str(key))
            pack = _SCALAR_PACK.get(item_tid)
            if pack is not None:
                out.append(header + pack(item))
                tags += 1
            elif item_tid == 8:
                out.append(header + string_payload(item))
                tags += 1
            else:
                out.append(header)
                below = encode_payload(out, item_tid, item)
                tags += below[0]
                if below[1] > depth:
                    depth = below[1]
        out.append(b"\x00")
        return tags, depth + 1
    if tid == 9:
        sub = _list_subtype(value)
        out.append(struct.pack(">bi", sub, len(value)))
        if sub != 9 and sub != 10:  # scalars, strings or arrays: one tag each
            for item in value:
                encode_payload(out, sub, item)
            return 1 + len(value), 1
        tags, depth = 1, 0
        for item in value:
            below = encode_payload(out, sub, item)
            tags += below[0]
            if below[1] > depth:
                depth = below[1]
        return tags, depth + 1
    if tid == 7:
        # bytes (and ByteArray) go into the output as they are: BlockData of a 256^3 build is 17 MB, not worth copying
        raw = (
            value
            if isinstance(value, bytes)
            else (bytes(value) if not isinstance(value, np.ndarray) else value.astype(np.int8).tobytes())
        )
        out.append(struct.pack(">i", len(raw)))
        out.append(raw)
    elif tid in (11, 12) and kind is NumericArray:  # read as its bytes: written as they were (not copied here)
        out.append(struct.pack(">i", len(value)))
        out.append(value.raw)
    elif tid in (11, 12):
        arr = np.asarray(value, dtype=">i4" if tid == 11 else ">i8")
        out.append(struct.pack(">i", arr.size) + arr.tobytes())
    else:
        raise ValueError(f"cannot encode tag type {tid}")
    return _LEAF


_HEADERS: dict[tuple[int, str], bytes] = {}


def _header(tid: int, name: str) -> bytes:
    """Tag id and name of a named tag (tag names repeat: each encoded once, up to 4096 of them)."""
    raw = encode_mutf8(name)
    header = struct.pack(">bH", tid, len(raw)) + raw
    if len(_HEADERS) < 4096:
        _HEADERS[(tid, name)] = header
    return header


def string_payload(value) -> bytes:
    """A string payload: its length and modified UTF-8."""
    raw = encode_mutf8(str(value))
    if len(raw) > 0xFFFF:
        raise ValueError("NBT string longer than 65535 bytes")
    return struct.pack(">H", len(raw)) + raw


def _named(out: list[bytes], name: str, value) -> tuple[int, int]:
    tid = getattr(value, "tag_id", None)
    if type(tid) is not int or tid <= 0:
        tid = _infer(value)
    out.append(_HEADERS.get((tid, name)) or _header(tid, name))
    return encode_payload(out, tid, value)


def tree_facts(value) -> tuple[int, int]:
    """(tags, depth) of a tree as mcb's reader counts them when it reads the encoded tree back: every named tag and
    every list element is a tag; depth counts the levels of lists and compounds (the root compound is 1)."""
    tid = _infer(value)
    if tid == 10 or tid == 9:
        if type(value) in (Encoded, EncodedPieces):
            return value.tags, value.depth
        items = value.values() if tid == 10 else value
        if tid == 9 and _list_subtype(value) not in (9, 10):  # scalars, strings or arrays: one tag each
            return 1 + len(value), 1
        tags, depth = 1, 0
        for item in items:
            below = tree_facts(item)
            tags += below[0]
            depth = max(depth, below[1])
        return tags, depth + 1
    return 1, 0


def encode_nbt(root: dict, root_name: str = "") -> bytes:
    """Uncompressed big-endian NBT of one root compound."""
    return encode_counted(root, root_name)[0]


def encode_counted(root: dict, root_name: str = "") -> tuple[bytes, tuple[int, int]]:
    """:func:`encode_nbt` and the tree's (tags, depth) as :func:`tree_facts` counts them, in one walk."""
    out: list[bytes] = []
    facts = _named(out, root_name, root if tag_type(root) == 10 else Compound(root))
    return b"".join(out), facts


# gzip level: WorldEdit's 6 for everything the server could import (<= 4 MiB of NBT, where the 1 MiB compressed
# limit makes size matter); above that a file is for WorldEdit only and level 3 compresses 3x faster (256^3 build:
# 30 MB of NBT, 232 -> 72 ms, 560 -> 711 KB).
DEFAULT_LEVEL = 6
FAST_LEVEL = 3
FAST_LEVEL_ABOVE = 4 * 1024 * 1024


def compress(raw: bytes, level: int | None = None) -> bytes:
    """A gzip member of ``raw`` (no timestamp: the same tree gives the same bytes); ``level`` 1-9 overrides the
    default (6, or 3 for NBT above 4 MiB)."""
    if level is None:
        level = FAST_LEVEL if len(raw) > FAST_LEVEL_ABOVE else DEFAULT_LEVEL
    return gzip.compress(raw, compresslevel=level, mtime=0)
