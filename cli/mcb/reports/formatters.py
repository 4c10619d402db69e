"""Render :class:`~mcb.reports.model.FileReport` lists as text, JSON, GitHub annotations, SARIF 2.1.0 or JUnit XML.

One module for every checker (`schem validate`, `recipe lint`, `terrain lint`), so the formats stay identical.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable

from mcb import __version__
from mcb.errors import UsageError, render
from mcb.reports.model import Diagnostic, FileReport, Severity
from mcb.wording import shown

FORMATS = ("text", "json", "github", "sarif", "junit")
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def resolve_format(value: str | None) -> str:
    """The user's choice, else ``github`` inside GitHub Actions, else ``text``."""
    if value:
        value = value.lower()
        if value not in FORMATS:
            raise UsageError(f"unknown report format {value!r}", hint="choose one of: " + ", ".join(FORMATS))
        return value
    env_value = os.environ.get("MCB_FORMAT")
    if env_value:
        return resolve_format(env_value)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        return "github"
    return "text"


def render_reports(
    reports: list[FileReport], fmt: str, *, tool: str, strict: bool = False, rules: dict[str, str] | None = None
) -> str:
    """The whole report as one string (ends with a newline)."""
    renderer = {
        "text": _render_text,
        "json": _render_json,
        "github": _render_github,
        "sarif": _render_sarif,
        "junit": _render_junit,
    }[resolve_format(fmt)]
    return renderer(reports, tool=tool, strict=strict, rules=rules or {})


def summary_line(reports: list[FileReport], strict: bool = False) -> str:
    from mcb.wording import plural

    skipped = sum(1 for r in reports if r.skipped)
    checked = len(reports) - skipped
    failed = sum(1 for r in reports if r.failed(strict))
    errors = sum(r.errors for r in reports)
    warnings = sum(r.warnings for r in reports)
    counts = f"{plural(errors, 'error')}, {plural(warnings, 'warning')}"
    passed_by = f"; {plural(skipped, 'file')} skipped (not schematics)" if skipped else ""
    if failed:
        return f"{failed:,} of {plural(checked, 'file')} failed: {counts}{passed_by}"
    return f"{plural(checked, 'file')} checked: {counts}{passed_by}"


def _location(d: Diagnostic, fallback_file: str) -> str:
    text = d.file or fallback_file
    if d.line is not None:
        text += f":{d.line}"
        if d.column is not None:
            text += f":{d.column}"
    return text


def _render_text(reports, *, tool, strict, rules) -> str:
    # Names and messages (which quote file contents) are shown escaped: a control character in either could
    # retitle the terminal or forge a line such as `::error` (JSON, SARIF and the rest keep them exact).
    lines: list[str] = []
    for report in reports:
        if report.skipped:
            lines.append(f"{shown(report.file)}: skipped ({report.skipped})")
            continue
        if not report.diagnostics:
            lines.append(f"{shown(report.file)}: ok")
            continue
        for d in report.diagnostics:
            where = f" at {shown(d.pointer)}" if d.pointer else ""
            lines.append(f"{shown(_location(d, report.file))}: {d.severity.value}[{d.rule}]{where}: {shown(d.message)}")
            if d.hint:
                lines.append(f"    hint: {shown(render(d.hint))}")
    lines.append(summary_line(reports, strict))
    return "\n".join(lines) + "\n"


