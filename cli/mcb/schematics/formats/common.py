"""What the format readers and writers share: the cell limit, checked field access with NBT paths, and block states
written as NBT compounds (``Name`` + ``Properties``, as Litematica and structures store them)."""

from __future__ import annotations

import struct

import numpy as np

from mcb.schematics.document import Document, SchematicError
from mcb.schematics.nbt import (
    TAG_BYTE,
    TAG_COMPOUND,
    TAG_INT,
    TAG_LIST,
    TAG_LONG,
    TAG_SHORT,
    TAG_STRING,
    Compound,
    String,
    is_list_of,
    tag_type,
)
from mcb.wording import dimensions, plural

INT_TAGS = (TAG_BYTE, TAG_SHORT, TAG_INT, TAG_LONG)


class Fields:
    """Checked reads from one document, each failure a ``SchematicError`` with a rule ``<prefix>.*`` and a pointer."""

    def __init__(self, doc: Document, prefix: str):
        self.doc, self.prefix = doc, prefix

    def fail(self, message: str, rule: str, *where, hint: str | None = None) -> SchematicError:
        path = self.doc.path
        return SchematicError(
            f"{path}: {message}" if path else message,
            rule=f"{self.prefix}.{rule}",
            pointer="/" + "/".join(str(w) for w in where),
            hint=hint,
        )

    def get(self, container, key: str, tags: tuple[int, ...], *where, required: bool = True, what: str = ""):
        value = container.get(key) if isinstance(container, dict) else None
        if value is None:
            if required:
                raise self.fail(f"required tag {key} is missing", "field.missing", *where, key)
            return None
        if tag_type(value) not in tags:
            raise self.fail(f"{key} must be {what or _tag_words(tags)}", "field.type", *where, key)
        return value

    def integer(self, container, key: str, *where, required: bool = True) -> int | None:
        value = self.get(container, key, INT_TAGS, *where, required=required, what="an integer")
        return None if value is None else int(value)

    def compounds(self, container, key: str, *where) -> list:
        """A list of compounds (an absent or empty list: [])."""
        value = container.get(key) if isinstance(container, dict) else None
        if value is None:
            return []
        if not is_list_of(value, TAG_COMPOUND):
            raise self.fail(f"{key} must be a list of compounds", "field.type", *where, key)
        return list(value)

    def xyz(self, container, key: str, *where) -> tuple[int, int, int]:
        """A compound ``{x, y, z}`` of integers (Litematica's Position and Size)."""
        value = self.get(container, key, (TAG_COMPOUND,), *where, what="a compound {x, y, z}")
        return tuple(self.integer(value, axis, *where, key) for axis in "xyz")  # type: ignore[return-value]

    def triple(self, value, *where, floats: bool = False) -> tuple:
        """A list of three numbers (structure ``size``/``pos``, legacy entity ``Pos``)."""
        if (
            tag_type(value) != TAG_LIST
            or len(value) != 3
            or (value.subtype not in (5, 6) if floats else value.subtype not in INT_TAGS)
        ):
            kind = "doubles" if floats else "integers"
            raise self.fail(f"must be a list of 3 {kind}", "field.type", *where)
        return tuple(float(v) if floats else int(v) for v in value)

    def check_cells(self, size: tuple[int, int, int], *where) -> int:
        return check_cells(self.doc, size, f"{self.prefix}.size.limit", *where)


def check_cells(doc: Document, size, rule: str, *where) -> int:
    """The volume of ``size``, refused beyond the reader's cell limit (``ReadLimits.max_cells``)."""
    volume = size[0] * size[1] * size[2]
    limit = doc.limits.max_cells
    if volume > limit:
        raise SchematicError(
            f"{doc.path + ': ' if doc.path else ''}the box {dimensions(*size)} "
            f"holds {plural(volume, 'cell')}, above mcb's limit of {limit:,}",
            rule=rule,
            pointer="/" + "/".join(str(w) for w in where if w != ""),
            hint="the file is corrupt, hostile, or larger than any build mcb loads: split it into smaller schematics",
        )
    return volume


