"""How counts read in human output: one place for "1 state" / "2 states" and for operation progress counters.

An operation's ``total_changes`` counts every plan position, including positions that already hold the desired
block; those are *skipped*, not written (protocol §3.8: ``processed`` = written + skipped). So "654/656" is a
finished, successful apply, and must be said so: "654 of 656 positions written, 2 already matched".

Plain functions with no dependencies, so the core (client/, batch/) and the faces can all use them. JSON output
never goes through here: its fields stay as the server sends them.
"""

from __future__ import annotations

# Nouns whose plural is not noun + "s".
_IRREGULAR = {
    "entity": "entities",
    "property": "properties",
    "match": "matches",
    "box": "boxes",
    "vertex": "vertices",
    "index": "indices",
    "directory": "directories",
    "capture": "captures",
}


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``plural(1, "state")`` → "1 state", ``plural(2, "state")`` → "2 states", ``plural(0, "file")`` → "0 files",
    ``plural(1809, "position")`` → "1,809 positions"."""
    if count == 1:
        return f"{count} {noun}"
    shown_count = count if isinstance(count, str) else f"{count:,}"
    return f"{shown_count} {many or _IRREGULAR.get(noun) or noun + 's'}"


def dimensions(*sides: int) -> str:
    """A box's (or a picture's) size in words, one spelling everywhere: ``dimensions(51, 31, 51)`` → "51 x 31 x 51",
    ``dimensions(320, 180)`` → "320 x 180", ``dimensions(70000, 1, 1)`` → "70,000 x 1 x 1". JSON keeps its numbers."""
    return " x ".join(f"{side:,}" for side in sides)


def tally(counts, shown: int = 4, name=str) -> str:
    """The first ``shown`` of ``counts`` (``{id: count}`` or ``(id, count)`` pairs, most common first) and what the
    list leaves out, so the counts listed always add up to the whole:

    ``tally({"sign": 352, "barrel": 156, "bed": 74}, 2)`` → "sign x352, barrel x156 and 74 more of 1 other id".
    ``name`` turns an id into its shown form (e.g. :func:`shown`)."""
    pairs = list(counts.items() if hasattr(counts, "items") else counts)
    text = ", ".join(f"{name(key)} x{count:,}" for key, count in pairs[:shown])
    rest = pairs[shown:]
    if rest:
        text += f" and {sum(count for _, count in rest):,} more of {plural(len(rest), 'other id')}"
    return text


def listed(items, shown: int, more: str = "more") -> str:
    """``listed(["a", "b", "c", "d"], 2)`` → "a, b and 2 more": the first ``shown`` items and how many are left
    out."""
    items = list(items)
    text = ", ".join(str(item) for item in items[:shown])
    if len(items) > shown:
        text += f" and {len(items) - shown:,} {more}"
    return text


def positions_written(written: int | None, total: int | None, processed: int | None = None) -> str:
    """An operation's progress in words.

    ``positions_written(654, 656, 656)`` → "654 of 656 positions written, 2 already matched";
    ``positions_written(163, 172, 165)`` → "163 of 172 positions written, 2 already matched, 7 not reached";
    without ``processed`` (a listing that does not carry it) only what is known: "163 of 172 positions written".
    """
    if written is None or total is None:
        return "nothing written yet" if not written else f"{plural(written, 'position')} written"
    text = f"{written:,} of {plural(total, 'position')} written"
    if processed is None:
        return text
    matched = max(0, processed - written)
    remaining = max(0, total - processed)
    if matched:
        text += f", {matched:,} already matched"
    if remaining:
        text += f", {remaining:,} not reached"
    return text


EMPTY_TABLE = "none"  # what a table with no rows prints instead of a header over nothing


_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def shown(text) -> str:
    """A path (or any user-given name) as a human sees it in text output: control characters (C0, DEL, C1, line
    separators, bidi overrides) written as escapes (``\\x1b``, ``\\n``, ``\\u202e``), so a file name cannot set
    the terminal's title, colour it or forge an extra line (``::error``); everything else unchanged. JSON keeps
    the exact name."""
    text = str(text)
    if text.isprintable():  # the common case, one C-level scan (printable: no control characters at all)
        return text
    return "".join(_escape(ch) for ch in text)


# Line and paragraph separators and the bidirectional embeddings/overrides/isolates, which reorder what follows.
_INVISIBLE_LAYOUT = frozenset("\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _escape(ch: str) -> str:
    code = ord(ch)
    if ch in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[ch]
    if code < 0x20 or 0x7F <= code < 0xA0:
        return f"\\x{code:02x}"
    if ch in _INVISIBLE_LAYOUT:
        return f"\\u{code:04x}"
    return ch


def duration(seconds: float) -> str:
    """``duration(86.4)`` → "1 min 26 s", ``duration(7260)`` → "2 h 1 min", ``duration(4.2)`` → "4 s",
    ``duration(0.45)`` → "0.5 s" (under ten seconds a tenth is said, so nothing real reads "0 s")."""
    if seconds < 9.95:
        tenths = round(max(0.0, seconds), 1)
        return f"{tenths:g} s" if tenths != int(tenths) else f"{int(tenths)} s"
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {secs} s"
    return f"{secs} s"


def percent(done: int, total: int) -> int:
    """``done`` of ``total`` in whole percent, rounded down: ``percent(4096, 54283)`` → 7, ``percent(46091, 49419)``
    → 93, and 100 only once ``done`` reaches ``total``. What a line says beside "N of M" (the bar itself may move
    through preflight and audit, see :class:`mcb.client.progress.OperationTracker`; the words agree with the counts)."""
    if total <= 0:
        return 100 if done >= total else 0
    return max(0, min(100, 100 * done // total))


def _one(noun: str) -> str:
    """A progress noun ("cells read", "positions to change found") for a count of one: "cell read"."""
    first, _, rest = noun.partition(" ")
    return " ".join(filter(None, (first.removesuffix("s"), rest)))


def progress_line(view) -> str:
    """One plain progress line for a :class:`mcb.client.progress.ProgressView` (piped stderr, NO_COLOR)."""
    parts = []
    about = "~" if view.estimated else ""  # a build's total until its last tile is read
    if view.plans:
        parts.append(f"plan {view.plan or 0}/{about}{view.plans}")
    if view.phase:
        parts.append(view.phase)
    if view.total:
        noun = _one(view.noun) if view.total == 1 and not about else view.noun
        parts.append(f"{view.written:,} of {about}{view.total:,} {noun} ({percent(view.written, view.total)}%)")
    else:
        parts.append(f"{view.written:,} {_one(view.noun) if view.written == 1 else view.noun}")
    if view.rate:
        parts.append(f"{view.rate:,.0f} {view.noun.split()[0]}/s")
    if view.eta is not None:
        parts.append(f"about {duration(view.eta)} left")
    return ", ".join(parts)
