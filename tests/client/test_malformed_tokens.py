"""Tokens a user mangles (pasted with spaces, quotes, non-ASCII): a config error naming where it came from, the
value never shown, never a traceback and never a misleading network error."""

from __future__ import annotations

import os

import pytest

SECRETISH = "s3cr3t-t0ken-ü"


@pytest.mark.parametrize("value", [SECRETISH, "Zq7two Wk9words", "Tb4\tVr8", '"Qt5"Xx6\x01'])
@pytest.mark.parametrize("variable", ["MCB_AGENT_TOKEN", "MCB_TOKEN"])
def test_malformed_token_in_the_environment_is_a_config_error(cli, monkeypatch, variable, value):
    monkeypatch.setenv(variable, value)
    args = ("rpc", "project_context", "--admin") if variable == "MCB_TOKEN" else ("context",)
    result = cli("-vv", "--server", "http://127.0.0.1:9", *args)
    assert result.exit_code == 3, result.stderr
    assert "Traceback" not in result.stderr
    assert variable in result.stderr
    for piece in value.split():
        assert piece not in result.stdout + result.stderr


def test_malformed_token_in_a_token_file_is_a_config_error(cli, tmp_path, monkeypatch):
    token_file = tmp_path / "agent.token"
    token_file.write_text(SECRETISH + "\n", "utf-8")
    os.chmod(token_file, 0o600)
    assert cli("config", "init", "--server-url", "http://127.0.0.1:9", "--player-id", "console").exit_code == 0
    from mcb.config import user_config_path  # edit the profile by hand: `config set` refuses the file up front

    path = user_config_path()
    path.write_text(path.read_text() + f'agent_token_file = "{token_file}"\n')
    result = cli("-vv", "context")
    assert result.exit_code == 3, result.stderr
    assert "Traceback" not in result.stderr and SECRETISH not in result.stderr
    assert str(token_file) in result.stderr


def test_surrounding_whitespace_from_the_environment_is_not_part_of_the_token(cli, monkeypatch):
    # `export MCB_AGENT_TOKEN="$(cat file) "` or a stray newline must not turn into a connection error.
    monkeypatch.setenv("MCB_AGENT_TOKEN", "  abc123\n")
    result = cli("--json", "config", "show")
    assert result.exit_code == 0, result.stderr
    assert "abc123" not in result.stdout
