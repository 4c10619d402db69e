"""The pieces every offline tool's adapter shares: argument types, mcb errors as refusals, input and output
paths, the pagination contract and per-file progress (no numpy here).

An optional argument is left out, never null: its type is the value's own (``McVersion`` is a string with the
default None), so the published schema carries a top-level ``type`` and refuses null as the check does.
"""

from __future__ import annotations

import contextlib
import errno
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from mcb.mcp.actions import Context, Hints, Refusal

# Annotations per spec §2.2: every offline tool is closed-world; file writers are destructive (MCP-24).
READER = Hints(read_only=True, destructive=False, idempotent=True, open_world=False)
WRITER = Hints(read_only=False, destructive=True, idempotent=True, open_world=False)

# The codes these actions refuse with, and the remedy each carries (for the manifest's refusal table, MCP-33).
REFUSAL_CODES = {
    "invalid_argument": "field names the argument; retry_with where the fix is known",
    "not_found": "field names the path argument that does not exist",
    "output_exists": "retry_with {overwrite: true}, or another output",
    "invalid_input": "the file's content is at fault: field names it; next_call when a checker explains more",
    "io_error": "field names the path; no_remedy when the file system refuses",
}

MAX_PATH = 1024  # MCP-22: paths
NO_NUL = "^[^\\u0000]*$"  # no file system takes a NUL in a name: the caller's argument is at fault, not mcb


def _bounded_path(value: Any) -> Any:
    if isinstance(value, str) and not 1 <= len(value) <= MAX_PATH:
        raise ValueError(f"a path has 1 to {MAX_PATH} characters")
    if isinstance(value, str) and "\x00" in value:
        raise ValueError("a path cannot contain a NUL character")
    return value


# A Path annotation is how the face finds the arguments to keep inside the workspace root (MCP-35).
Path_ = Annotated[
    Path,
    BeforeValidator(_bounded_path),
    WithJsonSchema({"type": "string", "minLength": 1, "maxLength": MAX_PATH, "pattern": NO_NUL}),
]
McVersion = Annotated[
    str,
    Field(
        None,
        min_length=1,
        max_length=64,
        description=(
            "Minecraft release (e.g. 1.20.4) or DataVersion whose block list is used; default 26.2 (or, for schematics, "
            "what the command would pick)."
        ),
    ),
]
Offset = Annotated[int, Field(0, ge=0, description="First item to return (pagination).")]
FilesOffset = Annotated[
    int, Field(0, ge=0, description="First file verdict to return (files are paged apart from diagnostics).")
]
FilesLimit = Annotated[int, Field(100, ge=1, le=500, description="File verdicts per page.")]
Globs = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=256)]],
    Field(None, max_length=16, description="File-name patterns when walking directories."),
]
Excludes = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=256)]],
    Field(
        None,
        max_length=16,
        description="Skip files, named or walked, whose name or path matches one of these patterns.",
    ),
]


class Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


def refusal_from(error: Exception, field: str | None = None, usage_field: str | None = None) -> Refusal:
    """mcb's error model (McbError: message, hint, code, details) as a refusal with a remedy, in this face's words
    (mcb.mcp.refusals.mcp_words): the argument at fault is the one the error names, else ``usage_field`` for a
    usage error (when given), else ``field``; the error's ``retry_with`` (the same call, mended) is kept."""
    from mcb.errors import McbError, UsageError, render
    from mcb.mcp.refusals import mcp_words

    if isinstance(error, McbError):
        details = dict(error.details or {})
        named = details.pop("field", None)
        retry_with = details.pop("retry_with", None)
        suggestions = details.pop("suggestions", None)
        given = details.get("property") or details.get("block") or details.get("version")
        suggestions = {str(given): suggestions[0]} if suggestions and given else None
        data: dict[str, Any] = {"rule": error.code} if error.code != error.kind else {}
        for key in ("pointer", "position", "losses", "lossless_formats", "known", "release", "server"):
            if key in details:
                data[key] = details[key]
        usage = isinstance(error, UsageError)
        field = named or (usage_field if usage and usage_field else field)
        data.update(_next_call_of(error.code))
        if field is None and retry_with is None and "next_call" not in data:
            data["no_remedy"] = "the inputs themselves are at fault; see the message"
        hint = render(error.hint_template, mcp_words)
        return Refusal(
            "invalid_argument" if usage else "invalid_input",
            render(error.template, mcp_words),
            remedy=hint or ("correct the argument" if usage else "correct the file"),
            field=field,
            did_you_mean=suggestions,
            retry_with=retry_with,
            data=data,
        )
    if isinstance(error, OSError) and error.errno == errno.ENAMETOOLONG:
        return name_too_long(field)
    if isinstance(error, OSError):
        name = error.filename or field or "file"
        return Refusal(
            "io_error",
            f"{name}: {error.strerror or error}",
            remedy="check the path and permissions",
            field=field,
            data={"no_remedy": "the file system refused the operation"},
        )
    raise error


