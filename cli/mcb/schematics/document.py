"""Loading a file into an NBT document and recognising what it is (:func:`mcb.schematics.formats.detect`).

The format is decided by content, never by file extension (corpus: a Litematica file named ``.schem``).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from mcb.errors import InputError
from mcb.fileio import is_dash, read_stdin, regular_file_size
from mcb.schematics.formats import FORMATS, SchematicFormat, detect
from mcb.schematics.nbt import Compound, NbtError, ReadLimits, ReadStats, read_nbt

# Lists whose entries' contents validation only checks, never reads (their payload is opaque to every rule): an
# entry's own scalars stay, and of its containers only its position and a structure entry's ``nbt`` (shallowly:
# the block entity's or entity's id sits in it).
_BULK_LISTS = frozenset({"BlockEntities", "TileEntities", "Entities", "blocks", "entities"})
_KEPT_IN_ENTRIES = frozenset({"Pos", "pos", "blockPos", "nbt"})


class SchematicError(InputError):
    """A file that cannot be turned into a schematic model; ``rule`` and ``pointer`` locate the problem."""

    kind = "invalid_schematic"

    def __init__(self, message: str, *, rule: str, pointer: str | None = None, hint: str | None = None):
        super().__init__(message, hint=hint, code=rule)
        self.rule = rule
        self.pointer = pointer


@dataclass
class Document:
    """A parsed NBT file plus what it was recognised as.

    ``format`` is the record whose content test the root passed (None: NBT of no schematic format). ``body`` is
    the compound holding the schematic fields: the root, or a Sponge v3 file's ``root['Schematic']``;
    ``version`` the Sponge ``Version`` tag (None when absent or not an int).
    """

    root: Compound
    body: Compound
    stats: ReadStats
    format: SchematicFormat | None
    version: int | None
    data: bytes
    path: str | None
    body_pointer: str = ""  # NBT path prefix of ``body`` ("" or "/Schematic")
    nonconforming_v3: bool = False
    limits: ReadLimits = field(default_factory=ReadLimits)
    _used_values: dict = field(default_factory=dict, repr=False)

    def used_values(self, tag, count: int) -> tuple[frozenset[int], object]:
        """The set of values a varint array tag holds and the first problem of its stream (a ``VarintProblem`` or
        None), computed once per document (both profiles need it)."""
        key = (id(tag), count)
        if key not in self._used_values:
            from mcb.schematics.varint import used_values

            self._used_values[key] = used_values(tag, count)
        return self._used_values[key]

    def pointer(self, *parts: str | int) -> str:
        return self.body_pointer + "".join(f"/{p}" for p in parts)

    @property
    def kind(self) -> str:
        """``sponge``, ``litematic``, ``structure``, ``legacy`` (the format's family), or ``unknown``."""
        return self.format.kind if self.format is not None else "unknown"

    @property
    def is_v3(self) -> bool:
        """Sponge v3 by its Version, its layout (a nonconforming v3) or its wrapper (the ``Schematic`` compound)."""
        return self.version == 3 or self.nonconforming_v3 or self.body_pointer == "/Schematic"

    @property
    def label(self) -> str:
        """What the file is, for people: ``Sponge v2``, ``Litematica``, ``unknown NBT``, ..."""
        if self.format is None:
            return "unknown NBT"
        if self.kind == "sponge":
            return f"Sponge v{self.version}" if self.version is not None else "Sponge (no Version tag)"
        return self.format.label


# Root lists of one-shaped compounds some format reads as columns (a structure's blocks), whatever the file turns out
# to be: the format is known only once the root is read.
COLUMN_LISTS = frozenset(name for fmt in FORMATS for name in fmt.columns)

DUPLICATE_NAME = "a compound names the same tag twice (readers keep one of them; the server refuses the file)"


def read_source(source: str | os.PathLike | bytes, limits: ReadLimits) -> tuple[bytes, str | None]:
    """File bytes (size-capped before reading) and a display path; ``-`` reads stdin (shown as ``stdin``)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), None
    if is_dash(source):
        data = read_stdin(limits.max_compressed, "FILE")
        if len(data) > limits.max_compressed:
            raise NbtError(
                f"stdin is larger than the {limits.max_compressed:,} byte limit",
                rule="nbt.limit.compressed",
                pointer="/",
            )
        return data, "stdin"
    path = Path(source)
    size = regular_file_size(path)
    try:
        if size > limits.max_compressed:
            raise too_big(path, size, limits)
        with path.open("rb") as handle:
            data = handle.read(min(size, limits.max_compressed) + 1)  # never a cap-sized buffer for a small file
        if len(data) > limits.max_compressed:
            raise too_big(path, len(data), limits)
        return data, str(path)
    except FileNotFoundError:  # gone since the stat
        raise InputError(f"{path}: no such file", code="file.missing", hint="check the path") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied", code="file.unreadable") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror or error})", code="file.unreadable") from None


def too_big(path, size: int, limits: ReadLimits) -> NbtError:
    from mcb.wording import plural

    return NbtError(
        f"{path}: the file is {plural(size, 'byte')}, above the {plural(limits.max_compressed, 'byte')} mcb reads",
        rule="nbt.limit.compressed",
        pointer="/",
        hint="a schematic this big holds more than mcb loads: split it into smaller schematics",
    )


# (magic bytes, what a file that starts with them is): what people mistake for a schematic
_MAGIC = (
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"GIF8", "a GIF image"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"%PDF", "a PDF document"),
    (b"7z\xbc\xaf", "a 7-Zip archive"),
    (b"\xfd7zXZ", "an xz archive"),
    (b"BZh", "a bzip2 archive"),
    (b"\x28\xb5\x2f\xfd", "a zstd archive"),
    (b"Rar!", "a RAR archive"),
)


def what_file_is(data: bytes) -> str | None:
    """What a file that is not NBT seems to be (``a JPEG image``, ``JSON text``), or None."""
    for magic, what in _MAGIC:
        if data.startswith(magic):
            return what
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "a WebP image"
    text = _text_sample(data)
    if text:
        return "JSON text" if text.lstrip("\ufeff \t\r\n")[:1] in ("{", "[") else "a text file"
    return None


def looks_like_text(data: bytes) -> bool:
    """Whether ``data`` (a file's first bytes) reads as UTF-8 text: what `mcb build` hands to the recipe reader."""
    return bool(_text_sample(data))


def _text_sample(data: bytes) -> str | None:
    """The first 4 KiB of ``data`` as text when they are printable UTF-8, else None."""
    head = data[:4096]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start < len(head) - 3:  # not a character cut at the end of the sample
            return None
        text = head[: error.start].decode("utf-8")
    if all(ch.isprintable() or ch in "\t\r\n" for ch in text.lstrip("\ufeff")):
        return text
    return None


def _keep_for_validation(path: list[str]) -> bool:
    if len(path) >= 3 and path[-3] in _BULK_LISTS:
        return path[-1] in _KEPT_IN_ENTRIES
    return not (len(path) >= 4 and path[-4] in _BULK_LISTS and path[-2] == "nbt")


def load_document(
    source: str | os.PathLike | bytes, limits: ReadLimits | None = None, *, fast: bool = False, keep=None
) -> Document:
    """Read and recognise a file. ``fast=True`` (validation) leaves the contents of block entities and entities
    out of the tree (walked and checked all the same, see :func:`~mcb.schematics.nbt.read_nbt`): their ``Pos``,
    ``Id`` and other top-level scalars stay. ``keep``: the reader's ``keep`` for other choices.

    Raises ``NbtError``/``InputError`` (clean diagnostics) for unreadable or malformed input.
    """
    limits = limits or ReadLimits()
    data, path = read_source(source, limits)
    try:
        root, stats = read_nbt(data, limits, keep=_keep_for_validation if fast else keep, columns=COLUMN_LISTS)
    except NbtError as error:
        if path is None:  # bytes: the caller names the file
            raise
        message, hint = error.message, error.hint or NOT_A_SCHEMATIC_HINT
        what = what_file_is(data) if error.rule == "nbt.root.type" else None
        if what is not None:
            message, hint = f"this is {what}, not a schematic ({message})", NOT_A_SCHEMATIC_HINT
        raise NbtError(f"{path}: {message}", rule=error.rule, pointer=error.pointer, hint=hint) from None
    document = recognise(root, stats, data, path)
    document.limits = limits
    return document


NOT_A_SCHEMATIC_HINT = "a schematic is an NBT file (usually gzip-compressed), e.g. a Sponge .schem from WorldEdit"


def recognise(root: Compound, stats: ReadStats, data: bytes, path: str | None) -> Document:
    fmt, layout = detect(root)
    return Document(
        root,
        layout.body,
        stats,
        fmt,
        layout.version,
        data,
        path,
        body_pointer=layout.pointer,
        nonconforming_v3=layout.nonconforming_v3,
    )


BUILD_HINT = (
    "the server's import takes only Sponge v2 files of at most 4,096 cells: `mcb build FILE` builds this "
    "one through the plugin, and `mcb schem convert FILE -o OUT.schem` converts it"
)


def not_sponge_error(document: Document) -> SchematicError:
    """A file of another format (or of none) where only Sponge will do (the server's import, validation)."""
    from mcb.schematics.formats import extensions_text

    if document.format is None:
        what = "an unknown NBT"
        hint = (
            "expected a schematic: Sponge .schem (Version, Width/Height/Length, Palette, BlockData), Litematica "
            f".litematic, structure .nbt or legacy .schematic ({extensions_text()})"
        )
    else:
        what, hint = f"a {document.label} file", BUILD_HINT
    keys = ",".join(sorted(document.root)[:6])
    return SchematicError(
        f"this is {what}, not a Sponge schematic (root keys: {keys})",
        rule=f"sponge.format.{document.kind}",
        pointer="/",
        hint=hint,
    )


def not_a_schematic_error(document: Document) -> SchematicError:
    """NBT that no format reads, named."""
    error = not_sponge_error(document)
    error.message = error.template.replace("not a Sponge schematic", "not a schematic")
    if document.path is not None:
        error.message = f"{document.path}: {error.template}"
    return error


@contextmanager
def with_file(path: str | None):
    """Every error raised inside names the file ``path`` (prefixed once, where a reader did not name it)."""
    try:
        yield
    except InputError as error:
        if path is not None and not error.message.startswith(f"{path}: "):
            error.message = f"{path}: {error.template}"
        raise


def refuse_duplicate_names(doc: Document) -> None:
    """A rewrite (rotate, mirror, convert) would keep one of two values without a word: refuse the file as the
    server and both validation profiles do (rule ``nbt.duplicate``, at the first duplicate)."""
    if doc.stats.duplicate_names:
        raise SchematicError(
            f"{doc.path or 'the file'}: {DUPLICATE_NAME}",
            rule="nbt.duplicate",
            pointer=doc.stats.duplicate_names[0],
            hint="mcb cannot tell which of the two values is meant: fix it where it was written",
        )
