"""What upgrading block-entity and entity data found (:class:`Tally`), and texts: JSON text into NBT text.

Minecraft 1.21.5 stopped storing texts (sign lines, custom names, lore, book pages) as JSON strings: they became NBT
values (a string, a compound, a list), and ``clickEvent``/``hoverEvent`` became ``click_event``/``hover_event``
with named fields. :func:`text_from_json` does that rewrite for one JSON string; what it cannot carry over (a
hover that shows an item or an entity) is left out and counted, never dropped silently.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from mcb.blocks.releases import KNOWN_RELEASES
from mcb.schematics.nbt import TAG_COMPOUND, TAG_STRING, Byte, Compound, Double, Int, List, Long, String, tag_type

TEXT_AS_NBT = KNOWN_RELEASES["1.21.5"]  # texts stored as NBT, not JSON strings
LEFT_OUT = "left out"
KEPT = "kept as written"


@dataclass
class Tally:
    """Counts of what an upgrade changed (``upgraded``) and what it could not (``not_upgraded``: left out, or kept
    as written without a rule that says it is still right), keyed by a sentence a user reads."""

    upgraded: Counter = field(default_factory=Counter)
    not_upgraded: Counter = field(default_factory=Counter)  # (what, outcome) -> count

    def did(self, change: str, count: int = 1) -> None:
        self.upgraded[change] += count

    def lost(self, what: str, count: int = 1) -> None:
        self.not_upgraded[(what, LEFT_OUT)] += count

    def kept(self, what: str, count: int = 1) -> None:
        self.not_upgraded[(what, KEPT)] += count

    def to_json(self) -> dict:
        return {
            "upgraded": [{"change": change, "count": n} for change, n in self.upgraded.most_common()],
            "not_upgraded": [
                {"what": what, "outcome": outcome, "count": n} for (what, outcome), n in self.not_upgraded.most_common()
            ],
        }


def text_from_json(raw, tally: Tally):
    """The NBT text (1.21.5+) of a text stored as a JSON string (older releases). A value that is not a string is
    already NBT and is returned as it is; a string that is not JSON is kept as plain text (counted)."""
    if tag_type(raw) not in (TAG_STRING, -1) or not isinstance(raw, str):
        return raw
    from mcb.fileio import loads_json

    try:
        value = loads_json(raw)
    except (ValueError, RecursionError):
        tally.did("texts that were not JSON, kept as plain text")
        return String(raw)
    tally.did("texts from JSON into NBT text components (Minecraft 1.21.5)")
    return _text(value, tally)


def _text(value, tally: Tally):
    if isinstance(value, str):
        return String(value)
    if isinstance(value, bool):
        return String("true" if value else "false")
    if isinstance(value, (int, float)):
        return String(json.dumps(value))
    if isinstance(value, list):
        return texts([_text(item, tally) for item in value])
    if isinstance(value, dict):
        return _component(value, tally)
    return String("")  # JSON null: an empty text


def texts(values: list) -> List:
    """A list of texts of one tag type: when strings and compounds mix, each string becomes ``{text: ...}``."""
    if all(tag_type(v) == TAG_STRING for v in values):
        return List(values, TAG_STRING)
    return List([v if tag_type(v) == TAG_COMPOUND else _wrapped(v) for v in values], TAG_COMPOUND)


def _wrapped(value) -> Compound:
    if tag_type(value) == TAG_STRING:
        return Compound(text=value)
    return Compound(text=String(""), extra=value)  # a list inside a list


_FLAGS = ("bold", "italic", "underlined", "strikethrough", "obfuscated", "interpret")
_CLICK_FIELDS = {
    "open_url": "url",
    "run_command": "command",
    "suggest_command": "command",
    "change_page": "page",
    "copy_to_clipboard": "value",
    "open_file": "path",
}


def _component(data: dict, tally: Tally):
    if set(data) == {"text"} and isinstance(data["text"], str):
        return String(data["text"])
    out = Compound()
    for name, value in data.items():
        if name in _FLAGS:
            out[name] = Byte(1 if value else 0)
        elif name in ("extra", "with") and isinstance(value, list):
            out[name] = texts([_text(item, tally) for item in value])
        elif name == "separator":
            out[name] = _text(value, tally)
        elif name == "clickEvent" and isinstance(value, dict):
            click = _click(value)
            if click is None:
                tally.lost("click events of an unknown action in texts")
            else:
                out["click_event"] = click
        elif name == "hoverEvent" and isinstance(value, dict):
            hover = _hover(value, tally)
            if hover is None:
                tally.lost("hover events showing an item or an entity in texts")
            else:
                out["hover_event"] = hover
        else:
            out[name] = plain(value)
    return out


def _click(event: dict) -> Compound | None:
    action = event.get("action")
    target = _CLICK_FIELDS.get(action)
    if target is None or "value" not in event:
        return None
    value = event["value"]
    if target == "page":
        try:
            return Compound(action=String(action), page=Int(int(value)))
        except (TypeError, ValueError):
            return None
    return Compound(action=String(action), **{target: String(str(value))})


def _hover(event: dict, tally: Tally) -> Compound | None:
    if event.get("action") != "show_text":
        return None
    shown = event.get("contents", event.get("value"))
    return Compound(action=String("show_text"), value=_text(shown, tally))


def plain(value):
    """A JSON value as NBT, as the game's JSON-to-NBT rule types it: booleans as bytes, whole numbers as ints (longs
    when they do not fit), other numbers as doubles, lists of one type."""
    if isinstance(value, bool):
        return Byte(1 if value else 0)
    if isinstance(value, int):
        return Int(value) if -(2**31) <= value < 2**31 else Long(value)
    if isinstance(value, float):
        return Double(value)
    if isinstance(value, str):
        return String(value)
    if isinstance(value, dict):
        return Compound((k, plain(v)) for k, v in value.items())
    if isinstance(value, list):
        items = [plain(v) for v in value]
        kinds = {tag_type(v) for v in items}
        if len(kinds) > 1:  # mixed: each as its JSON text
            return List([String(json.dumps(v)) for v in value], TAG_STRING)
        return List(items, kinds.pop() if kinds else TAG_STRING)
    return String("")
