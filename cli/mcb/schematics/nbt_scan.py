"""Scan of block-entity/entity lists: check every entry, keep only what the rules (or the model) read.

Used by validation and by skimmed model reads (whose template values keep their raw bytes). A validator needs of
each entry its ``Pos`` and ``Id`` and the structure facts (tag count, depth, string and list lengths) that the
server's limits judge. Entries equal to a remembered one outside their ``Pos`` payload (the
templates of :mod:`mcb.schematics.nbt_skim`) are not turned into objects: the scan keeps the template's number and
the Pos bytes, and :class:`ScannedEntries` hands them to the rules as arrays (a 256^3 file has 42,010 entries).
"""

from __future__ import annotations

from collections import Counter

from mcb.schematics.nbt_tags import TAG_COMPOUND, TAG_LIST, IntArray, TemplateEntry

_RECENT = 8  # templates tried before the full lookup


class ScannedEntries:
    """A list of compound entries as the validation scan saw it: quacks like an NBT ``List`` of compounds.

    ``template_hits()`` gives the entries rebuilt from templates grouped by template, with their Pos values as
    one array per group; ``irregular()`` the entries that were parsed one by one. Iterating materialises every
    entry in order (TemplateEntry for template hits), for callers that want plain dicts.
    """

    tag_id = TAG_LIST
    subtype = TAG_COMPOUND

    def __init__(self, count: int, order: list[int], pos_bytes: list[bytes], templates: list[tuple],
                 parsed: dict[int, object]):
        self._count = count
        self._order = order          # template number of each template hit, in entry order
        self._pos = pos_bytes        # the raw Pos payload of each template hit
        self._templates = templates  # number -> template tuple (see Skimmer.lookup)
        self._parsed = parsed        # entry index -> entry parsed one by one

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0

    def __iter__(self):
        hit = 0
        for index in range(self._count):
            entry = self._parsed.get(index)
            if entry is None:
                entry = self._rebuild(hit)
                hit += 1
            yield entry

    def _rebuild(self, hit: int) -> TemplateEntry:
        template = self._templates[self._order[hit]]
        entry, unpack, cls = template[4], template[6], template[7]
        rebuilt = TemplateEntry(entry)
        dict.__setitem__(rebuilt, "Pos", cls(unpack(self._pos[hit], 0)))
        rebuilt.template = entry
        return rebuilt

    def irregular(self):
        """(index, entry) for the entries parsed one by one."""
        return sorted(self._parsed.items())

    def hit_templates(self) -> list[tuple]:
        """``(entry_without_pos, pos_class)`` of every template that has hits."""
        return [(self._templates[number][4], self._templates[number][7]) for number in sorted(set(self._order))]

    def hit_positions(self) -> bytes:
        """The Pos payloads of all template hits, in entry order, joined."""
        return b"".join(self._pos)

    def template_groups(self):
        """:meth:`template_hits` without numpy, in plain lists: ``(entry_without_pos, pos_class, unpack, indices,
        pos_payloads)`` per template, where ``unpack(payload, 0)`` gives one entry's Pos values."""
        if not self._order:
            return
        parsed = self._parsed
        list_index = [i for i in range(self._count) if i not in parsed] if parsed else range(self._count)
        groups: dict[int, list[int]] = {}
        for hit, number in enumerate(self._order):
            hits = groups.get(number)
            if hits is None:
                groups[number] = [hit]
            else:
                hits.append(hit)
        payloads = self._pos
        for number in sorted(groups):
            hits = groups[number]
            template = self._templates[number]
            yield (template[4], template[7], template[6], [list_index[h] for h in hits],
                   [payloads[h] for h in hits])

    def template_hits(self):
        """Yield ``(entry_without_pos, pos_class, indices, positions)`` per template: ``indices`` are the entries'
        list indices (numpy int64), ``positions`` an (n, 3) array (int32 for Int_Array Pos, float64 for doubles).
        """
        import numpy as np

        if not self._order:
            return
        order = np.asarray(self._order, dtype=np.int64)
        hit_index = np.arange(order.size)
        if self._parsed:  # list index of each hit: skip the parsed entries' slots
            parsed = np.fromiter(sorted(self._parsed), dtype=np.int64)
            slots = np.ones(self._count, dtype=bool)
            slots[parsed] = False
            list_index = np.flatnonzero(slots)
        else:
            list_index = hit_index
        sort = np.argsort(order, kind="stable")
        groups = np.flatnonzero(np.diff(order[sort])) + 1
        for chunk in np.split(sort, groups):
            template = self._templates[int(order[chunk[0]])]
            cls = template[7]
            blob = b"".join([self._pos[i] for i in chunk.tolist()])
            if cls is IntArray:
                positions = np.frombuffer(blob, dtype=">i4").reshape(-1, 3).astype(np.int32)
            else:
                positions = np.frombuffer(blob, dtype=">f8").reshape(-1, 3).astype(np.float64)
            yield template[4], cls, list_index[chunk], positions


