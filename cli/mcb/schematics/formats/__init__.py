"""Every schematic format mcb reads and writes, one record each: the one place format facts live.

    fmt = parse_format("v3")                     # the record of a format argument's word (name or alias)
    doc = load_document(path)                    # mcb.schematics.document: doc.format is the record its content matched
    schem = from_document(doc)                   # the one model (mcb.schematics.model.Schematic), any format
    data = encode_any(schem, "litematic")        # file bytes; refuses what mcb's readers would refuse
    write_any(schem, path, "structure")          # atomically

A record (:class:`SchematicFormat`) holds a format's name, aliases, file extensions, label, how its content is
recognised (never by file extension: a Litematica file saved as ``.schem`` is read as one), its reader and writer,
and what of the model it cannot hold (:mod:`mcb.schematics.formats.losses`). WorldEdit's ``BuiltInClipboardFormat``
is the model of this table. Readers and writers are imported on first use, so argument checks that look a format up
never load numpy.

To put a file into a world or compare it with one, follow :func:`from_document` with
:func:`mcb.schematics.upgrade.upgrade_schematic` (names and states of the target release).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from mcb.errors import UsageError
from mcb.schematics.nbt_tags import TAG_BYTE, TAG_INT, TAG_LONG, TAG_SHORT, tag_type

if TYPE_CHECKING:  # no numpy, no reader at import
    from mcb.schematics.document import Document
    from mcb.schematics.model import Schematic, SourceInfo
    from mcb.schematics.nbt import ReadLimits


@dataclass(frozen=True)
class Layout:
    """Where a recognised file keeps its schematic fields: ``body`` (the root, or a Sponge v3 file's ``Schematic``
    compound) at NBT path ``pointer``; a Sponge ``version`` (None when absent or not an integer)."""

    body: dict
    pointer: str = ""
    version: int | None = None
    nonconforming_v3: bool = False  # Sponge v3 fields placed directly in the root (schematic4j fixture)

    @property
    def is_v3(self) -> bool:
        return self.version == 3 or self.nonconforming_v3 or self.pointer == "/Schematic"


@dataclass(frozen=True)
class ReadOptions:
    """What a reader may be asked besides the file: each reader takes what concerns it."""

    palette_index: int = 0  # structure: which of ``palettes`` (the game picks one at random per placement)
    compact: bool = False  # Sponge: cells may come as uint16 (a rewrite that only moves and writes them)


@dataclass(frozen=True)
class SchematicFormat:
    """One format. ``name`` is the word the format argument takes and the JSON's ``format``; ``kind`` the family a file is
    reported as (``sponge``, ``litematic``, ``structure``, ``legacy``: the JSON's ``kind``, ``SourceInfo.format``)."""

    name: str
    kind: str
    label: str  # for people: "Sponge v2", "Litematica", ...
    aliases: tuple[str, ...]
    extensions: tuple[str, ...]  # file names that hold it (lower case, with the dot)
    files: str  # how a hint names its files: ".schem (Sponge)"
    detect: Callable[[dict], Layout | None]  # the root compound -> where its fields sit, or None: not this format
    reader: str  # "module:function", function(doc, options: ReadOptions) -> Schematic
    writer: str | None = None  # "module:function", function(schem) -> (root name, root); None: mcb does not write it
    cannot_hold: tuple[str, ...] = ()  # kinds of losses.LOSSES: what of the model the format has no place for
    rewritten_as: str | None = None  # a read-only format: what an edit of such a file writes instead
    columns: tuple[str, ...] = ()  # root lists of one-shaped compounds read as columns (mcb.schematics.nbt_columns)
    about: str = ""  # what else people should know of it, said beside the label
    cell_tags: int = 0  # tags its file spends on each placed cell, at least (a write limit is checked with it first)
    cell_bytes: int = 0  # bytes of NBT its file spends on each placed cell, at least

    @property
    def writable(self) -> bool:
        return self.writer is not None

    def read(self, doc: Document, options: ReadOptions | None = None) -> Schematic:
        return _function(self.reader)(doc, options or ReadOptions())

    def tree(self, schem: Schematic) -> tuple[str, dict]:
        """(root name, root compound) of ``schem`` in this format."""
        if self.writer is None:
            raise not_written(self)
        return _function(self.writer)(schem)


def _function(spec: str) -> Callable:
    module, _, name = spec.partition(":")
    return getattr(import_module(module), name)


# --- recognising a file by its content ------------------------------------------------------------------------


def _int(value) -> int | None:
    return int(value) if tag_type(value) in (TAG_BYTE, TAG_SHORT, TAG_INT, TAG_LONG) else None


def _plain(root: dict) -> Layout:
    return Layout(root)


def _litematic(root: dict) -> Layout | None:
    return _plain(root) if "Regions" in root and ("MinecraftDataVersion" in root or "Metadata" in root) else None


def _structure(root: dict) -> Layout | None:
    if "size" in root and "blocks" in root and ("palette" in root or "palettes" in root):
        return _plain(root)
    return None


def _legacy(root: dict) -> Layout | None:
    return _plain(root) if "Materials" in root and "Blocks" in root and "Palette" not in root else None


def sponge_layout(root: dict) -> Layout | None:
    """Any Sponge version: v3's ``Schematic`` wrapper, the non-conforming "v3" whose fields sit in the root, or the
    v1/v2 root."""
    inner = root.get("Schematic")
    if isinstance(inner, dict) and ("Version" in inner or "Blocks" in inner or "Width" in inner):
        return Layout(inner, "/Schematic", _int(inner.get("Version")))
    version = _int(root.get("Version"))
    if isinstance(root.get("Blocks"), dict) and "BlockData" not in root:
        return Layout(root, "", version, nonconforming_v3=True)
    if any(key in root for key in ("BlockData", "Palette", "Width", "Version")):
        return Layout(root, "", version)
    return None


def _sponge(test: Callable[[Layout], bool]) -> Callable[[dict], Layout | None]:
    def detect(root: dict) -> Layout | None:
        layout = sponge_layout(root)
        return layout if layout is not None and test(layout) else None

    return detect


_SPONGE_READER = "mcb.schematics.formats.sponge:read_sponge"
_SPONGE_LOSSES = ("void", "without_id")

SPONGE2 = SchematicFormat(
    "sponge2",
    "sponge",
    "Sponge v2",
    aliases=("v2", "2", "sponge.2"),
    extensions=(".schem",),
    files=".schem (Sponge)",
    detect=_sponge(lambda layout: layout.version == 2 and not layout.is_v3),
    reader=_SPONGE_READER,
    writer="mcb.schematics.formats.sponge_writer:sponge2_tree",
    cannot_hold=(*_SPONGE_LOSSES, "biomes_3d"),
)
SPONGE3 = SchematicFormat(
    "sponge3",
    "sponge",
    "Sponge v3",
    aliases=("v3", "3", "sponge.3", "sponge"),
    extensions=(".schem",),
    files=".schem (Sponge)",
    detect=_sponge(lambda layout: layout.is_v3),
    reader=_SPONGE_READER,
    writer="mcb.schematics.formats.sponge_writer:sponge3_tree",
    cannot_hold=_SPONGE_LOSSES,
)
SPONGE1 = SchematicFormat(
    "sponge1",
    "sponge",
    "Sponge v1",
    aliases=("v1", "1", "sponge.1"),
    extensions=(".schem",),
    files=".schem (Sponge)",
    detect=_sponge(lambda layout: True),  # v1, or no (or an unknown) Version: read as v1
    reader=_SPONGE_READER,
    rewritten_as="sponge2",  # the same layout, and what the server imports
)
LITEMATIC = SchematicFormat(
    "litematic",
    "litematic",
    "Litematica",
    aliases=("litematica",),
    extensions=(".litematic",),
    files=".litematic",
    detect=_litematic,
    reader="mcb.schematics.formats.litematic:read_litematic",
    writer="mcb.schematics.formats.litematic_writer:litematic_tree",
    cannot_hold=("region_void", "outside_block_entities", "biomes", "without_id"),
)
STRUCTURE = SchematicFormat(
    "structure",
    "structure",
    "structure .nbt",
    aliases=("nbt",),
    extensions=(".nbt",),
    files=".nbt (structure)",
    detect=_structure,
    reader="mcb.schematics.formats.structure:read_structure",
    writer="mcb.schematics.formats.structure:structure_tree",
    cannot_hold=("anchor", "outside_block_entities", "biomes", "without_id"),
    columns=("blocks",),
    cell_tags=6,  # {state, pos: [x, y, z]} and the entry itself
    cell_bytes=36,
)
LEGACY = SchematicFormat(
    "legacy",
    "legacy",
    "legacy .schematic",
    aliases=("mcedit", "schematica", "schematic"),
    extensions=(".schematic",),
    files=".schematic",
    detect=_legacy,
    reader="mcb.schematics.formats.legacy:read_legacy",
    rewritten_as="sponge3",  # Minecraft 1.13+ states: no reason to keep an old layout
    about="Minecraft 1.12 and older",
)

FORMATS: tuple[SchematicFormat, ...] = (SPONGE2, SPONGE3, LITEMATIC, STRUCTURE, SPONGE1, LEGACY)
# Content tests in order: the most specific roots first, every Sponge version last (the least specific).
DETECTION_ORDER: tuple[SchematicFormat, ...] = (LITEMATIC, STRUCTURE, LEGACY, SPONGE3, SPONGE2, SPONGE1)
KINDS = ("sponge", "litematic", "structure", "legacy")


def detect(root: dict) -> tuple[SchematicFormat | None, Layout]:
    """The format whose content ``root`` is, and where its fields sit; (None, the root) for NBT of no format."""
    for fmt in DETECTION_ORDER:
        layout = fmt.detect(root)
        if layout is not None:
            return fmt, layout
    return None, _plain(root)


# --- looking formats up ---------------------------------------------------------------------------------------


def by_name(name: str) -> SchematicFormat:
    return next(fmt for fmt in FORMATS if fmt.name == name)


def writable_names() -> list[str]:
    """``sponge2 sponge3 litematic structure``: the words the format argument takes."""
    return [fmt.name for fmt in FORMATS if fmt.writable]


def format_words() -> list[str]:
    """The writable names and their short aliases (``v2``, ``v3``): what a typed argument offers."""
    return writable_names() + [alias for fmt in FORMATS if fmt.writable for alias in fmt.aliases if alias[:1] == "v"]


def schematic_globs() -> list[str]:
    """``*.schem``, ``*.litematic``, ...: the names a folder walk reads."""
    return [f"*{ext}" for ext in dict.fromkeys(ext for fmt in FORMATS for ext in fmt.extensions)]


def extensions_text() -> str:
    """ ".schem, .litematic, .nbt or .schematic"."""
    return _either(list(dict.fromkeys(ext for fmt in FORMATS for ext in fmt.extensions)))


def named_by(path) -> list[SchematicFormat]:
    """The formats whose files are named like ``path`` (its extension); [] for another name, or none (stdin)."""
    if path is None or str(path) == "-":
        return []
    suffix = PurePath(str(path)).suffix.lower()
    return [fmt for fmt in FORMATS if suffix in fmt.extensions]


def not_written(fmt: SchematicFormat, *, by_name: bool = True) -> UsageError:
    """mcb reads ``fmt`` but does not write it: asked for by name (format ``legacy``) or by an output's name."""
    about = f" ({fmt.about})" if fmt.about else ""
    if by_name:
        hint, field = f"choose {_either(writable_names())} with {{format}}", "format"
    else:
        files = list(dict.fromkeys(f.files for f in FORMATS if f.writable))
        hint, field = f"write {_either(files)}, or choose with {{format}}", "output"
    return UsageError(f"mcb does not write {fmt.label} files{about}", hint=hint, details={"field": field})


def _either(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def parse_format(value: str | None) -> str | None:
    """The name of the writable format ``value`` names (a name or an alias, any case); None stays None (decided
    later by the output's name and the input)."""
    if value is None:
        return None
    word = value.lower()
    fmt = next((fmt for fmt in FORMATS if word == fmt.name or word in fmt.aliases), None)
    if fmt is None:
        raise UsageError(
            f"unknown schematic format {value!r}", hint=f"use {_either(writable_names())}", details={"field": "format"}
        )
    if not fmt.writable:
        raise not_written(fmt)
    return fmt.name


def source_format(source: SourceInfo) -> SchematicFormat:
    """The format a model was read from (by its ``SourceInfo``)."""
    if source.format == "sponge":
        return (
            SPONGE3 if source.version == 3 or source.nonconforming_v3 else SPONGE2 if source.version == 2 else SPONGE1
        )
    return next(fmt for fmt in FORMATS if fmt.kind == source.format)


def output_format(requested: str | None, output, schem: Schematic | None, *, default: str | None = None) -> str:
    """The format to write: ``requested``, else the one ``output``'s extension names, else ``default``, else the
    input's own format (a format mcb does not write becomes its ``rewritten_as``). Without ``requested`` a name
    whose extension is no schematic format (``.jpg``) is refused."""
    if requested is not None:
        return requested
    named = named_by(output)
    writable = [fmt for fmt in named if fmt.writable]
    if named and not writable:
        raise not_written(named[0], by_name=False)
    if len(writable) == 1:
        return writable[0].name
    suffix = PurePath(str(output)).suffix.lower() if output is not None else ""
    if not named and suffix:  # out/x.jpg would hold schematic data under a picture's name
        files = list(dict.fromkeys(f.files for f in FORMATS if f.writable))
        raise UsageError(
            f"{PurePath(str(output)).name}: {suffix} is not a schematic format mcb writes",
            hint=f"name it {_either(files)}, or choose the format with {{format}}",
            details={"field": "output"},
        )
    if default is not None:
        return default
    own = source_format(schem.source)
    own = own if own.writable else by_name(own.rewritten_as)
    if not writable or own in writable:
        return own.name
    return writable[-1].name  # several versions share the extension (.schem): the latest


_KIND_WORDS = {"sponge": "Sponge", "litematic": "Litematica"}


def name_mismatch(fmt: str, output) -> str | None:
    """A warning when ``output``'s extension names another kind of format than the one written (output
    ``x.litematic`` in format ``sponge2``), else None."""
    named = named_by(output)
    if not named or any(other.kind == by_name(fmt).kind for other in named):
        return None
    return (
        f"{PurePath(str(output)).name} is named like a {_KIND_WORDS.get(named[0].kind, named[0].kind)} file but "
        f"holds {by_name(fmt).label} data "
        "(the format asked for)"
    )


# --- reading and writing ----------------------------------------------------------------------------------------


def from_document(doc: Document, *, palette_index: int = 0, compact: bool = False) -> Schematic:
    """The model of a document already read (any recognised format); raises ``InputError`` subclasses with
    ``rule``, their message naming the file. ``palette_index``: one of a structure file's ``palettes``;
    ``compact``: Sponge cells may come as uint16."""
    from mcb.schematics.block_entities import name_block_entities
    from mcb.schematics.document import not_a_schematic_error, with_file
    from mcb.schematics.nbt import gc_paused

    if doc.format is None:
        raise not_a_schematic_error(doc)
    with gc_paused(), with_file(doc.path):
        schem = doc.format.read(doc, ReadOptions(palette_index=palette_index, compact=compact))
    name_block_entities(schem)  # a writer that left the id out: the block says it
    return schem


def read_any(
    source: str | os.PathLike | bytes, limits: ReadLimits | None = None, *, palette_index: int = 0
) -> Schematic:
    """The model of a schematic file (or its bytes) in any format."""
    from mcb.schematics.document import load_document

    return from_document(load_document(source, limits), palette_index=palette_index)


def encode_any(schem: Schematic, fmt: str, limits: ReadLimits | None = None) -> bytes:
    """The file bytes of ``schem`` as ``fmt``; refuses (``InputError`` naming the limit and a format that holds it)
    a file mcb's readers would refuse under ``limits`` (:func:`mcb.schematics.formats.limits.check_writable`)."""
    from mcb.schematics.formats.limits import encode_within

    return encode_within(schem, by_name(fmt), limits)


def write_any(schem: Schematic, path: str | os.PathLike, fmt: str) -> Path:
    """Write ``schem`` atomically as ``fmt`` (refused as :func:`encode_any` refuses, before anything is written)."""
    from mcb.fileio import write_atomic

    return write_atomic(path, encode_any(schem, fmt))
