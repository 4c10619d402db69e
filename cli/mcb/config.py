"""Client settings: where the server is, which tokens and scope to use, and where each value came from.

Precedence (highest first): command-line flag > environment (``MCB_*``) > project file ``.mcb.toml`` (searched
upward from the working directory; never holds secrets) > the user config file (``<user config dir>/mcb/config.toml``,
named ``[profiles.NAME]`` tables) > defaults (``http://127.0.0.1:8765`` and, for a loopback server, the token file
of a local ``mcb serve``).

Tokens come only from the environment (``MCB_TOKEN`` admin, ``MCB_AGENT_TOKEN`` agent) or from a token file named
by the profile (``token_file`` / ``agent_token_file``). A token file readable by group or others is refused. Token
values are kept in ``SecretStr`` and are never part of a repr, an error or ``mcb config show``. Writing the user
config file (`mcb config init|use|set`) is :mod:`mcb.config_edit`'s, with the checks made here.
"""

from __future__ import annotations

import math
import os
import stat
import tomllib
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, SecretStr

from mcb.errors import ConfigError
from mcb.fileio import loads_json

DEFAULT_SERVER = "http://127.0.0.1:8765"
DEFAULT_PLAYER_ID = "console"  # the local-automation principal; `mcb serve` accepts it
PROJECT_FILE = ".mcb.toml"
PROFILE_KEYS = ("server", "timeout", "player_id", "project_id", "token_file", "agent_token_file")
PROJECT_KEYS = ("server", "profile", "timeout", "player_id", "project_id")
USER_KEYS = ("profile", "profiles")  # the user config's top level: the active profile and the profile tables
ENV = {
    "server": "MCB_SERVER",
    "profile": "MCB_PROFILE",
    "admin_token": "MCB_TOKEN",
    "agent_token": "MCB_AGENT_TOKEN",
    "player_id": "MCB_PLAYER_ID",
    "project_id": "MCB_PROJECT_ID",
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
    # Only with ``load_settings(tolerant=True)`` (`mcb config show`): what could not be used, per setting.
    problems: list[dict[str, str]] = []

    def admin_token_value(self) -> str | None:
        return self.admin_token.get_secret_value() if self.admin_token else None

    def agent_token_value(self) -> str | None:
        return self.agent_token.get_secret_value() if self.agent_token else None

    def public_view(self) -> list[dict[str, Any]]:
        """Every effective value with its source; tokens shown only as set/unset."""
        from mcb.redact import redact_url

        broken = {p["setting"]: p for p in self.problems}
        rows = []
        for name in ("server", "profile", "timeout", "player_id", "project_id", "admin_token", "agent_token"):
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                value = f"<set, {len(value.get_secret_value())} characters>"
            elif name == "server" and isinstance(value, str):
                value = redact_url(value)
            row = {"name": name, "value": value, "source": self.sources.get(name, "default")}
            if name in broken:
                row.update(value=None, source=broken[name]["source"], problem=broken[name]["problem"])
            rows.append(row)
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


def profile_tables(data: dict, path: Path) -> dict:
    """The ``[profiles.NAME]`` tables of a user config, each checked to be a table with text where text belongs."""
    profiles = data.get("profiles", {})
    if not isinstance(profiles, dict):
        raise ConfigError(f"{path}: `profiles` must be a table of [profiles.NAME] tables")
    for name, section in profiles.items():
        if not isinstance(section, dict):
            raise ConfigError(f"{path}: profile {name!r} must be a [profiles.{name}] table")
        _check_keys(section, PROFILE_KEYS, f"{path} [profiles.{name}]")
        _check_strings(section, f"{path} [profiles.{name}]")
    _check_keys(data, USER_KEYS, str(path))
    _check_strings({k: v for k, v in data.items() if k != "profiles"}, str(path))
    return profiles


def _check_keys(table: dict, allowed: tuple[str, ...], where: str) -> None:
    """A misspelt key would be silently ignored (and its setting taken from elsewhere): refuse it by name."""
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        import difflib

        near = {key: difflib.get_close_matches(key.replace("_url", ""), allowed, n=1, cutoff=0.6) for key in unknown}
        guesses = [f"{key} -> {match[0]}" for key, match in near.items() if match]
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(unknown)}",
            hint=(f"did you mean {', '.join(guesses)}? " if guesses else "") + "allowed: " + ", ".join(allowed),
        )


