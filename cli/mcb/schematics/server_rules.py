"""The plugin's Sponge v2 import subset (protocol §6.4, spec §B), rule by rule, in the server's order.

:func:`check_server_subset` is the one answer to "what would the server say about this file": ``schem validate
--profile server`` reports its findings, ``schem info`` shows its verdict and ``mcb serve`` answers with its
message. It lists every rule the file breaks; the verdict is the first one's message, verbatim where §6.4 quotes
one (``ServerVerdict.exact``), or acceptance with the decoded, canonicalised schematic.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from mcb.errors import InputError
from mcb.schematics.document import Document, load_document, read_source, what_file_is
from mcb.schematics.nbt import ReadLimits, tag_type
from mcb.wording import dimensions, listed, plural

MAX_COMPRESSED = 1_048_576
MAX_INFLATED = 4_194_304
MAX_CELLS = 4096
MAX_PALETTE = 4096
MAX_STRING_BYTES = 4096
MAX_DEPTH = 16
MAX_TAGS = 20_000
MAX_LIST = 20_000
MAX_STATE_CHARS = 1024
SERVER_DATA_VERSION = 4903  # Minecraft 26.2
ALLOWED_ROOT_KEYS = (
    "Version",
    "DataVersion",
    "Width",
    "Height",
    "Length",
    "Offset",
    "PaletteMax",
    "Palette",
    "BlockData",
    "BlockEntities",
    "Entities",
    "Metadata",
)
STATE_PATTERN = re.compile(r"minecraft:[a-z0-9_]+(\[[a-z0-9_=,]+\])?")
CONVERT_HINT = "convert it with `mcb schem convert FILE -o OUT.schem` (writes Sponge v2)"


# The server reads with its own caps; its reader stops where ours would (protocol §6.4 rules 1 and 3).
SERVER_READ_LIMITS = ReadLimits(
    max_compressed=MAX_COMPRESSED * 64, max_inflated=MAX_INFLATED + 1, max_tags=MAX_TAGS + 1
)


@dataclass
class ServerFinding:
    rule: str
    message: str  # what the server says (verbatim when ``exact``), else our description
    pointer: str | None = None
    exact: bool = True
    hint: str | None = None
    detail: str | None = None  # our extra explanation shown next to the server's words
    cause: str | None = None  # the real reason in our words, when the server's words hide it (shown first)

    def text(self) -> str:
        """The finding in words: the real cause first, the server's own words quoted, our detail after."""
        if self.cause:
            text = f'{self.cause}; server: "{self.message}"'
        else:
            text = f'server: "{self.message}"' if self.exact else self.message
        return text + (f" ({self.detail})" if self.detail else "")


@dataclass
class ServerVerdict:
    accepted: bool
    message: str | None = None
    exact: bool = True
    rule: str | None = None
    findings: list[ServerFinding] = field(default_factory=list)
    schematic: object | None = None  # mcb.schematics.model.Schematic when accepted
    canonical_palette: list[str] | None = None


def stream_findings(data_size: int, compressed: bool) -> list[ServerFinding]:
    """Rule 1 checks that need only the raw file."""
    found = []
    if data_size > MAX_COMPRESSED:
        found.append(
            ServerFinding(
                "server.size.compressed",
                "Compressed asset exceeds 1 MiB",
                "/",
                detail=f"the file is {data_size:,} bytes; the limit is {MAX_COMPRESSED:,}",
            )
        )
    if not compressed:
        found.append(
            ServerFinding(
                "server.gzip.required",
                "Not in GZIP format",
                "/",
                exact=False,
                detail="the server reads only gzip-compressed NBT",
                hint="gzip the file (mcb schem convert writes gzip)",
            )
        )
    return found


