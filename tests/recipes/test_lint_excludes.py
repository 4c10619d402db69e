"""`--exclude` applies to files named on the command line too, and a JSON Schema gets a hint that fits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import box, recipe

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "tower.json").write_text(json.dumps(recipe(box((0, 64, 0), (1, 64, 1)))))
    (tmp_path / "recipe.schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "broken.json").write_text("{")
    return tmp_path


def checked(result) -> list[str]:
    return sorted(Path(f["file"]).name for f in json.loads(result.stdout)["files"])


@pytest.mark.parametrize("group", ["recipe", "terrain"])
def test_exclude_skips_named_files_as_a_shell_glob_passes_them(cli, folder, group):
    named = sorted(str(p) for p in folder.glob("*.json"))  # what `recipes/*.json` expands to
    result = cli(group, "lint", *named, "--exclude", "*.schema.json", "--exclude", "broken.json", "-f", "json")
    assert checked(result) == ["tower.json"]
    # a path pattern works on named files as well as on walked ones
    result = cli(group, "lint", *named, "--exclude", f"{folder.as_posix()}/b*", "-f", "json")
    assert checked(result) == ["recipe.schema.json", "tower.json"]


def test_exclude_prunes_walked_directories(cli, folder):
    (folder / "terrain").mkdir()
    (folder / "terrain" / "hill.json").write_text("{")
    result = cli("recipe", "lint", str(folder), "--exclude", "terrain", "--exclude", "broken.json", "-f", "json")
    assert checked(result) == ["tower.json"] and result.exit_code == 0


def test_a_named_schema_is_not_linted_and_says_what_it_is(cli, folder):
    result = cli("recipe", "lint", str(folder / "recipe.schema.json"))
    assert result.exit_code == 0
    assert "this is a JSON Schema, not a recipe; not linted" in result.stdout
    assert "--exclude '*.schema.json'" in result.stdout and "terrain lint" not in result.stdout


def test_the_demo_line_lints_no_schema(cli, monkeypatch):
    monkeypatch.chdir(ROOT)
    named = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "recipes").glob("*.json"))
    result = cli("recipe", "lint", *named, "--exclude", "*.schema.json", "-f", "json")
    assert result.exit_code == 0, result.stdout
    files = checked(result)
    assert files and not any(name.endswith(".schema.json") for name in files)


def test_terrain_lint_gives_a_schema_the_same_hint(cli, folder):
    result = cli("terrain", "lint", str(folder / "recipe.schema.json"))
    assert result.exit_code == 0
    assert "this is a JSON Schema, not a terrain recipe or brush; not linted" in result.stdout
    assert "--exclude '*.schema.json'" in result.stdout and "recipe lint" not in result.stdout
