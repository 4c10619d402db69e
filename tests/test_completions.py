"""Shell completion: the committed scripts are current, and a completion request answers with our commands."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "scripts"))
import gen_completions  # noqa: E402


@pytest.mark.parametrize("shell,name", sorted(gen_completions.TARGETS.items()))
def test_committed_completion_scripts_are_current(shell, name):
    committed = (gen_completions.ROOT / "completions" / name).read_text()
    assert committed == gen_completions.completion_script(shell), f"run `make completions` to refresh {name}"


def test_bash_completion_request_lists_subcommands():
    env = dict(os.environ, _MCB_COMPLETE="complete_bash", COMP_WORDS="mcb he", COMP_CWORD="1")
    result = subprocess.run([sys.executable, "-m", "mcb"], env=env, capture_output=True, text=True, check=True)
    assert "help" in result.stdout.split()


def test_completion_reaches_into_a_group():
    env = dict(os.environ, _MCB_COMPLETE="complete_bash", COMP_WORDS="mcb schem va", COMP_CWORD="2")
    result = subprocess.run([sys.executable, "-m", "mcb"], env=env, capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["validate"]


@pytest.mark.parametrize(
    "words, expected",
    [
        ("mcb schem validate x.schem --profile ", ["server", "spec"]),
        ("mcb schem validate x.schem -f s", ["sarif"]),
        ("mcb schem rotate x.schem --degrees ", ["90", "180", "270"]),
        ("mcb schem mirror x.schem --axis ", ["x", "z"]),
        ("mcb schem rotate x.schem --rules ", ["vanilla", "geometric"]),
        ("mcb schem convert x.schem -o y.schem --format ", ["sponge2", "sponge3", "litematic", "structure"]),
        ("mcb schem convert x.schem -o y.schem --to s", ["sponge2", "sponge3", "structure"]),
        ("mcb schem render x.schem --view ", ["top", "iso", "both"]),
        ("mcb build r.json --rotation 1", ["180"]),
        ("mcb help ", ["exit-codes", "environment"]),
    ],
)
def test_tab_completes_the_values_an_option_takes(words, expected):
    """The values come from the core's own lists (what the command then accepts)."""
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    env = dict(os.environ, _MCB_COMPLETE="complete_bash", COMP_WORDS=words, COMP_CWORD=str(cword))
    result = subprocess.run([sys.executable, "-m", "mcb"], env=env, capture_output=True, text=True, check=True)
    assert result.stdout.split() == expected


def _readme_install_column() -> dict[str, str]:
    """shell -> the README table's "what `mcb --install-completion` writes" cell."""
    text = (gen_completions.ROOT / "README.md").read_text()
    rows = [line.split("|")[1:-1] for line in text.splitlines() if line.startswith("| ") and line.count("|") == 4]
    return {cells[0].strip(): cells[2].strip() for cells in rows if cells[0].strip() in ("bash", "zsh", "fish")}


def test_install_completion_in_bash_writes_what_the_readme_says(tmp_path):
    """`mcb --install-completion` run from bash (it detects the shell from its parent process): the files the
    README's table names are the ones written, holding the committed script."""
    done = subprocess.run(
        ["bash", "-c", f"'{sys.executable}' -m mcb --install-completion; :"],  # `; :` keeps bash as the parent
        env=dict(os.environ, HOME=str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    said = _readme_install_column()["bash"]
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert written == [".bash_completions/mcb.sh", ".bashrc"]
    assert "`~/.bash_completions/mcb.sh`" in said and "`~/.bashrc`" in said
    assert f"source '{tmp_path}/.bash_completions/mcb.sh'" in (tmp_path / ".bashrc").read_text()
    script = (tmp_path / ".bash_completions" / "mcb.sh").read_text()
    assert script.strip() == (gen_completions.ROOT / "completions" / "mcb.bash").read_text().strip()


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_install_completion_in_zsh_and_fish_writes_what_the_readme_says(shell, tmp_path, monkeypatch):
    """The same install, as Typer does it for a zsh or fish parent (those shells need not be on this machine)."""
    from typer._completion_shared import install

    monkeypatch.setenv("HOME", str(tmp_path))
    _shell, path = install(shell=shell, prog_name="mcb", complete_var="_MCB_COMPLETE")
    said = _readme_install_column()[shell]
    assert f"`~/{path.relative_to(tmp_path)}`" in said
    committed = gen_completions.ROOT / "completions" / gen_completions.TARGETS[shell]
    assert path.read_text().strip() == committed.read_text().strip()
    if shell == "zsh":
        rc = (tmp_path / ".zshrc").read_text()
        assert "fpath+=~/.zfunc; autoload -Uz compinit; compinit" in rc and "`fpath+=~/.zfunc; autoload" in said
