"""The benchmarks are run by hand (`make bench`), not by the suite: make sure every name they import from mcb still
exists, so a refactor cannot leave one broken until the next measurement."""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = sorted((Path(__file__).resolve().parents[1] / "benchmarks").glob("*.py"))


def mcb_imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "mcb":
            yield node.module, [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            yield from ((alias.name, []) for alias in node.names if alias.name.split(".")[0] == "mcb")


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.name)
def test_every_mcb_name_a_benchmark_imports_exists(path):
    for module, names in mcb_imports(path):
        imported = importlib.import_module(module)
        missing = [
            name
            for name in names
            if not hasattr(imported, name) and importlib.util.find_spec(f"{module}.{name}") is None
        ]
        assert not missing, f"{path.name}: {module} has no {missing}"
