"""Skim mode of the NBT reader: check a container's structure and limits without building objects.

Used on the validation fast path for block-entity and entity payloads (a 256^3 file holds ~10^6 such tags).
Two memos keep it fast on real files, both sound because an NBT payload is self-delimiting (equal bytes parse
equally and end at the same place): whole containers already walked under the same tag name, and whole list
entries that differ from an earlier one only in their ``Pos`` payload.
"""

from __future__ import annotations

import struct

from mcb.schematics.nbt import (TAG_BYTE_ARRAY, TAG_COMPOUND, TAG_DOUBLE, TAG_INT_ARRAY, TAG_LIST, TAG_LONG_ARRAY,
                                TAG_NAMES, TAG_STRING, Double, IntArray, List, encode_mutf8, tag_type)

# Lists whose compound entries are memoised with a hole at their Pos payload.
ENTRY_LISTS = frozenset({"BlockEntities", "TileEntities", "Entities"})


class Skipped:
    """Placeholder for a container whose structure was checked but not materialised.

    ``raw`` holds the encoded payload when the reader keeps raw bytes (model reads), else None (validation).
    """

    __slots__ = ("tag_id", "size", "raw")

    def __init__(self, tag_id: int, size: int, raw: bytes | None = None):
        self.tag_id = tag_id
        self.size = size
        self.raw = raw

    def decode(self):
        """The container as ordinary tags (requires ``raw``)."""
        from mcb.schematics.nbt import ReadLimits, ReadStats, _Reader

        if self.raw is None:
            raise ValueError("this container was skimmed without keeping its bytes")
        reader = _Reader(self.raw, False, ReadLimits(), ReadStats())
        return reader.payload(self.tag_id, 0)

    def __repr__(self) -> str:
        return f"Skipped({TAG_NAMES[self.tag_id]}, {self.size} bytes)"


_FIXED = (0, 1, 2, 4, 8, 4, 8)  # payload sizes of End..Double
_HEAD = (0, 1, 2, 4, 8, 4, 8, 4, 2, 5, 0, 4, 4)  # bytes needed before the payload size is known


def skip_container(reader, tag: int, depth: int) -> Skipped:
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


