"""`mcb serve` meets the client only on the wire (issue 12 item 7/8): no module it can reach imports `mcb.client`,
a face (`commands`, `app`, `terminal`, `options`) or typer/rich/click, even transitively or inside a function; and
our own modules are imported plainly, so a broken one fails the start instead of turning methods off."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import mcb

PACKAGE = Path(mcb.__file__).resolve().parent
FORBIDDEN = ("mcb.client", "mcb.commands", "mcb.app", "mcb.terminal", "mcb.options", "typer", "rich", "click")


def _module_file(name: str) -> Path | None:
    parts = name.split(".")[1:]
    base = PACKAGE.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@functools.cache  # each file is parsed once, not once for every server module whose imports reach it
def _imports(path: Path, name: str) -> frozenset[str]:
    """Every module named by an import anywhere in the file (top level and inside functions)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)  # `from mcb.server import hooks`
    return frozenset(found)


def _reachable(start: str) -> dict[str, str]:
    """Every module reachable from ``start`` through our own modules: {module: the module that imports it}."""
    seen: dict[str, str] = {start: ""}
    todo = [start]
    while todo:
        name = todo.pop()
        path = _module_file(name)
        if path is None:
            continue
        for imported in _imports(path, name):
            if imported in seen:
                continue
            if imported.startswith("mcb.") and _module_file(imported) is None:
                continue  # `from mcb.x import function`: the attribute, not a module
            seen[imported] = name
            if imported.startswith("mcb."):
                todo.append(imported)
    return seen


def test_the_server_never_reaches_the_client_or_a_face():
    starts = [f"mcb.server.{path.stem}" for path in sorted((PACKAGE / "server").glob("*.py"))]
    offenders = []
    for start in starts:
        for module, importer in _reachable(start).items():
            if any(module == f or module.startswith(f + ".") for f in FORBIDDEN):
                offenders.append(f"{start}: {importer} imports {module}")
    assert offenders == []


def test_a_running_server_process_has_loaded_none_of_them():
    code = (
        "import sys; from mcb.server.app import LocalServer; from mcb.server.runner import run_until_stopped;"
        "from mcb.server.dispatch import load_method_modules; load_method_modules(test_hooks=True);"
        f"bad = [m for m in sys.modules if m.startswith({FORBIDDEN!r})]; print(bad)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_no_module_of_the_server_is_imported_optionally():
    """No ``try: import ... except ImportError`` and no importlib by name: a bug must fail loudly."""
    for path in sorted((PACKAGE / "server").glob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Try):
                guarded = any(
                    isinstance(inner, (ast.Import, ast.ImportFrom)) for stmt in node.body for inner in ast.walk(stmt)
                )
                assert not guarded, f"{path.name}:{node.lineno} imports inside try"
            if isinstance(node, ast.Attribute) and node.attr == "import_module":
                raise AssertionError(f"{path.name}:{node.lineno} imports a module by name")
