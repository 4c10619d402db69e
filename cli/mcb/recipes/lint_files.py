"""Lint many recipe files: walk directories, run :class:`~mcb.recipes.lint.RecipeLinter` over them in parallel."""

from __future__ import annotations

import fnmatch
import os
import sys
from pathlib import Path

from mcb.reports.model import FileReport

DEFAULT_GLOBS = ["*.json"]
# Schemas live next to the recipes (recipes/recipe.schema.json) and are not recipes.
DEFAULT_EXCLUDES = ["*.schema.json"]


def collect_recipe_files(paths: list[str | os.PathLike], globs: list[str], excludes: list[str]) -> list[Path]:
    """Files named directly are always linted; files found by walking a directory are filtered by ``excludes``
    (matched against the file name and the path relative to that directory)."""
    from mcb.reports.runner import collect_files

    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            found.extend(collect_files([path], globs))
            continue
        for file in collect_files([path], globs):
            relative = file.relative_to(path).as_posix()
            if not any(fnmatch.fnmatch(file.name, p) or fnmatch.fnmatch(relative, p) for p in excludes):
                found.append(file)
    unique: dict[Path, Path] = {}
    for file in found:
        unique.setdefault(file.resolve(), file)
    return list(unique.values())


def lint_paths(paths: list[str | os.PathLike], *, mc_version: str | None = None, max_blocks: int = 4096,
               globs: list[str] | None = None, excludes: list[str] | None = None, jobs: int | None = None,
               progress=None, mcp_bridge: bool = False) -> list[FileReport]:
    from mcb.blocks.registry import load_registry
    from mcb.recipes.lint import MAX_FILE_BYTES, RecipeLinter, recipe_validator
    from mcb.reports.runner import check_files

    read_stdin = any(str(p) == "-" for p in paths)
    files = collect_recipe_files([p for p in paths if str(p) != "-"], globs or DEFAULT_GLOBS,
                                 DEFAULT_EXCLUDES + list(excludes or []))
    linter = RecipeLinter(registry=load_registry(mc_version), max_blocks=max_blocks, mcp_bridge=mcp_bridge)
    recipe_validator()  # build the validator once, before any worker thread starts
    reports = [linter.lint_bytes(sys.stdin.buffer.read(MAX_FILE_BYTES + 1), "<stdin>")] if read_stdin else []
    # Linting is pure Python (the GIL is held throughout), so worker threads only add switching overhead.
    return reports + check_files(files, linter.lint_file, jobs=jobs or 1, progress=progress)
