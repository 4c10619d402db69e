"""Client settings: where the server is, which tokens and scope to use, and where each value came from.

Precedence (highest first): command-line flag > environment (``MCB_*``) > project file ``.mcb.toml`` (searched
upward from the working directory; never holds secrets) > the user config file (``<user config dir>/mcb/config.toml``,
named ``[profiles.NAME]`` tables) > defaults (``http://127.0.0.1:8765`` and, for a loopback server, the token file
of a local ``mcb serve``).

Tokens come only from the environment (``MCB_TOKEN`` admin, ``MCB_AGENT_TOKEN`` agent) or from a token file named
by the profile (``token_file`` / ``agent_token_file``). A token file readable by group or others is refused. Token
values are kept in ``SecretStr`` and are never part of a repr, an error or ``mcb config show``.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, SecretStr

from mcb.errors import ConfigError
from mcb.fileio import write_atomic

DEFAULT_SERVER = "http://127.0.0.1:8765"
DEFAULT_PLAYER_ID = "console"  # the local-automation principal; `mcb serve` accepts it
PROJECT_FILE = ".mcb.toml"
PROFILE_KEYS = ("server", "timeout", "player_id", "project_id", "token_file", "agent_token_file")
PROJECT_KEYS = ("server", "profile", "timeout", "player_id", "project_id")
ENV = {
    "server": "MCB_SERVER", "profile": "MCB_PROFILE", "admin_token": "MCB_TOKEN", "agent_token": "MCB_AGENT_TOKEN",
    "player_id": "MCB_PLAYER_ID", "project_id": "MCB_PROJECT_ID",
}
LOCAL_TOKENS_FILE = "tokens.json"  # written by `mcb serve` in its data directory


def user_config_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_config_dir("mcb")) / "config.toml"


def local_server_data_dirs() -> list[Path]:
    """Where a local ``mcb serve`` keeps its data by default (its tokens file lives there)."""
    import platformdirs

    base = Path(platformdirs.user_data_dir("mcb"))
    return [base / "server", base]


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True)

    server: str = DEFAULT_SERVER
    profile: str | None = None
    timeout: float | None = None
    player_id: str | None = DEFAULT_PLAYER_ID
    project_id: str | None = None
    admin_token: SecretStr | None = None
    agent_token: SecretStr | None = None
    sources: dict[str, str] = {}
    files: dict[str, str] = {}

    def admin_token_value(self) -> str | None:
        return self.admin_token.get_secret_value() if self.admin_token else None

    def agent_token_value(self) -> str | None:
        return self.agent_token.get_secret_value() if self.agent_token else None

    def public_view(self) -> list[dict[str, Any]]:
        """Every effective value with its source; tokens shown only as set/unset."""
        rows = []
        for name in ("server", "profile", "timeout", "player_id", "project_id", "admin_token", "agent_token"):
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                value = f"<set, {len(value.get_secret_value())} characters>"
            rows.append({"name": name, "value": value, "source": self.sources.get(name, "default")})
        return rows


def find_project_file(start: Path | None = None) -> Path | None:
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / PROJECT_FILE
        if candidate.is_file():
            return candidate
    return None


def read_toml(path: Path) -> dict:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path} is not UTF-8 text: {error.reason} at byte {error.start}") from None
    except (ValueError, RecursionError) as error:  # an integer over 4300 digits, or nesting deeper than the stack
        reason = "nesting too deep" if isinstance(error, RecursionError) else str(error)
        raise ConfigError(f"{path} is not usable TOML: {reason}") from None


_STRING_KEYS = ("server", "profile", "player_id", "project_id", "token_file", "agent_token_file")


def _check_strings(table: dict, where: str) -> None:
    """TOML values of keys that must be text; a number, array or table there would crash later."""
    for key in _STRING_KEYS:
        if key in table and not isinstance(table[key], str):
            raise ConfigError(f"{where}: `{key}` must be a string, not {type(table[key]).__name__}")


def _profiles(data: dict, path: Path) -> dict:
    """The ``[profiles.NAME]`` tables of a user config, each checked to be a table with text where text belongs."""
    profiles = data.get("profiles", {})
    if not isinstance(profiles, dict):
        raise ConfigError(f"{path}: `profiles` must be a table of [profiles.NAME] tables")
    for name, section in profiles.items():
        if not isinstance(section, dict):
            raise ConfigError(f"{path}: profile {name!r} must be a [profiles.{name}] table")
        _check_strings(section, f"{path} [profiles.{name}]")
    _check_strings({k: v for k, v in data.items() if k != "profiles"}, str(path))
    return profiles


def load_settings(*, server: str | None = None, profile: str | None = None, timeout: float | None = None,
                  cwd: Path | None = None, env: dict[str, str] | None = None) -> Settings:
    """Resolve the effective settings. ``server``/``profile``/``timeout`` are the root flag values."""
    env = dict(os.environ if env is None else env)
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    files: dict[str, str] = {}

    def put(name: str, value: Any, source: str) -> None:
        if value is not None and value != "" and name not in values:
            values[name] = value
            sources[name] = source

    # Typer fills --server/--profile from MCB_SERVER/MCB_PROFILE too; name the real source.
    for name, flag_value in (("server", server), ("profile", profile)):
        if flag_value is not None:
            put(name, flag_value, f"env {ENV[name]}" if env.get(ENV[name]) == flag_value else f"flag --{name}")
    put("timeout", timeout, "flag --timeout")
    for name in ("server", "profile", "player_id", "project_id"):
        put(name, env.get(ENV[name]), f"env {ENV[name]}")

    project_path = find_project_file(cwd)
    project: dict = {}
    if project_path is not None:
        files["project"] = str(project_path)
        project = read_toml(project_path)
        secrets = [k for k in project if "token" in k.lower()]
        if secrets:
            raise ConfigError(f"{project_path} must not hold secrets (found {', '.join(sorted(secrets))})",
                              hint="project files are meant to be committed; keep tokens in MCB_TOKEN / "
                              "MCB_AGENT_TOKEN or a token file named by a user profile")
        unknown = sorted(set(project) - set(PROJECT_KEYS))
        if unknown:
            raise ConfigError(f"{project_path}: unknown key(s) {', '.join(unknown)}",
                              hint="allowed: " + ", ".join(PROJECT_KEYS))
        _check_strings(project, str(project_path))
        for name in PROJECT_KEYS:
            put(name, project.get(name), f"project file {project_path}")

    user_path = user_config_path()
    user: dict = read_toml(user_path) if user_path.is_file() else {}
    if user:
        files["user"] = str(user_path)
    profiles = _profiles(user, user_path)
    put("profile", user.get("profile"), f"user config {user_path}")
    profile_name = values.get("profile")
    if profile_name is None and "default" in profiles:
        profile_name = "default"
        put("profile", "default", f"user config {user_path}")
    section: dict = {}
    if profile_name is not None:
        if profile_name not in profiles:
            raise ConfigError(f"unknown profile {profile_name!r}", hint=_profiles_hint(profiles, user_path))
        section = profiles[profile_name]
        for name in ("server", "timeout", "player_id", "project_id"):
            put(name, section.get(name), f"profile {profile_name!r} in {user_path}")

    # Tokens: environment, then token files named by the profile, then a local `mcb serve`.
    put("admin_token", env.get(ENV["admin_token"]), f"env {ENV['admin_token']}")
    put("agent_token", env.get(ENV["agent_token"]), f"env {ENV['agent_token']}")
    for name, key, json_key in (("admin_token", "token_file", "admin_token"),
                                ("agent_token", "agent_token_file", "agent_token")):
        if name not in values and section.get(key):
            path = Path(os.path.expanduser(str(section[key])))
            put(name, read_token_file(path, json_key), f"token file {path} (profile {profile_name!r})")

    server_url = values.get("server", DEFAULT_SERVER)
    _check_server_url(server_url)
    if "admin_token" not in values and "agent_token" not in values and _is_loopback(server_url):
        tokens_path = _local_tokens_path()
        if tokens_path is not None:
            put("admin_token", read_token_file(tokens_path, "admin_token"), f"local mcb serve {tokens_path}")
            put("agent_token", read_token_file(tokens_path, "agent_token"), f"local mcb serve {tokens_path}")

    raw_timeout = values.get("timeout")
    if raw_timeout is not None:
        try:
            if isinstance(raw_timeout, bool):
                raise TypeError("a boolean is not a number of seconds")
            values["timeout"] = float(raw_timeout)
        except (TypeError, ValueError):
            raise ConfigError(f"timeout must be a number of seconds (from {sources['timeout']})") from None
        if not math.isfinite(values["timeout"]) or values["timeout"] <= 0:
            raise ConfigError(f"timeout must be a positive, finite number of seconds (from {sources['timeout']})")
    for name in ("admin_token", "agent_token"):
        if name in values:
            values[name] = SecretStr(_checked_token(str(values[name]), sources[name]))
    for name in ("player_id", "project_id", "server", "profile"):
        if name in values:
            values[name] = str(values[name])
    return Settings(**values, sources=sources, files=files)


def _checked_token(token: str, source: str) -> str:
    """The token without surrounding whitespace; refuse one no HTTP header can carry (the value is never shown)."""
    token = token.strip()
    if not token or any(not ("!" <= char <= "~") for char in token):
        raise ConfigError(f"the token from {source} is malformed: it must be one run of printable ASCII characters",
                          hint="check for pasted spaces, line breaks, quote marks or non-ASCII letters",
                          code="malformed_token")
    return token


def read_token_file(path: Path, json_key: str) -> str:
    """A token file holds the token alone, or a JSON object like `mcb serve`'s ``tokens.json``."""
    try:
        info = path.stat()
    except OSError:
        raise ConfigError(f"token file {path} does not exist or cannot be read") from None
    if os.name == "posix" and info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(
            f"token file {path} is readable by group or others (mode {stat.S_IMODE(info.st_mode):o})",
            hint=f"run `chmod 600 {path}`", code="unsafe_token_file",
        )
    try:
        text = path.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        raise ConfigError(f"token file {path} cannot be read as UTF-8 text") from None
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: nesting deeper than the stack
            raise ConfigError(f"token file {path} looks like JSON but does not parse") from None
        token = data.get(json_key) if isinstance(data, dict) else None
        if not isinstance(token, str) or not token:
            raise ConfigError(f"token file {path} has no `{json_key}` entry")
        return token
    if not text or any(c.isspace() for c in text):
        raise ConfigError(f"token file {path} must contain exactly one token")
    return text