def _tag_words(tags: tuple[int, ...]) -> str:
    from mcb.schematics.nbt import TAG_NAMES

    return " or ".join(f"a {TAG_NAMES[t]}" for t in tags)


def state_from_compound(fields: Fields, entry, *where) -> str:
    """``Name`` + ``Properties`` as a block-state string, properties in the file's order."""
    if type(entry) is Compound:  # the common shape first: a palette of 617 entries in one pass each
        name, properties = entry.get("Name"), entry.get("Properties")
        if type(name) is String:
            if properties is None or (type(properties) is Compound and not properties):
                return str(name)
            if type(properties) is Compound and all(type(value) is String for value in properties.values()):
                return f"{name}[{','.join([f'{key}={value}' for key, value in properties.items()])}]"
    name = fields.get(entry, "Name", (TAG_STRING,), *where)
    properties = entry.get("Properties") if isinstance(entry, dict) else None
    if properties is None or not properties:
        return str(name)
    if tag_type(properties) != TAG_COMPOUND:
        raise fields.fail("Properties must be a compound", "field.type", *where, "Properties")
    pairs = []
    for key, value in properties.items():
        if tag_type(value) != TAG_STRING:
            raise fields.fail(f"property {key} must be a string", "field.type", *where, "Properties", key)
        pairs.append(f"{key}={value}")
    return f"{name}[{','.join(pairs)}]"


def compound_from_state(state: str) -> Compound:
    """The ``{Name, Properties?}`` compound of a block-state string."""
    from mcb.blocks.state import parse_state

    parsed = parse_state(state)
    entry = Compound(Name=String(parsed.name))
    if parsed.properties:
        entry["Properties"] = Compound((key, String(value)) for key, value in parsed.properties)
    return entry


_NAME = b"\x08\x00\x04Name"
_PROPERTIES = b"\x0a\x00\x0aProperties"


def encoded_states(states: list[str]):
    """The encoded payload of a list of :func:`compound_from_state` compounds (a Litematica region's
    ``BlockStatePalette``), written straight from each state's parts: the bytes and counts of encoding those
    compounds, without building them."""
    from mcb.blocks.state import parse_state
    from mcb.schematics.nbt_encoder import EncodedPieces, string_payload

    pieces = [struct.pack(">bi", TAG_COMPOUND, len(states))]
    tags, depth = 1 + 2 * len(states), 2 if states else 1  # the list, each entry and its Name
    for state in states:
        parsed = parse_state(state)
        piece = [_NAME, string_payload(parsed.name)]
        if parsed.properties:
            tags += 1 + len(parsed.properties)
            depth = 3
            piece.append(_PROPERTIES)
            for key, value in parsed.properties:
                piece += (b"\x08", string_payload(key), string_payload(value))
            piece.append(b"\x00")
        piece.append(b"\x00")
        pieces.append(b"".join(piece))
    return EncodedPieces(TAG_LIST, pieces, tags, depth)


def without(data, *keys: str) -> Compound:
    """A copy of a compound without ``keys``."""
    copy = Compound(data)
    for key in keys:
        copy.pop(key, None)
    return copy


def dense_palette(blocks: np.ndarray, palette: list[str], void: np.ndarray | None) -> tuple[list[str], np.ndarray]:
    """(the palette entries that non-void cells use, in first-use order, and the cells renumbered to it)."""
    from mcb.schematics.cells import first_seen_order

    flat = blocks.ravel() if void is None else blocks.ravel()[~void.ravel()]
    order = first_seen_order(flat, len(palette)) if flat.size else np.zeros(0, dtype=np.int64)
    remap = np.zeros(max(len(palette), 1), dtype=np.int32)
    remap[order] = np.arange(order.size, dtype=np.int32)
    return [palette[i] for i in order], remap[blocks]