def _render_json(reports, *, tool, strict, rules) -> str:
    data = {
        "tool": tool,
        "version": __version__,
        "ok": not any(r.failed(strict) for r in reports),
        "summary": {
            "files": sum(1 for r in reports if not r.skipped),
            "skipped": sum(1 for r in reports if r.skipped),
            "failed": sum(1 for r in reports if r.failed(strict)),
            "errors": sum(r.errors for r in reports),
            "warnings": sum(r.warnings for r in reports),
        },
        "files": [r.to_json() for r in reports],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


_GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def _render_github(reports, *, tool, strict, rules) -> str:
    lines: list[str] = []
    for report in reports:
        if not report.diagnostics:
            continue
        lines.append(f"::group::{_escape_data(report.file)}")
        for d in report.diagnostics:
            props = [f"file={_escape_property(d.file or report.file)}", f"line={d.line or 1}"]
            if d.column is not None:
                props.append(f"col={d.column}")
            props.append(f"title={_escape_property(f'{tool} {d.rule}')}")
            message = d.message
            if d.pointer:
                message += f" (at {d.pointer})"
            if d.hint:
                message += f"\nhint: {render(d.hint)}"
            lines.append(f"::{_GITHUB_LEVEL[d.severity]} {','.join(props)}::{_escape_data(message)}")
        lines.append("::endgroup::")
    # Annotations are capped per step by GitHub; the summary keeps the count honest.
    lines.append(summary_line(reports, strict))
    return "\n".join(lines) + "\n"


def _rule_ids(reports: Iterable[FileReport]) -> list[str]:
    return sorted({d.rule for r in reports for d in r.diagnostics})


def _uri(path: str) -> str:
    """A relative URI reference for a path: its bytes percent-encoded but for ``/`` (SARIF artifactLocation.uri)."""
    from urllib.parse import quote

    return quote(os.fsencode(path.replace(os.sep, "/")), safe="/")


def _render_sarif(reports, *, tool, strict, rules) -> str:
    rule_ids = _rule_ids(reports)
    index = {rule: i for i, rule in enumerate(rule_ids)}
    results = []
    for report in reports:
        for d in report.diagnostics:
            region = {"startLine": d.line or 1}
            if d.column is not None:
                region["startColumn"] = d.column
            location = {
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(d.file or report.file)},
                    "region": region,
                }
            }
            if d.pointer:
                location["logicalLocations"] = [{"fullyQualifiedName": d.pointer}]
            text = d.message + (f" Hint: {render(d.hint)}" if d.hint else "")
            results.append(
                {
                    "ruleId": d.rule,
                    "ruleIndex": index[d.rule],
                    "level": {"error": "error", "warning": "warning", "note": "note"}[d.severity.value],
                    "message": {"text": text},
                    "locations": [location],
                }
            )
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "mcb",
                        "version": __version__,
                        "rules": [
                            {"id": rule, "shortDescription": {"text": rules.get(rule, rule)}} for rule in rule_ids
                        ],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, indent=2, ensure_ascii=False) + "\n"


def _render_junit(reports, *, tool, strict, rules) -> str:
    from xml.sax.saxutils import escape, quoteattr  # only JUnit needs it, and it is slow to import

    cases: list[str] = []
    failures = skipped = 0
    tests = 0
    for report in reports:
        if report.skipped:
            tests += 1
            skipped += 1
            cases.append(
                f"    <testcase classname={quoteattr(shown(report.file))} name={quoteattr(tool)}>"
                f"<skipped message={quoteattr(report.skipped)}/></testcase>"
            )
            continue
        if not report.diagnostics:
            tests += 1
            cases.append(f"    <testcase classname={quoteattr(shown(report.file))} name={quoteattr(tool)}/>")
            continue
        for d in report.diagnostics:
            tests += 1
            failing = d.severity is Severity.ERROR or (strict and d.severity is Severity.WARNING)
            where = _location(d, report.file) + (f" {d.pointer}" if d.pointer else "")
            # XML 1.0 cannot carry control characters, even as references: shown escaped, as in the text format
            body = escape(shown(f"{where}: {d.message}") + (f"\nhint: {shown(render(d.hint))}" if d.hint else ""))
            head = f"    <testcase classname={quoteattr(shown(report.file))} name={quoteattr(d.rule)}>"
            if failing:
                failures += 1
                inner = f"<failure message={quoteattr(shown(d.message))} type={quoteattr(d.severity.value)}>{body}</failure>"
            else:
                inner = f"<system-out>{body}</system-out>"
            cases.append(f"{head}{inner}</testcase>")
    suite = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name={quoteattr("mcb")} tests="{tests}" failures="{failures}">\n'
        f'  <testsuite name={quoteattr(tool)} tests="{tests}" failures="{failures}" errors="0" skipped="{skipped}">\n'
        + "\n".join(cases)
        + "\n  </testsuite>\n</testsuites>\n"
    )
    return suite