def _next_call_of(code: str) -> dict[str, Any]:
    """The one table's next call for ``code`` (an area refusal's project_context), as a server's refusal of that
    code carries it (conventions: out_of_bounds -> project_context)."""
    from mcb.mcp.refusals import remedy_fields
    from mcb.refusals import all_codes

    remedy = all_codes().get(code)
    fields = remedy_fields(remedy) if remedy is not None and remedy.next_call else {}
    return {"next_call": fields["next_call"]} if "next_call" in fields else {}


def name_too_long(field: str | None, data: dict | None = None) -> Refusal:
    """ENAMETOOLONG: the file system refuses the name itself (a part over its limit, 255 bytes on most), so the
    argument that named it is at fault: the same call with a shorter name works."""
    facts = dict(data or {})
    if field is None:
        facts["no_remedy"] = "a path the inputs name is too long for the file system"
    return Refusal(
        "invalid_argument",
        f"{field or 'path'}: a file or folder name in it is longer than the file system allows (255 bytes on most)",
        field=field,
        data=facts,
        remedy="use shorter file and folder names",
    )


@contextlib.contextmanager
def refusing(field: str | None = None, usage_field: str | None = None):
    """Turn mcb's errors raised by the core into refusals (programming errors stay exceptions: `internal`)."""
    from mcb.errors import McbError

    try:
        yield
    except (McbError, OSError) as error:
        raise refusal_from(error, field, usage_field) from None


def existing_input(value: Path, field: str, index: int | None = None) -> Path:
    path = Path(value)
    where = {} if index is None else {"pointer": f"/{field}/{index}"}
    if str(value) == "-":  # the CLI's stdin; here stdin carries the protocol itself
        raise Refusal(
            "invalid_argument",
            f"{field}: '-' (standard input) cannot be read by a tool",
            remedy="give a file path",
            field=field,
            data=where,
        )
    try:
        found = path.exists()
    except OSError as error:  # a name too long, a folder it may not enter: said with the argument at fault
        refusal = refusal_from(error, field)
        refusal.data.update(where)
        raise refusal from None
    if not found:  # a list of paths may name folders (the walks); a single path is one file
        raise Refusal(
            "not_found",
            f"{field}: {value} does not exist",
            remedy="give an existing file" + (" or folder" if index is not None else ""),
            field=field,
            data=where,
        )
    if index is None and path.is_dir():
        raise Refusal(
            "invalid_argument",
            f"{field}: {value} is a folder; this tool reads one file",
            remedy="give one file (schem_validate and recipe_lint walk folders)",
            field=field,
        )
    return path


