"""Configuration mistakes a new user makes: clean config errors (exit 3), and hints that work when followed."""

from __future__ import annotations

import json
import os
import re

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


def test_admin_hint_names_a_profile_key_that_config_set_accepts(cli, tmp_path, monkeypatch):
    # A missing admin token: exit 4, and following the hint (setting the key it names) fixes the problem.
    monkeypatch.setenv("MCB_AGENT_TOKEN", "agent-only")
    result = cli("--server", "http://127.0.0.1:9", "recovery", "review", "some-operation")
    assert result.exit_code == 4
    hint = next(line for line in result.stderr.splitlines() if line.startswith("hint:"))
    keys = re.findall(r"\b([a-z_]+_file)\b", hint)
    assert keys, hint
    token_file = tmp_path / "admin.token"
    token_file.write_text("admin-secret-value\n")
    os.chmod(token_file, 0o600)
    followed = cli("config", "set", keys[0], str(token_file))
    assert followed.exit_code == 0, followed.stderr
    shown = cli("--json", "config", "show")
    admin = next(s for s in json.loads(shown.stdout)["settings"] if s["name"] == "admin_token")
    assert str(token_file) in admin["source"]