def nbt_findings(doc: Document) -> list[ServerFinding]:
    """Rules 2-3: root, trailing data and the server parser's generic limits."""
    s, found = doc.stats, []
    if s.inflated_size > MAX_INFLATED:
        found.append(
            ServerFinding(
                "server.size.inflated",
                "Inflated schematic exceeds 4 MiB",
                "/",
                detail=f"the NBT is {s.inflated_size:,} bytes; the limit is {MAX_INFLATED:,}",
            )
        )
    if s.root_name not in ("", "Schematic"):
        found.append(
            ServerFinding(
                "server.nbt.root_name",
                "Unexpected schematic root name",
                "/",
                detail=f"root is named {s.root_name!r}; only '' or 'Schematic' are accepted",
            )
        )
    if s.trailing_nbt_bytes:
        found.append(
            ServerFinding(
                "server.nbt.trailing",
                "Trailing NBT data is not accepted",
                "/",
                detail=f"{plural(s.trailing_nbt_bytes, 'byte')} follow the root compound",
            )
        )
    limits = [
        ("server.nbt.string", s.max_string_bytes, MAX_STRING_BYTES, "a string is {} bytes long"),
        ("server.nbt.depth", s.max_depth, MAX_DEPTH, "tags are nested {} levels deep"),
        ("server.nbt.tags", s.tag_count, MAX_TAGS, "the file holds {} tags"),
        ("server.nbt.list", s.max_list_length, MAX_LIST, "a list holds {} elements"),
    ]
    for rule, value, limit, text in limits:
        if value > limit:
            found.append(
                ServerFinding(
                    rule, f"NBT limit exceeded: {text.format(f'{value:,}')} (server limit {limit:,})", "/", exact=False
                )
            )
    for where in s.duplicate_names[:5]:
        found.append(
            ServerFinding(
                "nbt.duplicate",
                "Duplicate NBT tag name",
                where,
                exact=False,
                detail="a compound names the same tag twice",
            )
        )
    return found


def _mistyped(key: str) -> ServerFinding:
    return ServerFinding("server.field.type", f"Missing or mistyped schematic field: {key}", f"/{key}")


def name_is_valid(name: str) -> bool:
    """Asset display name: 1..64 UTF-16 units, not blank, no ISO control characters (Java isISOControl)."""
    units = len(name.encode("utf-16-le")) // 2
    return 1 <= units <= 64 and bool(name.strip()) and not any(ord(c) <= 0x1F or 0x7F <= ord(c) <= 0x9F for c in name)


def state_syntax_ok(state: str) -> bool:
    """The server's wrapper check before its runtime transformer (§6.6): regex, length, one '=', no dup keys."""
    if len(state) > MAX_STATE_CHARS or not STATE_PATTERN.fullmatch(state):
        return False
    pairs = state[state.index("[") + 1 : -1].split(",") if "[" in state else []
    keys = [pair.partition("=")[0] for pair in pairs]
    return all(pair.count("=") == 1 for pair in pairs) and len(keys) == len(set(keys))


def schematic_findings(
    doc: Document, *, server_data_version: int | None = SERVER_DATA_VERSION, registry=None
) -> tuple[list[ServerFinding], dict[str, str]]:
    """Rules 4-13 on the root compound (the server reads the root's fields directly).

    ``server_data_version=None`` skips the import-time DataVersion comparison (asset listing does not do it).
    Returns the findings and the canonical form of every accepted palette key.
    """
    root, found, canonical = doc.root, [], {}
    unknown = [k for k in root if k not in ALLOWED_ROOT_KEYS]
    if unknown:
        found.append(
            ServerFinding(
                "server.fields.unsupported",
                "Unsupported schematic fields (biomes/custom data are not imported)",
                "/",
                detail="unsupported root tags: " + listed(unknown, 8),
                hint=CONVERT_HINT if doc.version in (1, 3) or "Schematic" in unknown else None,
                cause=_version_cause(doc),
            )
        )
    if isinstance(root.get("Schematic"), dict) and "Version" not in root:
        return found, canonical  # a v3 wrapper: the server stops at the unsupported field; the rest is cascade
    version = root.get("Version")
    if tag_type(version) != 3:
        found.append(_mistyped("Version"))
    elif int(version) != 2:
        found.append(
            ServerFinding(
                "server.version",
                "Only Sponge schematic version 2 is supported",
                "/Version",
                detail=f"this file is Sponge v{int(version)}",
                hint=CONVERT_HINT,
            )
        )
    data_version = root.get("DataVersion")
    if tag_type(data_version) != 3 or int(data_version) < 0:
        found.append(_mistyped("DataVersion"))
    elif server_data_version is not None and int(data_version) > server_data_version:
        found.append(
            ServerFinding(
                "server.data_version.newer",
                "Schematic DataVersion is newer than the target server",
                "/DataVersion",
                detail=f"file DataVersion {int(data_version)} > server {server_data_version}",
            )
        )
    sizes = []
    for key in ("Width", "Height", "Length"):
        value = root.get(key)
        if tag_type(value) != 2:
            found.append(_mistyped(key))
        else:
            sizes.append(int(value) & 0xFFFF)
    volume = sizes[0] * sizes[1] * sizes[2] if len(sizes) == 3 else None
    if volume is not None and (min(sizes) < 1 or volume > MAX_CELLS):
        found.append(
            ServerFinding(
                "server.volume",
                "Schematic volume must be 1..4096",
                "/Width",
                detail=f"{dimensions(*sizes)} = {plural(volume, 'cell')}",
            )
        )
    offset = root.get("Offset")
    if offset is not None and (tag_type(offset) != 11 or len(offset) != 3):
        found.append(_mistyped("Offset"))
    for key in ("Entities", "BlockEntities"):
        value = root.get(key)
        if value is not None and (tag_type(value) != 9 or value.subtype not in (0, 10)):
            found.append(_mistyped(key))
        elif value:  # a non-empty list
            found.append(
                ServerFinding(
                    f"server.{key.lower()}",
                    f"{key} are unsupported; import rejected without dropping data",
                    f"/{key}",
                    detail=plural(len(value), "entry", "entries"),
                )
            )
    found += _palette_findings(doc, root, volume, registry, canonical)
    metadata = root.get("Metadata")
    if metadata is not None and tag_type(metadata) != 10:
        found.append(_mistyped("Metadata"))
    elif metadata is not None:
        mods = metadata.get("RequiredMods")
        if mods is not None and (tag_type(mods) != 9 or len(mods)):
            found.append(
                ServerFinding(
                    "server.metadata.required_mods",
                    "Missing or mistyped schematic field: RequiredMods",
                    "/Metadata/RequiredMods",
                    exact=False,
                    detail="RequiredMods must be an empty list",
                )
            )
        name = metadata.get("Name")
        if name is not None and (tag_type(name) != 8 or not name_is_valid(str(name))):
            found.append(
                ServerFinding(
                    "server.metadata.name",
                    "Asset name must contain 1..64 printable characters",
                    "/Metadata/Name",
                    exact=False,
                )
            )
    if found:  # lead with the real reason, whichever refusal comes first (a v1 file)
        found[0].cause = found[0].cause or _version_cause(doc)
        found[0].hint = found[0].hint or (CONVERT_HINT if found[0].cause else None)
    return found, canonical


