"""The material catalog behind ``material_search`` and ``material_describe`` (protocol §3.2–3.3, terrain-materials §6).

The real plugin builds its catalog from every non-legacy Bukkit ``Material``. We have no item registry, only the
packaged block registry, so the emulator catalog is: every registered block (``block=true``; ``item`` from the
table of block-only IDs in :mod:`mcb.server.catalog_data`) plus a fixed list of common item-only IDs. The search,
cursor and version algorithms are the plugin's exactly; the version necessarily differs from a live server's because
the entry list does (terrain-materials §6.5 says that is expected).

Errors are :class:`CatalogError` with the wire ``code`` and ``message``; the RPC layer turns them into faults.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

CATALOG_FORMAT = "material-catalog-v1"
DEFAULT_LIMIT = 16
MAX_LIMIT = 32
MAX_QUERY_UTF16 = 96
MAX_CURSOR_LENGTH = 100
MAX_DESCRIBE_ID = 128
KINDS = ("block", "item", "all")

# Describe limits (MC describe): never truncate, refuse instead.
MAX_PROPERTIES = 64
MAX_DOMAIN_VALUES = 256
MAX_DESCRIPTION_CHARS = 16_384
MAX_DEFAULT_STATE = 1024

BEHAVIOR_ORDER = (
    "gravity",
    "fluid",
    "waterloggable",
    "multi_block",
    "half_property",
    "attachment_sensitive",
    "leaf_decay",
    "block_entity",
)

_CURSOR_RE = re.compile(r"[0-9a-f]{24}:[0-9a-f]{24}:[0-9]{1,9}")
_DESCRIBE_ID_RE = re.compile(r"(?:minecraft:)?[a-z0-9_./-]+")


class CatalogError(Exception):
    """A material request the plugin refuses; ``code`` is the wire error code."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class CatalogEntry:
    id: str
    block: bool
    item: bool


@dataclass(frozen=True)
class BlockDescription:
    """What describe needs from the block registry for one block."""

    default_state: str
    properties: Mapping[str, tuple[str, ...]]  # name -> allowed values in runtime order
    behavior: tuple[str, ...] = ()


def hex24(text: str) -> str:
    """First 12 bytes of SHA-256 over the UTF-8 text, as 24 lowercase hex characters."""
    return hashlib.sha256(text.encode("utf-8")).digest()[:12].hex()


def is_iso_control(ch: str) -> bool:
    """Java ``Character.isISOControl``: U+0000–U+001F and U+007F–U+009F."""
    code = ord(ch)
    return code <= 0x1F or 0x7F <= code <= 0x9F


def utf16_length(text: str) -> int:
    """Length as Java counts it (surrogate pairs are two units)."""
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


def _java_whitespace(ch: str) -> bool:
    """Java ``Character.isWhitespace``: Unicode separators except the no-break ones, plus a few controls."""
    if ch in "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f":
        return True
    if ch in "\u00a0\u2007\u202f":
        return False
    return ch.isspace() and ch not in "\x85"


def _java_strip(text: str) -> str:
    start, end = 0, len(text)
    while start < end and _java_whitespace(text[start]):
        start += 1
    while end > start and _java_whitespace(text[end - 1]):
        end -= 1
    return text[start:end]


_WHITESPACE_RUN = re.compile(r"[ \t\n\x0b\x0c\r]+")  # Java's default \s (ASCII only)


def normalize_query(raw: str) -> str:
    """Validate and normalise a search query exactly like ``MC search`` step 1."""
    if utf16_length(raw) > MAX_QUERY_UTF16 or any(is_iso_control(ch) for ch in raw):
        raise CatalogError("invalid_material_query", "query must contain at most 96 printable characters")
    return _WHITESPACE_RUN.sub(" ", _java_strip(raw).lower())


