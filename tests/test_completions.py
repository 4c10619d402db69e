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