class Skimmer:
    """Per-document memo state for skipped containers."""

    def __init__(self, reader, keep_raw: bool = False):
        self.reader = reader
        self.keep_raw = keep_raw
        # name -> encodings of containers already walked under that name, with their stats
        self.seen: dict[str, list[tuple[bytes, int, int, int, int]]] = {}
        # entry templates: first _KEY bytes -> {(prefix length, hole): {prefix: {suffix key length:
        #   {suffix head: [(suffix, entry without Pos, stats to replay, unpack, Pos class)]}}}}
        self.templates: dict = {}
        self.template_count = 0
        self.template_bytes = 0
        self.recent: list[tuple] = []  # most recently found templates, newest first

    def skip(self, tag: int, depth: int, name: str) -> Skipped:
        """Skip a container, reusing earlier walks of byte-identical containers.

        An NBT payload is self-delimiting, so bytes equal to an encoding that was already checked parse the same
        way and end at the same place; real files repeat block-entity contents (barrels of the same items) a lot.
        """
        reader = self.reader
        seen = self.seen.setdefault(name, [])
        buf, pos = reader.buf, reader.pos
        for encoding, tags, rel_depth, max_list, max_str in seen:
            if buf.startswith(encoding, pos):
                reader.pos = pos + len(encoding)
                stats = reader.stats
                stats.tag_count += tags
                stats.max_depth = max(stats.max_depth, depth + rel_depth)
                stats.max_list_length = max(stats.max_list_length, max_list)
                stats.max_string_bytes = max(stats.max_string_bytes, max_str)
                if stats.tag_count > reader.limits.max_tags:
                    raise reader.fail(f"more than {reader.limits.max_tags} tags", "nbt.limit.tags")
                return Skipped(tag, len(encoding), encoding if self.keep_raw else None)
        stats = reader.stats
        before = (stats.tag_count, stats.max_depth, stats.max_list_length, stats.max_string_bytes)
        stats.max_depth = stats.max_list_length = stats.max_string_bytes = 0
        start_abs = reader.base + reader.pos
        outer_mark = reader.mark
        if outer_mark is None:
            reader.mark = start_abs  # keep the container's bytes across buffer refills
        try:
            skipped = skip_container(reader, tag, depth)
        finally:
            reader.mark = outer_mark
            walked = (stats.tag_count - before[0], stats.max_depth - depth, stats.max_list_length,
                      stats.max_string_bytes)
            stats.max_depth = max(before[1], stats.max_depth)
            stats.max_list_length = max(before[2], stats.max_list_length)
            stats.max_string_bytes = max(before[3], stats.max_string_bytes)
        encoded = reader.buf[start_abs - reader.base:reader.pos]
        if self.keep_raw:
            skipped.raw = encoded
        if len(seen) < 16 and skipped.size <= 65536:
            seen.append((encoded, *walked))
        return skipped

    # --- whole list entries with a Pos hole ---------------------------------------------------------------------
    def entries(self, n: int, depth: int):
        """Check ``n`` compound entries of a block-entity/entity list (:func:`mcb.schematics.nbt_scan.scan_entries`).

        Template hits stay a template number and their Pos bytes (no object per entry). In model reads the values
        the templates hold are ``Skipped`` with raw bytes, so the model keeps 40k equal block entities as columns
        and a writer copies their contents byte for byte (:mod:`mcb.schematics.sponge`)."""
        from mcb.schematics.nbt_scan import scan_entries

        return scan_entries(self, n, depth)

    def lookup(self, buf: bytes, pos: int):
        """The remembered template that the entry at ``pos`` matches outside its Pos payload (made the most recent
        one), or None."""
        groups = self.templates.get(buf[pos:pos + _KEY])
        if not groups:
            return None
        for (length, hole), table in groups.items():
            heads = table.get(buf[pos:pos + length])
            if not heads:
                continue
            after = pos + length + hole
            for head_length, by_head in heads.items():
                candidates = by_head.get(buf[after:after + head_length])
                if not candidates:
                    continue
                for suffix, entry, replay, unpack, cls in candidates:
                    if buf.startswith(suffix, after):
                        recent = (buf[pos:pos + length], length, length + hole, suffix, entry, replay, unpack, cls)
                        self.recent.insert(0, recent)
                        del self.recent[_RECENT:]
                        return recent
        return None

    def parse_and_remember(self, depth: int):
        reader = self.reader
        stats = reader.stats
        before = (stats.tag_count, stats.max_depth, stats.max_list_length, stats.max_string_bytes,
                  len(stats.duplicate_names), stats.non_mutf8_strings)
        stats.max_depth = stats.max_list_length = stats.max_string_bytes = 0
        start_abs = reader.base + reader.pos
        outer_mark = reader.mark
        if outer_mark is None:
            reader.mark = start_abs
        try:
            entry = reader.payload(TAG_COMPOUND, depth)
        finally:
            reader.mark = outer_mark
            replay = (stats.tag_count - before[0], stats.max_depth - depth, stats.max_list_length,
                      stats.max_string_bytes)
            stats.max_depth = max(before[1], stats.max_depth)
            stats.max_list_length = max(before[2], stats.max_list_length)
            stats.max_string_bytes = max(before[3], stats.max_string_bytes)
        clean = len(stats.duplicate_names) == before[4] and stats.non_mutf8_strings == before[5]
        if clean and self.template_count < 4096:
            self.remember(reader.buf[start_abs - reader.base:reader.pos], entry, replay)
        return entry

    def remember(self, encoded: bytes, entry, replay) -> None:
        """Record ``encoded`` as a template whose only variable part is the Pos payload."""
        offset = 0
        for key, value in entry.items():
            head = 3 + len(encode_mutf8(key))
            if key == "Pos":
                kind = tag_type(value)
                if kind == TAG_INT_ARRAY and len(value) == 3:
                    start, hole, unpack, cls = offset + head + 4, 12, _unpack_ints, IntArray
                elif kind == TAG_LIST and value.subtype == TAG_DOUBLE and len(value) == 3:
                    start, hole, unpack, cls = offset + head + 5, 24, _unpack_doubles, _double_list
                else:
                    return
                break
            size = _payload_size(value)
            if size is None:
                return
            offset += head + size
            if offset > _MAX_PREFIX:
                return
        else:
            return
        prefix, suffix = encoded[:start], encoded[start + hole:]
        if len(prefix) > _MAX_PREFIX or len(encoded) > 65536 or self.template_bytes > _MAX_TEMPLATE_BYTES:
            return  # a huge entry (or too many remembered): parse such entries instead
        self.template_bytes += len(encoded)
        heads = self.templates.setdefault(prefix[:_KEY], {}).setdefault((len(prefix), hole), {}).setdefault(prefix, {})
        head_length = min(_SUFFIX_KEY, len(suffix))
        candidates = heads.setdefault(head_length, {}).setdefault(suffix[:head_length], [])
        if len(candidates) < 8:
            candidates.append((suffix, {k: v for k, v in entry.items() if k != "Pos"}, replay, unpack, cls))
            self.template_count += 1


_RECENT = 4         # templates tried before the lookup (81% of the 256^3 file's entries hit one)
_KEY = 8            # entry bytes used as the first lookup key (a Pos prefix is at least 10 bytes)
_MAX_PREFIX = 8192  # only entries whose Pos payload starts within this many bytes get templates
_SUFFIX_KEY = 32    # bytes after the Pos payload used as the second lookup key
_MAX_TEMPLATE_BYTES = 16 * 1024 * 1024
_INTS = struct.Struct(">3i")
_DOUBLES = struct.Struct(">3d")


def _unpack_ints(buf, at):
    return _INTS.unpack_from(buf, at)


def _unpack_doubles(buf, at):
    return _DOUBLES.unpack_from(buf, at)


def _double_list(values) -> List:
    return List([Double(v) for v in values], TAG_DOUBLE)


_SCALAR_SIZE = {1: 1, 2: 2, 3: 4, 4: 8, 5: 4, 6: 8}


def _payload_size(value) -> int | None:
    """Encoded payload size of a value produced by the skim-mode parser (None when it cannot be known)."""
    if isinstance(value, Skipped):
        return value.size
    kind = tag_type(value)
    if kind in _SCALAR_SIZE:
        return _SCALAR_SIZE[kind]
    if kind == TAG_STRING:
        return 2 + len(encode_mutf8(value))
    if kind == TAG_BYTE_ARRAY:
        return 4 + len(value)
    if kind == TAG_INT_ARRAY:
        return 4 + 4 * len(value)
    if kind == TAG_LONG_ARRAY:
        return 4 + 8 * len(value)
    if kind == TAG_LIST and value.subtype in _SCALAR_SIZE:
        return 5 + _SCALAR_SIZE[value.subtype] * len(value)
    if kind == TAG_LIST and not len(value):
        return 5
    return None
