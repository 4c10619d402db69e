"""A missing admin token: exit 4 and a hint whose config key really exists (following it fixes the problem)."""

from __future__ import annotations

import json
import os
import re


def test_admin_hint_names_a_profile_key_that_config_set_accepts(cli, tmp_path, monkeypatch):
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
