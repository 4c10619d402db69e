"""Atomic file writes: a temp file in the target's directory, fsync, then ``os.replace``.

A reader (or a crash) sees either the old file or the whole new one, never a half-written file. New files get the
usual permissions (0666 minus the umask), a replaced file keeps its own, and ``mode`` forces one (0600 for secrets).
"""

from __future__ import annotations

import contextvars
import errno
import os
import stat
import tempfile
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from pathlib import Path


def _current_umask() -> int:
    # os.umask can only be read by setting it; the value is restored at once (import time, single-threaded).
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


# -- `-`: standard input and output --------------------------------------------------------------------------
class _Stdout:
    """The CLI's ``-o -``: :func:`writing` and :func:`write_atomic` send the bytes to stdout. A distinct object, not
    the string ``-``, so a path named ``-`` from elsewhere (an MCP tool's argument) stays a file name."""

    def __str__(self) -> str:
        return "-"

    __repr__ = __str__


STDOUT = _Stdout()


def is_dash(value) -> bool:
    """Whether the user named ``-`` (stdin or stdout)."""
    return value is not None and (value is STDOUT or str(value) == "-")


def read_stdin(limit: int, what: str = "input") -> bytes:
    """At most ``limit + 1`` bytes of stdin (the caller refuses the ``+ 1``); refused when stdin is a terminal,
    where a read would wait for typing."""
    import sys

    from mcb.errors import UsageError

    stream = sys.stdin
    if stream is None or getattr(stream, "isatty", lambda: False)():
        raise UsageError(f"{what} '-' is stdin, which is a terminal here", hint="pipe the file in: `... - < FILE`")
    return stream.buffer.read(limit + 1)


def regular_file_size(path: Path) -> int:
    """The size of ``path``; an InputError saying what it is instead when it is not a regular file."""
    from mcb.errors import InputError

    try:
        info = path.stat()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file", code="file.missing", hint="check the path") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied", code="file.unreadable") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror or error})", code="file.unreadable") from None
    if not stat.S_ISREG(info.st_mode):
        folder = stat.S_ISDIR(info.st_mode)
        raise InputError(
            f"{path}: {'is a directory' if folder else 'not a regular file'}",
            code="file.not_regular",
            hint="give one file in it, not the folder" if folder else None,
        )
    return info.st_size


def refuse_input_as_output(output, inputs, *, field: str = "output", hint: str = "write a new file") -> None:
    """A command never writes over a file it reads (only rotate/mirror in place do, on purpose): UsageError
    naming the argument ``field`` when ``output`` is one of ``inputs`` (the same file by any path: a link, ``./``,
    another spelling)."""
    if output is None or output is STDOUT or not os.path.exists(output):
        return
    for source in inputs:
        if source is None or str(source) == "-":
            continue
        try:
            same = os.path.samefile(output, source)
        except OSError:
            same = False
        if same:
            from mcb.errors import UsageError

            raise UsageError(
                f"{{{field}}} is the input file {source}: writing it would destroy what is read",
                hint=hint,
                details={"field": field},
            )


@contextmanager
def writing(path: str | os.PathLike):
    """Write ``path`` inside this block, the same way for every command: a directory or a missing folder is
    refused first, and an OSError on the way becomes an InputError naming ``path``. Codes: ``file.not_regular``,
    ``file.unwritable``. (A device or pipe is streamed into by :func:`write_atomic`: `-o /dev/stdout` works.)"""
    from mcb.errors import InputError

    if path is STDOUT:
        yield STDOUT
        return
    target = Path(path)
    try:
        check_output_path(target)  # the one check of a path to write, as write_atomic makes it
    except IsADirectoryError:
        raise InputError(f"{target}: is a directory", code="file.not_regular", hint="name a file to write") from None
    except FileNotFoundError:
        raise InputError(
            f"{target}: the folder {target.parent} does not exist",
            code="file.unwritable",
            hint="write into an existing folder",
        ) from None
    try:
        yield target
    except OSError as error:
        raise InputError(f"{target}: cannot write ({error.strerror or error})", code="file.unwritable") from None


