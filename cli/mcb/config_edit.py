"""Editing the user config file (`mcb config init|use|set`): its ``[profiles.NAME]`` tables, checked as
:mod:`mcb.config` checks them when reading, written atomically. Token values are refused: only token *files*."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mcb.config import (
    PROFILE_KEYS,
    check_server_url,
    checked_timeout,
    profile_tables,
    profiles_hint,
    read_token_file,
    read_toml,
    user_config_path,
)
from mcb.errors import ConfigError
from mcb.fileio import write_atomic


def load_user_config() -> dict:
    path = user_config_path()
    return read_toml(path) if path.is_file() else {}


def set_profile_values(profile: str, updates: dict[str, Any], *, activate: bool = False) -> Path:
    """Create or update ``[profiles.<profile>]``; token values themselves are refused (only token *files*)."""
    _check_profile_name(profile)
    for key in updates:
        if key not in PROFILE_KEYS:
            raise ConfigError(f"unknown profile key {key!r}", hint="keys: " + ", ".join(PROFILE_KEYS))
    if "server" in updates:
        check_server_url(str(updates["server"]))
    if "timeout" in updates:
        updates = {**updates, "timeout": checked_timeout(updates["timeout"])}
    for key, value in updates.items():
        if isinstance(value, str) and not _is_utf8(value):
            raise ConfigError(f"{key}: the value is not valid UTF-8 text (undecodable bytes on the command line)")
    for key in ("token_file", "agent_token_file"):
        if updates.get(key):
            path = Path(os.path.expanduser(str(updates[key])))
            if not path.is_file():
                raw = str(updates[key])
                # A value that reads as a path is named; a bare word is not echoed: it may be a token pasted here.
                named = f" {path}" if os.sep in raw or raw.startswith(("~", ".")) else ""
                what = "is a directory, not a file" if path.is_dir() else "does not exist"
                raise ConfigError(
                    f"{key}:{named or ' the file'} {what}", hint="give the path of a file that holds the token"
                )
            read_token_file(path, "admin_token" if key == "token_file" else "agent_token")  # refuse bad files now
            updates = {**updates, key: str(path.resolve())}
    data = load_user_config()
    profiles = data.setdefault("profiles", profile_tables(data, user_config_path()))
    profiles.setdefault(profile, {}).update({k: v for k, v in updates.items() if v is not None})
    if activate:
        data["profile"] = profile
    return write_user_config(data)


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def use_profile(profile: str) -> Path:
    data = load_user_config()
    if profile not in profile_tables(data, user_config_path()):
        raise ConfigError(
            f"unknown profile {profile!r}", hint=profiles_hint(data.get("profiles", {}), user_config_path())
        )
    data["profile"] = profile
    return write_user_config(data)


def write_user_config(data: dict) -> Path:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for key, value in data.items():
        if not isinstance(value, dict):
            lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    for name, section in data.get("profiles", {}).items():
        lines.append("")
        lines.append(f"[profiles.{_toml_key(name)}]")
        for key, value in section.items():
            lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    return write_atomic(path, "\n".join(lines).lstrip("\n") + "\n")


def _check_profile_name(name: str) -> None:
    if not name or not all(c.isalnum() or c in "-_" for c in name):
        raise ConfigError(f"profile name {name!r} may use letters, digits, '-' and '_' only")


def _toml_key(key: str) -> str:
    return key if all(c.isascii() and (c.isalnum() or c in "-_") for c in key) else _toml_string(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return _toml_string(str(value))


def _toml_string(text: str) -> str:
    # A JSON string is a TOML basic string, except that TOML also wants DEL (U+007F) escaped.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")
