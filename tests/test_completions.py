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
