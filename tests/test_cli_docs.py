"""Every command documents itself: help renders, shows an example, and offers --json."""

from __future__ import annotations

import json
import re

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


def test_root_help_lists_every_command_from_its_light_entry(cli):
    """`mcb --help` lists each command from `mcb.commands.COMMANDS`; using a group builds the real one."""
    from mcb.commands import COMMANDS

    result = cli("--help")
    assert result.exit_code == 0
    for name in COMMANDS:
        assert f" {name} " in result.stdout
    assert cli("schem", "--help").stdout.count("validate") >= 1
    assert cli("block", "check", "stone").stdout.strip() == "minecraft:stone"


@pytest.mark.parametrize("name", sorted(__import__("mcb.commands").commands.COMMANDS))
def test_light_entry_says_what_the_command_says(name):
    """The one-line help of the root listing is the first paragraph of the command's own help (one description)."""
    from mcb.app import load_command
    from mcb.commands import COMMANDS

    command = load_command(name)
    listed = command.short_help or command.help.split("\n\n")[0]
    assert COMMANDS[name][2] == " ".join(listed.split())


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


def _every_path(command, path=()):
    yield path
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _every_path(sub, path + (name,))


@pytest.mark.parametrize("path", list(_every_path(command_tree())), ids=lambda p: " ".join(p) or "mcb")
def test_help_is_never_cut_at_80_columns(path, cli):
    """Rich shortens what does not fit with "…": an option name, a metavar or a default would be lost."""
    result = cli(*path, "--help", env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.stderr
    cut = [line for line in result.stdout.splitlines() if "…" in line]
    assert not cut, "\n".join(cut)
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    # A list is dotted once (`{FILE|DIR}...`). (An argument's type column is Typer's own: 0.29 prints `<list[Path]>` there.)
    lines = result.stdout.splitlines()
    usage = next(line for line in lines if "Usage:" in line)
    assert "...}..." not in usage and "......" not in usage, usage
    # Every option names its value in words (`--degrees DEGREES`), never a Typer type such as `<int>` or `<bool>`.
    typed = [line for line in lines if re.search(r"│[ *]*--[\w-]+( +-\w)? +<", line)]
    assert not typed, "\n".join(typed)


def test_every_registered_command_is_listed_in_the_light_table():
    """A command a module registers but `mcb.commands.COMMANDS` does not list would be unreachable."""
    from pathlib import Path

    import mcb.commands
    from mcb.app import module_commands
    from mcb.commands import COMMANDS

    modules = {module for module, _panel, _help in COMMANDS.values()}
    for module in modules:
        names = set(module_commands(module))
        assert names <= set(COMMANDS), f"mcb.commands.{module} registers {sorted(names - set(COMMANDS))}"
    folder = Path(mcb.commands.__file__).parent
    with_register = {path.stem for path in folder.glob("*.py") if "\ndef register(" in path.read_text()}
    # schem_edit, schem_extras and terrain_brush add commands to the groups that mcb.commands.schem and .terrain
    # register.
    assert with_register - {"schem_edit", "schem_extras", "terrain_brush"} <= modules, (
        "a command module is missing from mcb.commands.COMMANDS"
    )


def test_exit_codes_are_said_the_same_everywhere(cli):
    """One table (mcb.errors): `mcb help exit-codes`, the README's table and every command's help epilog say it."""
    from pathlib import Path

    from mcb.errors import EXIT_CODE_TABLE

    shown = json.loads(cli("help", "exit-codes", "--json").stdout)
    assert [(row["code"], row["name"], row["meaning"]) for row in shown] == EXIT_CODE_TABLE
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = [
        [cell.strip().replace("`", "") for cell in line.strip("|").split("|")]
        for line in section.splitlines()
        if re.match(r"\| \d+ \|", line)
    ]
    assert [(int(code), name, meaning) for code, name, meaning in rows] == EXIT_CODE_TABLE
    every = " · ".join(f"{code} {name}" for code, name, _ in EXIT_CODE_TABLE)
    for path in (("context",), ("build",), ("batch",), ("part", "get")):
        text = " ".join(cli(*path, "--help", env={"COLUMNS": "200"}).stdout.split())
        assert f"Exit codes: {every}" in text, path
    text = " ".join(cli("config", "show", "--help", env={"COLUMNS": "200"}).stdout.split())
    assert "Exit codes: 0 ok · 2 usage · 3 config" in text


def test_the_command_list_says_export_writes_a_local_file_with_o(cli):
    """`mcb --help` lists export with both of its ways: the library and -o FILE (any size)."""
    listed = " ".join(cli("--help", env={"COLUMNS": "200"}).stdout.replace("│", " ").split())
    assert "export Save a box of the live world as a schematic: in the server's library" in listed
    assert "or with -o FILE as a local file of any size." in listed
