"""One recipe size limit, the server's 1 MiB request limit, with one message, in recipe lint, compile and fmt (files
and stdin) and in the MCP tools recipe_lint and recipe_compile; a recipe at the limit still compiles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOWER = ROOT / "recipes" / "tower.json"
LIMIT = 1_048_576
MESSAGE = "the server refuses requests over 1 MiB (1,048,576 bytes)"


def padded(tmp_path, size: int) -> Path:
    """tower.json padded with trailing whitespace (still valid JSON) to exactly ``size`` bytes."""
    text = TOWER.read_text()
    path = tmp_path / f"r{size}.json"
    path.write_text(text + " " * (size - len(text.encode())))
    assert path.stat().st_size == size
    return path


@pytest.mark.parametrize("command", [("recipe", "compile"), ("recipe", "fmt"), ("recipe", "lint")])
def test_every_recipe_command_refuses_a_recipe_over_the_server_limit(cli, tmp_path, command):
    big = padded(tmp_path, 2 * LIMIT)
    for args, feed in (([str(big)], None), (["-"], big.read_bytes())):
        result = cli(*command, *args, input=feed)
        assert result.exit_code == 1
        assert MESSAGE in result.stdout + result.stderr
        assert "hint: split it into several recipes" in result.stdout + result.stderr
        assert "16777216" not in result.stdout + result.stderr


def test_file_message_names_the_size(cli, tmp_path):
    big = padded(tmp_path, LIMIT + 1)
    result = cli("recipe", "compile", str(big))
    assert result.stderr.splitlines()[0] == f"error: {big}: recipe is 1,048,577 bytes; {MESSAGE}"


def test_a_recipe_at_the_limit_is_accepted(cli, tmp_path):
    edge = padded(tmp_path, LIMIT)
    assert cli("recipe", "compile", str(edge)).exit_code == 0
    assert cli("recipe", "lint", str(edge)).exit_code == 0
    assert cli("recipe", "fmt", str(edge)).exit_code == 0


def test_mcp_tools_use_the_same_limit_and_message(cli, tmp_path):
    from mcb.mcp.actions import Refusal
    from mcb.mcp.arguments import parse_arguments
    from mcb.mcp.tools.offline import OFFLINE_ACTIONS

    actions = {action.name: action for action in OFFLINE_ACTIONS}

    class Context:
        def progress(self, *args, **kwargs):
            pass

        def check_cancelled(self):
            pass

        def created(self, path):
            pass

    big = padded(tmp_path, LIMIT + 1)
    lint = actions["recipe_lint"]
    data = lint.run(parse_arguments(lint, {"paths": [str(big)]}, root=Path("/")), Context()).data
    assert data["ok"] is False and [d["rule"] for d in data["diagnostics"]] == ["recipe.file.size"]
    assert MESSAGE in data["diagnostics"][0]["message"]
    assert (
        data["diagnostics"] == json.loads(cli("recipe", "lint", str(big), "--json").stdout)["files"][0]["diagnostics"]
    )
    compile_ = actions["recipe_compile"]
    with pytest.raises(Refusal) as refused:
        compile_.run(parse_arguments(compile_, {"path": str(big)}, root=Path("/")), Context())
    assert MESSAGE in refused.value.to_dict()["error"]["message"]
