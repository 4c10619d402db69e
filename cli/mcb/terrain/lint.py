"""``mcb terrain lint``: server-exact validation of terrain recipes and brushes, as diagnostics with line numbers.

The first error is exactly the one the server would answer (``invalid_request`` + message); warnings point at things
the server accepts but that surprise people (literal-sensitive ``terrain_id``, features that miss the envelope, a
surface entirely outside the envelope).
"""

from __future__ import annotations

import re
from pathlib import Path

from mcb.fileio import SERVER_REQUEST_BYTES
from mcb.reports.model import Diagnostic, FileReport, Severity
from mcb.terrain.jsontext import JsonNumber, from_source_map
from mcb.terrain.recipe import TerrainRecipe, TerrainRecipeError, validate_recipe

RULES = {
    "terrain.json.syntax": "The file is not valid JSON.",
    "terrain.json.encoding": "The file is not UTF-8.",
    "terrain.json.bom": "The file starts with a UTF-8 byte-order mark.",
    "terrain.file.size": "The file is larger than the server's 1 MiB request limit.",
    "terrain.unknown-key": "A key the server does not allow.",
    "terrain.missing-key": "A required key is missing or null.",
    "terrain.type": "A value has the wrong JSON type.",
    "terrain.strict-integer": 'A number written as 5.0, 5e0 or "5" where the server wants an integer literal.',
    "terrain.range": "A value is outside its allowed range.",
    "terrain.envelope": "The envelope (min..max) is inverted or too large.",
    "terrain.material": "A palette material is not one of the 11 natural terrain materials.",
    "terrain.feature": "A feature is malformed (unknown type, bad plateau bounds, too few path points).",
    "terrain.preserve": "A preserve box is malformed or outside the envelope/scan window.",
    "terrain.invalid": "Another server validation failure.",
    "brush.invalid": "The brush would be refused by the server.",
    "terrain.not-terrain-recipe": "A build recipe, batch file or JSON Schema among the terrain files (not linted).",
    "terrain.number.literal": "A number written with a fraction or exponent: terrain_id hashes the literal text.",
    "terrain.json.duplicate-key": "A key appears twice; the later value wins.",
    "terrain.feature.outside": "A feature's whole influence zone misses the envelope, so it changes nothing.",
    "terrain.surface.clipped": "The sampled surface lies outside the envelope's Y range everywhere.",
}

_RULE_PATTERNS = [
    (re.compile(r"^Unknown (brush )?field"), "terrain.unknown-key"),
    (re.compile(r"^Missing field"), "terrain.missing-key"),
    (re.compile(r"must be an integer$"), "terrain.strict-integer"),
    (re.compile(r"must be (numeric|text|an object|an array)|^Expected (object|path point)$"), "terrain.type"),
    (re.compile(r"out of range|^Mode must"), "terrain.range"),
    (re.compile(r"^Terrain envelope|^Invalid inclusive region"), "terrain.envelope"),
    (re.compile(r"^Unsupported terrain material"), "terrain.material"),
    (re.compile(r"^Unsupported terrain feature|^Invalid plateau|^A path needs|^Feature must"), "terrain.feature"),
    (re.compile(r"^Preserve box"), "terrain.preserve"),
]


def rule_for(message: str, pointer: str) -> str:
    if pointer.startswith("/preserve") and message.startswith("Invalid inclusive"):
        return "terrain.preserve"
    for pattern, rule in _RULE_PATTERNS:
        if pattern.search(message):
            return rule
    return "terrain.invalid"


def is_brush(obj) -> bool:
    """Brushes have an ``action`` and no ``version``; everything else is linted as a recipe."""
    return isinstance(obj, dict) and "action" in obj and "version" not in obj


def other_document_kind(value) -> str | None:
    """Other JSON documents that share ``recipes/`` directories with terrain files."""
    if not isinstance(value, dict):
        return None
    if "operations" in value and "palette" not in value:
        return "a build recipe"
    if "steps" in value and "palette" not in value:
        return "a batch file"
    if "json-schema.org" in str(value.get("$schema", "")):
        return "a JSON Schema"
    return None


def lint_text(text: str, file: str) -> FileReport:
    from mcb.recipes.jsonpos import JsonSyntaxError, parse_with_positions

    report = FileReport(file)
    try:
        raw, source_map = parse_with_positions(text)
    except JsonSyntaxError as error:
        report.diagnostics.append(
            Diagnostic("terrain.json.syntax", Severity.ERROR, error.reason, file, line=error.line, column=error.column)
        )
        return report

    def add(rule, severity, message, pointer, hint=None, key=False):
        line_col = source_map.locate(pointer, key=key) or (None, None)
        report.diagnostics.append(
            Diagnostic(rule, severity, message, file, pointer or "", line_col[0], line_col[1], hint)
        )

    for pointer in source_map.duplicate_keys:
        add(
            "terrain.json.duplicate-key",
            Severity.WARNING,
            f"duplicate key {pointer.rsplit('/', 1)[-1]!r}; the later value wins",
            pointer,
            key=True,
        )
    other = other_document_kind(raw)
    if other:
        from mcb.recipes.lint_files import other_document_hint

        add(
            "terrain.not-terrain-recipe",
            Severity.WARNING,
            f"this is {other}, not a terrain recipe or brush; not linted",
            "",
            other_document_hint(other, "`mcb terrain lint`"),
        )
        return report
    obj = from_source_map(raw, source_map)
    brush = is_brush(obj)
    report.facts["kind"] = "brush" if brush else "terrain_recipe"
    try:
        if brush:
            from mcb.terrain.brush import parse_brush

            spec = parse_brush(obj)
            report.facts["scan_cells"] = spec.bounds.volume
            return report
        recipe = validate_recipe(obj)
    except TerrainRecipeError as error:
        rule = "brush.invalid" if brush else rule_for(error.message, error.pointer)
        key = error.message.startswith("Unknown")
        add(rule, Severity.ERROR, error.message, error.pointer, _hint(rule), key=key)
        return report
    _literal_warnings(obj, "", add)
    _recipe_warnings(recipe, add)
    report.facts.update(_facts(recipe))
    return report


