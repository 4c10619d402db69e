"""Server configuration (protocol §11) and the capability tokens, persisted in the data directory.

``server.json`` holds the non-secret settings (project, owner, world id and epoch, region, limits); ``tokens.json``
holds the admin, agent and camera tokens (64 lowercase hex characters, distinct) with mode 0600. Tokens are never
printed or logged; the banner only says where the file is.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from mcb.fileio import loads_json

CONFIG_FILE = "server.json"
TOKENS_FILE = "tokens.json"
DEFAULT_REGION_MIN = (-64, 0, -64)
DEFAULT_REGION_MAX = (64, 128, 64)
DEFAULT_BORDER = 29_999_984  # vanilla world-border radius


@dataclass
class ServerConfig:
    project_id: str = "default"
    owner_uuid: str = ""
    allow_local_automation: bool = True
    world_id: str = ""
    world_epoch: str = ""
    region_min: tuple[int, int, int] = DEFAULT_REGION_MIN
    region_max: tuple[int, int, int] = DEFAULT_REGION_MAX
    world_min_y: int = -64
    world_max_y: int = 319
    world_border: int = DEFAULT_BORDER
    loaded_chunk_radius: int | None = None  # None: every chunk is loaded
    max_plan_blocks: int = 4096
    slice_blocks: int = 128
    data_version: int = 4903
    ground: str = "flat"  # natural ground generator (mcb.server.world.register_ground)
    camera_player_uuid: str = ""  # the spectator camera account; blank: no camera (protocol §3.11)
    # Runtime-only settings (never saved):
    tick_ms: int = field(default=50, metadata={"runtime": True})
    test_hooks: bool = field(default=False, metadata={"runtime": True})

    def saved_fields(self) -> dict:
        out = {}
        for item in dataclasses.fields(self):
            if item.metadata.get("runtime"):
                continue
            value = getattr(self, item.name)
            out[item.name] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True)
class Tokens:
    admin: str
    agent: str
    camera: str

    def __repr__(self) -> str:  # never leak a token through a repr in a log or traceback
        return "Tokens(<redacted>)"


def load_config(data_dir: Path, overrides: dict | None = None) -> ServerConfig:
    """Read ``server.json`` (creating ids on first start), apply ``overrides`` and save the persistent part."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / CONFIG_FILE
    saved = loads_json(path.read_text("utf-8")) if path.exists() else {}
    config = ServerConfig()
    known = {item.name for item in dataclasses.fields(config)}
    for key, value in {**saved, **(overrides or {})}.items():
        if key in known and value is not None:
            setattr(config, key, tuple(value) if key in ("region_min", "region_max") else value)
    if not config.world_id:
        config.world_id = str(uuid.uuid4())
    if not config.world_epoch:
        config.world_epoch = str(uuid.uuid4())
    if not config.owner_uuid:
        config.owner_uuid = str(uuid.uuid4())  # stands in for `/ai setup`
    config.max_plan_blocks = max(1, min(4096, int(config.max_plan_blocks)))
    config.slice_blocks = max(1, min(128, int(config.slice_blocks)))
    if any(a > b for a, b in zip(config.region_min, config.region_max)):
        raise ValueError("region min must be <= max on every axis")
    save_config(data_dir, config)
    return config


def save_config(data_dir: Path, config: ServerConfig) -> None:
    write_atomic(data_dir / CONFIG_FILE, json.dumps(config.saved_fields(), indent=2) + "\n", mode=0o644)


class TokenFileError(ValueError):
    """``tokens.json`` exists but is unusable; starting would silently replace the tokens in it."""

    hint = f"fix {TOKENS_FILE} or move it away (a new one with fresh tokens is then written)"


def load_tokens(data_dir: Path) -> Tokens:
    """Read the tokens, generating any that are missing or blank; the file is (re)written with mode 0600.

    A file that cannot be read as token settings (not JSON, not an object, a token that is not a string) raises
    :class:`TokenFileError` and is left untouched.
    """
    path = data_dir / TOKENS_FILE
    stored = {}
    if path.exists():
        try:
            stored = loads_json(path.read_text("utf-8"))
        except ValueError as error:  # never overwrite what may be the only copy of the user's tokens
            raise TokenFileError(f"{path} is not valid JSON ({error})") from None
        if not isinstance(stored, dict):
            raise TokenFileError(f"{path} must hold a JSON object, not {type(stored).__name__}")
        for key in (f"{name}_token" for name in ("admin", "agent", "camera")):
            if key in stored and not isinstance(stored[key], str):
                raise TokenFileError(f"{path}: {key} must be a string, not {type(stored[key]).__name__}")
    values: dict[str, str] = {}
    for name in ("admin", "agent", "camera"):
        value = stored.get(f"{name}_token")
        if not _valid_token(value) or value in values.values():
            value = secrets.token_hex(32)
        values[name] = value
    wanted = {f"{k}_token": v for k, v in values.items()}
    if wanted != stored:
        write_atomic(path, json.dumps(wanted, indent=2) + "\n", mode=0o600)
    else:
        os.chmod(path, 0o600)
    return Tokens(**values)


def _valid_token(value) -> bool:
    allowed = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~-")
    return isinstance(value, str) and 32 <= len(value) <= 512 and set(value) <= allowed


def write_atomic(path: Path, text: str, *, mode: int) -> None:
    """Write through a temp file in the same directory, fsync, then rename (never a half-written file)."""
    from mcb.fileio import write_atomic as write_file_atomic

    write_file_atomic(path, text, mode=mode, sync_dir=True)
