"""The shared report formats, as a CI system would read them."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from mcb.errors import InputError, UsageError
from mcb.reports.formatters import render_reports, resolve_format
from mcb.reports.model import Diagnostic, FileReport, Severity
from mcb.reports.runner import check_files, collect_files


def sample_reports() -> list[FileReport]:
    return [
        FileReport(
            "lib/tower.schem",
            [
                Diagnostic(
                    "sponge.palette.max",
                    Severity.ERROR,
                    "PaletteMax 3, palette has 2 entries, 100%",
                    pointer="Schematic.PaletteMax",
                    hint="rewrite with mcb schem convert",
                ),
                Diagnostic("sponge.offset.absolute", Severity.WARNING, "Offset looks absolute"),
            ],
        ),
        FileReport(
            "recipes/a.json",
            [Diagnostic("recipe.int", Severity.ERROR, "not an integer", pointer="/ops/0/x", line=4, column=12)],
        ),
        FileReport("lib/ok.schem"),
    ]


def test_text_lists_each_finding_with_location_and_summary():
    text = render_reports(sample_reports(), "text", tool="mcb schem validate")
    assert "recipes/a.json:4:12: error[recipe.int] at /ops/0/x: not an integer" in text
    assert "lib/ok.schem: ok" in text
    assert text.rstrip().endswith("2 of 3 files failed: 2 errors, 1 warning")


def test_json_shape_is_stable():
    data = json.loads(render_reports(sample_reports(), "json", tool="mcb schem validate"))
    assert set(data) == {"tool", "version", "ok", "summary", "files"}
    assert data["ok"] is False
    assert data["summary"] == {"files": 3, "skipped": 0, "failed": 2, "errors": 2, "warnings": 1}
    first = data["files"][0]["diagnostics"][0]
    assert set(first) == {"rule", "severity", "message", "file", "pointer", "line", "column", "hint"}


def test_github_annotations_escape_properties_and_data():
    text = render_reports(sample_reports(), "github", tool="mcb")
    lines = text.splitlines()
    error = next(line for line in lines if line.startswith("::error file=lib/tower.schem"))
    # '%' in data is escaped, the hint goes on an escaped newline
    assert "100%25" in error and "%0Ahint: rewrite" in error
    assert "::warning file=lib/tower.schem,line=1," in text
    assert "::error file=recipes/a.json,line=4,col=12," in text
    assert lines.count("::endgroup::") == 2


def test_sarif_has_the_chain_github_needs():
    sarif = json.loads(render_reports(sample_reports(), "sarif", tool="mcb"))
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert run["tool"]["driver"]["name"] == "mcb"
    assert len(run["results"]) == 3
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        assert result["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1
    levels = sorted(result["level"] for result in run["results"])
    assert levels == ["error", "error", "warning"]


def test_junit_parses_and_counts_failures():
    root = ET.fromstring(render_reports(sample_reports(), "junit", tool="mcb"))
    suite = root.find("testsuite")
    assert suite.get("tests") == "4" and suite.get("failures") == "2"
    strict = ET.fromstring(render_reports(sample_reports(), "junit", tool="mcb", strict=True))
    assert strict.find("testsuite").get("failures") == "3"


def test_format_auto_detects_github_actions(monkeypatch):
    assert resolve_format(None) == "text"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert resolve_format(None) == "github"
    assert resolve_format("sarif") == "sarif"
    with pytest.raises(UsageError):
        resolve_format("xml")


def test_collect_files_walks_directories_and_refuses_missing(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.schem").write_bytes(b"")
    (tmp_path / "a" / "y.txt").write_bytes(b"")
    (tmp_path / "b.schem").write_bytes(b"")
    files = collect_files([tmp_path / "b.schem", tmp_path], ["*.schem"])
    assert [f.name for f in files] == ["b.schem", "x.schem"]
    with pytest.raises(InputError):
        collect_files([tmp_path / "missing"], ["*"])


def test_check_files_keeps_order_and_turns_input_errors_into_findings(tmp_path):
    paths = [tmp_path / f"{i}.txt" for i in range(6)]

    def check(path):
        if path.name == "3.txt":
            raise InputError("broken file", hint="fix it")
        return FileReport(str(path))

    reports = check_files(paths, check, jobs=3)
    assert [r.file for r in reports] == [str(p) for p in paths]
    assert reports[3].errors == 1 and reports[3].diagnostics[0].hint == "fix it"
