"""The NBT reader's memories of what it has read (private to :mod:`mcb.schematics.nbt`): real files repeat
block-entity contents (the 256^3 corpus file's 12,076 barrels hold 19 different inventories of 60 different items),
and equal bytes read equally (an NBT payload is self-delimiting). What comes next byte for byte as something read
before is not walked again: its walk's facts are added (tag count, depth, longest list and string), and a built
value is a copy of the one built then (its own compounds, sharing their immutable values as every repeated scalar
is shared). Only what was read cleanly is remembered: a duplicate name or a non-MUTF-8 string is counted anew by a
real walk, and a limit a repeat would pass is left to the walk, which says where.

* containers a caller skips or keeps as bytes (:meth:`Memos.skipped`, :meth:`Memos.encoded`), by tag and name;
* compounds of plain values inside a list, and lists of them (:meth:`Memos.leaf`, :meth:`Memos.leaf_list`), by
  their first bytes.
"""

from __future__ import annotations

from mcb.schematics.nbt_tags import (
    TAG_COMPOUND,
    Byte,
    ByteArray,
    Compound,
    Double,
    Encoded,
    Float,
    Int,
    IntArray,
    List,
    Long,
    LongArray,
    NumericArray,
    Short,
    String,
)

_LEAVES = 4096  # compounds remembered (and lists of them)
_LEAF_KEY = 16  # bytes that find the candidates (a leaf's first bytes), and the least a remembered leaf holds
_LEAF_BYTES = 512  # the most
_LEAF_VALUES = frozenset({Byte, Short, Int, Long, Float, Double, String, ByteArray, IntArray, LongArray, NumericArray})


