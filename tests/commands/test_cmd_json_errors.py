"""Under --json (before or after the command), every failure is one JSON object on stderr and stdout stays empty;
what a script needs to go on is in it (the operation to resume when waiting runs out), not only in prose."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def json_error(result) -> dict:
    assert result.stdout == "", result.stdout
    assert "Traceback" not in result.stderr
    return json.loads(result.stderr.strip().splitlines()[-1])["error"]


# Refusals that happen before the command reaches the server (no server is needed to see them).
EARLY_REFUSALS = [
    (("material", "search", "--kind", "xyz"), "--kind"),
    (("import-prepare", "some-asset", "--target", "0,64,0", "--rotation", "45"), "--rotation"),
    (("camera", "capture", "-o", "shot.png"), "--camera"),
]


@pytest.mark.parametrize("where", ["after", "before"])
@pytest.mark.parametrize("args,needle", EARLY_REFUSALS, ids=[a[0][0] for a in EARLY_REFUSALS])
def test_early_usage_refusals_are_json(cli, args, needle, where):
    argv = [*args, "--json"] if where == "after" else ["--json", *args]
    result = cli("--server", "http://127.0.0.1:9", *argv)
    assert result.exit_code == 2
    error = json_error(result)
    assert error["exit_code"] == 2 and needle in error["message"]


@pytest.mark.parametrize(
    "argv,needle",
    [
        (("inspect", "--json", "--min", "0,64,0"), "--max"),  # missing option
        (("--json", "inspect", "--max", "1,1,1"), "--min"),
        (("inspect", "--bogus", "--json"), "--bogus"),  # unknown option: fails before any value is parsed
        (("--json", "no-such-command"), "no-such-command"),
        (("status", "--json", "x", "--interval", "abc"), "--interval"),  # malformed value
        (("--json", "--timeout", "abc", "context"), "--timeout"),  # mistakes among the root options
        (("--json", "--bogus", "context"), "--bogus"),
    ],
)
def test_command_line_mistakes_are_json_under_json(cli, argv, needle):
    result = cli(*argv)
    assert result.exit_code == 2
    error = json_error(result)
    assert error["code"] == "usage" and error["exit_code"] == 2 and needle in error["message"]


def test_command_line_mistakes_without_json_are_one_line_and_a_hint(cli):
    result = cli("inspect", "--min", "0,64,0")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["error: Missing option '--max'.", "hint: see `mcb inspect --help`"]


def test_json_after_a_double_dash_is_an_argument_not_the_flag(cli, tmp_path):
    # `--` ends the options: a file named --json is just a file, and errors stay human text.
    result = cli("recipe", "compile", "--", "--json")
    assert result.exit_code == 1
    assert result.stderr.startswith("error:")


BIG_BOX = {
    "version": 1,
    "operations": [
        {
            "type": "box",
            "min": {"x": 0, "y": 64, "z": 0},
            "max": {"x": 15, "y": 79, "z": 15},
            "block": "minecraft:stone",
        }
    ],
}


def test_build_wait_timeout_error_carries_the_operation_id(slow_mcb, tmp_path: Path):
    recipe = tmp_path / "box.json"
    recipe.write_text(json.dumps(BIG_BOX))
    result = slow_mcb("build", recipe, "--wait-timeout", "0.1", "--json")
    assert result.exit_code == 6, result.stderr
    assert result.stdout == ""
    error = json.loads(result.stderr.strip().splitlines()[-1])["error"]
    operation_id = error["details"]["operation_id"]
    resumed = slow_mcb("status", operation_id, "--json")
    assert resumed.exit_code == 0 and resumed.json()["operation_id"] == operation_id
