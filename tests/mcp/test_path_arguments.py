"""Ordinary bad paths are the caller's argument at fault, never a bug in mcb (MCP-29, MCP-44): a NUL character or
a name longer than the file system allows is refused as `invalid_argument` naming the field, for every path each
offline tool takes, and the CLI says the same kind of thing in one line with no traceback. A named pipe as an
output is refused at once (opening one nobody reads would block for ever), and a --root that does not exist stops
`mcb mcp` from starting."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcpkit import McpProcess, refusal_of
from test_offline_tools import RecordingContext

from mcb.mcp.actions import Refusal
from mcb.mcp.arguments import parse_arguments, path_fields
from mcb.mcp.tools.offline import OFFLINE_ACTIONS

ROOT = Path(__file__).resolve().parents[2]
HOUSE = ROOT / "schematics" / "house.schem"
RECIPE = ROOT / "recipes" / "colonnade.json"
TERRAIN = ROOT / "recipes" / "terrain" / "small-hill.json"
ACTIONS = {action.name: action for action in OFFLINE_ACTIONS}
LONG_NAME = "b" * 300 + ".schem"  # over NAME_MAX (255 bytes), under the schema's 1024 characters


def valid_calls(out: Path) -> dict[str, dict]:
    """One call per path-taking tool that succeeds as given; each case below spoils one path in it."""
    return {
        "schem_validate": {"paths": [str(HOUSE)]},
        "schem_info": {"path": str(HOUSE)},
        "schem_rotate": {"path": str(HOUSE), "degrees": 90, "output": str(out)},
        "schem_mirror": {"path": str(HOUSE), "axis": "x", "output": str(out)},
        "schem_convert": {"path": str(HOUSE), "output": str(out)},
        "schem_render": {"path": str(HOUSE)},
        "schem_materials": {"path": str(HOUSE)},
        "schem_extras": {"path": str(HOUSE), "target": {"x": 0, "y": 64, "z": 0}, "output": str(out)},
        "recipe_lint": {"paths": [str(RECIPE)]},
        "recipe_compile": {"path": str(RECIPE), "output": str(out)},
        "terrain_preview_offline": {"path": str(TERRAIN)},
    }


CASES = [(name, field) for name, action in ACTIONS.items() for field in path_fields(action.input_model)]


def test_the_cases_cover_every_path_argument_of_every_offline_tool(tmp_path):
    calls = valid_calls(tmp_path / "out.schem")
    assert {name for name, _ in CASES} == set(calls)
    for name, field in CASES:
        assert field in calls[name], f"{name}.{field} has no case"


def _spoiled(name: str, field: str, bad: str, tmp_path: Path) -> dict:
    arguments = valid_calls(tmp_path / "out.schem")[name]
    arguments[field] = [bad] if field == "paths" else bad
    return arguments


def _refusal(name: str, arguments: dict, root: Path) -> dict:
    action = ACTIONS[name]
    with pytest.raises(Refusal) as caught:
        action.run(parse_arguments(action, arguments, root=root), RecordingContext())
    return refusal_of(caught.value.to_dict()["error"])


@pytest.mark.parametrize("name,field", CASES)
def test_a_nul_in_a_path_is_an_invalid_argument_with_its_field(name, field, tmp_path):
    error = _refusal(name, _spoiled(name, field, str(tmp_path / "a\u0000b"), tmp_path), Path("/"))
    assert error["code"] == "invalid_argument"
    assert error["field"] == field
    assert "NUL" in error["message"]
    if field == "paths":
        assert error["pointer"] == "/paths/0"


@pytest.mark.parametrize("name,field", CASES)
def test_a_name_too_long_for_the_file_system_is_an_invalid_argument_with_its_field(name, field, tmp_path):
    for root in (Path("/"), None):  # with the workspace guard, and with --allow-any-path
        error = _refusal(name, _spoiled(name, field, str(tmp_path / LONG_NAME), tmp_path), root)
        assert error["code"] == "invalid_argument", error
        assert error["field"] == field
        assert "longer than the file system allows" in error["message"]
    assert not (tmp_path / "out.schem").exists()


def test_the_published_schema_refuses_a_nul_as_the_check_does():
    from jsonschema import Draft202012Validator

    from mcb.mcp.arguments import input_schema

    schema = input_schema(ACTIONS["schem_info"].input_model)
    assert not Draft202012Validator(schema).is_valid({"path": "a\u0000b"})
    assert Draft202012Validator(schema).is_valid({"path": "a\u0001b"})


def test_a_symlink_loop_is_refused_with_its_field(tmp_path):
    (tmp_path / "loop").symlink_to("loop")
    error = _refusal("schem_info", {"path": "loop"}, tmp_path)
    assert (error["code"], error["field"]) == ("invalid_argument", "path")


def test_over_stdio_no_path_refusal_is_internal_and_stderr_has_no_traceback(tmp_path):
    process = McpProcess("--offline", cwd=ROOT)
    try:
        process.initialize()
        calls = [
            ("schem_info", {"path": "a\u0000b"}),
            ("schem_validate", {"paths": ["schematics", "a\u0000b"]}),
            ("recipe_lint", {"paths": ["a\u0000b"]}),
            ("schem_rotate", {"path": "schematics/house.schem", "degrees": 90, "output": "a\u0000b"}),
            ("schem_rotate", {"path": "schematics/house.schem", "degrees": 90, "output": LONG_NAME}),
            ("schem_info", {"path": LONG_NAME}),
        ]
        for name, arguments in calls:
            result = process.call(name, arguments)["result"]
            error = refusal_of(result["structuredContent"]["error"])
            assert result["isError"] and error["code"] == "invalid_argument", (name, error)
            assert error["field"] in arguments
    finally:
        process.close()
    assert "Traceback" not in process.stderr()
    assert LONG_NAME not in os.listdir(ROOT)


@pytest.mark.parametrize(
    "args",
    [
        ["schem", "info", "a\u0001b"],
        ["schem", "info", LONG_NAME],
        ["schem", "rotate", str(HOUSE), "--degrees", "90", "-o", LONG_NAME],
        ["schem", "convert", str(HOUSE), "-o", LONG_NAME],
        ["schem", "validate", LONG_NAME],
        ["recipe", "compile", "b" * 300 + ".json"],
    ],
)
def test_the_cli_says_one_clean_line_for_the_same_paths(args, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mcb", *args], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def _tool_refusal(response: dict) -> dict:
    result = response["result"]
    assert result["isError"], result
    return refusal_of(result["structuredContent"]["error"])


def test_a_root_that_does_not_exist_refuses_to_start(tmp_path):
    missing = tmp_path / "nowhere"
    done = subprocess.run(
        [sys.executable, "-m", "mcb", "mcp", "--root", str(missing)], input=b"", capture_output=True, timeout=60
    )
    assert done.returncode == 2 and done.stdout == b""
    assert b"--root" in done.stderr and b"not an existing folder" in done.stderr and b"Traceback" not in done.stderr


def test_a_named_pipe_as_output_is_refused_at_once_and_the_session_goes_on(mcp_process, tmp_path):
    """Opening a FIFO nobody reads blocks: a writer must refuse it before any work, not wait for ever."""
    shutil.copy(HOUSE, tmp_path / "house.schem")
    os.mkfifo(tmp_path / "pipe.schem")
    mcp = mcp_process("--root", str(tmp_path))
    mcp.initialize()
    for tool, arguments in (("schem_rotate", {"degrees": 90}), ("schem_mirror", {"axis": "x"}), ("schem_convert", {})):
        call = {"path": "house.schem", "output": "pipe.schem", "overwrite": True, **arguments}
        error = _tool_refusal(mcp.call(tool, call))
        assert (error["code"], error["field"]) == ("invalid_argument", "output") and "named pipe" in error["message"]
    done = mcp.call("schem_rotate", {"path": "house.schem", "degrees": 90, "output": "turned.schem"})
    assert not done["result"]["isError"] and (tmp_path / "turned.schem").is_file()