def check_output_path(path: str | os.PathLike) -> None:
    """Raise the OSError a user can act on (naming ``path``, not a temp file) when ``path`` cannot be a new file."""
    if path is STDOUT:
        return
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", str(target))
    if not directory.is_dir():
        raise FileNotFoundError(errno.ENOENT, "no such directory", str(directory))


_BEFORE_REPLACE: contextvars.ContextVar[tuple[Callable[[], None], Callable] | None] = contextvars.ContextVar(
    "mcb_before_replace", default=None
)


@contextmanager
def cancellable_writes(check: Callable[[], None], renaming: Callable | None = None):
    """Inside the block, every atomic write of this thread calls ``check()`` before it starts and again just before
    its rename: an exception from it (a cancelled call) leaves the target exactly as it was and removes the temp
    file, so a write cancelled at any time leaves no trace (mcb mcp, MCP-49).

    ``renaming``: a context manager factory held around the rename itself, which checks too; a cancel from another
    thread that takes the same lock comes either before the check (the rename is called off) or after the rename
    (the file is replaced), never between the two (mcb.mcp.context.CallContext.renaming).

        with cancellable_writes(ctx.check_cancelled, ctx.renaming):
            transform_file(path, path, degrees=90)   # in place: the old bytes stay unless it completes
    """
    token = _BEFORE_REPLACE.set((check, renaming or _checked(check)))
    try:
        yield
    finally:
        _BEFORE_REPLACE.reset(token)


def _checked(check: Callable[[], None]) -> Callable:
    @contextmanager
    def renaming():
        check()
        yield

    return renaming