def load_settings(
    *,
    server: str | None = None,
    profile: str | None = None,
    timeout: float | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    tolerant: bool = False,
) -> Settings:
    """Resolve the effective settings. ``server``/``profile``/``timeout`` are the root flag values.

    ``tolerant`` (for `mcb config show`): a setting that cannot be used is left unset and described in
    ``Settings.problems`` instead of raising, so every other setting can still be shown.
    """
    found = _Resolution(dict(os.environ if env is None else env), tolerant)
    found.flags_and_environment(server, profile, timeout)
    found.project_file(cwd)
    section, profile_name = found.user_profile()
    found.tokens(section, profile_name)
    found.checked()
    return Settings(**found.values, sources=found.sources, files=found.files, problems=found.problems)


class _Resolution:
    """The settings as they are found, in precedence order: the first value put for a name wins."""

    def __init__(self, env: dict[str, str], tolerant: bool):
        self.env, self.tolerant = env, tolerant
        self.values: dict[str, Any] = {}
        self.sources: dict[str, str] = {}
        self.files: dict[str, str] = {}
        self.problems: list[dict[str, str]] = []

    def guarded(self, setting: str, source: str, step, default=None):
        """``step()``, or in tolerant mode the problem recorded and ``default`` returned."""
        try:
            return step()
        except ConfigError as error:
            if not self.tolerant:
                raise
            problem = {"setting": setting, "source": source, "problem": error.message}
            if error.hint:
                problem["hint"] = error.hint
            self.problems.append(problem)
            return default

    def put(self, name: str, value: Any, source: str) -> None:
        if value is not None and value != "" and name not in self.values:
            self.values[name] = value
            self.sources[name] = source

    def flags_and_environment(self, server: str | None, profile: str | None, timeout: float | None) -> None:
        env = self.env
        # Typer fills --server/--profile from MCB_SERVER/MCB_PROFILE too; name the real source.
        for name, flag_value in (("server", server), ("profile", profile)):
            if flag_value is not None:
                source = f"env {ENV[name]}" if env.get(ENV[name]) == flag_value else f"flag --{name}"
                self.put(name, flag_value, source)
        self.put("timeout", timeout, "flag --timeout")
        for name in ("server", "profile", "player_id", "project_id"):
            self.put(name, env.get(ENV[name]), f"env {ENV[name]}")

    def project_file(self, cwd: Path | None) -> None:
        project_path = find_project_file(cwd)
        if project_path is None:
            return
        self.files["project"] = str(project_path)
        project = self.guarded("project file", str(project_path), lambda: _read_project(project_path), {})
        for name in PROJECT_KEYS:
            self.put(name, project.get(name), f"project file {project_path}")

    def user_profile(self) -> tuple[dict, str | None]:
        """The user config's profile in effect: (its section, its name)."""
        user_path = user_config_path()
        user: dict = {}
        if user_path.is_file():
            user = self.guarded("user config", str(user_path), lambda: read_toml(user_path), {})
        if user:
            self.files["user"] = str(user_path)
        profiles = self.guarded("user config", str(user_path), lambda: profile_tables(user, user_path))
        if profiles is None:  # a user config with a wrong shape: none of its values can be trusted
            user, profiles = {}, {}
        self.put("profile", user.get("profile"), f"user config {user_path}")
        profile_name = self.values.get("profile")
        if profile_name is None and "default" in profiles:
            profile_name = "default"
            self.put("profile", "default", f"user config {user_path}")
        if profile_name is None:
            return {}, None
        if profile_name not in profiles:

            def unknown_profile():
                raise ConfigError(f"unknown profile {profile_name!r}", hint=profiles_hint(profiles, user_path))

            self.guarded("profile", self.sources.get("profile", "default"), unknown_profile)
        section = profiles.get(profile_name, {})
        for name in ("server", "timeout", "player_id", "project_id"):
            self.put(name, section.get(name), f"profile {profile_name!r} in {user_path}")
        return section, profile_name

    def tokens(self, section: dict, profile_name: str | None) -> None:
        """Tokens: the environment, then the token files the profile names, then a local `mcb serve`'s."""
        env = self.env
        self.put("admin_token", env.get(ENV["admin_token"]), f"env {ENV['admin_token']}")
        self.put("agent_token", env.get(ENV["agent_token"]), f"env {ENV['agent_token']}")
        for name, key in (("admin_token", "token_file"), ("agent_token", "agent_token_file")):
            if name not in self.values and section.get(key):
                path = Path(os.path.expanduser(str(section[key])))
                source = f"token file {path} (profile {profile_name!r})"
                self.put(name, self.guarded(name, source, partial(read_token_file, path, name)), source)
        server_url = self.values.get("server", DEFAULT_SERVER)
        if self.guarded("server", self.sources.get("server", "default"),
                        lambda: check_server_url(server_url) or True) is None:  # fmt: skip
            self.values.pop("server", None)
            server_url = DEFAULT_SERVER
        if (
            "admin_token" not in self.values
            and "agent_token" not in self.values
            and _is_loopback(server_url)
            and not any(p["setting"].endswith("_token") for p in self.problems)
        ):
            tokens_path = _local_tokens_path()
            if tokens_path is not None:
                source = f"local mcb serve {tokens_path}"
                for name in ("admin_token", "agent_token"):
                    self.put(name, self.guarded(name, source, partial(read_token_file, tokens_path, name)), source)

    def checked(self) -> None:
        """Each value found checked (a timeout's number, a token's characters) and given its type."""
        values, sources = self.values, self.sources
        raw_timeout = values.get("timeout")
        if raw_timeout is not None:
            checked = self.guarded("timeout", sources["timeout"],
                                   lambda: checked_timeout(raw_timeout, sources["timeout"]))  # fmt: skip
            if checked is None:
                values.pop("timeout")
            else:
                values["timeout"] = checked
        for name in ("admin_token", "agent_token"):
            if name in values:
                token = self.guarded(name, sources[name], partial(_checked_token, str(values[name]), sources[name]))
                if token is None:
                    values.pop(name)
                else:
                    values[name] = SecretStr(token)
        for name in ("player_id", "project_id", "server", "profile"):
            if name in values:
                values[name] = str(values[name])


