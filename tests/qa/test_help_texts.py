"""Help texts say what the command does, and nothing is lost to markup on the way to the terminal."""

from __future__ import annotations

import re


def test_block_check_recipe_grammar_keeps_its_bracketed_character_class(cli):
    result = cli("block", "check", "--help")
    assert result.exit_code == 0
    flat = re.sub(r"[\s│]+", " ", result.stdout)
    assert "only [a-z0-9_=,] in brackets" in flat


def test_terrain_prepare_usage_shows_the_optional_tile_once_bracketed(cli):
    result = cli("terrain", "prepare", "--help")
    usage = next(line for line in result.stdout.splitlines() if "Usage:" in line)
    assert "[[" not in usage and "[TILE]" in usage


def test_every_serve_option_is_described(cli):
    result = cli("serve", "--help")
    row = next(line for line in result.stdout.splitlines() if "--max-plan-blocks" in line)
    after_range = row.split("--max-plan-blocks", 1)[1].split("]", 1)[1]  # text after the <int range> column
    assert re.search(r"[A-Za-z]{3,}", after_range), row


def test_material_describe_prints_yes_no_not_python_booleans(mcb):
    result = mcb("material", "describe", "minecraft:oak_stairs")
    assert result.exit_code == 0, result.stderr
    fields = dict(line.split(":", 1) for line in result.stdout.splitlines() if line[:6] in ("block:", "item: "))
    assert {k.strip(): v.strip() for k, v in fields.items()} == {"block": "yes", "item": "yes"}