def scan_entries(skimmer, n: int, depth: int) -> ScannedEntries:
    """Check ``n`` compound entries at the reader's position (a list of block entities or entities).

    Same checks and statistics as parsing every entry (:meth:`Skimmer.parse_and_remember`); a template hit costs
    a guess, two ``startswith`` calls and two appends, and the statistics are replayed once per template at the end.
    """
    reader = skimmer.reader
    stats = reader.stats
    numbers: dict[int, int] = {}   # id(template's entry dict, kept alive by the skimmer) -> template number
    templates: list[tuple] = []
    order: list[int] = []
    pos_bytes: list[bytes] = []
    parsed: dict[int, object] = {}
    recent: list[tuple] = []       # (prefix, Pos offset, Pos end, suffix, entry length, number), newest first
    follow: dict[int, tuple] = {}  # template number -> the record of the template that came after it last time
    add_order, add_pos = order.append, pos_bytes.append
    path = reader.path
    previous = -1
    for index in range(n):
        buf, pos = reader.buf, reader.pos
        # Real lists repeat patterns (sign, barrel, comparator, sign, ...): the template that followed the previous
        # entry's template last time is right about 3 times in 4.
        guess = follow.get(previous)
        if guess is not None and buf.startswith(guess[0], pos) and buf.startswith(guess[3], pos + guess[2]):
            prefix, length, span, suffix, end, number = guess
        else:
            for record in recent:
                if buf.startswith(record[0], pos) and buf.startswith(record[3], pos + record[2]):
                    break
            else:
                template = skimmer.lookup(buf, pos)
                if template is None:
                    path.append(str(index))
                    parsed[index] = skimmer.parse_and_remember(depth)
                    path.pop()
                    previous = -1
                    continue
                number = numbers.get(id(template[4]))
                if number is None:
                    number = numbers[id(template[4])] = len(templates)
                    templates.append(template)
                record = (template[0], template[1], template[2], template[3], template[2] + len(template[3]), number)
                recent.insert(0, record)
                del recent[_RECENT:]
            follow[previous] = record
            prefix, length, span, suffix, end, number = record
        add_order(number)
        add_pos(buf[pos + length:pos + span])
        reader.pos = pos + end
        previous = number
    # Replay what walking each template's bytes recorded, once per template.
    max_tags = reader.limits.max_tags
    for number, count in Counter(order).items():
        tags, rel_depth, max_list, max_str = templates[number][5]
        stats.tag_count += tags * count
        if depth + rel_depth > stats.max_depth:
            stats.max_depth = depth + rel_depth
        if max_list > stats.max_list_length:
            stats.max_list_length = max_list
        if max_str > stats.max_string_bytes:
            stats.max_string_bytes = max_str
    if stats.tag_count > max_tags:
        raise reader.fail(f"more than {max_tags} tags", "nbt.limit.tags")
    return ScannedEntries(n, order, pos_bytes, templates, parsed)