def _local_tokens_path() -> Path | None:
    for folder in local_server_data_dirs():
        candidate = folder / LOCAL_TOKENS_FILE
        if candidate.is_file():
            return candidate
    return None


def _is_loopback(url: str) -> bool:
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return host in {"127.0.0.1", "localhost", "::1"}


def _check_server_url(url: str) -> None:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - urlsplit checks the port (0..65535) only when it is read
    except ValueError as error:  # e.g. an unclosed [IPv6 bracket or port 99999
        raise ConfigError(f"server URL {url!r} is malformed ({error})",
                          hint="it must look like http://127.0.0.1:8765") from None
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise ConfigError(f"server URL {url!r} must look like http://127.0.0.1:8765")
    if parts.username or parts.password or parts.query or parts.fragment or parts.path not in {"", "/"}:
        raise ConfigError(f"server URL {url!r} must be scheme://host:port only (no path, query or credentials)")


def _profiles_hint(profiles: dict, path: Path) -> str:
    if profiles:
        return "known profiles: " + ", ".join(sorted(profiles)) + f" (in {path})"
    return f"create one with `mcb config init --name NAME` (file {path})"


# -- editing the user config file (`mcb config init|use|set`) -----------------------------------------------
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
        _check_server_url(str(updates["server"]))
    if "timeout" in updates:
        try:
            updates = {**updates, "timeout": float(updates["timeout"])}
        except (TypeError, ValueError):
            raise ConfigError("timeout must be a number of seconds") from None
        if not math.isfinite(updates["timeout"]) or updates["timeout"] <= 0:  # saved, it would break every command
            raise ConfigError("timeout must be a positive, finite number of seconds")
    for key, value in updates.items():
        if isinstance(value, str) and not _is_utf8(value):
            raise ConfigError(f"{key}: the value is not valid UTF-8 text (undecodable bytes on the command line)")
    for key in ("token_file", "agent_token_file"):
        if updates.get(key):
            path = Path(os.path.expanduser(str(updates[key])))
            if not path.is_file():  # the value is not echoed: it may be a token pasted by mistake
                raise ConfigError(f"{key}: no such file", hint="give the path of a file that holds the token")
            read_token_file(path, "admin_token" if key == "token_file" else "agent_token")  # refuse bad files now
            updates = {**updates, key: str(path.resolve())}
    data = load_user_config()
    profiles = data.setdefault("profiles", _profiles(data, user_config_path()))
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
    if profile not in _profiles(data, user_config_path()):
        raise ConfigError(f"unknown profile {profile!r}", hint=_profiles_hint(data.get("profiles", {}), user_config_path()))
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
