"""Walking files and folders for schematics: every format's extension by default, the rest passed by and said.

A walk that finds no schematic at all is an error naming the folders, so a CI job pointed at the wrong folder fails.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from mcb.errors import InputError
from mcb.reports.model import FileReport


def walk_schematics(
    paths, *, globs: list[str] | None = None, excludes: list[str] | None = None, glob_hint: bool = False
) -> tuple[list, list[FileReport]]:
    """(files to read, reports of walked files passed by) for files and folders named by a user. A folder's files
    are those whose names match ``globs`` (default: every schematic extension); the others are passed by, as is
    named-by-nothing NBT found while walking (see :func:`mark_not_schematics`). Raises InputError naming the
    folders when the walk finds no file at all (``glob_hint``: its hint names the caller's ``globs``)."""
    from mcb.reports.runner import collect_files
    from mcb.schematics.formats import schematic_globs

    passed_by: list = []
    files = collect_files(paths, globs or schematic_globs(), exclude=excludes or (), passed_by=passed_by)
    reason = "matches no file-name pattern given" if globs else "not a schematic file name"
    skipped = [FileReport(str(path), facts={"skipped": reason}) for path in passed_by]
    if not files:
        raise nothing_found(paths, skipped, glob_hint=glob_hint)
    return files, skipped


def nothing_found(paths, skipped: list[FileReport], *, glob_hint: bool = False) -> InputError:
    from mcb.schematics.formats import extensions_text
    from mcb.wording import plural

    folders = [str(p) for p in paths if Path(p).is_dir()] or [str(p) for p in paths]
    passed = f" ({plural(len(skipped), 'other file')} passed by)" if skipped else ""
    return InputError(
        f"no schematic found in {', '.join(folders)}{passed}",
        code="schem.walk.empty",
        hint=f"point at files or folders of {extensions_text()} files"
        + (" ({globs=PATTERN} picks other names)" if glob_hint else ""),
        details={"paths": folders, "skipped": len(skipped)},
    )


def mark_not_schematics(reports: list[FileReport], named) -> list[FileReport]:
    """Walked files that read as NBT of no schematic format (a .nbt that is no structure) are passed by too; a
    file named on purpose keeps its error."""
    named = {str(p) for p in named}
    for report in reports:
        if report.file not in named and report.facts.get("kind") == "unknown":
            report.diagnostics, report.facts = [], {"skipped": "NBT, but not a schematic"}
    return reports


def each_schematic(
    paths, work: Callable[[Path], dict], *, globs: list[str] | None = None, excludes: list[str] | None = None
) -> dict:
    """``work(path)`` for every schematic the paths name or hold: ``{"files": [results], "skipped": [{"file",
    "reason"}], "errors": [{"file", "error"}]}``. A walked file that is NBT of no schematic format is passed by; one
    that cannot be read is an error (named on purpose or not)."""
    files, skipped = walk_schematics(paths, globs=globs, excludes=excludes)
    named = {str(p) for p in paths if not Path(p).is_dir()}
    results, errors = [], []
    for path in files:
        try:
            results.append(work(path))
        except InputError as error:
            if str(path) not in named and getattr(error, "rule", None) == "sponge.format.unknown":
                skipped.append(FileReport(str(path), facts={"skipped": "NBT, but not a schematic"}))
            else:
                entry = error.to_json()  # the entry names the file: its message need not
                entry["message"] = entry["message"].removeprefix(f"{path}: ")
                errors.append({"file": str(path), "error": entry})
    if not results and not errors:
        raise nothing_found(paths, skipped)
    return {"files": results, "skipped": [{"file": r.file, "reason": r.skipped} for r in skipped], "errors": errors}


def is_single_file(paths) -> bool:
    """One path naming a file (or stdin): the commands answer with that file's own shape."""
    return len(paths) == 1 and (str(paths[0]) == "-" or not os.path.isdir(paths[0]))