def _read_project(project_path: Path) -> dict:
    project = read_toml(project_path)
    secrets = [k for k in project if "token" in k.lower()]
    if secrets:
        raise ConfigError(
            f"{project_path} must not hold secrets (found {', '.join(sorted(secrets))})",
            hint="project files are meant to be committed; keep tokens in MCB_TOKEN / "
            "MCB_AGENT_TOKEN or a token file named by a user profile",
        )
    _check_keys(project, PROJECT_KEYS, str(project_path))
    _check_strings(project, str(project_path))
    return project


def checked_timeout(raw_timeout: Any, source: str | None = None) -> float:
    """A timeout from a file, the environment or `mcb config set`: a positive, finite number of seconds (saved
    otherwise, it would break every command)."""
    where = f" (from {source})" if source else ""
    try:
        if isinstance(raw_timeout, bool):
            raise TypeError("a boolean is not a number of seconds")
        value = float(raw_timeout)
    except (TypeError, ValueError):
        raise ConfigError(f"timeout must be a number of seconds{where}") from None
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(f"timeout must be a positive, finite number of seconds{where}")
    return value


def _checked_token(token: str, source: str) -> str:
    """The token without surrounding whitespace; refuse one no HTTP header can carry (the value is never shown)."""
    token = token.strip()
    if not token or any(not ("!" <= char <= "~") for char in token):
        raise ConfigError(
            f"the token from {source} is malformed: it must be one run of printable ASCII characters",
            hint="check for pasted spaces, line breaks, quote marks or non-ASCII letters",
            code="malformed_token",
        )
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
            hint=f"run `chmod 600 {path}`",
            code="unsafe_token_file",
        )
    try:
        text = path.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        raise ConfigError(f"token file {path} cannot be read as UTF-8 text") from None
    if text.startswith("{"):
        try:
            data = loads_json(text)
        except (ValueError, RecursionError):  # RecursionError: nesting deeper than the stack
            raise ConfigError(f"token file {path} looks like JSON but does not parse") from None
        token = data.get(json_key) if isinstance(data, dict) else None
        if not isinstance(token, str) or not token:
            raise ConfigError(f"token file {path} has no `{json_key}` entry")
        return token
    if not text or any(c.isspace() for c in text):
        raise ConfigError(f"token file {path} must contain exactly one token")
    return text


