"""The layering of docs/architecture: an AST walk over cli/mcb, imports at module level and inside functions.

- the core never imports a face (typer, rich, click, the MCP SDK, mcb.commands, mcb.app, mcb.terminal,
  mcb.options, mcb.mcp), not even through another module of ours;
- client/ and server/ never import each other, not even through a third module: they meet only on the wire;
- blocks/ imports nothing of ours but mcb.errors;
- the MCP face (mcb.mcp) never reaches the CLI face, and nothing of mcb imports the MCP SDK (`mcp`).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

import mcb

PACKAGE = Path(mcb.__file__).resolve().parent
CORE = ("blocks", "schematics", "recipes", "terrain", "reports", "client", "batch", "building", "server")
FACE_LIBRARIES = ("typer", "rich", "click", "mcp")
FACE_MODULES = ("mcb.commands", "mcb.app", "mcb.terminal", "mcb.options", "mcb.mcp")
CLI_FACE = ("typer", "rich", "click", "mcb.commands", "mcb.app", "mcb.terminal", "mcb.options")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _resolve(name: str) -> str:
    """The deepest module of ours that ``name`` names (``mcb.client.models.Position`` -> ``mcb.client.models``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


@cache
def imports_of(module: str) -> frozenset[str]:
    """Every name ``module`` imports, anywhere in its body: ``mcb.*`` resolved to our modules, others as written."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from mcb import boundary` imports the module mcb.boundary; `from mcb.errors import X` imports mcb.errors.
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for name in names:
            found.add(_resolve(name) if name.split(".")[0] == "mcb" else name)
    found.discard("")
    found.discard(module)
    return frozenset(found)


def reaches(start: str, prefix: str) -> list[str] | None:
    """An import chain from ``start`` to a module under ``prefix``, or None."""
    seen = {start}
    queue = [[start]]
    while queue:
        chain = queue.pop(0)
        for name in sorted(imports_of(chain[-1])):
            if name == prefix or name.startswith(prefix + "."):
                return [*chain, name]
            if name in MODULES and name not in seen:
                seen.add(name)
                queue.append([*chain, name])
    return None


def in_package(module: str, package: str) -> bool:
    return module == f"mcb.{package}" or module.startswith(f"mcb.{package}.")


def core_modules() -> list[str]:
    return [m for m in MODULES if any(in_package(m, package) for package in CORE)]


def test_the_walk_sees_function_level_imports():
    """The walk itself: an import inside a function counts (mcb.app imports command modules only on use)."""
    assert "importlib" in imports_of("mcb.app")
    assert "mcb.commands" in imports_of("mcb.app")
    assert any(in_package(name, "client") for name in imports_of("mcb.commands.rpc_support"))


@pytest.mark.parametrize("module", core_modules())
def test_the_core_never_imports_a_face(module):
    """Not directly, and not through a module of ours (mcb.state, say, would bring mcb.terminal along)."""
    chains = [" -> ".join(chain) for face in (*FACE_LIBRARIES, *FACE_MODULES) if (chain := reaches(module, face))]
    assert not chains, chains


@pytest.mark.parametrize("module", [m for m in MODULES if in_package(m, "client")])
def test_client_never_reaches_server(module):
    chain = reaches(module, "mcb.server")
    assert chain is None, " -> ".join(chain)


@pytest.mark.parametrize("module", [m for m in MODULES if in_package(m, "server")])
def test_server_never_reaches_client(module):
    chain = reaches(module, "mcb.client")
    assert chain is None, " -> ".join(chain)


@pytest.mark.parametrize("module", [m for m in MODULES if in_package(m, "blocks")])
def test_blocks_import_nothing_of_ours_but_errors(module):
    ours = sorted(
        name
        for name in imports_of(module)
        if name.split(".")[0] == "mcb" and name != "mcb.errors" and not in_package(name, "blocks")
    )
    assert not ours, f"{module} imports {ours}"


@pytest.mark.parametrize("module", [m for m in MODULES if in_package(m, "mcp")])
def test_the_mcp_face_never_reaches_the_cli_face(module):
    chains = [" -> ".join(chain) for face in CLI_FACE if (chain := reaches(module, face))]
    assert not chains, chains


def test_nothing_of_mcb_imports_the_mcp_sdk():
    """The MCP face speaks the protocol itself; the SDK is a test dependency (tests drive `mcb mcp` with it)."""
    assert [module for module in MODULES if "mcp" in imports_of(module)] == []
