"""The vanilla block registry: which blocks exist in a release, their properties, values and defaults.

Data comes from ``data/registry.json.gz`` (built by ``scripts/gen_registry.py`` from minecraft-data, MIT). Nothing is
read at import time; :func:`load_registry` reads the file once and caches one :class:`Registry` per release.

    reg = load_registry("26.2")
    reg.canonicalize("oak_stairs[facing=east]")
    # 'minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]'
"""

from __future__ import annotations

import functools
import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path

from mcb.blocks.releases import DEFAULT_RELEASE, KNOWN_RELEASES, SHIPPED_RELEASES
from mcb.blocks.state import (
    DEFAULT_NAMESPACE,
    BlockState,
    BlockStateError,
    StateSyntaxError,
    parse_state,
)
from mcb.errors import UsageError

__all__ = [
    "DEFAULT_RELEASE",
    "KNOWN_RELEASES",
    "SHIPPED_RELEASES",
    "BlockInfo",
    "Registry",
    "BlockStateError",
    "StateSyntaxError",
    "UnknownBlockError",
    "UnknownPropertyError",
    "BadValueError",
    "load_registry",
    "release_for_data_version",
    "resolve_release",
]

_DATA_FORMAT = 1
_DATA_FILE = Path(__file__).with_name("data") / "registry.json.gz"


def _close_matches(word: str, candidates, limit: int) -> list[str]:
    import difflib  # only needed on the error path; keeps import time down

    return difflib.get_close_matches(word, list(candidates), n=limit, cutoff=0.6)


class UnknownBlockError(BlockStateError):
    kind = "block.unknown"


class UnknownPropertyError(BlockStateError):
    kind = "block.property.unknown"


class BadValueError(BlockStateError):
    kind = "block.value.invalid"


@dataclass(frozen=True, eq=False)
class BlockInfo:
    """One block of one release. ``properties`` keeps the game's order of names and of values."""

    name: str
    properties: dict[str, tuple[str, ...]]
    defaults: dict[str, str]
    _default_state: str = field(default="", repr=False)

    @property
    def id(self) -> str:
        return self.name.partition(":")[2]

    @property
    def default_state(self) -> str:
        """The canonical default state, e.g. ``minecraft:oak_log[axis=y]`` or ``minecraft:stone``."""
        return self._default_state or _canonical_text(self.name, self.defaults)


def _canonical_text(name: str, values: dict[str, str]) -> str:
    if not values:
        return name
    return name + "[" + ",".join(f"{key}={values[key]}" for key in sorted(values)) + "]"


class Registry:
    """Blocks of one release. Build with :func:`load_registry`."""

    def __init__(self, release: str, data_version: int, entries: dict[str, tuple], tables: dict, source: str = ""):
        self.release = release
        self.data_version = data_version
        self.source = source  # which upstream block list this release was built from (see data/SOURCES.md)
        self._entries = entries  # 'oak_stairs' -> raw record [name, prop ids, default indices]
        self._tables = tables
        self._infos: dict[str, BlockInfo] = {}
        self._canonical_cache: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"<Registry {self.release} (DataVersion {self.data_version}, {len(self)} blocks)>"

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.block(name) is not None

    def names(self) -> list[str]:
        """Every block id, namespaced and sorted."""
        return sorted(f"{DEFAULT_NAMESPACE}:{key}" for key in self._entries)

    def block(self, name: str) -> BlockInfo | None:
        """Look up ``oak_stairs`` or ``minecraft:oak_stairs``; ``None`` when unknown."""
        namespace, sep, path = name.partition(":")
        if not sep:
            path = namespace
        elif namespace != DEFAULT_NAMESPACE:
            return None
        info = self._infos.get(path)
        if info is None:
            record = self._entries.get(path)
            if record is None:
                return None
            info = self._infos[path] = self._build_info(record)
        return info

    def _build_info(self, record) -> BlockInfo:
        block_name, prop_ids, default_indices = record
        domains, props = self._tables["domains"], self._tables["properties"]
        properties: dict[str, tuple[str, ...]] = {}
        defaults: dict[str, str] = {}
        for prop_id, default_index in zip(prop_ids, default_indices):
            prop_name, domain_id = props[prop_id]
            values = domains[domain_id]
            properties[prop_name] = values
            defaults[prop_name] = values[default_index]
        name = f"{DEFAULT_NAMESPACE}:{block_name}"
        return BlockInfo(name, properties, defaults, _canonical_text(name, defaults))

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        """Close block ids for a misspelt one (difflib), namespaced."""
        path = name.partition(":")[2] if ":" in name else name
        matches = _close_matches(path, self._entries, limit)
        return [f"{DEFAULT_NAMESPACE}:{match}" for match in matches]

    def canonicalize(self, state: str | BlockState) -> str:
        """Every property present, sorted by name, defaults filled: the server's ``getAsString()`` form.

        Raises StateSyntaxError, UnknownBlockError, UnknownPropertyError or BadValueError (all BlockStateError).
        """
        if isinstance(state, str):
            cached = self._canonical_cache.get(state)
            if cached is not None:
                return cached
            canonical = self._canonicalize_parsed(parse_state(state), state)
            if len(self._canonical_cache) < 65536:
                self._canonical_cache[state] = canonical
            return canonical
        if not isinstance(state, BlockState):
            parse_state(state)  # raises StateSyntaxError for anything that is not text
        return self._canonicalize_parsed(state, str(state))

    def is_valid(self, state: str | BlockState) -> bool:
        try:
            self.canonicalize(state)
        except BlockStateError:
            return False
        return True

    def _canonicalize_parsed(self, parsed: BlockState, text: str) -> str:
        info = self.block(parsed.name)
        if info is None:
            raise self._unknown_block(parsed.name)
        values = dict(info.defaults)
        for key, value in parsed.properties:
            allowed = info.properties.get(key)
            if allowed is None:
                raise self._unknown_property(info, key, text)
            if value not in allowed:
                raise BadValueError(
                    f"invalid value {value!r} for property {key!r} of {info.name}",
                    hint=f"allowed values of {key}: {', '.join(allowed)}",
                    details={"block": info.name, "property": key, "value": value, "allowed": list(allowed)},
                )
            values[key] = value
        return _canonical_text(info.name, values)

    def _unknown_block(self, name: str) -> UnknownBlockError:
        namespace = name.partition(":")[0]
        if namespace != DEFAULT_NAMESPACE:
            return UnknownBlockError(
                f"unknown block {name!r}: only vanilla 'minecraft:' blocks are known",
                hint="use a minecraft: block id",
                details={"block": name, "release": self.release},
            )
        suggestions = self.suggest(name)
        hint = f"did you mean {' or '.join(suggestions)}?" if suggestions else "try `mcb block describe` with an id"
        return UnknownBlockError(
            f"unknown block {name!r} in Minecraft {self.release}",
            hint=hint,
            details={"block": name, "release": self.release, "suggestions": suggestions},
        )

    def _unknown_property(self, info: BlockInfo, key: str, text: str) -> UnknownPropertyError:
        known = list(info.properties)
        close = _close_matches(key, known, 1) if known else []
        if not known:
            hint = f"{info.name} has no properties; write it without brackets"
        else:
            hint = (f"did you mean {close[0]!r}? " if close else "") + f"properties of {info.id}: {', '.join(known)}"
        return UnknownPropertyError(
            f"{info.name} has no property {key!r}",
            hint=hint,
            details={"block": info.name, "property": key, "known": known, "suggestions": close},
        )

    def behavior(self, name: str) -> dict:
        """Protocol material_describe ``behavior`` flags and their sources; see :mod:`mcb.blocks.behavior`."""
        from mcb.blocks.behavior import describe_behavior

        info = self.block(name)
        if info is None:
            raise self._unknown_block(name if ":" in name else f"{DEFAULT_NAMESPACE}:{name}")
        return describe_behavior(info)


