"""`schem rotate --degrees 0` is refused as its help says (90, 180 or 270), and `mcb help` alone lists the topics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOUSE = ROOT / "schematics" / "house.schem"


@pytest.mark.parametrize("degrees", ["0", "45", "360"])
def test_rotate_refuses_anything_but_a_quarter_turn(cli, tmp_path, degrees):
    out = tmp_path / "r.schem"
    result = cli("schem", "rotate", str(HOUSE), "--degrees", degrees, "-o", str(out))
    assert result.exit_code == 2
    assert f"--degrees must be 90, 180 or 270, not {degrees}" in result.stderr
    assert not out.exists()


def test_rotate_help_and_refusal_agree(cli):
    assert "90, 180 or 270" in cli("schem", "rotate", "--help").stdout


def test_help_without_a_topic_lists_the_topics(cli):
    result = cli("help")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("help topics")
    assert [line.split(":")[0].strip() for line in lines[1:]] == ["exit-codes", "environment"]
    data = json.loads(cli("help", "--json").stdout)
    assert [entry["topic"] for entry in data] == ["exit-codes", "environment"]
    for entry in data:  # every listed topic is one `mcb help` shows
        assert cli("help", entry["topic"]).exit_code == 0


def test_help_with_an_unknown_topic_is_still_a_usage_error(cli):
    result = cli("help", "nope")
    assert result.exit_code == 2 and "topics: exit-codes, environment" in result.stderr
