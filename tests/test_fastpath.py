"""`mcb schem validate` answers the same whether the fast path or Typer reads its command line.

Each case runs the real console entry point in a fresh process twice, with and without ``MCB_FAST_PATH=0``, and
compares stdout, stderr and the exit code byte for byte.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mcb.fastpath import parse_validate

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "schematics"


def _run(args: list[str], fast: bool, cwd: Path, extra_env: dict | None = None) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MCB_", "GITHUB_"))}
    env.update({"NO_COLOR": "1", "COLUMNS": "120", "MCB_FAST_PATH": "1" if fast else "0", **(extra_env or {})})
    proc = subprocess.run([sys.executable, "-m", "mcb", *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def _cases(corpus: Path, broken: Path) -> list[tuple[list[str], dict | None]]:
    sample = str(next(iter(sorted(SAMPLES.glob("*.schem")))))
    v3 = str(corpus / "v3_fawe_sponge3.schem")
    worldedit = str(corpus / "v2_nucleation_and.schem")
    cottage = str(corpus / "v2_schematic4j_green-cottage.schem")
    return [
        (["schem", "validate", sample], None),
        (["schem", "validate", worldedit, v3, "--strict"], None),
        (["schem", "validate", "--profile", "spec", cottage], None),
        (["schem", "validate", "-p", "spec", "--mc-version", "1.20.4", cottage], None),
        (["schem", "validate", "--profile=spec", "--format=json", worldedit], None),
        (["schem", "validate", worldedit, "--json"], None),
        (["schem", "validate", "-f", "sarif", v3], None),
        (["schem", "validate", "--format", "junit", str(SAMPLES)], None),
        (["schem", "validate", str(SAMPLES), "--glob", "*.schem", "--glob", "*.nbt", "-j", "2"], None),
        (["schem", "validate", str(broken)], None),
        (["schem", "validate", str(broken), "--json"], None),
        (["schem", "validate", "missing.schem"], None),
        (["schem", "validate", "missing.schem", "--json"], None),
        (["schem", "validate", "--profile", "nope", sample], None),
        (["schem", "validate", "--format", "yaml", sample, "--json"], None),
        (["schem", "validate", "--mc-version", "0.1", sample], None),
        (["schem", "validate", sample], {"MCB_MC_VERSION": "1.20.4"}),
        (["schem", "validate", sample], {"GITHUB_ACTIONS": "true"}),
        (["schem", "validate", sample], {"MCB_FORMAT": "json"}),
        # shapes the fast path hands to Typer: both runs go through Typer, and must still agree
        (["schem", "validate", "--jobs", "0", sample], None),
        (["schem", "validate"], None),
        (["schem", "validate", "--help"], None),
    ]


def test_fast_path_and_typer_give_the_same_answer(corpus, tmp_path):
    broken = tmp_path / "broken.schem"
    broken.write_bytes(b"\x1f\x8b\x08\x00 this is not gzip")
    cases = _cases(corpus, broken)

    def both(case):
        args, env = case
        return args, _run(args, True, tmp_path, env), _run(args, False, tmp_path, env)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(both, cases))
    codes = set()
    for args, fast, slow in results:
        assert fast == slow, args
        codes.add(fast[0])
    assert codes >= {0, 1, 2}  # the cases cover success, findings and usage errors


@pytest.mark.parametrize("args", [
    ["--help"], ["-h", "x.schem"], ["x.schem", "--"], ["-"], ["-px.schem"], ["--profile"], ["--jobs", "0", "x"],
    ["--jobs", "two", "x"], ["--glob", "-x", "x"], ["--strict=yes", "x"], ["--unknown", "x"], [],
])
def test_fast_path_leaves_unusual_command_lines_to_typer(args):
    assert parse_validate(args) is None


def test_fast_path_reads_the_plain_shapes():
    values = parse_validate(["a.schem", "-p", "spec", "--glob=*.schem", "--glob", "*.nbt", "-j", "3", "--strict",
                             "--json", "--format", "sarif", "b", "--mc-version", "1.20.4"])
    assert values == {"paths": ["a.schem", "b"], "profile": "spec", "mc_version": "1.20.4", "format_": "sarif",
                      "strict": True, "glob": ["*.schem", "*.nbt"], "jobs": 3, "json_": True}


def test_validating_a_small_file_imports_neither_typer_nor_numpy(corpus):
    script = ("import sys\n"
              f"sys.argv = ['mcb', 'schem', 'validate', {str(corpus / 'v2_nucleation_and.schem')!r}]\n"
              "from mcb.fastpath import dispatch\n"
              "dispatch(sys.argv[1:])\n"
              "sys.stderr.write('TYPER=' + str('typer' in sys.modules) + '\\n')\n"
              "sys.stderr.write('NUMPY=' + str('numpy' in sys.modules) + '\\n')\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1"})
    assert "TYPER=False" in proc.stderr, proc.stderr
    assert "NUMPY=False" in proc.stderr, proc.stderr  # a small file is read without numpy (varint_py)
    assert "v2_nucleation_and.schem" in proc.stdout
