"""schem_validate and recipe_lint on a folder of many small files (MCP-39/40): the per-file verdicts are paged
apart from the findings (files_offset/files_limit beside offset/limit), so no page passes the cap, and walking the
pages gives every file's verdict once, as the CLI reports them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from mcpkit import McpProcess
from test_offline_tools import call

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
CAP = 65_536
MANY = 900


@pytest.fixture
def many(tmp_path) -> Path:
    """900 schematics: the house, and every 50th a sample whose findings the validator reports."""
    folder = tmp_path / "many"
    folder.mkdir()
    for index in range(MANY):
        source = CORPUS / "v2_nucleation_sample.schem" if index % 50 == 0 else ROOT / "schematics" / "house.schem"
        shutil.copy(source, folder / f"s{index:04}.schem")
    return folder


def test_a_big_folder_is_read_a_page_of_verdicts_at_a_time_over_stdio(many, cli):
    expected = json.loads(cli("schem", "validate", str(many), "--json").stdout)
    process = McpProcess("--offline", cwd=many.parent)
    seen: list[dict] = []
    try:
        process.initialize()
        # the QA call that was refused as context_limit, in pages of 300 verdicts: every page validates the whole
        # folder again, so three pages instead of nine (the default page of 100 is checked in-process below)
        arguments = {"paths": ["many"], "limit": 1, "files_limit": 300}
        pages = 0
        while True:
            result = process.call("schem_validate", arguments, timeout=120)["result"]
            pages += 1
            assert result["isError"] is False, result["structuredContent"]
            assert len(result["content"][0]["text"].encode("utf-8")) <= CAP
            data = result["structuredContent"]
            assert data["total_files"] == MANY == data["summary"]["files"]
            assert data["files_returned"] == len(data["files"]) <= 300
            assert data["returned"] == len(data["diagnostics"]) == 1 and data["has_more"] is True
            seen += data["files"]
            if not data["files_has_more"]:
                assert "next_files_offset" not in data
                break
            assert f"files_offset={data['next_files_offset']}" in data["hint"]
            arguments = {**arguments, "files_offset": data["next_files_offset"]}
    finally:
        process.close()
    assert pages == 3
    assert [Path(entry["file"]).name for entry in seen] == [Path(f["file"]).name for f in expected["files"]]
    assert [entry["ok"] for entry in seen] == [f["ok"] for f in expected["files"]]
    assert sum(entry["warnings"] for entry in seen) == expected["summary"]["warnings"]


def test_the_default_page_of_a_big_folder_fits_and_says_there_is_more(many):
    data = call("schem_validate", {"paths": [str(many)]}).data
    assert len(json.dumps(data, separators=(",", ":")).encode("utf-8")) <= CAP
    assert (data["files_returned"], data["files_has_more"], data["next_files_offset"]) == (100, True, 100)
    last = call("schem_validate", {"paths": [str(many)], "files_offset": 850, "files_limit": 500}).data
    assert (last["files_returned"], last["files_has_more"]) == (50, False)
    assert "next_files_offset" not in last
    assert [f["file"] for f in last["files"]] == [str(many / f"s{i:04}.schem") for i in range(850, MANY)]


def test_recipe_lint_pages_its_verdicts_the_same_way(tmp_path):
    folder = tmp_path / "recipes"
    folder.mkdir()
    for index in range(250):
        shutil.copy(ROOT / "recipes" / "colonnade.json", folder / f"r{index:03}.json")
    first = call("recipe_lint", {"paths": [str(folder)], "files_limit": 200}).data
    second = call("recipe_lint", {"paths": [str(folder)], "files_limit": 200, "files_offset": 200}).data
    assert (first["files_returned"], first["files_has_more"], first["next_files_offset"]) == (200, True, 200)
    assert (second["files_returned"], second["files_has_more"], second["total_files"]) == (50, False, 250)
    assert len({f["file"] for f in first["files"] + second["files"]}) == 250