def write_atomic(
    path: str | os.PathLike, data: bytes | str, *, mode: int | None = None, fsync: bool = True, sync_dir: bool = False
) -> Path:
    """Write ``data`` (text is UTF-8) to ``path`` atomically and return the path.

    ``sync_dir`` also fsyncs the directory so the rename itself survives a power loss (journals, libraries).
    :data:`STDOUT` writes the bytes to stdout instead (and returns it). Inside :func:`cancellable_writes` the
    write may be called off until the moment of the rename.
    """
    hooks = _BEFORE_REPLACE.get()
    if hooks is not None:
        hooks[0]()
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if path is STDOUT:
        import sys

        sys.stdout.flush()
        sys.stdout.buffer.write(payload)
        sys.stdout.buffer.flush()
        return STDOUT
    target = Path(path)
    check_output_path(target)
    try:
        existing = os.stat(target)  # follows symlinks
    except OSError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        # A FIFO, terminal or device (`-o /dev/stdout | viewer`): renaming over it would replace the node itself
        # with a regular file (as root even /dev/null), so stream into it; there is no old content to protect.
        with open(target, "wb") as handle:
            handle.write(payload)
        return target
    if target.is_symlink():  # replace the file the link points at and keep the link
        target = Path(os.path.realpath(target))
    directory = target.parent if str(target.parent) else Path(".")
    if mode is None:
        try:
            mode = os.stat(target).st_mode & 0o7777
        except OSError:
            mode = 0o666 & ~_UMASK
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as error:  # e.g. no write permission: name the file the user asked for, not the temp file
        raise type(error)(error.errno, error.strerror, str(target)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
        os.chmod(temp, mode)
        with hooks[1]() if hooks is not None else nullcontext():
            os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    if sync_dir:
        try:
            dir_fd = os.open(directory, os.O_RDONLY)
        except OSError:
            return target
        try:
            os.fsync(dir_fd)
        except OSError:
            pass
        finally:
            os.close(dir_fd)
    return target


# -- reading inputs the user names (recipes, plans, batch files, brushes) ----------------------------------
SERVER_REQUEST_BYTES = 1_048_576  # protocol §1.2 step 4: a request body over 1 MiB is refused ("Request exceeds 1 MiB")
MAX_INPUT_BYTES = 16 * SERVER_REQUEST_BYTES  # any real input fits, a runaway pipe stops


def read_input_text(source: str | os.PathLike, what: str) -> str:
    """The UTF-8 text (BOM removed) of a file or of stdin (``-``), read at most 16 MiB; one-line errors with a hint.

    ``what`` names the input in messages ("recipe", "batch file", ...). Raises :class:`mcb.errors.InputError`.
    """
    from mcb.errors import InputError

    name = "stdin" if str(source) == "-" else str(source)
    try:
        if str(source) == "-":
            data = read_stdin(MAX_INPUT_BYTES, what)
        else:
            kind = os.stat(source).st_mode
            if not (stat.S_ISREG(kind) or stat.S_ISDIR(kind)):  # a FIFO with no writer would block forever
                raise InputError(
                    f"{what} {name} is not a regular file (a pipe, socket or device)",
                    hint=f"give a file, or pipe the {what} into stdin and name it -",
                )
            with open(source, "rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"{what} {name} does not exist", hint="check the path") from None
    except IsADirectoryError:
        raise InputError(
            f"{what} {name} is a directory, not a file", hint=f"give the path of the {what} itself, not of its folder"
        ) from None
    except PermissionError:
        raise InputError(
            f"{what} {name} cannot be read: permission denied", hint=f"check the file's permissions (`ls -l {name}`)"
        ) from None
    except OSError as error:
        raise InputError(f"cannot read {what} {name}: {error.strerror or error}") from None
    if len(data) > MAX_INPUT_BYTES:  # read no further: a runaway pipe or a huge file must not fill memory
        raise InputError(f"{what} {name} is larger than 16 MiB", hint="the server accepts requests of at most 1 MiB")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise InputError(f"{what} {name} is not UTF-8 text (byte {error.start})", hint="save it as UTF-8") from None


def parse_json_input(
    text: str, what: str, name: str, *, loads=None, hint: str | None = None, empty_hint: str | None = None
):
    """``json.loads(text)`` (or ``loads``) with one-line messages: empty input, where the syntax breaks, nesting.

    The default reader refuses ``NaN``/``Infinity`` (not JSON) and numbers too large for a double (``1e999``): sent
    on, they would be invalid JSON on the wire."""
    import json

    from mcb.errors import InputError

    if not text.strip():
        raise InputError(
            f"{what} {name} is empty", hint=empty_hint or f"a {what} is a JSON document; is it the right file?"
        )
    try:
        return (loads or loads_json)(text)
    except json.JSONDecodeError as error:
        raise InputError(
            f"{what} {name} is not valid JSON at line {error.lineno}, column {error.colno}: "
            f"{error.msg[:1].lower()}{error.msg[1:]}",
            hint=hint,
        ) from None
    except ValueError as error:
        # Python refuses to convert an integer literal above its digit limit (a denial-of-service guard); say that
        # in a person's words instead of pointing at sys.set_int_max_str_digits().
        import re

        digits = re.search(r"value has (\d+) digits", str(error))
        problem = f"a number with {digits.group(1)} digits is too long" if digits else str(error)
        raise InputError(f"{what} {name} is not usable JSON: {problem}", hint=hint) from None
    except RecursionError:
        raise InputError(f"{what} {name} is not usable JSON: nesting too deep") from None


def loads_json(text: str, *, parse_int=None):
    """The one strict JSON reader: ``json.loads`` refusing what is not JSON although Python reads it (``NaN``,
    ``Infinity``) and numbers beyond a double (``1e400``), each with a ValueError that says so. ``parse_int``:
    json's hook for integer literals (mcb mcp keeps one too long for Python as a number its arguments refuse)."""
    import json

    return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float, parse_int=parse_int)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    import math

    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a number")
    return value