MAX_FILE_BYTES = 16 * 1024 * 1024
REQUEST_LIMIT = SERVER_REQUEST_BYTES


def lint_file(path: Path) -> FileReport:
    from mcb.fileio import is_dash, read_stdin

    name = str(path)
    data = read_stdin(MAX_FILE_BYTES, "FILE") if is_dash(path) else None
    size = len(data) if data is not None else path.stat().st_size
    if size > MAX_FILE_BYTES:
        message = f"file is {size:,} bytes; far beyond the server's 1 MiB request limit"
        return FileReport(name, [Diagnostic("terrain.file.size", Severity.ERROR, message, name)])
    data = path.read_bytes() if data is None else data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return FileReport(
            name,
            [
                Diagnostic(
                    "terrain.json.encoding",
                    Severity.ERROR,
                    f"not UTF-8 text ({error.reason} at byte {error.start})",
                    name,
                )
            ],
        )
    bom = text.startswith("\ufeff")
    report = lint_text(text[1:] if bom else text, name)
    if bom:
        report.diagnostics.insert(
            0,
            Diagnostic(
                "terrain.json.bom",
                Severity.WARNING,
                "file starts with a UTF-8 byte-order mark",
                name,
                "",
                1,
                1,
                "save without BOM; the server's JSON parser refuses it",
            ),
        )
    if size > REQUEST_LIMIT:
        report.diagnostics.append(
            Diagnostic(
                "terrain.file.size", Severity.WARNING, "file is larger than the server's 1 MiB request body limit", name
            )
        )
    return report


def _hint(rule: str) -> str | None:
    return {
        "terrain.type": "integer fields (coordinates, seed, base_height, soil_depth) must be written like 5, not 5.0",
        "terrain.envelope": "width/length ≤ 2048, height ≤ 384, ≤ 1,048,576 columns; min ≤ max on every axis",
        "terrain.material": "use minecraft:stone, andesite, granite, diorite, deepslate, cobbled_deepslate, dirt, "
        "grass_block, moss_block, sandstone or terracotta",
    }.get(rule)


def _literal_warnings(value, pointer: str, add) -> None:
    if isinstance(value, dict):
        for key, child in value.items():
            _literal_warnings(child, f"{pointer}/{key}", add)
    elif isinstance(value, list):
        for i, child in enumerate(value):
            _literal_warnings(child, f"{pointer}/{i}", add)
    elif isinstance(value, JsonNumber) and not value.looks_integral():
        plain = repr(value.value)
        if value.value.is_integer() or "e" in value.text.lower() or value.text != plain:
            add(
                "terrain.number.literal",
                Severity.WARNING,
                f"number {value.text} is hashed as written; terrain_id changes if a tool rewrites it",
                pointer,
                "write integral values as integers and avoid exponents so every client computes the same ID",
            )


def _recipe_warnings(recipe: TerrainRecipe, add) -> None:
    from mcb.terrain.preview import sample_heights

    lo, hi = recipe.bounds.min, recipe.bounds.max
    for i, f in enumerate(recipe.features):
        reach = _feature_footprint(f)
        if reach is None:
            continue
        x0, z0, x1, z1 = reach
        if x1 < lo[0] or x0 > hi[0] or z1 < lo[2] or z0 > hi[2]:
            add(
                "terrain.feature.outside",
                Severity.WARNING,
                f"{f.type} never reaches the envelope (its influence ends before x {lo[0]}..{hi[0]}, "
                f"z {lo[2]}..{hi[2]})",
                f"/features/{i}",
            )
    _, _, heights = sample_heights(recipe, 64)
    if bool(((heights < lo[1]) | (heights > hi[1])).all()):
        where = "below" if int(heights.max()) < lo[1] else "above" if int(heights.min()) > hi[1] else "outside"
        add(
            "terrain.surface.clipped",
            Severity.WARNING,
            f"the surface ({int(heights.min())}..{int(heights.max())}) is {where} the envelope's Y range "
            f"{lo[1]}..{hi[1]} everywhere",
            "/min",
            "move the envelope's y range to include the surface, or it only writes air or solid ground",
        )


def _feature_footprint(f) -> tuple[float, float, float, float] | None:
    """(min x, min z, max x, max z) beyond which the feature's weight is exactly 0; None for global features."""
    if f.type == "terrace":
        return None
    if f.type in ("hill", "basin"):
        r = f.radius + f.falloff
        return f.center[0] - r, f.center[1] - r, f.center[0] + r, f.center[1] + r
    if f.type == "plateau":
        return (f.center[0] - f.falloff, f.center[1] - f.falloff, f.corner[0] + f.falloff, f.corner[1] + f.falloff)
    r = f.radius + f.falloff
    xs = [p[0] for p in f.points]
    zs = [p[1] for p in f.points]
    return min(xs) - r, min(zs) - r, max(xs) + r, max(zs) + r


def _facts(recipe: TerrainRecipe) -> dict:
    from mcb.terrain.tiling import tile_grid

    return {
        "terrain_id": recipe.terrain_id,
        "envelope": recipe.bounds.region("terrain"),
        "tile_count": tile_grid(recipe).count,
    }
