"""Help as a terminal shows it: every example survives an 80-column terminal unbroken, so copying it from `--help`
gives a working command (a long example is split with a shell continuation `\\`, never wrapped by the help
renderer); help texts say what the command does, and nothing is lost to markup on the way to the terminal."""

from __future__ import annotations

import re

import pytest


def _commands():
    from mcb.app import command_tree

    def walk(command, path):
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, [*path, name])

    return [(path, command) for path, command in walk(command_tree(), []) if path]


def _example_lines(command) -> list[str]:
    help_text = command.help or ""
    if "Examples:" not in help_text:
        return []
    lines = help_text.split("Examples:", 1)[1].splitlines()
    return [line.strip().replace("\\[", "[") for line in lines if line.strip()]  # \[ is markup for a literal [


COMMANDS = [(" ".join(path), command) for path, command in _commands() if _example_lines(command)]


@pytest.mark.parametrize("name", [name for name, _ in COMMANDS])
def test_examples_are_not_wrapped_at_80_columns(cli, name):
    command = dict(COMMANDS)[name]
    result = cli(*name.split(), "--help", env={"COLUMNS": "80"})
    assert result.exit_code == 0
    rendered = [line.strip() for line in result.stdout.splitlines()]
    for line in _example_lines(command):
        assert line in rendered, f"{name}: example line wrapped at 80 columns: {line!r}"


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


@pytest.mark.parametrize("topic", ["exit-codes", "environment", None])
def test_help_topics_fit_80_columns_piped_as_help_pages_do(cli, topic):
    # Before: `COLUMNS=80 mcb help exit-codes | cat` was 147 columns wide and `help environment` 82.
    from mcb.commands.help import ENVIRONMENT
    from mcb.errors import EXIT_CODE_TABLE

    result = cli("help", *([topic] if topic else []), env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80 and "…" not in result.stdout
    said = " ".join(result.stdout.replace("│", " ").split())  # every word of every row, wrapped but whole
    rows = {"exit-codes": [m for _, _, m in EXIT_CODE_TABLE], "environment": [m for _, m in ENVIRONMENT]}
    for meaning in rows.get(topic, []):
        assert " ".join(meaning.split()) in said, meaning
    narrow = cli("help", *([topic] if topic else []), env={"COLUMNS": "60"})
    if topic:
        assert max(len(line) for line in narrow.stdout.splitlines()) <= 60
