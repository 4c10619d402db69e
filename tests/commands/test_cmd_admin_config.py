"""Recovery after a real crash, `mcb config`, and the rule that tokens never appear in anything mcb prints."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from rpc_testkit import box_recipe, free_port, interrupted_operation


def point_at(monkeypatch, server):
    monkeypatch.setenv("MCB_SERVER", server.url)
    monkeypatch.setenv("MCB_AGENT_TOKEN", server.agent_token)
    monkeypatch.setenv("MCB_TOKEN", server.admin_token)
    monkeypatch.setenv("MCB_PLAYER_ID", "console")


def test_recovery_review_and_abandon_after_a_crash(cli, tmp_path, monkeypatch):
    with interrupted_operation(tmp_path / "server") as (server, operation):
        point_at(monkeypatch, server)
        status = cli("status", operation, "--json")
        assert json.loads(status.stdout)["status"] == "recovery_required"
        review = cli("recovery", "review", operation, "--json")
        assert review.exit_code == 0, review.stderr
        digest = json.loads(review.stdout)["currentDigest"]
        wrong = cli("recovery", "abandon", operation, "--digest", "0" * 64)
        assert wrong.exit_code == 7 and "changed since review" in wrong.stderr
        abandoned = cli("recovery", "abandon", operation, "--digest", digest, "--json")
        assert abandoned.exit_code == 0, abandoned.stderr
        assert json.loads(abandoned.stdout)["status"] == "failed"


def test_what_the_review_found_counts_with_separators():
    # Before: "of 4,096 positions it may have written: 4096 as the operation wrote them, 0 as before it, ..."
    from mcb.client.models import RecoveryReview
    from mcb.commands.admin_commands import recovery_next_step

    review = RecoveryReview(
        operationId="op-1", planId="plan-1", positions=5200, matchesBefore=1100, matchesAfter=4096, foreignStates=4,
        currentDigest="0" * 64,
    )  # fmt: skip
    assert recovery_next_step(review).splitlines()[0] == (
        "of 5,200 positions it may have written: 4,096 as the operation wrote them, 1,100 as before it, "
        "4 changed by someone else"
    )


def test_config_init_show_use_set(cli, tmp_path, monkeypatch):
    token_file = tmp_path / "agent.token"
    token_file.write_text("s" * 48)
    os.chmod(token_file, 0o600)
    created = cli(
        "config",
        "init",
        "--name",
        "lab",
        "--server-url",
        "http://127.0.0.1:18001",
        "--agent-token-file",
        str(token_file),
        "--json",
    )
    assert created.exit_code == 0, created.stderr
    shown = json.loads(cli("config", "show", "--json").stdout)
    rows = {r["name"]: r for r in shown["settings"]}
    assert rows["server"]["value"] == "http://127.0.0.1:18001" and "profile 'lab'" in rows["server"]["source"]
    assert rows["agent_token"]["value"] == "<set, 48 characters>" and "token file" in rows["agent_token"]["source"]
    assert cli("config", "init", "--name", "other", "--server-url", "http://127.0.0.1:18002").exit_code == 0
    assert "18002" in cli("config", "show").stdout
    assert cli("config", "use", "lab").exit_code == 0
    assert cli("config", "set", "timeout", "7").exit_code == 0
    rows = {r["name"]: r for r in json.loads(cli("config", "show", "--json").stdout)["settings"]}
    assert rows["timeout"]["value"] == 7.0 and rows["server"]["value"].endswith(":18001")
    monkeypatch.setenv("MCB_SERVER", "http://127.0.0.1:18003")
    rows = {r["name"]: r for r in json.loads(cli("config", "show", "--json").stdout)["settings"]}
    assert rows["server"] == {"name": "server", "value": "http://127.0.0.1:18003", "source": "env MCB_SERVER"}
    refused = cli("config", "set", "agent_token", "s" * 48)
    assert refused.exit_code == 2 and "s" * 48 not in refused.stderr + refused.stdout
    assert cli("config", "use", "missing").exit_code == 3
    assert cli("config", "set", "colour", "blue").exit_code == 3


def test_unsafe_token_file_is_a_config_error(cli, tmp_path):
    token_file = tmp_path / "agent.token"
    token_file.write_text("u" * 48)
    os.chmod(token_file, 0o600)
    assert cli("config", "init", "--agent-token-file", str(token_file)).exit_code == 0
    os.chmod(token_file, 0o644)
    result = cli("context")
    assert result.exit_code == 3 and "chmod 600" in result.stderr and "u" * 48 not in result.stderr


def test_tokens_never_appear_in_any_output(cli, live_server, tmp_path, monkeypatch):
    """Failing and -vv commands, in-process and as real processes: no token in stdout or stderr."""
    point_at(monkeypatch, live_server)
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0)))
    secrets = [live_server.agent_token, live_server.admin_token]
    outputs = []
    runs = [
        ("-vv", "context"),
        ("-vv", "--json", "health"),
        ("-vv", "build", str(recipe)),
        ("-vv", "config", "show"),
        ("config", "show", "--json"),
        ("-vv", "rpc", "nope_method"),
        ("-vv", "chat", "poll", "--client-id", "t"),
        ("-vv", "recovery", "review", "00000000-0000-0000-0000-000000000000", "--json"),
        ("-vv", "status", "not-an-operation"),
        ("-vv", "--server", f"http://127.0.0.1:{free_port()}", "context"),
        ("-vv", "prepare", str(tmp_path / "missing.json")),
    ]
    for args in runs:
        result = cli(*args)
        outputs.append(result.stdout + result.stderr)
    assert "-> POST /v1/rpc project_context" in outputs[0]  # -vv really logs the HTTP exchange
    monkeypatch.setenv("MCB_AGENT_TOKEN", "w" * 64)  # a wrong token: the server refuses it
    secrets.append("w" * 64)
    wrong = cli("-vv", "context")
    assert wrong.exit_code == 4
    outputs.append(wrong.stdout + wrong.stderr)
    env = {**os.environ, "MCB_AGENT_TOKEN": live_server.agent_token}
    for args in (["-vv", "context"], ["-vv", "apply", "x", "y"], ["-vv", "rpc", "recovery_review", "{}"]):
        proc = subprocess.run([sys.executable, "-m", "mcb", *args], capture_output=True, text=True, env=env, timeout=60)
        outputs.append(proc.stdout + proc.stderr)
    assert any("Invalid capability token" in text for text in outputs)
    for text in outputs:
        for secret in secrets:
            assert secret not in text
