"""Block-state strings: parse, format, and the errors they raise.

Two grammars (protocol §4.6, §6.6):

* the general one, which is what ``Bukkit.createBlockData`` accepts for vanilla states:
  ``[namespace:]id[k=v,...]`` (namespace defaults to ``minecraft``; ``[]`` means no properties);
* the recipe grammar, ``minecraft:<id>`` or ``minecraft:<id>[k=v,...]`` with only ``[a-z0-9_=,]`` inside the
  brackets and no empty bracket pair.

Both cap the text at 1024 characters and reject a property set twice. Parsing knows nothing about which blocks
exist; :mod:`mcb.blocks.registry` does that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mcb.errors import InputError

MAX_STATE_LENGTH = 1024
DEFAULT_NAMESPACE = "minecraft"
AIR_STATES = frozenset({"minecraft:air", "minecraft:cave_air", "minecraft:void_air"})  # the three kinds of air

_LOWER_DIGITS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
# Resource locations: namespace [a-z0-9_.-], path [a-z0-9_./-] (vanilla ResourceLocation rules).
_NAMESPACE_CHARS = _LOWER_DIGITS | frozenset("_.-")
_PATH_CHARS = _LOWER_DIGITS | frozenset("_./-")
_RECIPE_ID_CHARS = _LOWER_DIGITS | frozenset("_")
# Vanilla property names and values are lowercase snake case (enum serialised names, ints, true/false).
_TOKEN_CHARS = _LOWER_DIGITS | frozenset("_")


class BlockStateError(InputError):
    """A block-state string is malformed, or names a block/property/value the registry does not know.

    ``code`` is a stable machine id: ``block.syntax``, ``block.unknown``, ``block.property.unknown``,
    ``block.value.invalid``.
    """

    kind = "block.invalid"


class StateSyntaxError(BlockStateError):
    """The text is not a block-state string; ``position`` is the 0-based index of the offending character."""

    kind = "block.syntax"

    def __init__(self, reason: str, text: str, position: int):
        self.reason = reason
        self.text = text
        self.position = position
        super().__init__(
            f"invalid block state {_excerpt(text)}: {reason} at position {position}",
            hint=_pointer_hint(text, position),
            details={"position": position},
        )

    def __reduce__(self):
        # Rebuild from the constructor's own arguments so the error survives a process-pool boundary.
        return (type(self), (self.reason, self.text, self.position))


@dataclass(frozen=True)
class BlockState:
    """A parsed block state: namespaced ``name`` and ``properties`` as written (order kept)."""

    name: str
    properties: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return format_state(self)

    @property
    def id(self) -> str:
        """The name without its namespace (``oak_stairs``)."""
        return self.name.partition(":")[2]

    def get(self, key: str, default: str | None = None) -> str | None:
        for name, value in self.properties:
            if name == key:
                return value
        return default


def format_state(state: BlockState) -> str:
    """``minecraft:oak_stairs[facing=east,half=top]``; no brackets when there are no properties."""
    if not state.properties:
        return state.name
    return state.name + "[" + ",".join(f"{key}={value}" for key, value in state.properties) + "]"


def parse_state(text: str, *, recipe_grammar: bool = False) -> BlockState:
    """Parse a block-state string; raise :class:`StateSyntaxError` pointing at the first bad character."""
    if not isinstance(text, str):
        raise StateSyntaxError(f"expected a string, got {type(text).__name__}", repr(text), 0)
    if not recipe_grammar and len(text) <= MAX_STATE_LENGTH:
        # The common, well-formed shape in one regex match (a 617-entry palette parses 5x faster); anything else,
        # including every error, goes through the character parser, which points at the bad character.
        plain = _PLAIN_STATE.fullmatch(text)
        if plain is not None:
            namespace, path, inside = plain.groups()
            if inside is None:
                return BlockState(f"{namespace}:{path}", ())
            pairs = tuple(tuple(pair.split("=")) for pair in inside.split(","))
            if len({key for key, _ in pairs}) == len(pairs):
                return BlockState(f"{namespace}:{path}", pairs)
    return _Parser(text, recipe_grammar).parse()


_PLAIN_STATE = re.compile(r"([a-z0-9_.-]+):([a-z0-9_./-]+)(?:\[([a-z0-9_]+=[a-z0-9_]+(?:,[a-z0-9_]+=[a-z0-9_]+)*)\])?")


class _Parser:
    def __init__(self, text: str, recipe: bool):
        self.text = text
        self.recipe = recipe
        self.pos = 0

    def fail(self, reason: str, position: int | None = None) -> StateSyntaxError:
        return StateSyntaxError(reason, self.text, self.pos if position is None else position)

    def describe_here(self) -> str:
        if self.pos >= len(self.text):
            return "end of text"
        ch = self.text[self.pos]
        return f"character {ch!r}" + (" (ids, names and values are lowercase)" if ch.isupper() else "")

    def parse(self) -> BlockState:
        text = self.text
        if len(text) > MAX_STATE_LENGTH:
            raise self.fail(f"longer than {MAX_STATE_LENGTH} characters ({len(text)})", MAX_STATE_LENGTH)
        if not text:
            raise self.fail("empty text, expected a block id such as minecraft:stone", 0)
        name = self.parse_name()
        properties: tuple[tuple[str, str], ...] = ()
        if self.pos < len(text):
            if text[self.pos] != "[":
                raise self.fail(f"unexpected {self.describe_here()} after the block id, expected '[' or the end")
            properties = self.parse_properties()
        if self.pos < len(text):
            raise self.fail(f"unexpected {self.describe_here()} after ']'")
        return BlockState(name, properties)

    def read_run(self, allowed: frozenset[str]) -> str:
        start = self.pos
        text = self.text
        while self.pos < len(text) and text[self.pos] in allowed:
            self.pos += 1
        return text[start : self.pos]

    def parse_name(self) -> str:
        text = self.text
        if self.recipe:
            prefix = DEFAULT_NAMESPACE + ":"
            if not text.startswith(prefix):
                # Point at the first character that differs from the required prefix.
                bad = next((i for i, ch in enumerate(prefix) if i >= len(text) or text[i] != ch), 0)
                raise self.fail("recipe block states must start with 'minecraft:'", bad)
            self.pos = len(prefix)
            path = self.read_run(_RECIPE_ID_CHARS)
            if not path:
                raise self.fail(f"expected a block id ([a-z0-9_]) but found {self.describe_here()}")
            self.reject_stray_name_char()
            return prefix + path
        first = self.read_run(_PATH_CHARS)
        if self.pos < len(text) and text[self.pos] == ":":
            if not first:
                raise self.fail("empty namespace before ':'")
            bad_ns = next((i for i, ch in enumerate(first) if ch not in _NAMESPACE_CHARS), None)
            if bad_ns is not None:
                raise self.fail(f"character {first[bad_ns]!r} is not allowed in a namespace", bad_ns)
            self.pos += 1
            path = self.read_run(_PATH_CHARS)
            if not path:
                raise self.fail(f"expected a block id after ':' but found {self.describe_here()}")
            self.reject_stray_name_char()
            return f"{first}:{path}"
        if not first:
            raise self.fail(f"expected a block id such as minecraft:stone but found {self.describe_here()}")
        self.reject_stray_name_char()
        return f"{DEFAULT_NAMESPACE}:{first}"

    def reject_stray_name_char(self) -> None:
        if self.pos < len(self.text) and self.text[self.pos] != "[":
            raise self.fail(f"{self.describe_here()} is not allowed in a block id")

    def parse_properties(self) -> tuple[tuple[str, str], ...]:
        text = self.text
        self.pos += 1  # '['
        if self.recipe:
            # The recipe regex admits only [a-z0-9_=,] inside the brackets; report the first other character.
            for index in range(self.pos, len(text)):
                ch = text[index]
                if ch == "]":
                    break
                if ch not in _TOKEN_CHARS and ch not in "=,":
                    raise self.fail(f"character {ch!r} is not allowed inside brackets ([a-z0-9_=,] only)", index)
        properties: list[tuple[str, str]] = []
        seen: set[str] = set()
        if self.pos < len(text) and text[self.pos] == "]":
            if self.recipe:
                raise self.fail("empty property list '[]' (omit the brackets instead)")
            self.pos += 1
            return ()
        while True:
            key_start = self.pos
            key = self.read_run(_TOKEN_CHARS)
            if not key:
                raise self.fail(f"expected a property name but found {self.describe_here()}")
            if self.pos >= len(text) or text[self.pos] != "=":
                raise self.fail(f"expected '=' after property {key!r} but found {self.describe_here()}")
            if key in seen:
                raise self.fail(f"property {key!r} is set twice", key_start)
            seen.add(key)
            self.pos += 1
            value = self.read_run(_TOKEN_CHARS)
            if not value:
                raise self.fail(f"expected a value for property {key!r} but found {self.describe_here()}")
            properties.append((key, value))
            if self.pos >= len(text):
                raise self.fail("missing ']' at the end of the property list")
            ch = text[self.pos]
            self.pos += 1
            if ch == "]":
                return tuple(properties)
            if ch != ",":
                self.pos -= 1
                raise self.fail(f"expected ',' or ']' but found {self.describe_here()}")


def _excerpt(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _pointer_hint(text: str, position: int, width: int = 60) -> str:
    """A one-line window of the text around ``position`` with a marker, e.g. ``oak_stairs[facing=>>up<<]``."""
    start = max(0, position - width // 2)
    end = min(len(text), position + width // 2)
    before = ("…" if start else "") + text[start:position]
    here = text[position : position + 1]
    after = text[position + 1 : end] + ("…" if end < len(text) else "")
    shown = f"{before}>>{here}<<{after}" if here else f"{before}>>"
    return "error marked: " + "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in shown)
