"""Offline commands fed hostile JSON: one clean `error:` line and exit 1, never a traceback, the input untouched."""

from __future__ import annotations

import json

import pytest
from hostile_kit import one_error_line


def test_recipe_fmt_keeps_a_lone_surrogate_escape(run, hostile):
    # json decodes "\ud800" to a lone surrogate that no UTF-8 output can carry; the formatter must keep the escape.
    path = hostile("lone_surrogate")
    result = run("recipe", "fmt", path)
    assert result.exit_code == 0, result.stderr
    assert '"\\ud800"' in result.stdout


def test_recipe_fmt_in_place_with_a_lone_surrogate_keeps_the_file_valid(run, hostile):
    path = hostile("lone_surrogate")
    result = run("recipe", "fmt", "-i", path)
    assert result.exit_code == 0, result.stderr
    assert '"\\ud800"' in path.read_text("utf-8")
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left behind


@pytest.mark.parametrize("kind", ["deep_array", "deep_object", "deep_unclosed", "huge_int"])
def test_batch_check_refuses_hostile_json_cleanly(run, hostile, kind):
    path = hostile(kind, "castle.batch.json")
    before = path.read_bytes()
    result = run("batch", "--check", path)
    assert result.exit_code == 1
    assert str(path) in one_error_line(result)
    assert path.read_bytes() == before


@pytest.mark.parametrize("kind", ["deep_array", "huge_int"])
def test_batch_refuses_a_hostile_state_file_and_keeps_it(run, hostile, tmp_path, kind):
    batch = tmp_path / "castle.batch.json"
    batch.write_text('{"version": 1, "steps": [{"kind": "recipe", "name": "a", "recipe": "a.json"}]}')
    state = hostile(kind, "castle.batch.state.json")
    before = state.read_bytes()
    result = run("--server", "http://127.0.0.1:9", "batch", batch)
    assert result.exit_code in (1, 6)
    assert "Traceback" not in result.stderr
    assert state.read_bytes() == before


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


def test_block_check_stdin_line_that_is_not_utf8(cli, monkeypatch):
    # A UTF-8 locale reads stdin strictly; one undecodable byte must be one invalid state, not a traceback.
    result = cli("block", "check", "-", input=b"minecraft:stone\nminecraft:stone\xff\n")
    assert "Traceback" not in result.stderr
    assert result.exit_code == 1
    assert "minecraft:stone" in result.stdout
    assert "1 of 2 block states invalid" in result.stderr


@pytest.mark.parametrize("kind", [[], {}, ["box"], {"x": 1}])
def test_recipe_fmt_operation_type_of_the_wrong_type(run, tmp_path, kind):
    # fmt formats any JSON; a nonsense `type` is lint's business, the layout just falls back to file order
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"version": 1, "operations": [{"type": kind, "block": "minecraft:stone"}]}))
    result = run("recipe", "fmt", path)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["operations"][0]["type"] == kind