def _version_cause(doc: Document) -> str | None:
    """ "this is Sponge vN; ..." for a Sponge file that is not v2: the real cause behind the server's first refusal."""
    if doc.kind != "sponge":
        return None
    if doc.is_v3:
        return "this is Sponge v3; the server imports only Sponge v2"
    if doc.version != 2:
        return f"this is Sponge v{doc.version or 1}; the server imports only Sponge v2"
    return None


def _palette_findings(doc, root, volume, registry, canonical: dict[str, str]) -> list[ServerFinding]:
    found = []
    palette_max = root.get("PaletteMax")
    bound = MAX_PALETTE
    if palette_max is not None:
        if tag_type(palette_max) != 3 or not 1 <= int(palette_max) <= MAX_PALETTE:
            found.append(
                ServerFinding(
                    "server.palette.max",
                    "Missing or mistyped schematic field: PaletteMax",
                    "/PaletteMax",
                    exact=False,
                    detail="PaletteMax must be an Int in 1..4096",
                )
            )
        else:
            bound = int(palette_max)
    palette = root.get("Palette")
    if tag_type(palette) != 10:
        found.append(_mistyped("Palette"))
        return found
    if not 1 <= len(palette) <= MAX_PALETTE:
        found.append(
            ServerFinding(
                "server.palette.size",
                "Palette must have 1..4096 entries",
                "/Palette",
                exact=False,
                detail=f"the palette has {plural(len(palette), 'entry', 'entries')}",
            )
        )
    used: set[int] = set()
    for state, index in palette.items():
        if tag_type(index) != 3 or not 0 <= int(index) < bound or int(index) in used:
            found.append(
                ServerFinding(
                    "server.palette.index",
                    "Invalid or duplicate palette index",
                    f"/Palette/{state}",
                    detail=f"index {index!r}, PaletteMax {bound}",
                )
            )
            break
        used.add(int(index))
    for state in palette:
        if not state_syntax_ok(state):
            found.append(
                ServerFinding(
                    "server.state.syntax",
                    "Invalid schematic block state",
                    f"/Palette/{state}",
                    exact=False,
                    detail=f"{state!r} is not minecraft:id[key=value,...] "
                    "(explicit minecraft: namespace, lowercase, unique keys)",
                )
            )
            continue
        try:
            canonical[state] = registry.canonicalize(state) if registry is not None else state
        except InputError as error:
            found.append(
                ServerFinding(
                    "server.state.runtime",
                    "Invalid runtime schematic block state",
                    f"/Palette/{state}",
                    detail=error.message,
                    hint=error.hint_template,
                )
            )
    data = root.get("BlockData")
    if tag_type(data) != 7:
        found.append(_mistyped("BlockData"))
    elif volume is not None:
        values, problem = doc.used_values(data, volume)
        if problem is not None:
            message = "BlockData has extra entries" if problem.kind == "too_many" else "Malformed schematic"
            found.append(
                ServerFinding(
                    f"server.blockdata.{problem.kind}",
                    message,
                    "/BlockData",
                    exact=problem.kind == "too_many",
                    detail=problem.message,
                )
            )
        missing = sorted(value for value in values if value not in used)
        if missing:
            found.append(
                ServerFinding(
                    "server.blockdata.index",
                    "BlockData refers to missing palette index",
                    "/BlockData",
                    detail=f"index {int(missing[0])} is not in the palette",
                )
            )
    return found


