"""The shared tail of `schem validate`, `recipe lint` and `terrain lint`: pick the format, print, set the exit code.

No Typer here: the command bodies stay plain functions.
"""


def choose_format(term, option: str | None) -> str:
    """``--format`` if given; JSON under ``--json``; else GitHub annotations in Actions, else text.

    Resolved before any checking so a bad ``--format`` fails fast.
    """
    from mcb.reports.formatters import resolve_format

    return "json" if term.json_mode and not option else resolve_format(option)


def print_reports(term, reports, fmt: str, *, tool: str, strict: bool, rules: dict, noun: str, code: str) -> None:
    """Print the report on stdout; raise FindingsError (exit 1) when a file failed."""
    from mcb.errors import FindingsError
    from mcb.reports.formatters import render_reports

    term.line(render_reports(reports, fmt, tool=tool, strict=strict, rules=rules).rstrip("\n"))
    failed = sum(1 for report in reports if report.failed(strict))
    if failed:
        from mcb.wording import plural

        judged = "errors or warnings" if strict else "errors"
        verb = "has" if failed == 1 else "have"
        checked = sum(1 for report in reports if not report.skipped)
        raise FindingsError(f"{failed:,} of {plural(checked, noun)} {verb} {judged}", code=code)


def run_schem_validate(
    term,
    paths,
    *,
    profile: str,
    mc_version: str | None,
    format_: str | None,
    strict: bool,
    glob: list[str] | None,
    jobs: int | None,
    exclude: list[str] | None = None,
) -> None:
    """The body of `mcb schem validate`."""
    from mcb.schematics.rules import RULES, validate_paths

    fmt = choose_format(term, format_)
    reports = validate_paths(
        paths, profile=profile, mc_version=mc_version, globs=glob, excludes=exclude, jobs=jobs, progress=term.progress
    )
    print_reports(
        term,
        reports,
        fmt,
        tool="mcb schem validate",
        strict=strict,
        rules=RULES,
        noun="schematic",
        code="schem.validate.failed",
    )
