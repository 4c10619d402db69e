"""Commands fed hostile input: JSON nested deeper than any recursion limit, 5000-digit numbers, lone surrogates,
values of the wrong type, bytes that are not UTF-8, in files, on stdin and in arguments. Offline, and against a
real `mcb serve`: one clean `error:` line and the documented exit code, never a traceback, the input untouched."""

from __future__ import annotations

import json

import pytest
from hostile_kit import DEEP, one_error_line

# -- RPC commands, against a live `mcb serve` -------------------------------------------------------------------
RECIPE = {
    "version": 1,
    "operations": [
        {
            "type": "box",
            "block": "minecraft:stone",
            "min": {"x": 0, "y": 100, "z": 0},
            "max": {"x": 1, "y": 100, "z": 1},
        }
    ],
}


@pytest.fixture
def recipe_file(tmp_path):
    path = tmp_path / "tower.json"
    path.write_text(json.dumps(RECIPE))
    return path


@pytest.mark.parametrize("text", ["[" * DEEP + "]" * DEEP, '{"blocks": ' + "[" * DEEP])
def test_prepare_expected_nested_too_deep(run, rpc_env, tmp_path, recipe_file, text):
    expected = tmp_path / "before.json"
    expected.write_text(text)
    result = run("prepare", recipe_file, "--expected", expected)
    assert result.exit_code == 1
    assert str(expected) in one_error_line(result)
    assert expected.read_text() == text


@pytest.mark.parametrize(
    "blocks",
    [
        [{"pos": 5, "state": "minecraft:stone"}],
        [{"pos": {"x": 0}, "state": "minecraft:stone"}],
        [{"pos": {"x": "a", "y": [], "z": None}, "state": 7}],
        [{"pos": {"x": 0, "y": 100, "z": 0}, "state": ["minecraft:stone"]}],
    ],
)
def test_prepare_expected_with_wrongly_typed_blocks(run, rpc_env, tmp_path, recipe_file, blocks):
    expected = tmp_path / "before.json"
    expected.write_text(json.dumps({"blocks": blocks}))
    result = run("prepare", recipe_file, "--expected", expected)
    assert result.exit_code == 1
    assert "--expected" in one_error_line(result)


def test_recipe_from_stdin_nested_too_deep(run, rpc_env):
    result = run("prepare", "-", input="[" * DEEP)
    assert result.exit_code == 1
    assert "stdin" in one_error_line(result)


def test_rpc_params_nested_too_deep(run, rpc_env):
    result = run("rpc", "material_search", "-", input='{"query": ' + "[" * DEEP + "]" * DEEP + "}")
    assert result.exit_code in (1, 2)
    one_error_line(result)


def test_server_still_serves_after_hostile_requests(run, rpc_env):
    run("rpc", "material_search", "-", input='{"query": ' + "[" * DEEP + "]" * DEEP + "}")
    assert run("health").exit_code == 0


def test_rpc_params_argument_nested_too_deep(run, rpc_env):
    depth = 50_000  # an argv string may be up to 128 KiB
    result = run("rpc", "material_search", '{"query": ' + "[" * depth + "]" * depth + "}")
    assert result.exit_code == 2
    assert "PARAMS" in one_error_line(result)


UNDECODABLE = "a" + bytes([0xFF]).decode("utf-8", "surrogateescape") + "b"  # what Python makes of argv byte 0xff


@pytest.mark.parametrize(
    ("method", "args"),
    [("operation_status", ("status", UNDECODABLE)), ("material_describe", ("material", "describe", UNDECODABLE))],
)
def test_argument_that_is_not_utf8_reaches_the_server_escaped(run, rpc_env, method, args):
    result = run(*args)
    assert result.exit_code == 5  # the server's own refusal, not a UnicodeEncodeError in the client
    assert one_error_line(result).startswith(f"error: {method}: ")


def test_recipe_with_a_lone_surrogate_escape_is_sent_as_json_allows(run, rpc_env, tmp_path):
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(RECIPE).replace("minecraft:stone", "minecraft:stone\\ud800"))
    result = run("prepare", recipe)
    assert result.exit_code == 5
    assert "block state" in one_error_line(result).lower()


@pytest.mark.parametrize("text", ["[" * DEEP + "]" * DEEP, '{"a": ' * DEEP])
def test_terrain_brush_file_that_is_hostile(run, rpc_env, tmp_path, text):
    brush = tmp_path / "brush.json"
    brush.write_text(text)
    result = run("terrain", "brush", brush)
    assert result.exit_code == 1
    assert str(brush) in one_error_line(result)


# -- offline commands -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["deep_array", "deep_object", "deep_unclosed", "huge_int"])
def test_batch_check_refuses_hostile_json_cleanly(run, hostile, kind):
    path = hostile(kind, "castle.batch.json")
    before = path.read_bytes()
    result = run("batch", "--check", path)
    assert result.exit_code == 1
    assert str(path) in one_error_line(result)
    assert path.read_bytes() == before


@pytest.mark.parametrize("kind", ["deep_array", "deep_object", "huge_int"])
@pytest.mark.parametrize(
    "command",
    [("terrain", "preview", "--offline", "-r", "32"), ("terrain", "tiles"), ("recipe", "compile"), ("recipe", "fmt")],
)
def test_offline_readers_refuse_hostile_json(run, hostile, command, kind):
    path = hostile(kind)
    result = run(*command, path)
    assert result.exit_code == 1
    line = one_error_line(result)
    # a 5000-digit number may parse (terrain keeps number literals) and then fail the server's range check
    assert str(path) in line or (kind == "huge_int" and "out of range" in line)


@pytest.mark.parametrize("kind", ["deep_array", "deep_object", "huge_int", "lone_surrogate"])
@pytest.mark.parametrize("command", [("recipe", "lint"), ("terrain", "lint")])
def test_linters_report_hostile_json_as_a_finding(run, hostile, command, kind):
    path = hostile(kind)
    result = run(*command, path)
    assert result.exit_code == 1
    assert result.stdout.startswith(str(path))


@pytest.mark.parametrize("kind", [[], {}, ["recipe"], 5, None])
def test_batch_step_kind_of_the_wrong_type(run, tmp_path, kind):
    path = tmp_path / "castle.batch.json"
    path.write_text(json.dumps({"version": 1, "steps": [{"kind": kind, "name": "a", "recipe": "a.json"}]}))
    result = run("batch", "--check", path)
    assert result.exit_code == 1
    assert "steps[0]" in one_error_line(result)