def check_server_subset(
    source: str | os.PathLike | bytes,
    *,
    server_data_version: int | None = SERVER_DATA_VERSION,
    registry=None,
    build_model: bool = True,
    document: Document | None = None,
) -> ServerVerdict:
    """What the plugin's ``SchematicAssets.decode`` (+ the import-time DataVersion check) says about a file.

    ``source`` is a path or the file's bytes. ``registry`` (``mcb.blocks.registry.load_registry(...)``) enables the
    runtime state check; ``server_data_version=None`` skips the DataVersion comparison (asset listing). On
    acceptance ``schematic`` is the decoded model with palette keys replaced by their canonical states (with
    ``build_model``). ``document``: the same bytes already read by ``load_document`` with other limits; it is used
    when reading under the server's limits would give the very same tree and statistics (it stayed inside them),
    else the bytes are read again.
    """
    if document is not None:
        data = document.data
    else:
        try:
            data, _ = read_source(source, SERVER_READ_LIMITS)
        except InputError as error:
            return _verdict([ServerFinding(getattr(error, "rule", error.code), error.message, exact=False)])
    findings = stream_findings(len(data), data[:2] == b"\x1f\x8b")
    doc = document if document is not None and _inside_server_limits(document) else None
    if doc is None:
        try:
            doc = load_document(data, SERVER_READ_LIMITS, fast=True)
        except InputError as error:
            for finding in findings:  # not NBT at all (a JPEG, an empty file): gzipping it would not help
                if finding.rule == "server.gzip.required":
                    finding.hint = None
            return _verdict(findings + [_unreadable(error, data)])
    findings += nbt_findings(doc)
    more, canonical = schematic_findings(doc, server_data_version=server_data_version, registry=registry)
    findings += more
    verdict = _verdict(findings)
    if verdict.accepted and build_model:
        from mcb.schematics.formats.sponge import read_sponge

        schem = read_sponge(doc)  # accepted: no block entities or entities were left out
        schem.palette = [canonical.get(s, s) for s in schem.palette]
        # The server reads Offset as the paste offset and ignores WorldEdit's WEOffset (spec §A.6).
        schem.offset = schem.source.stored_offset or (0, 0, 0)
        schem.world_origin = None
        verdict.schematic = schem
        verdict.canonical_palette = list(schem.palette)
    return verdict


def _inside_server_limits(doc: Document) -> bool:
    """Whether ``doc``'s read stayed inside :data:`SERVER_READ_LIMITS` (then reading again under them gives the
    same tree and statistics: the reader's checks are the same, only the caps differ)."""
    limits = SERVER_READ_LIMITS
    return (
        len(doc.data) <= limits.max_compressed
        and doc.stats.inflated_size <= limits.max_inflated
        and doc.stats.tag_count <= limits.max_tags
        and doc.stats.max_depth <= limits.max_depth
    )


def _unreadable(error: InputError, data: bytes) -> ServerFinding:
    """What the server says when its reader stops: its own cap, or "Malformed schematic" with our reason (and what
    the file seems to be when it is no NBT at all: a JPEG image, JSON text)."""
    rule = getattr(error, "rule", error.code)
    if rule == "nbt.limit.inflated":
        return ServerFinding(
            "server.size.inflated",
            "Inflated schematic exceeds 4 MiB",
            "/",
            detail=f"inflated size above {MAX_INFLATED:,} bytes",
        )
    if rule == "nbt.limit.tags":
        return ServerFinding(
            "server.nbt.tags",
            f"NBT limit exceeded: more than {MAX_TAGS:,} tags (server limit {MAX_TAGS:,})",
            "/",
            exact=False,
        )
    what = what_file_is(data) if rule == "nbt.root.type" else None
    return ServerFinding(
        rule,
        "Malformed schematic",
        getattr(error, "pointer", None),
        exact=False,
        detail=f"this is {what}, not a schematic ({error.message})" if what else error.message,
        hint=error.hint_template,
    )


def _verdict(findings: list[ServerFinding]) -> ServerVerdict:
    if not findings:
        return ServerVerdict(True)
    head = findings[0]
    return ServerVerdict(False, head.message, head.exact, head.rule, findings)
