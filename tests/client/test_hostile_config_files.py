"""Corrupt or wrongly typed config files (`.mcb.toml`, the user config): a config error (exit 3), never a traceback;
`mcb config show` marks them and still shows the rest (exit 0)."""

from __future__ import annotations

import json
import os

import pytest
from hostile_kit import one_error_line

CORRUPT = {
    "invalid_utf8": b'server = "\xff"\n',
    "binary": bytes(range(256)),
    "deep_array": b"a = " + b"[" * 100_000 + b"]" * 100_000,
    "deep_table": b"a = " + b"{b=" * 5000 + b"1" + b"}" * 5000,
    "huge_int": b"timeout = " + b"9" * 5000,
}
WRONG_TYPES = {
    "server_int": "server = 5",
    "server_array": "server = [1]",
    "profile_array": "profile = [1]",
    "profile_table": "profile = {a = 1}",
    "timeout_nan": "timeout = nan",
    "timeout_inf": "timeout = inf",
    "timeout_bool": "timeout = true",
    "player_table": "player_id = {a = 1}",
}


def refused_by_commands(run):
    """`config show` still shows every setting and marks the broken one (exit 0); a command that needs the
    settings refuses them with one config error (exit 3)."""
    shown = run("config", "show", "--json")
    assert shown.exit_code == 0 and json.loads(shown.stdout)["problems"], shown.stderr
    result = run("context")
    assert result.exit_code == 3
    result.shown = shown
    return result


def project_file(tmp_path, monkeypatch, content: bytes) -> str:
    (tmp_path / ".mcb.toml").write_bytes(content)
    monkeypatch.chdir(tmp_path)
    return str(tmp_path / ".mcb.toml")


def user_file(content: bytes) -> str:
    from mcb.config import user_config_path

    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return str(path)


@pytest.mark.parametrize("kind", sorted(CORRUPT))
def test_corrupt_project_file(run, tmp_path, monkeypatch, kind):
    path = project_file(tmp_path, monkeypatch, CORRUPT[kind])
    result = refused_by_commands(run)
    assert path in one_error_line(result)
    assert (tmp_path / ".mcb.toml").read_bytes() == CORRUPT[kind]


@pytest.mark.parametrize("kind", sorted(CORRUPT))
def test_corrupt_user_config(run, tmp_path, monkeypatch, kind):
    monkeypatch.chdir(tmp_path)
    path = user_file(CORRUPT[kind])
    result = refused_by_commands(run)
    assert path in one_error_line(result)


@pytest.mark.parametrize("kind", sorted(WRONG_TYPES))
def test_wrong_types_in_project_file(run, tmp_path, monkeypatch, kind):
    key = WRONG_TYPES[kind].split(" ")[0]
    project_file(tmp_path, monkeypatch, WRONG_TYPES[kind].encode())
    result = refused_by_commands(run)
    assert key in one_error_line(result)


@pytest.mark.parametrize("kind", ["server_int", "server_array", "timeout_nan", "player_table"])
def test_wrong_types_in_a_profile(run, tmp_path, monkeypatch, kind):
    monkeypatch.chdir(tmp_path)
    key = WRONG_TYPES[kind].split(" ")[0]
    user_file(f"[profiles.default]\n{WRONG_TYPES[kind]}\n".encode())
    result = refused_by_commands(run)
    assert key in one_error_line(result)


@pytest.mark.parametrize(
    "text", ['profile = "x"\n[profiles]\nx = 5\n', 'profiles = {default = "s"}\n', "profile = [1]\n", "profiles = 3\n"]
)
def test_profile_that_is_not_a_table(run, tmp_path, monkeypatch, text):
    monkeypatch.chdir(tmp_path)
    user_file(text.encode())
    result = refused_by_commands(run)
    assert "profile" in one_error_line(result)


def test_config_set_on_a_corrupt_user_config_keeps_the_file(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = user_file(b"profiles = 3\n")
    result = run("config", "set", "server", "http://127.0.0.1:1")
    assert result.exit_code == 3
    assert open(path, "rb").read() == b"profiles = 3\n"
    assert os.listdir(os.path.dirname(path)) == ["config.toml"]


@pytest.mark.parametrize(
    "content",
    [
        '{"admin_token": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"admin_token": ' + "9" * 5000 + "}",
        '{"admin_token": 5}',
    ],
)
def test_hostile_token_file(run, tmp_path, monkeypatch, content):
    monkeypatch.chdir(tmp_path)
    token_file = tmp_path / "admin.token"
    token_file.write_text(content)
    token_file.chmod(0o600)
    user_file(f'[profiles.default]\ntoken_file = "{token_file}"\n'.encode())
    result = refused_by_commands(run)
    line = one_error_line(result)
    assert str(token_file) in line and content[:20] not in line  # never echo what may be a secret
    assert str(token_file) in result.shown.stdout and content[:20] not in result.shown.stdout


@pytest.mark.parametrize("value", ["nan", "inf", "1e400", "0"])
def test_config_set_refuses_a_timeout_that_would_break_every_later_command(run, tmp_path, monkeypatch, value):
    monkeypatch.chdir(tmp_path)
    result = run("config", "set", "timeout", value)
    assert result.exit_code == 3
    assert "timeout" in one_error_line(result)
    assert run("config", "show").exit_code == 0


@pytest.mark.parametrize("key", ["server", "player_id", "project_id"])
def test_config_set_refuses_text_that_is_not_utf8(run, tmp_path, monkeypatch, key):
    monkeypatch.chdir(tmp_path)
    undecodable = "http://127.0.0.1:1" + bytes([0xFF]).decode("utf-8", "surrogateescape")
    result = run("config", "set", key, undecodable)
    assert result.exit_code == 3
    assert key in one_error_line(result)
    assert run("config", "show").exit_code == 0
