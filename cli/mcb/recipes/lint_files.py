"""Lint many recipe files: walk directories, run :class:`~mcb.recipes.lint.RecipeLinter` over them in parallel."""

from __future__ import annotations

import os
from pathlib import Path

from mcb.reports.model import FileReport

DEFAULT_GLOBS = ["*.json"]
# Schemas live next to the recipes (recipes/recipe.schema.json) and are not recipes.
DEFAULT_EXCLUDES = ["*.schema.json"]


def collect_recipe_files(paths: list[str | os.PathLike], globs: list[str], excludes: list[str]) -> list[Path]:
    """The files ``recipe lint`` / ``terrain lint`` check: ``excludes`` (the user's own) skip named and walked
    files alike; :data:`DEFAULT_EXCLUDES` only skip walked files, so a schema named on purpose still gets its hint."""
    from mcb.reports.runner import collect_files

    return collect_files(paths, globs, exclude=excludes, walk_exclude=DEFAULT_EXCLUDES)


def other_document_hint(kind: str, tool: str) -> str:
    """What to do with a JSON file that is not for ``tool`` (recipe lint or terrain lint): one place for the hint."""
    if kind == "a JSON Schema":
        return (
            "schemas describe recipes for editors and are not linted; leave it out, or pass "
            "{excludes='*.schema.json'} (directories skip schemas on their own)"
        )
    if kind in ("a terrain recipe", "a terrain brush"):
        other = "`mcb terrain lint`"
    elif kind == "a build recipe":
        other = "`mcb recipe lint`"
    elif kind == "a batch file":
        other = "`mcb batch FILE --check`"
    else:
        other = "its own command"
    return f"check it with {other}; leave it out of {tool}, or skip it with {{excludes}}"


def lint_paths(
    paths: list[str | os.PathLike],
    *,
    mc_version: str | None = None,
    max_blocks: int = 4096,
    globs: list[str] | None = None,
    excludes: list[str] | None = None,
    jobs: int | None = None,
    progress=None,
    mcp_bridge: bool = False,
) -> list[FileReport]:
    from mcb.blocks.registry import load_registry
    from mcb.fileio import read_stdin as stdin_bytes
    from mcb.recipes.limits import MAX_RECIPE_BYTES
    from mcb.recipes.lint import RecipeLinter, recipe_validator
    from mcb.reports.runner import check_files

    read_stdin = any(str(p) == "-" for p in paths)
    files = collect_recipe_files([p for p in paths if str(p) != "-"], globs or DEFAULT_GLOBS, list(excludes or []))
    linter = RecipeLinter(registry=load_registry(mc_version), max_blocks=max_blocks, mcp_bridge=mcp_bridge)
    recipe_validator()  # build the validator once, before any worker thread starts
    reports = [linter.lint_bytes(stdin_bytes(MAX_RECIPE_BYTES, "FILE"), "<stdin>")] if read_stdin else []
    # Linting is pure Python (the GIL is held throughout), so worker threads only add switching overhead.
    return reports + check_files(files, linter.lint_file, jobs=jobs or 1, progress=progress)
