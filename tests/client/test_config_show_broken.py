"""`mcb config show` shows every setting even when one is broken (exit 0); commands needing it still refuse."""

from __future__ import annotations

import json
import os


def _profile_with_token_file(cli, tmp_path, name="agent.token"):
    token_file = tmp_path / name
    token_file.write_text("u" * 48)
    os.chmod(token_file, 0o600)
    assert cli("config", "init", "--agent-token-file", str(token_file), "--project-id", "p1").exit_code == 0
    return token_file


def test_world_readable_token_file_is_marked_not_fatal(cli, tmp_path):
    token_file = _profile_with_token_file(cli, tmp_path)
    os.chmod(token_file, 0o644)
    shown = cli("config", "show")
    assert shown.exit_code == 0, shown.stderr
    assert "project_id" in shown.stdout and "p1" in shown.stdout  # the other settings are still there
    assert "BROKEN" in shown.stdout and "chmod 600" in shown.stderr and str(token_file) in shown.stderr
    data = json.loads(cli("config", "show", "--json").stdout)
    rows = {row["name"]: row for row in data["settings"]}
    assert "readable by group or others" in rows["agent_token"]["problem"]
    assert data["problems"][0]["setting"] == "agent_token"
    assert "u" * 48 not in shown.stdout + shown.stderr
    refused = cli("context")
    assert refused.exit_code == 3 and "chmod 600" in refused.stderr  # still refused where it is needed


def test_missing_token_file_names_the_path(cli, tmp_path):
    token_file = _profile_with_token_file(cli, tmp_path, "gone.token")
    token_file.unlink()
    shown = cli("config", "show", "--json")
    assert shown.exit_code == 0
    problem = json.loads(shown.stdout)["problems"][0]
    assert problem["setting"] == "agent_token" and str(token_file) in problem["problem"]
    refused = cli("context")
    assert refused.exit_code == 3 and str(token_file) in refused.stderr


def test_broken_user_config_file_and_bad_timeout_are_shown(cli, tmp_path, monkeypatch):
    from mcb.config import user_config_path

    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("profile = [unclosed\n")
    shown = cli("--timeout", "5", "config", "show", "--json")
    assert shown.exit_code == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["problems"][0]["setting"] == "user config"
    assert {row["name"]: row for row in data["settings"]}["timeout"]["value"] == 5.0
    assert cli("context").exit_code == 3


def test_a_wrong_token_file_path_is_named_but_a_bare_word_is_not_echoed(cli, tmp_path):
    wrong = tmp_path / "missing" / "agent.token"
    result = cli("config", "init", "--agent-token-file", str(wrong))
    assert result.exit_code == 3 and str(wrong) in result.stderr
    pasted = "abcdefPASTEDTOKEN123"
    result = cli("config", "set", "agent_token_file", pasted)
    assert result.exit_code == 3 and pasted not in result.stderr and "does not exist" in result.stderr
