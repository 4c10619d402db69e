"""One description per tool for both faces: the MCP description and the CLI command's help start with the same
summary (mcb.summaries); each face adds only what is its own after it."""

from __future__ import annotations

import pytest

from mcb.app import command_tree
from mcb.mcp.tools.building import BUILD_ACTIONS
from mcb.mcp.tools.offline import OFFLINE_ACTIONS
from mcb.mcp.tools.rpc import RPC_ACTIONS
from mcb.summaries import CLI_COMMANDS, SUMMARIES, cli_summary

ACTIONS = {action.name: action for action in (*OFFLINE_ACTIONS, *RPC_ACTIONS, *BUILD_ACTIONS)}


def test_every_tool_has_one_summary_and_no_summary_is_stale():
    assert set(SUMMARIES) == set(ACTIONS)
    assert set(CLI_COMMANDS) <= set(SUMMARIES)
    for name, text in SUMMARIES.items():
        assert text.endswith(".") and "--" not in text and "\n" not in text, name  # no face's own words


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_the_mcp_description_starts_with_the_summary(name):
    description = ACTIONS[name].description
    assert description.startswith(SUMMARIES[name] + " ") and len(description) > len(SUMMARIES[name]) + 1


@pytest.mark.parametrize("tool", sorted(CLI_COMMANDS))
def test_the_cli_help_starts_with_the_summary(tool, cli):
    command = command_tree()
    for word in CLI_COMMANDS[tool].split():
        command = command.commands[word]
    assert command.help.split("\n\n")[0] == cli_summary(tool)
    shown = cli(*CLI_COMMANDS[tool].split(), "--help", env={"COLUMNS": "200"}).stdout
    assert " ".join(cli_summary(tool).split()) in " ".join(shown.replace("│", " ").split())
