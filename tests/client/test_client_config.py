"""Settings precedence, sources, profiles, token files and the local `mcb serve` token discovery."""

from __future__ import annotations

import json
import os

import pytest

from mcb.config import DEFAULT_SERVER, ConfigError, load_settings, user_config_path
from mcb.config_edit import set_profile_values, use_profile

TOKEN_A = "a" * 40
TOKEN_B = "b" * 40


def write_token(path, text, mode=0o600):
    path.write_text(text)
    os.chmod(path, mode)
    return path


def write_user_config(text: str):
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults(tmp_path):
    settings = load_settings(cwd=tmp_path, env={})
    assert settings.server == DEFAULT_SERVER and settings.player_id == "console"
    assert settings.admin_token is None and settings.agent_token is None
    assert {r["source"] for r in settings.public_view()} == {"default"}


def test_precedence_flag_env_project_user(tmp_path):
    write_user_config(
        'profile = "p"\n[profiles.p]\nserver = "http://127.0.0.1:1"\nplayer_id = "user"\n'
        'project_id = "user-project"\ntimeout = 12\n'
    )
    project = tmp_path / "repo"
    (project / "sub").mkdir(parents=True)
    (project / ".mcb.toml").write_text('server = "http://127.0.0.1:2"\nplayer_id = "project"\n')
    env = {"MCB_SERVER": "http://127.0.0.1:3"}
    settings = load_settings(cwd=project / "sub", env=env)
    assert settings.server == "http://127.0.0.1:3" and settings.sources["server"] == "env MCB_SERVER"
    assert settings.player_id == "project" and "project file" in settings.sources["player_id"]
    assert settings.project_id == "user-project" and "profile 'p'" in settings.sources["project_id"]
    assert settings.timeout == 12.0
    flagged = load_settings(server="http://127.0.0.1:4", timeout=3, cwd=project, env=env)
    assert flagged.server == "http://127.0.0.1:4" and flagged.sources["server"] == "flag --server"
    assert flagged.timeout == 3 and flagged.sources["timeout"] == "flag --timeout"


def test_profile_selection_and_unknown_profile(tmp_path):
    write_user_config(
        '[profiles.default]\nserver = "http://127.0.0.1:5"\n[profiles.other]\nserver = "http://127.0.0.1:6"\n'
    )
    assert load_settings(cwd=tmp_path, env={}).server == "http://127.0.0.1:5"
    assert load_settings(cwd=tmp_path, env={"MCB_PROFILE": "other"}).server == "http://127.0.0.1:6"
    with pytest.raises(ConfigError) as caught:
        load_settings(profile="missing", cwd=tmp_path, env={})
    assert "default, other" in caught.value.hint


@pytest.mark.parametrize("where", ["profile", "top level", "project file"])
def test_a_misspelt_key_is_refused_by_name_with_the_near_one(tmp_path, where):
    """`server_url` (the spelling of `config init --server-url`) would otherwise be ignored for the default."""
    if where == "profile":
        write_user_config('profile = "p"\n[profiles.p]\nserver_url = "http://127.0.0.1:7"\n')
    elif where == "top level":
        write_user_config('server = "http://127.0.0.1:7"\n')
    else:
        (tmp_path / ".mcb.toml").write_text('server_url = "http://127.0.0.1:7"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(cwd=tmp_path, env={})
    assert "unknown key(s)" in caught.value.message
    shown = load_settings(cwd=tmp_path, env={}, tolerant=True)
    assert shown.server == DEFAULT_SERVER and any("unknown key" in p["problem"] for p in shown.problems)
    if where != "top level":
        assert "server_url -> server" in caught.value.hint


def test_env_tokens_and_token_files(tmp_path):
    admin_file = write_token(tmp_path / "admin.token", TOKEN_A + "\n")
    agent_file = write_token(tmp_path / "tokens.json", json.dumps({"agent_token": TOKEN_B}))
    write_user_config(f'[profiles.default]\ntoken_file = "{admin_file}"\nagent_token_file = "{agent_file}"\n')
    settings = load_settings(cwd=tmp_path, env={})
    assert settings.admin_token_value() == TOKEN_A and settings.agent_token_value() == TOKEN_B
    env_wins = load_settings(cwd=tmp_path, env={"MCB_TOKEN": "c" * 40})
    assert env_wins.admin_token_value() == "c" * 40 and env_wins.sources["admin_token"] == "env MCB_TOKEN"
    text = repr(settings) + str(settings.public_view()) + settings.model_dump_json()
    assert TOKEN_A not in text and TOKEN_B not in text


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604])
def test_group_or_world_readable_token_file_is_refused(tmp_path, mode):
    token_file = write_token(tmp_path / "admin.token", TOKEN_A, mode)
    write_user_config(f'[profiles.default]\ntoken_file = "{token_file}"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(cwd=tmp_path, env={})
    assert "chmod 600" in caught.value.hint and TOKEN_A not in caught.value.message


def test_project_file_must_not_hold_secrets(tmp_path):
    (tmp_path / ".mcb.toml").write_text(f'agent_token = "{TOKEN_A}"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(cwd=tmp_path, env={})
    assert "secrets" in caught.value.message and TOKEN_A not in caught.value.message


def test_bad_toml_and_bad_url_are_config_errors(tmp_path):
    (tmp_path / ".mcb.toml").write_text("server = \n")
    with pytest.raises(ConfigError):
        load_settings(cwd=tmp_path, env={})
    with pytest.raises(ConfigError):
        load_settings(server="http://127.0.0.1:8765/v1/rpc", cwd=tmp_path / "nowhere", env={})


def test_local_serve_tokens_are_found_in_the_default_data_dir(tmp_path):
    import platformdirs

    from mcb.server.testing import run_server

    data_dir = platformdirs.user_data_dir("mcb") + "/server"
    with run_server(data_dir) as server:
        settings = load_settings(server=server.url, cwd=tmp_path, env={})
    assert settings.agent_token_value() == server.agent_token
    assert settings.sources["agent_token"].startswith("local mcb serve")
    remote = load_settings(server="http://10.0.0.1:8765", cwd=tmp_path, env={})
    assert remote.agent_token is None  # local tokens are only offered to a loopback server


def test_profile_editing_round_trips(tmp_path):
    token_file = write_token(tmp_path / "agent.token", TOKEN_B)
    set_profile_values("lab", {"server": "http://127.0.0.1:7", "agent_token_file": str(token_file)}, activate=True)
    set_profile_values("other", {"server": "http://127.0.0.1:8"})
    assert load_settings(cwd=tmp_path, env={}).server == "http://127.0.0.1:7"
    use_profile("other")
    assert load_settings(cwd=tmp_path, env={}).server == "http://127.0.0.1:8"
    assert TOKEN_B not in user_config_path().read_text()
    with pytest.raises(ConfigError):
        set_profile_values("lab", {"agent_token": TOKEN_B})
    with pytest.raises(ConfigError) as caught:
        set_profile_values("lab", {"token_file": TOKEN_A})
    assert TOKEN_A not in caught.value.message
