"""Inputs far larger than anything the server accepts (1 MiB requests) are refused after reading a bounded prefix:
a runaway pipe (`yes | mcb ...`) or a 100 MB file must not be slurped into memory whole."""

from __future__ import annotations

import pytest
from hostile_kit import one_error_line

LIMIT = 16 * 1024 * 1024
OVERSIZED = " " * (LIMIT + 1024)  # whitespace: valid JSON padding, so only a size check can refuse it early


@pytest.fixture
def sparse_file(tmp_path):
    path = tmp_path / "huge.json"
    with open(path, "wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # sparse: instant, no disk used
    return path


@pytest.mark.parametrize("command", [("terrain", "preview", "--offline", "-r", "32"), ("terrain", "tiles")])
def test_terrain_refuses_an_oversized_file_by_its_size(run, sparse_file, command):
    result = run(*command, sparse_file)
    assert result.exit_code == 1
    line = one_error_line(result)
    assert str(sparse_file) in line and "MiB" in line


@pytest.mark.parametrize(
    "command",
    [("terrain", "preview", "--offline", "-r", "32", "-"), ("terrain", "tiles", "-"), ("recipe", "compile", "-")],
)
def test_oversized_stdin_is_refused(run, command):
    result = run(*command, input=OVERSIZED)
    assert result.exit_code == 1
    assert "MiB" in result.stderr or "too large" in result.stderr


def test_recipe_lint_refuses_oversized_stdin(run):
    result = run("recipe", "lint", "-", input=OVERSIZED)
    assert result.exit_code == 1
    assert "<stdin>" in result.stdout and "bytes" in result.stdout


@pytest.mark.parametrize("args", [("prepare", "-"), ("rpc", "material_search", "-")])
def test_rpc_commands_refuse_oversized_stdin(run, args):
    result = run("--server", "http://127.0.0.1:9", *args, input=OVERSIZED)
    assert result.exit_code == 1
    assert "stdin" in one_error_line(result) and "MiB" in result.stderr


def test_prepare_refuses_an_oversized_expected_file(run, sparse_file, tmp_path):
    recipe = tmp_path / "r.json"
    recipe.write_text('{"version": 1, "operations": []}')
    result = run("--server", "http://127.0.0.1:9", "prepare", recipe, "--expected", sparse_file)
    assert result.exit_code == 1
    assert str(sparse_file) in one_error_line(result) and "MiB" in result.stderr


def test_batch_file_larger_than_16_mib_is_refused(run, sparse_file):
    batch = sparse_file.with_name("castle.batch.json")
    sparse_file.rename(batch)
    result = run("batch", "--check", batch)
    assert result.exit_code == 1
    assert str(batch) in one_error_line(result) and "MiB" in result.stderr


def test_batch_step_recipe_larger_than_16_mib_is_refused(run, sparse_file, tmp_path, monkeypatch):
    from mcb.server.testing import run_server

    batch = tmp_path / "castle.batch.json"
    batch.write_text('{"version": 1, "steps": [{"kind": "recipe", "name": "a", "recipe": "huge.json"}]}')
    with run_server(tmp_path / "server", tick_ms=2) as server:
        monkeypatch.setenv("MCB_SERVER", server.url)
        monkeypatch.setenv("MCB_TOKEN", server.admin_token)
        monkeypatch.setenv("MCB_PLAYER_ID", "console")
        result = run("batch", batch)
    assert result.exit_code == 1
    assert "huge.json" in result.stderr and "MiB" in result.stderr
