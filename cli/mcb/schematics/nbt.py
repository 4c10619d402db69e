"""The one NBT reader: a bounded, streaming walker over big-endian Java NBT (the encoder is :mod:`.nbt_encoder`).

Bounded *while reading*: the compressed input is capped before inflating; gzip is inflated chunk by chunk as the
walker needs bytes, with a hard cap on the inflated size; every declared string/array/list length is checked
against what can still arrive under that cap before anything is allocated (a 1 GB decompression bomb is refused
after a few kilobytes); nesting depth and total tag count are capped. Strings are Java *modified* UTF-8.

The caller decides what to keep: ``keep(path)`` is asked for every list or compound inside a kept compound; when
it answers False the container is walked without building anything and left out of the tree, and when it answers
:data:`RAW` it is walked the same way and kept as its encoded bytes (:class:`Encoded`, for a rewrite that copies it). Skipping does
every check that keeping does (tag types, names, duplicate names, MUTF-8, lengths against what remains, depth,
the tag budget) and gathers the same :class:`ReadStats`, so a limit gives the same rule id and message whoever
asked. (fastnbt's ``deserialize_ignored_any`` has this shape.)

Tags are small Python types (:mod:`.nbt_tags`, re-exported here). Every failure is an :class:`NbtError` (an
``InputError``) with a stable ``rule`` id and an NBT path.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field

from mcb.schematics.nbt_input import NbtError  # noqa: F401  (re-exported: the reader's one error)
from mcb.schematics.nbt_tags import (  # noqa: F401  (re-exported: the tag types are part of this module's API)
    TAG_BYTE,
    TAG_BYTE_ARRAY,
    TAG_COMPOUND,
    TAG_DOUBLE,
    TAG_END,
    TAG_FLOAT,
    TAG_INT,
    TAG_INT_ARRAY,
    TAG_LIST,
    TAG_LONG,
    TAG_LONG_ARRAY,
    TAG_NAMES,
    TAG_SHORT,
    TAG_STRING,
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
    decode_mutf8,
    encode_mutf8,
    is_list_of,
    tag_type,
)
from mcb.schematics.nbt_walker import RAW, Walker  # noqa: F401  (RAW is part of this module's API)

# What one cell may cost, by which every cap of the reader scales with the cell limit: one policy for reading and
# writing (a writer refuses what these refuse, mcb.schematics.formats.limits). A structure .nbt spends 6 tags and 36
# bytes of NBT on a cell, Sponge and Litematica a few bytes and no tag; at the default cell limit that is 64 MiB of
# file, 512 MiB of NBT (the 1 GB decompression bomb of the corpus stays refused) and 33,554,432 tags.
COMPRESSED_PER_CELL = 2
INFLATED_PER_CELL = 16
TAGS_PER_CELL = 1


@dataclass(frozen=True)
class ReadLimits:
    """Hard safety caps of the reader (not the server's rules, which are checked as diagnostics). The size caps
    left unset scale with ``max_cells`` (``ReadLimits(max_cells=1000)`` is a consistent, smaller reader)."""

    # The most cells a reader puts into the model: 2^25, twice the largest real build in the corpus (256^3); a
    # declared size beyond it is refused before anything that size is allocated (128 MiB of int32 indices).
    max_cells: int = 1 << 25
    max_compressed: int = None  # type: ignore[assignment]  # bytes of the file: COMPRESSED_PER_CELL per cell
    max_inflated: int = None  # type: ignore[assignment]  # bytes of NBT: INFLATED_PER_CELL per cell
    max_tags: int = None  # type: ignore[assignment]  # TAGS_PER_CELL per cell
    max_depth: int = 200  # far above real files (~10) and the server (16); keeps recursion shallow
    # Bytes asked of zlib per inflate step: a bomb's refusal holds a few MiB, not bigger steps and their joins
    # (a tiny step makes every read cross a refill: the tests use it).
    inflate_step: int = 1 << 20

    def __post_init__(self):
        for name, per_cell in (
            ("max_compressed", COMPRESSED_PER_CELL),
            ("max_inflated", INFLATED_PER_CELL),
            ("max_tags", TAGS_PER_CELL),
        ):
            if getattr(self, name) is None:
                object.__setattr__(self, name, per_cell * self.max_cells)


@dataclass
class ReadStats:
    """Facts gathered while reading, so rules can judge them (server limits, quirks)."""

    compressed: bool = False
    compressed_size: int = 0
    inflated_size: int = 0
    root_name: str = ""
    tag_count: int = 0
    max_depth: int = 0
    max_list_length: int = 0
    max_string_bytes: int = 0
    duplicate_names: list[str] = field(default_factory=list)
    non_mutf8_strings: int = 0
    trailing_nbt_bytes: int = 0
    trailing_gzip_bytes: int = 0


@contextmanager
def gc_paused():
    """Pause the cyclic garbage collector while building or encoding a big acyclic tree: its repeated full scans
    of ~10^5 live tag objects free nothing here. Measured on the 256^3 corpus file (CPU): reading it into the model
    1.31 -> 1.03 s, rotating it 0.98 -> 0.54 s."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def is_gzip(data: bytes) -> bool:
    return data[:2] == b"\x1f\x8b"


def read_nbt(
    data: bytes, limits: ReadLimits | None = None, keep=None, *, columns=frozenset()
) -> tuple[Compound, ReadStats]:
    """Parse one NBT document (gzip or raw, detected by magic) into (root compound, stats).

    ``keep(path)`` (optional; ``path`` is the live list of names, and list indices as ints, from the root) is
    asked for every list or compound inside a kept compound: True builds it, False walks it with every check and
    leaves it out of the tree, and :data:`RAW` walks it the same way and keeps its encoded bytes (:class:`Encoded`).
    ``columns``: names of root lists of compounds that are read as columns where they are built
    (:class:`~mcb.schematics.nbt_columns.ColumnList`: a structure's ``blocks``).
    """
    limits = limits or ReadLimits()
    stats = ReadStats(compressed=is_gzip(data), compressed_size=len(data))
    if len(data) > limits.max_compressed:
        raise NbtError(
            f"file is {len(data):,} bytes, above the {limits.max_compressed:,} byte limit",
            rule="nbt.limit.compressed",
            pointer="/",
        )
    if not data:
        raise NbtError("file is empty", rule="nbt.empty", pointer="/")
    walker = Walker(data, stats.compressed, limits, stats, keep, frozenset(columns))
    with gc_paused():
        first = walker.u8()
        if first != TAG_COMPOUND:
            what = f"a {TAG_NAMES[first]} tag" if first < len(TAG_NAMES) else f"byte 0x{first:02x}, not a tag type"
            raise NbtError(
                f"not an NBT compound: the file starts with {what}",
                rule="nbt.root.type",
                pointer="/",
                hint=None if stats.compressed else "not an NBT file (and not gzip-compressed)",
            )
        stats.root_name = walker.string()
        root = walker.payload(TAG_COMPOUND, 0, True)
    stats.trailing_nbt_bytes = walker.drain()
    stats.inflated_size = walker.inflated
    return root, stats
