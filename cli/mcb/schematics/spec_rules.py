"""The ``spec`` profile: Sponge specification (v1/v2/v3 as the file claims) + WorldEdit interoperability rules."""

from __future__ import annotations

from mcb.errors import InputError
from mcb.reports.model import Diagnostic, Severity
from mcb.schematics.block_entities import is_resource_location
from mcb.schematics.document import DUPLICATE_NAME, Document
from mcb.schematics.nbt import TAG_COMPOUND, IntArray, String, is_list_of, tag_type
from mcb.wording import dimensions, plural

INT_TAGS = (1, 2, 3, 4)


class _Checker:
    def __init__(self, doc: Document, file: str, registry):
        self.doc, self.file, self.registry = doc, file, registry
        self.out: list[Diagnostic] = []
        self.v3 = doc.is_v3

    def add(self, rule: str, severity: Severity, message: str, *where, hint: str | None = None) -> None:
        self.out.append(
            Diagnostic(
                rule=rule,
                severity=severity,
                message=message,
                file=self.file,
                pointer=self.doc.pointer(*where),
                hint=hint,
            )
        )

    def error(self, rule, message, *where, hint=None):
        self.add(rule, Severity.ERROR, message, *where, hint=hint)

    def warn(self, rule, message, *where, hint=None):
        self.add(rule, Severity.WARNING, message, *where, hint=hint)

    def typed(self, container, key: str, tags: tuple[int, ...], type_name: str, *where, required=True):
        value = container.get(key) if isinstance(container, dict) else None
        if value is None:
            if required:
                self.error("sponge.field.missing", f"required tag {key} ({type_name}) is missing", *where, key)
            return None
        if tag_type(value) not in tags:
            self.error("sponge.field.type", f"{key} must be {type_name}", *where, key)
            return None
        return value

    def run(self) -> list[Diagnostic]:
        body = self.body = self.doc.body
        if self.doc.nonconforming_v3:
            self.error(
                "sponge.v3.nonconforming",
                "Sponge v3 fields must sit in a 'Schematic' compound inside an "
                "unnamed root; WorldEdit does not recognise this file as v3",
                hint="re-save it with a conforming writer, or convert it: `mcb schem convert FILE -o OUT.schem`",
            )
        for where in self.doc.stats.duplicate_names[:5]:
            self.out.append(
                Diagnostic(
                    rule="nbt.duplicate", severity=Severity.ERROR, message=DUPLICATE_NAME, file=self.file, pointer=where
                )
            )
        if self.doc.stats.trailing_nbt_bytes:
            self.warn(
                "sponge.nbt.trailing",
                f"{plural(self.doc.stats.trailing_nbt_bytes, 'byte')} follow{'s' if self.doc.stats.trailing_nbt_bytes == 1 else ''} the root compound "
                "(in the file or in a further gzip member); readers ignore them, the server refuses the file",
            )
        if self.doc.stats.trailing_gzip_bytes:
            self.warn(
                "sponge.gzip.trailing",
                f"{plural(self.doc.stats.trailing_gzip_bytes, 'byte')} "
                f"follow{'s' if self.doc.stats.trailing_gzip_bytes == 1 else ''} the gzip stream; "
                "they are ignored (Java's GZIPInputStream skips them too)",
            )
        if self.doc.version is None:
            self.warn("sponge.field.missing", "no Version tag; read as Sponge v1", "Version")
        elif self.doc.version not in (1, 2, 3):
            self.error("sponge.version.unknown", f"unknown Sponge Version {self.doc.version}", "Version")
        if self.doc.version in (2, 3):
            self.typed(body, "DataVersion", (3,), "Int", required=True)
        sizes = [self.typed(body, k, (2,), "Short") for k in ("Width", "Height", "Length")]
        size = [int(s) & 0xFFFF for s in sizes] if all(s is not None for s in sizes) else None
        if size and min(size) < 1:
            self.error("sponge.size.empty", f"size {dimensions(*size)} has an empty axis", "Width")
        offset = body.get("Offset")
        if offset is not None and (tag_type(offset) != 11 or len(offset) != 3):
            self.error("sponge.offset.shape", "Offset must be an Int_Array of 3 values", "Offset")
        if self.v3 and isinstance(body.get("Blocks"), dict):
            box, where = body["Blocks"], ("Blocks",)
            self.blocks(box.get("Palette"), box.get("Data"), None, size, where, "Palette", "Data", "block")
            entries, entries_where = box.get("BlockEntities"), where + ("BlockEntities",)
        else:
            where = ()
            if self.v3:
                self.error("sponge.field.missing", "required container Blocks (Palette, Data) is missing", "Blocks")
            self.blocks(
                body.get("Palette"),
                body.get("BlockData"),
                body.get("PaletteMax"),
                size,
                where,
                "Palette",
                "BlockData",
                "block",
            )
            entries, entries_where = body.get("BlockEntities"), ("BlockEntities",)
            if entries is None and "TileEntities" in body:
                entries, entries_where = body["TileEntities"], ("TileEntities",)
                if self.doc.version == 2:
                    self.warn(
                        "sponge.block_entity.legacy_key",
                        "v2 block entities belong in BlockEntities; this "
                        "file uses the v1 key TileEntities (WorldEdit still reads it)",
                        "TileEntities",
                    )
        if size:
            self.block_entities(entries, size, entries_where)
            self.entities(body.get("Entities"), size)
            self.biomes(size)
        return self.out

    def blocks(self, palette, data, palette_max, size, where, palette_key, data_key, what):
        if palette is None:
            self.error(
                "sponge.palette.missing",
                f"{palette_key} is missing; without it indices would be global "
                "ids, which no tool supports (WorldEdit refuses the file)",
                *where,
                palette_key,
            )
            return
        if tag_type(palette) != 10:
            self.error("sponge.field.type", f"{palette_key} must be a compound of state -> Int", *where, palette_key)
            return
        indices: dict[int, str] = {}
        for state, index in palette.items():
            if tag_type(index) not in INT_TAGS or int(index) < 0:
                self.error(
                    "sponge.palette.index", f"palette entry {state!r} has no valid index", *where, palette_key, state
                )
            elif int(index) in indices:
                self.error(
                    "sponge.palette.duplicate_index",
                    f"palette index {int(index)} is used by {indices[int(index)]!r} and {state!r}",
                    *where,
                    palette_key,
                    state,
                )
            else:
                indices[int(index)] = state
        if indices and sorted(indices) != list(range(len(indices))):
            self.warn(
                "sponge.palette.sparse", f"{palette_key} indices are not 0..{len(indices) - 1}", *where, palette_key
            )
        max_key = "BiomePaletteMax" if what == "biome2d" else "PaletteMax"
        if palette_max is not None and not self.v3:
            if tag_type(palette_max) not in INT_TAGS:
                self.error("sponge.field.type", f"{max_key} must be an Int", *where, max_key)
            elif int(palette_max) != len(palette):
                self.error(
                    "sponge.palette.max",
                    f"{max_key} is {int(palette_max)} but {palette_key} has "
                    f"{plural(len(palette), 'entry', 'entries')}; WorldEdit refuses this ('palette size does "
                    "not match expected size')",
                    *where,
                    max_key,
                )
        if what == "block":
            self.states(palette, where + (palette_key,))
        if data is None:
            self.error("sponge.blockdata.missing", f"{data_key} is missing", *where, data_key)
            return
        if tag_type(data) != 7:
            self.error("sponge.field.type", f"{data_key} must be a Byte_Array of varints", *where, data_key)
            return
        if size is None:
            return
        cells = size[0] * size[2] * (size[1] if what != "biome2d" else 1)
        values, problem = self.doc.used_values(data, cells)
        if problem is not None:
            self.error(
                f"sponge.blockdata.{problem.kind}", problem.message.replace("BlockData", data_key), *where, data_key
            )
        missing = sorted(value for value in values if value not in indices)
        if missing:
            self.error(
                "sponge.blockdata.index",
                f"{data_key} uses index {missing[0]}"
                + (f" (and {len(missing) - 1:,} more)" if len(missing) > 1 else "")
                + f", which {palette_key} does not define",
                *where,
                data_key,
            )
        unused = [state for index, state in indices.items() if index not in values]
        if unused and problem is None:
            entries = plural(len(unused), f"{palette_key} entry", f"{palette_key} entries")
            verb = "is" if len(unused) == 1 else "are"
            self.add(
                "sponge.palette.unused",
                Severity.NOTE,
                f"{entries} {verb} never used (e.g. {unused[0]!r})",
                *where,
                palette_key,
            )

    def states(self, palette, where):
        if self.registry is None:
            return
        # One finding per problem, however many palette entries share it (nine fence shapes with the same unknown
        # property are one fact), pointing at the first and counting the rest.
        found: dict[tuple, list[str]] = {}
        for state in palette:
            try:
                self.registry.canonicalize(state)
            except InputError as error:
                code = error.code if error.code.startswith("block.") else "block.invalid"
                found.setdefault((code, error.message, error.hint_template), []).append(state)
        for (code, message, hint), states in found.items():
            others = (
                f" and {plural(len(states) - 1, 'more palette entry', 'more palette entries')}"
                if len(states) > 1
                else ""
            )
            self.error(code, f"{states[0]!r}{others}: {message}", *where, states[0], hint=hint)

    def block_entities(self, entries, size, where):
        width, height, length = size
        for i, entry in self.entry_list(entries, where):
            pos, ident = entry.get("Pos"), entry.get("Id")
            if type(pos) is IntArray and len(pos) == 3 and type(ident) is String:  # the common case, quickly
                x, y, z = pos
                if 0 <= x < width and 0 <= y < height and 0 <= z < length and is_resource_location(ident):
                    continue
            self.block_entity(i, pos, ident, size, where)

    def block_entity(self, i, pos, ident, size, where):
        if tag_type(pos) != 11 or len(pos) != 3 or tag_type(ident) != 8:
            self.error(
                "sponge.block_entity.shape", "block entity needs Pos (Int_Array of 3) and Id (String)", *where, i
            )
        elif not all(0 <= int(p) < s for p, s in zip(pos, size)):
            self.error(
                "sponge.block_entity.outside",
                f"block entity {str(ident)} at {list(map(int, pos))} lies outside the {dimensions(*size)} box",
                *where,
                i,
                "Pos",
            )
        if tag_type(ident) == 8:
            self.id_check("sponge.block_entity.id", "block entity", str(ident), *where, i, "Id")

    def id_check(self, rule: str, what: str, ident: str, *where) -> None:
        """An id the game cannot read as a resource location: the game skips the entry (WorldEdit once wrote
        ``"minecraft:skull"`` with the quotes in it)."""
        if is_resource_location(ident):
            return
        text = "has an empty Id" if not ident else f"Id {ident!r} is not a resource location"
        self.warn(
            rule,
            f"{what} {text}: the game skips it",
            *where,
            hint="an id is namespace:path of a-z, 0-9 and _ - . / (e.g. minecraft:chest)",
        )

    def entities(self, entries, size):
        stored = self.body.get("Offset")
        for i, entry in self.entry_list(entries, ("Entities",)):
            pos, ident = entry.get("Pos"), entry.get("Id")
            if tag_type(pos) != 9 or len(pos) != 3 or pos.subtype != 6 or tag_type(ident) != 8:
                self.error("sponge.entity.shape", "entity needs Pos (List of 3 Doubles) and Id (String)", "Entities", i)
                continue
            self.id_check("sponge.entity.id", "entity", str(ident), "Entities", i, "Id")
            inside = all(0 <= float(p) <= s for p, s in zip(pos, size))
            if inside:
                continue
            if (
                not self.v3
                and stored is not None
                and len(stored) == 3
                and all(0 <= float(p) - o <= s for p, o, s in zip(pos, stored, size))
            ):
                self.warn(
                    "sponge.entity.absolute_pos",
                    f"entity {str(ident)} Pos is an absolute world position "
                    "(WorldEdit v2 habit); the spec wants it relative to the schematic",
                    "Entities",
                    i,
                    "Pos",
                )
            else:
                self.warn(
                    "sponge.entity.outside",
                    f"entity {str(ident)} at {[float(p) for p in pos]} lies outside the box",
                    "Entities",
                    i,
                    "Pos",
                )

    def entry_list(self, entries, where):
        if entries is None:
            return []
        if not is_list_of(entries, TAG_COMPOUND):
            self.error("sponge.field.type", "must be a List of Compounds", *where)
            return []
        return enumerate(entries)

    def biomes(self, size):
        body = self.body
        if self.v3:
            box = body.get("Biomes")
            if isinstance(box, dict):
                self.blocks(box.get("Palette"), box.get("Data"), None, size, ("Biomes",), "Palette", "Data", "biome")
            return
        if "BiomePalette" in body or "BiomeData" in body:
            self.blocks(
                body.get("BiomePalette"),
                body.get("BiomeData"),
                body.get("BiomePaletteMax"),
                size,
                (),
                "BiomePalette",
                "BiomeData",
                "biome2d",
            )


def spec_findings(doc: Document, file: str, registry) -> list[Diagnostic]:
    return _Checker(doc, file, registry).run()