class MaterialCatalog:
    """A sorted, immutable list of entries with the plugin's search/describe behaviour.

    ``describe_block`` returns the state data for a block ID (``minecraft:x``) on demand, so describing one entry
    never loads the others; it may raise :class:`CatalogError` with ``material_properties_unavailable``.
    """

    def __init__(
        self,
        entries: Iterable[CatalogEntry],
        runtime_version: str,
        describe_block: Callable[[str], BlockDescription] | None = None,
    ):
        ordered = sorted(entries, key=lambda e: e.id)
        for before, after in zip(ordered, ordered[1:]):
            if before.id == after.id:
                raise ValueError(f"duplicate material catalog id {after.id}")
        self.entries: tuple[CatalogEntry, ...] = tuple(ordered)
        self._ids = [e.id for e in self.entries]
        self.runtime_version = runtime_version
        self._describe_block = describe_block
        fingerprint = [f"{CATALOG_FORMAT}\n{runtime_version}\n"]
        fingerprint += [f"{e.id}:{_flag(e.block)}:{_flag(e.item)}\n" for e in self.entries]
        self.version = hex24("".join(fingerprint))
        self._by_kind = {
            "block": tuple(e for e in self.entries if e.block),
            "item": tuple(e for e in self.entries if e.item),
            "all": self.entries,
        }

    def summary(self) -> dict:
        """``project_context.material_catalog``."""
        return {
            "version": self.version,
            "materials": len(self.entries),
            "blocks": len(self._by_kind["block"]),
            "items": len(self._by_kind["item"]),
            "search_default_limit": DEFAULT_LIMIT,
            "search_max_limit": MAX_LIMIT,
        }

    def get(self, material_id: str) -> CatalogEntry | None:
        index = bisect_left(self._ids, material_id)
        if index < len(self._ids) and self._ids[index] == material_id:
            return self.entries[index]
        return None

    def search(
        self, query: str = "", kind: str = "block", limit: int = DEFAULT_LIMIT, cursor: str | None = None
    ) -> dict:
        """One page of matches; the checks run in the plugin's order (terrain-materials §6.3)."""
        normalized = normalize_query(query)
        if kind not in KINDS:
            raise CatalogError("invalid_material_query", "kind must be block, item, or all")
        if not 1 <= limit <= MAX_LIMIT:
            raise CatalogError("invalid_material_query", "limit must be between 1 and 32")
        scope = hex24(f"{kind}\n{normalized}")
        offset = self._cursor_offset(cursor, scope)
        tokens = normalized.split(" ") if normalized else []
        matches = self._by_kind[kind]
        for token in tokens:  # one plain pass per token: every token must occur in the full id
            matches = [e for e in matches if token in e.id]
        total = len(matches)
        if offset > total:
            raise CatalogError("invalid_cursor", "Cursor exceeds the matching catalog")
        end = min(total, offset + limit)
        result: dict = {
            "catalog_version": self.version,
            "query": normalized,
            "kind": kind,
            "total": total,
            "results": [{"id": e.id, "block": e.block, "item": e.item} for e in matches[offset:end]],
        }
        if end < total:
            result["next_cursor"] = f"{self.version}:{scope}:{end}"
        return result

    def _cursor_offset(self, cursor: str | None, scope: str) -> int:
        if cursor is None or cursor == "":
            return 0
        if len(cursor) > MAX_CURSOR_LENGTH or not _CURSOR_RE.fullmatch(cursor):
            raise CatalogError("invalid_cursor", "Malformed material catalog cursor")
        version, cursor_scope, offset = cursor.split(":")
        if version != self.version:
            raise CatalogError("stale_cursor", "Material catalog changed; restart the search")
        if cursor_scope != scope:
            raise CatalogError("invalid_cursor", "Cursor belongs to another query or kind")
        return int(offset)

    def describe(self, raw_id: str) -> dict:
        """``material_describe`` after the generic required-string check (which the RPC layer does)."""
        if len(raw_id) > MAX_DESCRIBE_ID or not _DESCRIBE_ID_RE.fullmatch(raw_id):
            raise CatalogError("invalid_material", "Expected one exact Minecraft material ID without properties or NBT")
        material_id = raw_id if raw_id.startswith("minecraft:") else f"minecraft:{raw_id}"
        entry = self.get(material_id)
        if entry is None:
            raise CatalogError("invalid_material", f"Unknown runtime material: {material_id}")
        result: dict = {
            "id": entry.id,
            "block": entry.block,
            "item": entry.item,
            "catalog_version": self.version,
            "placeable": entry.block,
        }
        if entry.block:
            result.update(self._block_fields(entry.id))
        return result

    def _block_fields(self, material_id: str) -> dict:
        unavailable = CatalogError(
            "material_properties_unavailable", f"Runtime property introspection is unavailable for {material_id}"
        )
        if self._describe_block is None:
            raise unavailable
        try:
            info = self._describe_block(material_id)
        except CatalogError:
            raise
        except Exception as exc:  # the registry failing must look like the plugin's reflection failure
            raise unavailable from exc
        check_description_limits(material_id, info)
        fields: dict = {
            "default_state": info.default_state,
            "properties": {name: list(info.properties[name]) for name in sorted(info.properties)},
        }
        behavior = [name for name in BEHAVIOR_ORDER if name in info.behavior]
        if behavior:
            fields["behavior"] = behavior
        return fields


def check_description_limits(material_id: str, info: BlockDescription) -> None:
    """Refuse (never truncate) descriptions beyond the plugin's limits."""
    names = list(info.properties)
    if len(names) != len(set(names)):
        raise CatalogError("material_properties_unavailable", f"Duplicate property names for {material_id}")
    if len(names) > MAX_PROPERTIES:
        raise CatalogError("material_properties_unavailable", f"Too many properties for {material_id}")
    size = 0
    for name, values in info.properties.items():
        if not 1 <= len(values) <= MAX_DOMAIN_VALUES:
            raise CatalogError("material_properties_unavailable", f"Property domain too large for {material_id}")
        size += len(name) + sum(len(v) for v in values)
    if size > MAX_DESCRIPTION_CHARS:
        raise CatalogError("material_properties_unavailable", f"Material description too large for {material_id}")
    if len(info.default_state) > MAX_DEFAULT_STATE:
        raise CatalogError("material_properties_unavailable", f"Default state too long for {material_id}")


def _flag(value: bool) -> str:
    return "true" if value else "false"