def new_output(ctx: Context, value: Path, field: str = "output", *, inputs=(), overwrite: bool = False) -> Path:
    """``value`` as the file to write; registered with ctx.created unless it exists already (then it is the
    user's file, which a cancel must not delete). Never one of ``inputs``; an existing file only with
    ``overwrite`` (the tool's argument: an agent says so, MCP-24), where the CLI's -o replaces it as cp does."""
    from mcb.errors import UsageError
    from mcb.fileio import check_output_path, refuse_input_as_output

    path = Path(value)
    try:
        refuse_input_as_output(path, inputs, field=field)
    except UsageError as error:
        raise Refusal(
            "invalid_argument",
            f"{field}: {value} is the input file",
            field=field,
            remedy="write a new file (or use in_place where the tool has it)",
        ) from error
    try:
        check_output_path(path)  # the check write_atomic makes, asked before any work
    except IsADirectoryError:
        raise Refusal(
            "invalid_argument", f"{field}: {value} is a directory", remedy="name a file", field=field
        ) from None
    except FileNotFoundError:
        raise Refusal(
            "not_found",
            f"{field}: the folder {path.parent} does not exist",
            field=field,
            remedy="write into an existing folder",
        ) from None
    except OSError as error:  # e.g. a name longer than the file system allows
        raise refusal_from(error, field) from None
    if path.exists() and not path.is_file():  # a named pipe or a device: opening it could wait for ever
        raise Refusal(
            "invalid_argument",
            f"{field}: {value} is not a regular file (a named pipe or a device)",
            remedy="name a regular file",
            field=field,
        )
    if path.exists() and not overwrite:
        raise Refusal(
            "output_exists",
            f"{field}: {value} exists",
            remedy="overwrite it or choose another file",
            field=field,
            retry_with={"overwrite": True},
        )
    if not path.exists():
        ctx.created(path)
    return path


def page(items: list, offset: int, limit: int, unit: str) -> dict:
    """The pagination contract (MCP-40): returned, has_more, total_<unit>, and next_offset + hint when more."""
    chosen = items[offset : offset + limit]
    page = {
        unit: chosen,
        "returned": len(chosen),
        "has_more": offset + len(chosen) < len(items),
        f"total_{unit}": len(items),
    }
    if page["has_more"]:
        page["next_offset"] = offset + len(chosen)
        page["hint"] = f"call again with offset={page['next_offset']} until has_more is false"
    return page


class FileProgress:
    """The ``progress`` hook of mcb.reports.runner.check_files: one unit per file, a cancel check between files."""

    def __init__(self, ctx: Context):
        self.ctx, self.done, self.total = ctx, 0, None

    def __call__(self, label: str, total: int | None = None):
        self.total = total
        return self

    def __enter__(self):
        self.ctx.check_cancelled()
        self.ctx.progress(0, self.total, "checking")
        return self

    def __exit__(self, *exc) -> bool:
        return False

    def advance(self, step: int = 1) -> None:
        self.done += step
        self.ctx.progress(self.done, self.total, f"{self.done:,} of {self.total:,} files")
        self.ctx.check_cancelled()


def report_page(reports, strict: bool, offset: int, limit: int, files_offset: int = 0, files_limit: int = 100) -> dict:
    """Validation/lint reports in the diagnostic model: the summary of every file, then two pages (MCP-40): the
    per-file verdicts (files_offset/files_limit) and the findings (offset/limit), each with its own counters, so
    a folder of thousands of files is read a page at a time like its findings."""
    single = len(reports) == 1  # a folder's per-file facts would crowd out its findings; schem_info has them
    files = [
        {
            "file": r.file,
            "ok": not r.failed(strict),
            "errors": r.errors,
            "warnings": r.warnings,
            **({"skipped": r.skipped} if r.skipped else {}),
            **({"facts": r.facts} if single and r.facts else {}),
        }
        for r in reports
    ]
    findings = [d.to_json() for r in reports for d in r.diagnostics]
    failed = sum(1 for r in reports if r.failed(strict))
    verdicts = files[files_offset : files_offset + files_limit]
    files_page: dict[str, Any] = {
        "files": verdicts,
        "files_returned": len(verdicts),
        "files_has_more": files_offset + len(verdicts) < len(files),
        "total_files": len(files),
    }
    if files_page["files_has_more"]:
        files_page["next_files_offset"] = files_offset + len(verdicts)
    findings_page = page(findings, offset, limit, "diagnostics")
    if files_page["files_has_more"]:
        more = (
            f"call again with files_offset={files_page['next_files_offset']} until files_has_more is false "
            "for the other files' verdicts"
        )
        findings_page["hint"] = (findings_page["hint"] + "; " + more) if "hint" in findings_page else more
    return {
        "ok": failed == 0,
        "summary": {
            "files": sum(1 for r in reports if not r.skipped),
            "skipped": sum(1 for r in reports if r.skipped),
            "failed": failed,
            "errors": sum(r.errors for r in reports),
            "warnings": sum(r.warnings for r in reports),
        },
        **files_page,
        **findings_page,
    }
