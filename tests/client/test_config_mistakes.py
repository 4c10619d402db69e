"""Configuration mistakes a new user makes: clean config errors (exit 3), and hints that work when followed."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:99999", "http://[not-an-ip]:80"])
def test_malformed_server_url_is_a_config_error(cli, url):
    result = cli("--server", url, "health")
    assert result.exit_code == 3, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.startswith("error:")


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:99999"])
def test_config_set_refuses_a_malformed_server_url(cli, url):
    result = cli("config", "set", "server", url)
    assert result.exit_code == 3, result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_profile_hint_names_a_command_that_works(cli):
    result = cli("--profile", "prod", "context")
    assert result.exit_code == 3
    hint = next(line for line in result.stderr.splitlines() if line.startswith("hint:"))
    command = hint.split("`")[1]  # the command the hint tells the user to run
    args = command.split()[1:]
    args = [a if a != "NAME" else "prod" for a in args] + ["--server-url", "http://127.0.0.1:8765"]
    followed = cli(*args)
    assert followed.exit_code == 0, (command, followed.stderr)
    assert cli("--profile", "prod", "config", "show").exit_code == 0