def refused_token_hint(settings: Settings, admin: bool) -> str:
    """What to do when the server refuses a token as invalid: name where the token came from (a profile's token
    file, the environment, a local `mcb serve`'s file) and where a fresh one is, a local `mcb serve`'s token file
    (the one it prints when it starts) or the plugin's config.yml."""
    name = "admin_token" if admin or settings.agent_token is None else "agent_token"
    source = settings.sources.get(name, "default")
    key, env = ("token_file", ENV["admin_token"]) if name == "admin_token" else ("agent_token_file", ENV[name])
    local = _local_tokens_path()
    serve = "the `tokens:` file `mcb serve` printed when it started" + (
        f" (its default data folder has {local})" if local is not None and str(local) not in source else ""
    )
    if source.startswith("env "):
        fix = f"set {env} to the token in {serve}, or unset it"
    else:
        other, other_key = (
            ("agent_token", "agent_token_file") if name == "admin_token" else ("admin_token", "token_file")
        )
        keys = [key] + ([other_key] if settings.sources.get(other) == source else [])  # one file for both
        fix = f"point the profile at {serve}: " + " and ".join(f"`mcb config set {k} FILE`" for k in keys)
    return (
        f"the server refused the {name.replace('_', ' ')} from {source}: it belongs to another server or an "
        f"earlier start; {fix}; for the plugin, its {'admin' if name == 'admin_token' else 'agent'}-token in "
        "config.yml"
    )


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


def check_server_url(url: str) -> None:
    from mcb.redact import redact_url

    shown = redact_url(url)  # the refused URL may hold the very secret it must not carry
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - urlsplit checks the port (0..65535) only when it is read
    except ValueError as error:  # e.g. an unclosed [IPv6 bracket or port 99999
        raise ConfigError(
            f"server URL {shown!r} is malformed ({redact_url(str(error))})",
            hint="it must look like http://127.0.0.1:8765",
        ) from None
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise ConfigError(f"server URL {shown!r} must look like http://127.0.0.1:8765")
    if parts.username or parts.password or parts.query or parts.fragment or parts.path not in {"", "/"}:
        raise ConfigError(
            f"server URL {shown!r} must be scheme://host:port only (no path, query or credentials)",
            hint="put tokens in MCB_TOKEN / MCB_AGENT_TOKEN or a token file, never in the URL",
        )


def profiles_hint(profiles: dict, path: Path) -> str:
    if profiles:
        return "known profiles: " + ", ".join(sorted(profiles)) + f" (in {path})"
    return f"create one with `mcb config init --name NAME` (file {path})"
