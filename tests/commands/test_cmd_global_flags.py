"""Global flags: `--json`, `--no-color`, `-q`/`-v`, `--server`, `--profile` and `--timeout` go before or after the
command; `-v`/`-q` are counting flags; an unknown option suggests only a near one; usage errors are one line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

# An SGR sequence that sets a colour (30-38, 40-48, 90-97, 100-107); bold and dim are not colour (NO_COLOR spec).
ANSI = re.compile(r"\x1b\[[0-9;]*m")
COLOUR = re.compile(r"\x1b\[(?:[0-9]+;)*(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9]+)*m")


def run(*args: str) -> subprocess.CompletedProcess:
    """mcb in a fresh process that would colour its output (FORCE_COLOR, a colour TERM, no NO_COLOR)."""
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update(FORCE_COLOR="1", TERM="xterm-256color", COLUMNS="100")
    return subprocess.run([sys.executable, "-m", "mcb", *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize(
    "args",
    [
        ("--no-color", "block", "check", "stone"),
        ("block", "check", "stone", "--no-color"),
        ("block", "check", "--no-color", "stone", "--json"),
    ],
)
def test_no_color_is_accepted_before_and_after_the_command(cli, args):
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    assert "minecraft:stone" in result.stdout


@pytest.mark.parametrize("args", [("--help",), ("block", "check", "--help"), ("schem", "--help")])
def test_no_color_uncolours_help_wherever_it_stands(args):
    coloured = run(*args)
    assert coloured.returncode == 0 and COLOUR.search(coloured.stdout), "the probe should colour without the flag"
    for placed in (("--no-color", *args), (*args, "--no-color")):
        plain = run(*placed)
        assert plain.returncode == 0, plain.stderr
        assert not COLOUR.search(plain.stdout), placed


def test_usage_errors_are_uncoloured_with_no_color():
    result = run("block", "check", "stone", "--bogus", "--no-color")
    assert result.returncode == 2 and "No such option: --bogus" in ANSI.sub("", result.stderr)
    assert not COLOUR.search(result.stderr)


def test_counting_flags_show_no_type_or_default_in_help(cli):
    text = cli("--help").stdout
    for flag in ("--quiet", "--verbose", "--json", "--no-color"):
        line = next(line for line in text.splitlines() if flag in line)
        assert "<int>" not in line and "<bool>" not in line and "[default" not in line, line


def test_a_number_after_q_is_refused_with_the_counting_hint(cli):
    result = cli("-q", "2", "health")
    assert result.exit_code == 2
    assert "No such command '2'" in result.stderr and "-qq" in result.stderr


def test_vv_counts_twice(mcb):
    once, twice = mcb("-v", "health"), mcb("-vv", "health")
    assert once.exit_code == 0 and twice.exit_code == 0
    assert "server http://" in once.stderr and "GET /health" not in once.stderr
    assert "GET /health" in twice.stderr
    assert mcb("-qv", "health").stderr.strip() == ""  # one of each cancels out: the plain default


def test_v_and_q_may_follow_the_command_and_count_with_the_roots(mcb):
    """As `--json` and `--no-color` do, so that `mcb build X --dry-run -v` works."""
    before = mcb("-vv", "health").stderr
    for args in (("health", "-vv"), ("health", "-v", "-v"), ("-v", "health", "-v")):
        after = mcb(*args)
        assert after.exit_code == 0 and "GET /health" in after.stderr, args
        assert after.stderr.splitlines()[0] == before.splitlines()[0]
    assert mcb("health", "-qv").stderr.strip() == "" and mcb("-v", "health", "-q").stderr.strip() == ""


@pytest.mark.parametrize(
    "args,suggested",
    [
        (("--bogus",), None),
        (("block", "check", "stone", "--bogus"), None),
        (("block", "check", "stone", "--jsn"), "--json"),
        (("--verbos", "health"), "--verbose"),
        (("schem", "validate", "x.schem", "--prof", "spec"), "--profile"),
        (("status", "op-1", "--wait", "--wait-timout", "5"), "--wait-timeout"),
    ],
)
def test_unknown_option_suggests_only_a_near_one(cli, args, suggested):
    result = cli(*args)
    assert result.exit_code == 2
    message = " ".join(result.stderr.split())
    if suggested is None:
        assert "Possible options" not in message, message
    else:
        assert f"(Possible options: {suggested})" in message, message


def test_serve_refuses_both_automation_flags(cli, tmp_path):
    """--local-automation and --no-local-automation are two one-name flags (help fits 80 columns); both at once is
    a usage error, not a silent pick."""
    result = cli("serve", "--data", str(tmp_path / "d"), "--local-automation", "--no-local-automation")
    assert result.exit_code == 2
    assert "contradict" in result.stderr


def test_global_options_may_follow_the_command(cli, live_server, monkeypatch):
    """`mcb context --server URL --json` as `mcb --server URL --json context` (gh and kubectl take them anywhere)."""
    monkeypatch.setenv("MCB_AGENT_TOKEN", live_server.agent_token)
    monkeypatch.setenv("MCB_PLAYER_ID", "console")
    before = cli("--server", live_server.url, "--json", "context")
    after = cli("context", "--server", live_server.url, "--json")
    assert before.exit_code == 0 and after.exit_code == 0, after.stderr
    assert json.loads(after.stdout) == json.loads(before.stdout)


@pytest.mark.parametrize(
    "args",
    [
        ("config", "show", "--server", "http://after:1", "--profile", "p", "--timeout", "7", "--json"),
        ("--server", "http://after:1", "config", "show", "--profile", "p", "--json", "--timeout", "7"),
        (
            "--server",
            "http://before:1",
            "--timeout",
            "3",
            "config",
            "show",
            "--server",
            "http://after:1",
            "--json",
            "--profile",
            "p",
            "--timeout",
            "7",
        ),
    ],
)
def test_a_global_option_after_the_command_is_a_flag_like_before_it(cli, monkeypatch, args):
    """The value comes from the flag (the later one when given twice), and the environment does not override a
    flag given before the command."""
    monkeypatch.setenv("MCB_SERVER", "http://env:1")
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    rows = {row["name"]: row for row in json.loads(result.stdout)["settings"]}
    assert (rows["server"]["value"], rows["server"]["source"]) == ("http://after:1", "flag --server")
    assert rows["timeout"]["value"] == 7.0 and rows["timeout"]["source"] == "flag --timeout"
    assert rows["profile"]["source"] == "flag --profile"


def test_a_command_keeps_its_own_option_of_the_same_name(cli, tmp_path):
    """`schem validate --profile spec` is the rules profile, not the config profile (the command's own wins)."""
    result = cli(
        "schem",
        "validate",
        str(Path(__file__).resolve().parents[2] / "schematics" / "house.schem"),
        "--profile",
        "spec",
        "--json",
    )
    assert result.exit_code in (0, 1), result.stderr
    assert "unknown profile" not in result.stderr


def test_an_own_option_whose_parameter_is_named_like_a_global_one_leaves_the_global_alone(
    slow_mcb, tmp_path, monkeypatch
):
    """`status --wait-timeout 0.2` is how long to wait, not the budget of each request (both parameters are named
    `timeout`; --timeout's copy after the command used to take --wait-timeout's value): a status answer that takes
    0.5 s still arrives, and then the wait is over (wait_timeout, not a transport timeout)."""
    from rpc_testkit import FaultProxy, box_recipe

    recipe = tmp_path / "big.json"
    recipe.write_text(json.dumps(box_recipe(0, 100, 0, size=16)))  # 4096 blocks: 128 ticks, ~6 s in flight
    plan = slow_mcb("prepare", recipe, "--json").json()
    operation = slow_mcb("apply", plan["plan_id"], plan["plan_hash"], "--json").json()["operation_id"]

    def stall(r):
        return ("sleep_then_forward", 0.5) if r["json"] and r["json"]["method"] == "operation_status" else "forward"

    with FaultProxy(slow_mcb.server.url, stall) as proxy:
        monkeypatch.setenv("MCB_SERVER", proxy.url)
        result = slow_mcb("status", operation, "--wait", "--wait-timeout", "0.2", "--json")
    assert result.exit_code == 6, result.stderr
    assert json.loads(result.stderr.strip().splitlines()[-1])["error"]["code"] == "wait_timeout", result.stderr


def test_a_usage_error_is_one_line_and_a_hint():
    """Not Typer's usage box: the same two lines as every other error, and the JSON error shape with --json."""
    result = run("block", "check", "stone", "--bogus", "--no-color")
    assert result.returncode == 2
    assert result.stderr.splitlines() == ["error: No such option: --bogus", "hint: see `mcb block check --help`"]
    result = run("block", "check", "--json")
    assert result.returncode == 2 and result.stdout == ""
    assert json.loads(result.stderr) == {
        "error": {
            "code": "usage",
            "message": "Missing argument 'STATE'.",
            "exit_code": 2,
            "hint": "see `mcb block check --help`",
        }
    }
    result = run("helth", "--no-color")
    assert result.returncode == 2
    assert result.stderr.splitlines()[0] == "error: No such command 'helth'. Did you mean 'health', 'help'?"


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("schem", "--help"),
        ("--version",),
        ("help", "exit-codes"),
        ("block", "describe", "stone"),
        ("recipe", "schema"),
    ],
)
def test_a_closed_stdout_pipe_ends_quietly_with_0(args):
    """`mcb ... | head`: the reader has gone; mcb stops without a word and without failing the pipeline."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # no reader from the start: every write meets EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mcb", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            env={**os.environ, "COLUMNS": "80"},
        )
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (0, "")


def test_timeouts_that_are_not_finite_are_usage_errors_like_zero(cli):
    zero = cli("--timeout", "0", "health")
    assert zero.exit_code == 2 and "Invalid value for '--timeout'" in zero.stderr
    for value in ("nan", "inf", "1e999"):
        result = cli("--timeout", value, "health")
        assert result.exit_code == 2, (value, result.stderr)
        assert "Invalid value for '--timeout'" in result.stderr
