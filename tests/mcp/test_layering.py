"""Layering of the MCP pieces (architecture guide): the catalog is core (no typer, rich, click, mcp, no face), the
MCP face never imports the CLI face, and nothing of mcb imports the MCP SDK. Imports inside functions count."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "cli" / "mcb"


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def offending(path: Path, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(name for name in imported_modules(path)
                  if any(name == prefix or name.startswith(prefix + ".") for prefix in forbidden))


@pytest.mark.parametrize("path", sorted((PACKAGE / "catalog").glob("*.py")), ids=lambda path: path.name)
def test_the_catalog_is_core(path):
    assert offending(path, ("typer", "rich", "click", "mcp", "mcb.mcp", "mcb.commands", "mcb.app",
                            "mcb.terminal", "mcb.options")) == []


@pytest.mark.parametrize("path", sorted((PACKAGE / "mcp").glob("*.py")), ids=lambda path: path.name)
def test_the_mcp_face_does_not_import_the_cli_face_or_the_sdk(path):
    assert offending(path, ("typer", "rich", "click", "mcp", "mcb.commands", "mcb.app", "mcb.terminal",
                            "mcb.options")) == []


def test_nothing_in_mcb_imports_the_sdk():
    assert [str(path) for path in PACKAGE.rglob("*.py") if offending(path, ("mcp",))] == []
