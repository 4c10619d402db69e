"""A folder or an empty file where an input file belongs: one line naming it, a hint, exit 1; never a raw
"[Errno 21] Is a directory" or Python's "Expecting value: line 1 column 1 (char 0)"."""

from __future__ import annotations

import pytest

COMMANDS = [("build",), ("prepare",), ("batch",), ("terrain", "preview", "--offline")]


def _check(result, needle: str) -> None:
    assert result.exit_code == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("error:") and needle in lines[0]
    assert len(lines) == 2 and lines[1].startswith("hint:")
    assert "Errno" not in result.stderr and "char 0" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_a_directory_is_named_with_a_hint(cli, tmp_path, command):
    folder = tmp_path / "recipes"
    folder.mkdir()
    _check(
        cli(*command[:2], str(folder), *command[2:]) if len(command) > 1 else cli(command[0], str(folder)),
        f"{folder} is a directory, not a file",
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_an_empty_file_is_named_with_a_hint(cli, tmp_path, command):
    empty = tmp_path / "empty.json"
    empty.write_text("\n")
    _check(
        cli(*command[:2], str(empty), *command[2:]) if len(command) > 1 else cli(command[0], str(empty)),
        f"{empty} is empty",
    )


def test_broken_json_names_line_and_column(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1,\n  "operations": [,]}')
    result = cli("build", str(bad), "--dry-run")
    assert result.exit_code == 1
    assert "at line 2, column 18" in result.stderr and f"mcb recipe lint {bad}" in result.stderr


def test_apply_of_a_directory_says_it_is_a_directory(cli, tmp_path):
    (tmp_path / "d").mkdir()
    result = cli("apply", str(tmp_path / "d"))
    assert result.exit_code == 1  # bad input, as `mcb build DIR`
    assert "is a directory" in result.stderr
    assert "PLAN_HASH" not in result.stderr


def test_schem_info_of_an_empty_file_names_it_and_says_what_a_schematic_is(cli, tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    result = cli("schem", "info", str(empty))
    assert result.exit_code == 1
    assert f"error: {empty}: file is empty" in result.stderr
    assert "hint: a schematic is an NBT file" in result.stderr