def release_name(data_version: int) -> str | None:
    """The (newest) release name that carries exactly ``data_version``, whether or not a block list ships for it."""
    names = [name for name, dv in KNOWN_RELEASES.items() if dv == data_version]
    return names[-1] if names else None


def release_for_data_version(data_version: int) -> str | None:
    """The newest shipped release whose DataVersion is <= ``data_version``; None when older than all of them."""
    best = None
    for release, dv in SHIPPED_RELEASES.items():
        if dv <= data_version and (best is None or dv > SHIPPED_RELEASES[best]):
            best = release
    return best


def resolve_release(version: str | int | None) -> str:
    """Map None / a release name / a DataVersion (int or digits) to a shipped release name or raise UsageError."""
    if version is None or version == "":
        return DEFAULT_RELEASE
    if isinstance(version, bool):
        raise UsageError(f"not a Minecraft version: {version!r}")
    text = str(version).strip()
    if isinstance(version, int) or text.isdigit():
        data_version = int(text)
        release = release_for_data_version(data_version)
        if release is None:
            raise UsageError(
                f"DataVersion {data_version} is older than every packaged block list",
                hint=f"the oldest packaged release is {_oldest_shipped()}",
            )
        return release
    if text in SHIPPED_RELEASES:
        return text
    if text in KNOWN_RELEASES:
        release = release_for_data_version(KNOWN_RELEASES[text])
        if release is not None:
            return release
        raise UsageError(
            f"Minecraft {text} is older than every packaged block list",
            hint=f"the oldest packaged release is {_oldest_shipped()}",
        )
    usable = [name for name, dv in KNOWN_RELEASES.items() if dv >= SHIPPED_RELEASES[_oldest_shipped()]]
    close = _close_matches(text, usable, 3)  # only names that would then work
    hint = (f"did you mean {' or '.join(close)}? " if close else "") + (
        f"known releases run from {_oldest_shipped()} to {DEFAULT_RELEASE}; a DataVersion number works too"
    )
    raise UsageError(
        f"unknown Minecraft version {text!r}",
        hint=hint,
        details={"version": text, "suggestions": close} if close else None,
    )


def _oldest_shipped() -> str:
    return min(SHIPPED_RELEASES, key=SHIPPED_RELEASES.__getitem__)


def load_registry(version: str | int | None = None) -> Registry:
    """The registry of a release (None -> 26.2), by name or DataVersion; cached per release."""
    return _load_release(resolve_release(version))


@functools.cache
def _load_release(release: str) -> Registry:
    tables = _read_tables()
    for name, data_version, list_id, source in tables["releases"]:
        if name == release:
            blocks = tables["blocks"]
            entries = {blocks[i][0]: blocks[i] for i in tables["block_lists"][list_id]}
            return Registry(name, data_version, entries, tables, source)
    raise UsageError(
        f"release {release} is not in the packaged block data", hint="rebuild with scripts/gen_registry.py"
    )


@functools.lru_cache(maxsize=1)
def _read_tables() -> dict:
    raw = _DATA_FILE.read_bytes()
    tables = json.loads(gzip.decompress(raw))
    if tables.get("format") != _DATA_FORMAT:
        raise UsageError("packaged block data has an unknown format", hint="reinstall mcb")
    tables["domains"] = [tuple(values) for values in tables["domains"]]
    return tables
