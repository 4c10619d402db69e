"""`mcb recipe ...` as a user runs it: exit codes, stdout/stderr, --json shapes, atomic in-place formatting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import box, line, recipe, repeat

ROOT = Path(__file__).resolve().parents[2]


def write(path: Path, value) -> Path:
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return path


@pytest.fixture
def good(tmp_path):
    return write(
        tmp_path / "good.json",
        recipe(box((0, 64, 0), (2, 64, 1), "minecraft:oak_stairs[facing=east]"), line((0, 65, 0), (0, 66, 0))),
    )


@pytest.fixture
def bad(tmp_path):
    return write(tmp_path / "bad.json", '{"version": 1,\n "operations": [{"type": "box"}]}\n')


def test_lint_clean_file_exits_0(cli, good):
    result = cli("recipe", "lint", str(good))
    assert result.exit_code == 0, result.stderr
    assert f"{good}: ok" in result.stdout


def test_lint_errors_exit_1_with_file_line_column(cli, bad):
    result = cli("recipe", "lint", str(bad))
    assert result.exit_code == 1
    assert f"{bad}:2:17: error[recipe.missing-key] at /operations/0:" in result.stdout
    assert "1 of 1 recipe file has errors" in result.stderr


def test_lint_warnings_fail_only_with_strict(cli, tmp_path):
    path = write(tmp_path / "empty.json", recipe())
    assert cli("recipe", "lint", str(path)).exit_code == 0
    assert cli("recipe", "lint", "--strict", str(path)).exit_code == 1


def test_lint_json_format_shape(cli, good, bad):
    result = cli("recipe", "lint", "--format", "json", str(good), str(bad))
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["summary"] == {"files": 2, "skipped": 0, "failed": 1, "errors": 3, "warnings": 0}
    by_file = {entry["file"]: entry for entry in data["files"]}
    assert by_file[str(good)]["ok"] and by_file[str(good)]["facts"]["block_count"] == 8
    diagnostic = by_file[str(bad)]["diagnostics"][0]
    assert set(diagnostic) == {"rule", "severity", "message", "file", "pointer", "line", "column", "hint"}
    assert (diagnostic["line"], diagnostic["column"], diagnostic["pointer"]) == (2, 17, "/operations/0")


def test_root_json_flag_selects_json_report(cli, good):
    result = cli("--json", "recipe", "lint", str(good))
    assert result.exit_code == 0 and json.loads(result.stdout)["ok"] is True


def test_lint_github_format_auto_detected(cli, bad):
    result = cli("recipe", "lint", str(bad), env={"GITHUB_ACTIONS": "true"})
    assert result.exit_code == 1
    assert f"::error file={bad},line=2,col=17,title=mcb recipe lint recipe.missing-key::" in result.stdout


def test_lint_sarif_has_rule_descriptions(cli, bad):
    data = json.loads(cli("recipe", "lint", "--format", "sarif", str(bad)).stdout)
    rules = data["runs"][0]["tool"]["driver"]["rules"]
    assert {"id": "recipe.missing-key", "shortDescription": {"text": "A required key is missing or null"}} in rules


def test_lint_walks_directories_with_glob_and_exclude(cli, tmp_path, good, bad):
    sub = tmp_path / "nested"
    sub.mkdir()
    write(sub / "other.recipe", recipe(box((0, 0, 0), (0, 0, 0))))
    write(tmp_path / "x.schema.json", {"type": "object"})
    result = cli("recipe", "lint", "--format", "json", str(tmp_path))
    assert sorted(Path(f["file"]).name for f in json.loads(result.stdout)["files"]) == ["bad.json", "good.json"]
    result = cli("recipe", "lint", "--format", "json", "--glob", "*.recipe", str(tmp_path))
    assert [Path(f["file"]).name for f in json.loads(result.stdout)["files"]] == ["other.recipe"]
    result = cli("recipe", "lint", "--format", "json", "--exclude", "bad*", str(tmp_path))
    assert result.exit_code == 0


def test_lint_missing_path_is_a_clean_error(cli, tmp_path):
    result = cli("recipe", "lint", str(tmp_path / "nope.json"))
    assert result.exit_code == 1 and "no such file" in result.stderr and "Traceback" not in result.stderr


def test_lint_max_plan_blocks(cli, good):
    result = cli("recipe", "lint", "--max-plan-blocks", "4", str(good))
    assert result.exit_code == 1 and "recipe.budget.blocks" in result.stdout


def test_compile_summary(cli, good):
    result = cli("recipe", "compile", str(good))
    assert result.exit_code == 0, result.stderr
    assert "blocks:" in result.stdout and "8" in result.stdout
    assert "(0, 64, 0) .. (2, 66, 1)" in result.stdout
    assert "minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]" in result.stdout


def test_compile_json_lists_blocks_in_plan_order(cli, good):
    result = cli("recipe", "compile", "--json", str(good))
    data = json.loads(result.stdout)
    assert data["blocks"][0] == {
        "pos": {"x": 0, "y": 64, "z": 0},
        "state": "minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]",
    }
    assert [b["pos"]["y"] for b in data["blocks"]] == [64] * 6 + [65, 66]
    assert data["block_count"] == 8 and data["release"] == "26.2"
    assert data["palette"] == [
        {"state": "minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]", "count": 6},
        {"state": "minecraft:stone", "count": 2},
    ]
    assert data["budgets"]["scan"] == {"used": 8, "limit": 65536}
    assert data["bounds"]["size"] == {"x": 3, "y": 3, "z": 2}


def test_compile_refusal_names_file_line_column_and_server_message(cli, tmp_path):
    path = write(tmp_path / "r.json", '{"version": 1, "operations": [\n  {"type": "cone"}]}')
    result = cli("recipe", "compile", str(path))
    assert result.exit_code == 1
    assert (
        f"{path}:2:12: the server would refuse this recipe: invalid_request: Unsupported operation: cone"
        in result.stderr
    )
    assert "Traceback" not in result.stderr


def test_compile_unsupported_block(cli, tmp_path):
    path = write(tmp_path / "r.json", recipe(box((0, 0, 0), (0, 0, 0), "minecraft:diamond")))
    result = cli("--json", "recipe", "compile", str(path))
    assert result.exit_code == 1
    error = json.loads(result.stderr)["error"]
    assert error["code"] == "unsupported_block"
    assert "Invalid registered block or block properties" in error["message"]


def test_compile_syntax_error(cli, tmp_path):
    path = write(tmp_path / "r.json", '{"version": 1,\n  "operations": [}')
    result = cli("recipe", "compile", str(path))
    assert result.exit_code == 1 and f"{path}:2:18:" in result.stderr


def test_fmt_prints_canonical_text_and_keeps_the_input(cli, tmp_path):
    original = (
        '{"operations":[{"block":"minecraft:stone","type":"line","to":{"z":0,"y":0,"x":1},'
        '"from":{"x":0,"y":0,"z":0}}],"version":1}'
    )
    path = write(tmp_path / "r.json", original)
    result = cli("recipe", "fmt", str(path))
    assert result.exit_code == 0
    assert result.stdout == (
        '{\n  "version": 1,\n  "operations": [\n'
        '    {"type": "line", "from": {"x": 0, "y": 0, "z": 0}, "to": {"x": 1, "y": 0, "z": 0}, '
        '"block": "minecraft:stone"}\n  ]\n}\n'
    )
    assert path.read_text() == original


def test_fmt_check_and_in_place(cli, tmp_path):
    path = write(tmp_path / "r.json", recipe(repeat(2, (1, 0, 0), [box((0, 0, 0), (0, 0, 0))])))
    assert cli("recipe", "fmt", "--check", str(path)).exit_code == 1
    assert cli("recipe", "fmt", "-i", str(path)).exit_code == 0
    assert cli("recipe", "fmt", "--check", str(path)).exit_code == 0
    assert json.loads(path.read_text()) == recipe(repeat(2, (1, 0, 0), [box((0, 0, 0), (0, 0, 0))]))
    assert list(tmp_path.iterdir()) == [path]


def test_fmt_keeps_number_spelling(cli, tmp_path):
    path = write(tmp_path / "r.json", '{"version": 1.0, "operations": []}')
    assert '"version": 1.0' in cli("recipe", "fmt", str(path)).stdout


def test_fmt_keeps_a_lone_surrogate_escape(run, hostile):
    # json decodes "\ud800" to a lone surrogate that no UTF-8 output can carry; the formatter must keep the escape.
    path = hostile("lone_surrogate")
    result = run("recipe", "fmt", path)
    assert result.exit_code == 0, result.stderr
    assert '"\\ud800"' in result.stdout


def test_fmt_in_place_with_a_lone_surrogate_keeps_the_file_valid(run, hostile):
    path = hostile("lone_surrogate")
    result = run("recipe", "fmt", "-i", path)
    assert result.exit_code == 0, result.stderr
    assert '"\\ud800"' in path.read_text("utf-8")
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left behind


@pytest.mark.parametrize("kind", [[], {}, ["box"], {"x": 1}])
def test_fmt_operation_type_of_the_wrong_type(run, tmp_path, kind):
    # fmt formats any JSON; a nonsense `type` is lint's business, the layout just falls back to file order
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"version": 1, "operations": [{"type": kind, "block": "minecraft:stone"}]}))
    result = run("recipe", "fmt", path)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["operations"][0]["type"] == kind


def test_schema_command_prints_the_committed_schema(cli):
    result = cli("recipe", "schema")
    assert result.exit_code == 0
    assert result.stdout == (ROOT / "recipes" / "recipe.schema.json").read_text(encoding="utf-8")


def test_lint_reads_stdin(cli, bad):
    result = cli("recipe", "lint", "-", input=bad.read_text())
    assert result.exit_code == 1
    assert "<stdin>:2:17: error[recipe.missing-key]" in result.stdout


def test_fmt_several_files_in_place_and_check(cli, tmp_path):
    first = write(tmp_path / "a.json", recipe(box((0, 0, 0), (0, 0, 0))))
    second = write(tmp_path / "b.json", recipe(line((0, 0, 0), (1, 1, 1))))
    result = cli("recipe", "fmt", "--check", "--json", str(first), str(second))
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "files": [{"file": str(first), "changed": True}, {"file": str(second), "changed": True}],
        "changed": 2,
    }
    assert cli("recipe", "fmt", "-i", str(first), str(second)).exit_code == 0
    assert cli("recipe", "fmt", "--check", str(first), str(second)).exit_code == 0


def test_fmt_refuses_to_print_several_files_and_leaves_all_untouched_on_bad_json(cli, tmp_path):
    good = write(tmp_path / "a.json", recipe(box((0, 0, 0), (0, 0, 0))))
    broken = write(tmp_path / "b.json", '{"version": 1,')
    assert cli("recipe", "fmt", str(good), str(broken)).exit_code == 2
    before = good.read_text()
    result = cli("recipe", "fmt", "-i", str(good), str(broken))
    assert result.exit_code == 1 and f"{broken}:1:15" in result.stderr
    assert good.read_text() == before


def test_compile_and_fmt_read_stdin(cli, good):
    result = cli("recipe", "compile", "--json", "-", input=good.read_text())
    assert result.exit_code == 0 and json.loads(result.stdout)["file"] == "<stdin>"
    refused = cli("recipe", "compile", "-", input='{"version": 1,\n "operations": [{"type": "cone"}]}')
    assert refused.exit_code == 1 and "<stdin>:2:26: the server would refuse this recipe" in refused.stderr
    formatted = cli("recipe", "fmt", "-", input='{"operations": [], "version": 1}')
    assert formatted.stdout == '{\n  "version": 1,\n  "operations": []\n}\n'
    assert cli("recipe", "fmt", "-i", "-", input="{}").exit_code == 2


STAIR = "minecraft:oak_stair"  # no such block: unsupported_block
FIRST_ERROR_CASES = {
    # a bad block early, a geometry error later: the server compiles the shapes before it checks any block
    "bounds after a bad block": (
        recipe(box((0, 64, 0), (2, 64, 2), STAIR), box((5, 64, 0), (2, 64, 2))),
        "/operations/1",
        "Invalid inclusive region bounds",
    ),
    "unknown key after a bad block": (
        recipe(box((0, 64, 0), (2, 64, 2), STAIR), box((0, 65, 0), (1, 65, 1), colour=5)),
        "/operations/1/colour",
        "Unknown field: colour",
    ),
    "scan budget after a bad block": (
        recipe(box((0, 64, 0), (2, 64, 2), STAIR), box((0, 0, 0), (100, 100, 100))),
        "/operations/1",
        "Recipe scan budget exceeded",
    ),
    # an operation's keys are checked before its values
    "unknown key after a fraction": (
        recipe(box((0, 64, 0), (2, 64, 2), extra=1) | {"min": {"x": 0, "y": 1.5, "z": 0}}),
        "/operations/0/extra",
        "Unknown field: extra",
    ),
    # blocks in the order the plan holds them: a block entirely overwritten never reaches the server's check
    "overwritten bad block": (
        recipe(
            box((0, 64, 0), (2, 64, 2), STAIR),
            box((0, 64, 0), (2, 64, 2)),
            line((0, 66, 0), (3, 66, 0), "minecraft:oak_stairs[facing=up]"),
        ),
        "/operations/2/block",
        "unsupported_block",
    ),
    "two bad blocks": (
        recipe(
            box((0, 64, 0), (1, 64, 1)),
            line((0, 65, 0), (2, 65, 0), STAIR),
            box((0, 66, 0), (1, 66, 1), "minecraft:oak_stairs[facing=up]"),
        ),
        "/operations/1/block",
        "unsupported_block",
    ),
}


@pytest.mark.parametrize("case", FIRST_ERROR_CASES)
def test_lint_lists_first_the_error_compile_stops_at(cli, tmp_path, case):
    value, pointer, server_says = FIRST_ERROR_CASES[case]
    path = write(tmp_path / "r.json", json.dumps(value, indent=1))
    compiled = cli("recipe", "compile", str(path), "--json")
    assert compiled.exit_code == 1
    error = json.loads(compiled.stderr.strip().splitlines()[-1])["error"]
    assert error["details"]["pointer"] == pointer and server_says in error["message"]
    linted = cli("recipe", "lint", str(path), "--format", "json")
    assert linted.exit_code == 1
    first = json.loads(linted.stdout)["files"][0]["diagnostics"][0]
    assert first["severity"] == "error" and server_says in first["message"], first
    assert first["pointer"] == pointer or first["pointer"].startswith(pointer + "/"), first
    shown = cli("recipe", "lint", str(path)).stdout.splitlines()[0]  # the first line a person reads
    assert shown.startswith(f"{path}:{first['line']}:{first['column']}: error[{first['rule']}]")
