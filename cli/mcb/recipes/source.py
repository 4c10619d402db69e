"""Reading recipe files for `compile` and `fmt`: UTF-8, strict JSON, errors with line:column."""

from __future__ import annotations

from pathlib import Path

from mcb.errors import InputError, escaped
from mcb.fileio import read_stdin, regular_file_size, write_atomic
from mcb.recipes.compile import CompiledRecipe, RecipeRejected, compile_recipe
from mcb.recipes.jsonpos import JsonSyntaxError, SourceMap, parse_with_positions
from mcb.recipes.limits import MAX_RECIPE_BYTES, TOO_LARGE_HINT, too_large


def read_recipe_text(path: Path) -> str:
    """The file's text (``-`` reads stdin), BOM removed; InputError for a missing, huge or non-UTF-8 file."""
    if str(path) == "-":
        return _decode(read_stdin(MAX_RECIPE_BYTES, "FILE"), "<stdin>")
    size = regular_file_size(path)  # missing, a directory, a pipe (a FIFO with no writer would block forever)
    if size > MAX_RECIPE_BYTES:
        raise InputError(f"{path}: {too_large(size)}", hint=TOO_LARGE_HINT, code="recipe.file.size")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_RECIPE_BYTES + 1)  # grown since the stat: still no further
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror or error}") from None
    return _decode(data, path)


def _decode(data: bytes, path: Path | str) -> str:
    if len(data) > MAX_RECIPE_BYTES:
        raise InputError(f"{path}: {too_large()}", hint=TOO_LARGE_HINT, code="recipe.file.size")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 (byte {error.start})", hint="save the file as UTF-8") from None


def display_name(path: Path) -> str:
    return "<stdin>" if str(path) == "-" else str(path)


def load_recipe(path: Path) -> tuple[object, SourceMap]:
    """The decoded recipe and its source map; InputError with line:column for bad JSON."""
    text = read_recipe_text(path)
    path = display_name(path)
    try:
        return parse_with_positions(text)
    except JsonSyntaxError as error:
        raise InputError(
            f"{path}:{error.line}:{error.column}: {error.reason}",
            code="json.syntax",
            hint="run {recipe_lint} on " + escaped("-" if path == "<stdin>" else str(path)),
        ) from None


def compile_file(path: Path, registry, *, max_blocks: int = 4096) -> CompiledRecipe:
    """Compile a recipe file exactly as the server would; a refusal becomes InputError naming file:line:column."""
    recipe, source_map = load_recipe(path)
    path = display_name(path)
    try:
        return compile_recipe(recipe, registry, max_blocks=max_blocks)
    except RecipeRejected as rejected:
        at_key = rejected.message.startswith("Unknown field")  # as lint places it: at the key, not its value
        where = source_map.locate(rejected.pointer, key=at_key) if rejected.pointer else None
        place = f"{path}:{where[0]}:{where[1]}" if where else str(path)
        at = f" (at {rejected.pointer})" if rejected.pointer else ""
        raise InputError(
            f"{place}: the server would refuse this recipe: {rejected.code}: {rejected.message}{at}",
            code=rejected.code,
            hint="run {recipe_lint} on "
            + escaped("-" if path == "<stdin>" else str(path))
            + " for every problem with hints",
            details={"pointer": rejected.pointer, "server_code": rejected.code},
        ) from None


def write_text_atomically(path: Path, text: str) -> None:
    write_atomic(path, text)


def format_file(path: Path) -> tuple[str, str]:
    """(original text, canonical text); InputError with line:column for bad JSON."""
    from mcb.recipes.fmt import format_recipe

    text = read_recipe_text(path)
    path = display_name(path)
    try:
        return text, format_recipe(text)
    except JsonSyntaxError as error:
        raise InputError(f"{path}:{error.line}:{error.column}: {error.reason}", code="json.syntax") from None


def format_files(paths: list[Path], *, write: bool = False) -> list[dict]:
    """Format each file: [{file, changed, text}]; ``write`` rewrites changed files atomically. All files are read and
    formatted before any is written, so a syntax error in one leaves every file untouched."""
    results = []
    for path in paths:
        original, formatted = format_file(path)
        results.append({"file": str(path), "changed": original != formatted, "text": formatted})
    if write:
        for path, result in zip(paths, results):
            if result["changed"]:
                write_text_atomically(path, result["text"])
    return results
