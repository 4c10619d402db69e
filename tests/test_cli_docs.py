"""Every command documents itself: help renders, shows an example, and offers --json."""

from __future__ import annotations

import json

import pytest

from mcb.app import command_tree


def _walk(command, path=()):
    commands = getattr(command, "commands", None)
    if commands:
        for name, sub in sorted(commands.items()):
            yield from _walk(sub, path + (name,))
    else:
        yield path, command


COMMANDS = list(_walk(command_tree()))
IDS = [" ".join(path) for path, _ in COMMANDS]


@pytest.mark.parametrize("path,command", COMMANDS, ids=IDS)
def test_every_command_has_help_with_an_example_and_json(path, command, cli):
    result = cli(*path, "--help")
    assert result.exit_code == 0, result.stderr
    assert "Example" in result.stdout, f"`mcb {' '.join(path)} --help` shows no example"
    option_names = {name for param in command.params for name in getattr(param, "opts", [])}
    # `serve` and `mcp` are long-running processes (mcp's stdout is JSON-RPC already); everything else speaks JSON.
    if path[0] not in ("serve", "mcp"):
        assert "--json" in option_names, f"`mcb {' '.join(path)}` has no --json"


def test_root_help_and_version(cli):
    result = cli("--help")
    assert result.exit_code == 0 and "exit-codes" in result.stdout
    version = cli("--version")
    assert version.exit_code == 0 and version.stdout.startswith("mcb ")


def test_exit_code_table_json(cli):
    result = cli("help", "exit-codes", "--json")
    assert result.exit_code == 0
    table = json.loads(result.stdout)
    codes = [row["code"] for row in table]
    assert codes == sorted(codes) and {0, 1, 2, 130} <= set(codes)


def test_unknown_topic_is_a_usage_error_without_traceback(cli):
    result = cli("help", "nope")
    assert result.exit_code == 2
    assert "error: unknown help topic" in result.stderr and "Traceback" not in result.stderr


def test_usage_error_exit_code(cli):
    result = cli("--definitely-not-an-option")
    assert result.exit_code == 2


def test_root_help_lists_groups_without_building_them(cli):
    """`mcb --help` shows every group from a light stand-in; using a group builds the real one."""
    from mcb.app import LAZY_GROUPS

    result = cli("--help")
    assert result.exit_code == 0
    for name in LAZY_GROUPS:
        assert f" {name} " in result.stdout
    assert cli("schem", "--help").stdout.count("validate") >= 1
    assert cli("block", "check", "stone").stdout.strip() == "minecraft:stone"


def test_help_paragraphs_are_rewrapped_not_ragged(cli):
    # Docstrings are hard-wrapped at 120 columns; help joins a paragraph's lines instead of keeping the breaks,
    # while the indented examples keep one command per line.
    result = cli("schem", "validate", "--help", env={"COLUMNS": "200"})
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "The format is detected from content: Litematica" in text
    lines = [line.strip() for line in result.stdout.splitlines()]
    assert "mcb schem validate schematics/" in lines
    assert "mcb schem validate house.schem --profile spec --mc-version 1.20.4" in lines
    assert not any(line.endswith("The format") for line in lines)
