"""A tiny, independent NBT byte builder for test fixtures (deliberately not using mcb's writer).

Values are given as ``(tag_id, payload)`` pairs so a fixture can state exact tag types, duplicates and bad lengths.
"""

from __future__ import annotations

import gzip
import struct


def name(text: str) -> bytes:
    raw = text.encode("utf-8")
    return struct.pack(">H", len(raw)) + raw


def payload(tag: int, value) -> bytes:
    if tag == 1:
        return struct.pack(">b", value)
    if tag == 2:
        return struct.pack(">h", value)
    if tag == 3:
        return struct.pack(">i", value)
    if tag == 4:
        return struct.pack(">q", value)
    if tag == 6:
        return struct.pack(">d", value)
    if tag == 7:
        return struct.pack(">i", len(value)) + bytes(value)
    if tag == 8:
        return name(value)
    if tag == 9:
        subtype, items = value
        return struct.pack(">bi", subtype, len(items)) + b"".join(payload(subtype, item) for item in items)
    if tag == 10:
        return compound_body(value)
    if tag == 11:
        return struct.pack(">i", len(value)) + b"".join(struct.pack(">i", v) for v in value)
    if tag == 12:
        return struct.pack(">i", len(value)) + b"".join(struct.pack(">q", v) for v in value)
    if tag == 5:
        return struct.pack(">f", value)
    raise ValueError(tag)


def compound_body(entries) -> bytes:
    """``entries``: list of (name, tag, value); a list keeps duplicates and order."""
    return b"".join(bytes([tag]) + name(key) + payload(tag, value) for key, tag, value in entries) + b"\x00"


def document(entries, root_name: str = "Schematic", *, compress: bool = True, trailing: bytes = b"") -> bytes:
    raw = b"\x0a" + name(root_name) + compound_body(entries) + trailing
    return gzip.compress(raw, mtime=0) if compress else raw


def v2_entries(
    *,
    data=(0, 1, 1, 0),
    palette=(("minecraft:stone", 0), ("minecraft:air", 1)),
    size=(2, 1, 2),
    version=2,
    data_version=4903,
    extra=(),
    offset=(0, 0, 0),
):
    """A small valid v2 schematic's root entries (the server's fixture shape: data [0,1,1,0])."""
    entries = [
        ("Version", 3, version),
        ("DataVersion", 3, data_version),
        ("Width", 2, size[0]),
        ("Height", 2, size[1]),
        ("Length", 2, size[2]),
        ("Offset", 11, list(offset)),
        ("PaletteMax", 3, len(palette)),
        ("Palette", 10, [(state, 3, index) for state, index in palette]),
        ("BlockData", 7, bytes(data)),
    ]
    return entries + list(extra)


def reference_varints(values) -> bytes:
    """Sponge BlockData written the plain way, one value at a time (the oracle for the varint codecs)."""
    out = bytearray()
    for value in values:
        while True:
            low, value = value & 0x7F, value >> 7
            out.append(low | (0x80 if value else 0))
            if not value:
                break
    return bytes(out)
