"""Walk files and directories and run one checker over them, in parallel, with optional progress."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from mcb.errors import InputError
from mcb.reports.model import Diagnostic, FileReport, Severity


def collect_files(
    paths: Iterable[str | os.PathLike],
    patterns: list[str],
    *,
    exclude: Iterable[str] = (),
    walk_exclude: Iterable[str] = (),
    passed_by: list[Path] | None = None,
) -> list[Path]:
    """The files to check: files named directly, and files matching any of ``patterns`` under named directories.

    ``exclude`` patterns apply to everything, named files and directories included (as ruff and check-jsonschema
    do), so ``recipes/*.json --exclude '*.schema.json'`` means what it says. A pattern matches a file's name, its
    path as named or found, or (when walking) its path relative to the walked directory. ``walk_exclude`` patterns
    (a tool's defaults) apply only to walked files: a file named on purpose is still checked.
    Order is stable (the order given, directories sorted), and a file is listed once. ``passed_by``, when given,
    receives the walked regular files that match no pattern (a walk that says what it did not check).
    """
    exclude, walk_exclude = list(exclude), list(walk_exclude)
    found: list[Path] = []
    seen: set[Path] = set()

    def add(path: Path) -> None:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            found.append(path)

    for raw in paths:
        path = Path(raw)
        if str(raw) == "-":  # stdin, read by the checker (once, however often it is named)
            add(path)
            continue
        if _excluded(path, exclude):
            continue
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                here = Path(root)
                dirs[:] = sorted(
                    d
                    for d in dirs
                    if not d.startswith(".") and not _excluded(here / d, exclude, (here / d).relative_to(path))
                )
                for name in sorted(files):
                    file = here / name
                    relative = file.relative_to(path)
                    # only regular files: opening a FIFO (or a device) found while walking would block forever
                    if not file.is_file() or _excluded(file, exclude + walk_exclude, relative):
                        continue
                    if any(fnmatch.fnmatch(name, pattern) for pattern in patterns):
                        add(file)
                    elif passed_by is not None:
                        passed_by.append(file)
        elif path.is_file():
            add(path)
        elif path.exists():
            raise InputError(f"{path}: not a regular file or directory")
        else:
            raise InputError(f"{path}: no such file or directory", hint="check the path")
    return found


def _excluded(path: Path, patterns: list[str], relative: Path | None = None) -> bool:
    if not patterns:
        return False
    names = {path.name, path.as_posix()}
    if relative is not None:
        names.add(relative.as_posix())
    return any(fnmatch.fnmatch(name, pattern) for pattern in patterns for name in names)


def _safe_check(check_one: Callable[[Path], FileReport], path: Path) -> FileReport:
    """A checker bug or an unexpected input must not abort the whole run; it becomes a diagnostic."""
    try:
        return check_one(path)
    except InputError as error:
        return FileReport(
            str(path), [Diagnostic(error.code, Severity.ERROR, error.message, str(path), hint=error.hint_template)]
        )
    except OSError as error:
        return FileReport(
            str(path),
            [Diagnostic("io.read", Severity.ERROR, f"cannot read file: {error.strerror or error}", str(path))],
        )
    except MemoryError:
        return FileReport(
            str(path), [Diagnostic("input.too_large", Severity.ERROR, "file needs too much memory to check", str(path))]
        )


def check_files(
    files: list[Path],
    check_one: Callable[[Path], FileReport],
    *,
    jobs: int | None = None,
    progress: Callable[..., AbstractContextManager] | None = None,
) -> list[FileReport]:
    """Run ``check_one`` over ``files``; results come back in input order.

    Threads suffice: the heavy parts (zlib, numpy) release the GIL, and threads keep start-up cheap.
    """
    jobs = jobs or min(8, (os.cpu_count() or 2))
    context = progress("checking", total=len(files)) if (progress and len(files) > 1) else nullcontext(None)
    with context as bar:
        if jobs <= 1 or len(files) <= 1:
            results = []
            for path in files:
                results.append(_safe_check(check_one, path))
                if bar is not None:
                    bar.advance()
            return results
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_safe_check, check_one, path) for path in files]
            results = []
            for future in futures:
                results.append(future.result())
                if bar is not None:
                    bar.advance()
            return results