class Memos:
    """Mixed into :class:`mcb.schematics.nbt_walker.Walker`, whose input, stats and walk they use."""

    def start_memos(self) -> None:
        self.seen: dict[tuple, list[tuple]] = {}  # skipped containers by (tag, name): (Encoded, facts of the walk)
        self.walked_depth = 0  # levels of the container skipped() walked last (itself included)
        self.leaves: dict[bytes, list[list]] = {}  # leaf compounds by their first bytes: [payload, it, tags, hits]
        self.leaf_count, self.leaves_full = 0, False
        self.leaf_lists: dict[tuple, list[tuple]] = {}  # lists of leaf compounds by (length, first bytes)

    def encoded(self, tag: int, depth: int, name: str) -> Encoded:
        """A container walked unbuilt (:meth:`skipped`) and kept as its payload bytes (the memo's own value when it
        equals a container seen before: one shared object, its hash computed once)."""
        start = self.base + self.pos
        outer, self.mark = self.mark, start if self.mark is None else self.mark
        tags = self.stats.tag_count
        try:
            same = self.skipped(tag, depth, name)
        finally:
            self.mark = outer
        if same is not None:
            return same
        return Encoded(tag, self.buf[start - self.base : self.pos], self.stats.tag_count - tags, self.walked_depth)

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
        outer = (
            stats.tag_count,
            stats.max_depth,
            stats.max_list_length,
            stats.max_string_bytes,
            len(stats.duplicate_names),
            stats.non_mutf8_strings,
        )
        stats.max_depth, stats.max_list_length, stats.max_string_bytes = depth, 0, 0
        start = self.base + self.pos
        try:
            self.payload(tag, depth, False)
        finally:
            facts = (stats.tag_count - outer[0], stats.max_depth - depth, stats.max_list_length, stats.max_string_bytes)
            self.walked_depth = facts[1]
            stats.max_depth = max(stats.max_depth, outer[1])
            stats.max_list_length = max(stats.max_list_length, outer[2])
            stats.max_string_bytes = max(stats.max_string_bytes, outer[3])
        clean = len(stats.duplicate_names) == outer[4] and stats.non_mutf8_strings == outer[5]
        size = self.base + self.pos - start
        if clean and len(seen) < 16 and size <= 65536 and start >= self.base:  # still in the buffer
            seen.append((Encoded(tag, self.buf[start - self.base : self.pos], facts[0], facts[1]), size, *facts))
            return seen[-1][0]

    def leaf_list(self, n: int, depth: int) -> List | None:
        """Copies of the leaf compounds of the remembered list of ``n`` whose bytes come next, or None."""
        buf, pos = self.buf, self.pos
        candidates = self.leaf_lists.get((n, buf[pos : pos + _LEAF_KEY]))
        if candidates is None:
            return None
        stats = self.stats
        for payload, known, tags in candidates:
            if buf.startswith(payload, pos):
                if stats.tag_count + tags > self.limits.max_tags or depth > self.limits.max_depth:
                    return None  # the walk says where the limit is passed
                if depth > stats.max_depth:
                    stats.max_depth = depth
                stats.tag_count += tags
                self.pos = pos + len(payload)
                return List([Compound(item) for item in known], TAG_COMPOUND)
        return None

    def remember_list(self, items: List, start: int, facts: tuple[int, int, int]) -> None:
        """Remember a list of leaf compounds just built (as :meth:`remember` remembers one)."""
        stats = self.stats
        size = self.base + self.pos - start
        if (
            len(self.leaf_lists) >= _LEAVES
            or not _LEAF_KEY <= size <= 64 * _LEAF_BYTES
            or start < self.base
            or stats.non_mutf8_strings != facts[1]
            or len(stats.duplicate_names) != facts[2]
            or any(type(value) not in _LEAF_VALUES for item in items for value in item.values())
        ):
            return
        payload = self.buf[start - self.base : self.pos]
        candidates = self.leaf_lists.setdefault((len(items), payload[:_LEAF_KEY]), [])
        if len(candidates) < 8:
            candidates.append((payload, list(items), stats.tag_count - facts[0]))

    def leaf(self, depth: int) -> Compound | None:
        """A copy of the remembered leaf compound whose bytes come next (its walk's facts added), or None."""
        buf, pos = self.buf, self.pos
        candidates = self.leaves.get(buf[pos : pos + _LEAF_KEY])
        if candidates is None:
            return None
        stats = self.stats
        for entry in candidates:
            payload, known, tags, _ = entry
            if buf.startswith(payload, pos):
                if stats.tag_count + tags > self.limits.max_tags or depth > self.limits.max_depth:
                    return None  # the walk says where the limit is passed
                if depth > stats.max_depth:
                    stats.max_depth = depth
                stats.tag_count += tags
                self.pos = pos + len(payload)
                entry[3] += 1
                return Compound(known)  # its values are immutable: shared, as every repeated scalar is
        return None

    def remember(self, value: Compound, start: int, facts: tuple[int, int, int]) -> None:
        """Remember a compound just built from ``start`` (``facts``: the tag count, non-MUTF-8 strings and duplicate
        names before it) when it holds only plain values, was read cleanly (nothing a later occurrence would count
        again) and its bytes are still in the buffer."""
        stats = self.stats
        size = self.base + self.pos - start
        if (
            not _LEAF_KEY <= size <= _LEAF_BYTES
            or start < self.base
            or stats.non_mutf8_strings != facts[1]
            or len(stats.duplicate_names) != facts[2]
            or not _LEAF_VALUES.issuperset(map(type, value.values()))
        ):
            return
        if self.leaf_count >= _LEAVES:  # full: forget the ones never met again (block entities at their positions)
            if self.leaves_full:
                return
            self.leaves = {key: kept for key, found in self.leaves.items() if (kept := [e for e in found if e[3]])}
            self.leaf_count = sum(map(len, self.leaves.values()))
            if self.leaf_count >= _LEAVES // 2:  # mostly met again: keep these, remember no more
                self.leaves_full = True
                return
        payload = self.buf[start - self.base : self.pos]
        candidates = self.leaves.setdefault(payload[:_LEAF_KEY], [])
        if len(candidates) < 8:
            candidates.append([payload, value, stats.tag_count - facts[0], 0])  # the last: times met again
            self.leaf_count += 1
