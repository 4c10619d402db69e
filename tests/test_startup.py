"""Start-up hygiene, checked in fresh interpreters: every module imports on its own (no import cycles), and
`mcb --help` does not pull in the heavy libraries."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import mcb

PACKAGE_ROOT = Path(mcb.__file__).resolve().parent
HEAVY = ("numpy", "nbtlib", "httpx", "jsonschema", "PIL")


def all_modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE_ROOT.rglob("*.py")):
        parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
        if parts[-1] == "__main__":
            continue  # running it would start the CLI
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def _import_alone(module: str) -> tuple[str, int, str]:
    proc = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120)
    last_line = (proc.stderr.strip().splitlines() or [""])[-1]
    return module, proc.returncode, last_line


def third_party_packages() -> list[str]:
    """The top-level packages outside the standard library that mcb's sources import."""
    import ast

    names = set()
    for path in PACKAGE_ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return sorted(name for name in names - {"mcb", "__future__"} if name not in sys.stdlib_module_names)


# Reads module names on stdin; for each, forks a child that imports it first among mcb's modules, and prints the
# child's exit status. The parent has imported only the third-party packages named in argv (at top level, as a
# fresh interpreter would on mcb's behalf), so no child pays their import again.
_FORK_IMPORTER = """
import os, sys
for name in sys.argv[1:]:
    __import__(name)
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        try:
            __import__(line.strip())
        except BaseException:
            os._exit(1)
        os._exit(0)
    sys.stdout.write(line.strip() + " " + str(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])) + "\\n")
    sys.stdout.flush()
"""


def _import_each_first(modules: list[str], preloaded: list[str]) -> list[str]:
    """The modules whose import, as the first mcb module of a process, failed."""
    done = subprocess.run(
        [sys.executable, "-c", _FORK_IMPORTER, *preloaded],
        input="\n".join(modules),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    codes = dict(line.split() for line in done.stdout.splitlines())
    assert sorted(codes) == sorted(modules), done.stderr[-2000:]
    return [module for module, code in codes.items() if code != "0"]


@pytest.mark.slow  # 174 imports, each the first in its own process
def test_every_module_imports_first_in_a_fresh_interpreter():
    """Importing a module as the very first one exposes cycles that a warm interpreter hides.

    Each module is imported in a child forked from an interpreter that holds no mcb module, only the third-party
    packages mcb uses (import cycles are among mcb's own modules; 174 interpreters each importing numpy, pydantic
    and Typer again took ~30 s of CPU). A failure is then re-run in a truly fresh interpreter for its message."""
    modules = all_modules()
    assert "mcb.blocks.registry" in modules and "mcb.app" in modules
    preloaded = third_party_packages()  # here, not in the threads: ast.parse is not safe to run in two at once
    with ThreadPoolExecutor(max_workers=2) as pool:  # the machine has 2 cores shared with others
        halves = pool.map(_import_each_first, [modules[0::2], modules[1::2]], [preloaded, preloaded])
        failed = [module for half in halves for module in half]
    failures = [(m, err) for m, rc, err in map(_import_alone, failed)]
    assert not failures, failures


def test_help_does_not_import_heavy_libraries():
    script = (
        "import json, sys\n"
        "sys.argv = ['mcb', '--help']\n"
        "from mcb.app import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "sys.stderr.write('HEAVY=' + json.dumps(heavy) + '\\n')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={"NO_COLOR": "1", "COLUMNS": "120", "PATH": "/usr/bin:/bin"},
    )
    assert "Usage" in proc.stdout, proc.stderr
    marker = [line for line in proc.stderr.splitlines() if line.startswith("HEAVY=")]
    assert marker, proc.stderr
    assert json.loads(marker[0][len("HEAVY=") :]) == []


def test_blocks_import_loads_no_data():
    """The registry is lazy: importing it reads no data file and builds nothing."""
    script = (
        "import mcb.blocks.registry as r, mcb.blocks.state\n"
        "print(r._read_tables.cache_info().currsize, r._load_release.cache_info().currsize)\n"
        "r.load_registry()\n"
        "print(r._read_tables.cache_info().currsize, r._load_release.cache_info().currsize)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.stdout.split() == ["0", "0", "1", "1"], proc.stderr


def _modules_after(*argv: str, prefixes: tuple[str, ...] = ("mcb.commands.",)) -> list[str]:
    script = (
        "import json, sys\n"
        f"sys.argv = ['mcb', *{list(argv)!r}]\n"
        "from mcb.app import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        f"loaded = sorted(m for m in sys.modules if m.startswith({prefixes!r}))\n"
        "sys.stderr.write('LOADED=' + json.dumps(loaded) + '\\n')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={"NO_COLOR": "1", "COLUMNS": "120", "PATH": "/usr/bin:/bin"},
    )
    marker = [line for line in proc.stderr.splitlines() if line.startswith("LOADED=")]
    assert marker, proc.stderr
    return json.loads(marker[0][len("LOADED=") :])


def test_root_help_imports_no_command_module():
    assert _modules_after("--help") == []


def test_a_command_imports_only_its_own_module():
    assert _modules_after("block", "check", "stone") == ["mcb.commands.block"]
    assert _modules_after("help", "exit-codes") == ["mcb.commands.help"]


def test_an_rpc_command_imports_no_offline_tooling():
    """`mcb health` needs the client and the config, not numpy, the schematic or recipe code, or the server.

    (Rich is not in the list: `import httpx` loads its own command-line module, which imports Rich and Pygments
    whenever click happens to be installed, as it is beside the MCP SDK in the test environment.)
    """
    unwanted = (
        "numpy",
        "PIL",
        "nbtlib",
        "jsonschema",
        "mcb.schematics",
        "mcb.recipes",
        "mcb.terrain",
        "mcb.server",
        "mcb.batch",
        "mcb.blocks",
    )
    # Port 9 (discard) on loopback refuses at once: the command fails fast, which is all this needs.
    loaded = _modules_after("--json", "--server", "http://127.0.0.1:9", "health", prefixes=unwanted)
    assert loaded == []


def test_a_one_plan_write_loads_no_numpy():
    """`mcb build recipe.json`, `mcb undo OP` and a terrain tile run on the one engine through mcb.batch.single:
    numpy is for the states a schematic build records, not for them (it cost 50-85 ms of their start)."""
    script = "import sys\nimport mcb.batch.single\nprint('numpy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
