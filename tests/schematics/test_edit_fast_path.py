"""`mcb schem rotate|mirror` answer the same whether the fast path or Typer reads the command line.

Each case runs the real entry point in fresh processes with and without ``MCB_FAST_PATH=0`` and compares the exit
code, stdout, stderr and the written file byte for byte.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mcb.commands.schem_edit_run import parse_edit

ROOT = Path(__file__).resolve().parents[2]
HOUSE = ROOT / "schematics" / "house.schem"


def _run(args: list[str], fast: bool, cwd: Path, env: dict | None) -> tuple[int, str, str, bytes | None]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("MCB_", "GITHUB_"))}
    clean.update({"NO_COLOR": "1", "COLUMNS": "120", "MCB_FAST_PATH": "1" if fast else "0", **(env or {})})
    out = cwd / "out.schem"
    out.unlink(missing_ok=True)
    proc = subprocess.run([sys.executable, "-m", "mcb", *args], capture_output=True, text=True, cwd=cwd, env=clean,
                          timeout=120)
    return proc.returncode, proc.stdout, proc.stderr, out.read_bytes() if out.exists() else None


def _cases(corpus: Path) -> list[tuple[list[str], dict | None]]:
    chest = str(corpus / "v2_nucleation_new_chest_test.schem")
    v3 = str(corpus / "v3_nucleation_uss-texas.schem")
    house = str(HOUSE)
    return [
        (["schem", "rotate", house, "--degrees", "90", "-o", "out.schem"], None),
        (["schem", "rotate", chest, "-d", "270", "--rules", "geometric", "--output=out.schem", "--json"], None),
        (["schem", "rotate", v3, "--degrees=180", "-o", "out.schem", "--format", "v2"], None),
        (["schem", "rotate", house, "-d", "90", "-o", "out.schem", "--mc-version", "1.20.4"], None),
        (["schem", "rotate", house, "-d", "90", "-o", "out.schem"], {"MCB_MC_VERSION": "1.20.4"}),
        (["schem", "mirror", chest, "--axis", "x", "-o", "out.schem"], None),
        (["schem", "mirror", v3, "-a", "z", "--rules", "geometric", "-o", "out.schem", "--format", "v3", "--json"],
         None),
        # errors answered by the shared body
        (["schem", "rotate", house, "-d", "45", "-o", "out.schem"], None),
        (["schem", "rotate", "missing.schem", "-d", "90", "-o", "out.schem", "--json"], None),
        (["schem", "rotate", house, "-d", "90"], None),
        (["schem", "rotate", house, "-d", "90", "-o", "out.schem", "--in-place"], None),
        (["schem", "rotate", house, "-d", "90", "-o", house], None),
        (["schem", "mirror", house, "-a", "y", "-o", "out.schem"], None),
        (["schem", "mirror", house, "-a", "x", "-o", "out.schem", "--rules", "fancy"], None),
        (["schem", "mirror", house, "-a", "x", "-o", "out.schem", "--format", "v9"], None),
        (["schem", "rotate", str(corpus / "litematic_schematic4j_simple_v5.litematic"), "-d", "90", "-o",
          "out.schem"], None),
        # shapes left to Typer: both runs go through Typer and must still agree
        (["schem", "rotate", house, "-o", "out.schem"], None),
        (["schem", "rotate", house, "-d", "ninety", "-o", "out.schem"], None),
    ]


def test_fast_path_and_typer_give_the_same_answer(corpus, tmp_path):
    cases = _cases(corpus)

    def both(numbered):
        number, (args, env) = numbered
        where = tmp_path / str(number)
        where.mkdir()
        return args, _run(args, True, where, env), _run(args, False, where, env)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(both, enumerate(cases)))
    codes = set()
    for args, fast, slow in results:
        assert fast == slow, args
        codes.add(fast[0])
    assert codes >= {0, 1, 2}  # success, unreadable input and usage errors are all covered
    assert sum(fast[3] is not None for _, fast, _ in results) == 7  # every successful case wrote its file


@pytest.mark.parametrize("command, args", [
    ("rotate", ["--help"]), ("rotate", ["x.schem", "-d90", "-o", "y"]), ("rotate", ["x.schem", "-o", "y"]),
    ("rotate", ["x.schem", "-d", "-90", "-o", "y"]), ("rotate", ["x.schem", "-d", "ninety", "-o", "y"]),
    ("rotate", ["a.schem", "b.schem", "-d", "90"]), ("rotate", ["x.schem", "-d", "90", "--"]),
    ("rotate", ["x.schem", "-d", "90", "--json=yes"]), ("rotate", ["x.schem", "-d", "90", "-o"]),
    ("rotate", ["x.schem", "-d", "90", "-a", "x"]), ("mirror", ["x.schem", "-d", "90"]), ("mirror", ["-a", "x"]),
    ("mirror", ["x.schem", "--axis", "--json"]),
])
def test_fast_path_leaves_unusual_command_lines_to_typer(command, args):
    assert parse_edit(command, args) is None


def test_fast_path_reads_the_plain_shapes():
    values = parse_edit("rotate", ["a.schem", "-d", "270", "--rules=geometric", "--format", "v3", "--in-place",
                                   "--json", "--mc-version", "1.20.4"])
    assert values == {"file": Path("a.schem"), "degrees": 270, "axis": None, "output": None, "rules": "geometric",
                      "fmt": "v3", "in_place": True, "mc_version": "1.20.4", "json_": True}
    assert parse_edit("mirror", ["-a", "z", "b.schem", "-o", "c.schem"])["output"] == Path("c.schem")
