"""All terminal output goes through here.

Data goes to stdout, everything else (progress, warnings, hints, errors) to stderr. ``--json`` switches data
output to stable JSON. Colour follows ``--no-color``, ``NO_COLOR`` (non-empty), ``TERM=dumb`` and whether the
stream is a TTY. Rich is imported on first use so that ``mcb --help`` stays light.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any


def _escaped_lines(message: str) -> str:
    """``message`` with every control character but its line breaks shown escaped (:func:`mcb.wording.shown`):
    messages quote paths and file contents, which must not drive the terminal."""
    from mcb.wording import shown

    return message if message.isprintable() else "\n".join(shown(line) for line in message.split("\n"))


def color_allowed(no_color_flag: bool = False, stream=None) -> bool:
    if no_color_flag:
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = stream or sys.stderr
    return bool(getattr(stream, "isatty", lambda: False)())


def to_json_text(data: Any, *, indent: int | None = 2) -> str:
    return json.dumps(data, indent=indent, ensure_ascii=False, sort_keys=False, default=_json_default)


def _json_default(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json", by_alias=True)
    if hasattr(obj, "to_json"):
        return obj.to_json()
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def _escape_unencodable(stream) -> None:
    """File names that are not valid UTF-8 reach us as lone surrogates: print them as ``\\udcff`` escapes (still
    valid JSON inside a string) instead of dying with UnicodeEncodeError halfway through a report."""
    if getattr(stream, "errors", None) != "backslashreplace" and hasattr(stream, "reconfigure"):
        with contextlib.suppress(Exception):  # a stream that cannot be reconfigured keeps its own policy
            stream.reconfigure(errors="backslashreplace")


class Terminal:
    """Output for one command invocation."""

    def __init__(self, *, json_mode: bool = False, verbosity: int = 0, no_color: bool = False):
        self.json_mode = json_mode
        self.verbosity = verbosity  # -1 quiet, 0 normal, >0 verbose
        self.no_color = no_color
        self._out = None
        self._err = None
        self._data_to_stderr = False
        for stream in (sys.stdout, sys.stderr):
            _escape_unencodable(stream)

    # -- consoles (lazy) -------------------------------------------------
    @property
    def out(self):
        if self._out is None:
            from rich.console import Console

            color = color_allowed(self.no_color, sys.stdout)
            self._out = Console(
                file=sys.stdout,
                no_color=not color,
                color_system="auto" if color else None,
                highlight=False,
                soft_wrap=True,
            )
        return self._out

    @property
    def err(self):
        if self._err is None:
            from rich.console import Console

            color = color_allowed(self.no_color, sys.stderr)
            self._err = Console(
                file=sys.stderr,
                no_color=not color,
                color_system="auto" if color else None,
                highlight=False,
                soft_wrap=True,
            )
        return self._err

    # -- data (stdout) -----------------------------------------------------
    def divert_lines(self) -> None:
        """Send :meth:`line` and :meth:`kv` text to stderr from now on: stdout carries a file (``-o -``), so a
        command's summary becomes a diagnostic."""
        self._data_to_stderr = True

    def json(self, data: Any) -> None:
        sys.stdout.write(to_json_text(data) + "\n")
        sys.stdout.flush()

    def line(self, text: str = "") -> None:
        """A plain line of data on stdout (no markup interpretation)."""
        (sys.stderr if self._data_to_stderr else sys.stdout).write(text + "\n")

    def rich(self, renderable: Any) -> None:
        self.out.print(renderable)

    def table(
        self, columns: Sequence[str], rows: Sequence[Sequence[Any]], *, title: str | None = None, prose: bool = False
    ) -> None:
        """A table on stdout that never cuts a value (no "…").

        On a terminal the table takes the terminal's width and wraps cells between words, so a URL, a path or an
        id stays whole on one line; only when the longest words of the columns cannot stand side by side does a
        cell fold inside a word. Piped or redirected, the table takes the width its widest row needs (one row, one
        line, for scripts), unless ``prose``: a table of sentences to read (`mcb help TOPIC`) wraps to $COLUMNS,
        else 80, as --help pages do."""
        if not rows:  # a header over nothing reads as a rendering fault
            from mcb.wording import EMPTY_TABLE

            self.line(EMPTY_TABLE)
            return
        from mcb.wording import shown

        # Cells hold file and server data: control characters are shown escaped, as in lines.
        cells = [["" if value is None else shown(value) for value in row] for row in rows]
        console = self.out
        widths = whole_word_widths([list(columns), *cells], console.width if console.is_terminal or prose else None)
        from rich.table import Table
        from rich.text import Text

        # Cells are data, not markup: a block state such as `[facing=east]` must print as written.
        table = Table(title=title, show_edge=False, header_style="bold")
        for index, column in enumerate(columns):  # no widths: Rich shares the terminal's width out, folding words
            table.add_column(column, width=widths and widths[index], overflow="fold")
        for row in cells:
            table.add_row(*(Text(value, overflow="fold") for value in row))
        narrow = console.width
        console.width = max(narrow, sum(widths) + 3 * len(widths) - 1) if widths else narrow
        try:
            console.print(table)
        finally:
            console.width = narrow

    def kv(self, pairs: Sequence[tuple[str, Any]]) -> None:
        """Aligned ``key: value`` lines on stdout; an integer value is a count and is shown with thousands
        separators (``4,096``)."""
        from numbers import Integral

        width = max((len(k) for k, _ in pairs), default=0)
        for key, value in pairs:
            if isinstance(value, Integral) and not isinstance(value, bool):
                value = f"{value:,}"
            self.line(f"{key + ':':<{width + 1}} {value}")

    def emit(self, data: Any, human: Any = None) -> None:
        """JSON when --json, else call ``human`` (a callable) or print ``data`` readably."""
        if self.json_mode:
            self.json(data)
        elif callable(human):
            human()
        elif human is not None:
            self.line(str(human))
        else:
            self.line(to_json_text(data))

    # -- diagnostics (stderr) ------------------------------------------------
    def _status(self, prefix: str, style: str, message: str) -> None:
        message = _escaped_lines(message)
        if self._err is None and not color_allowed(self.no_color, sys.stderr):
            # Plain text needs no Rich (importing it costs more than a small command's whole work).
            sys.stderr.write(prefix + message + "\n")
            return
        from rich.markup import escape

        self.err.print(f"[{style}]{prefix}[/{style}]{escape(message)}" if prefix else escape(message))

    def info(self, message: str) -> None:
        if self.verbosity >= 0:
            sys.stderr.write(_escaped_lines(message) + "\n")

    def success(self, message: str) -> None:
        if self.verbosity >= 0:
            self._status("✓ ", "green", message)

    def warn(self, message: str) -> None:
        self._status("warning: ", "yellow", message)

    def error(self, message: str, hint: str | None = None, *, label: str | None = "error") -> None:
        """``label: message`` (``error``, or ``stopped`` for a stop someone asked for; None: the message alone),
        then the hint."""
        self._status(f"{label}: " if label else "", "bold red" if label == "error" else "yellow", message)
        if hint:
            self._status("hint: ", "cyan", hint)

    def debug(self, message: str) -> None:
        if self.verbosity > 0:
            self._status("debug: ", "dim", message)

    # -- progress (stderr) -----------------------------------------------
    @property
    def animated(self) -> bool:
        """Whether progress bars and spinners may draw on stderr: a TTY, not quiet, and neither --no-color, NO_COLOR
        nor TERM=dumb (README: they turn colour and progress bars off; FORCE_COLOR colours, it does not animate)."""
        if self.verbosity < 0 or self.no_color or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
            return False
        return bool(getattr(sys.stderr, "isatty", lambda: False)())

    @contextlib.contextmanager
    def progress(self, description: str, total: float | None = None) -> Iterator[ProgressHandle]:
        """A progress bar on stderr; a silent no-op unless :attr:`animated`."""
        if not self.animated:
            yield ProgressHandle(None, None)
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.err,
            transient=True,
        ) as progress:
            task = progress.add_task(description, total=total)
            yield ProgressHandle(progress, task)

    @contextlib.contextmanager
    def operation_progress(self, label: str) -> Iterator[OperationProgress]:
        """Progress of an operation or a build on stderr: a live bar when :attr:`animated`, otherwise (piped,
        NO_COLOR, TERM=dumb) a plain line every :data:`PLAIN_PROGRESS_INTERVAL` seconds; nothing with -q."""
        if self.verbosity < 0:
            yield OperationProgress(None, None, label)
            return
        if not self.animated:
            yield OperationProgress(None, None, label, plain=True)
            return
        from rich.progress import BarColumn, Progress, TextColumn

        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[counts]}"),
            TextColumn("{task.fields[speed]}"),
            TextColumn("{task.fields[left]}"),
            console=self.err,
            transient=True,
        ) as progress:
            task = progress.add_task(label, total=None, counts="", speed="", left="")
            yield OperationProgress(progress, task, label)


PLAIN_PROGRESS_INTERVAL = 5.0  # seconds between plain progress lines (tests set it shorter)


class OperationProgress:
    """Draws :class:`mcb.client.progress.ProgressView` snapshots (see :meth:`Terminal.operation_progress`)."""

    def __init__(self, progress, task, label: str, *, plain: bool = False):
        import time

        self._progress, self._task, self._label, self._plain = progress, task, label, plain
        self._clock = time.monotonic
        self._last_line = None  # the first view is shown at once

    def show(self, view, label: str | None = None) -> None:
        """Draw ``view``; ``label`` renames what is under way (a batch's next step: its first view shows at once)."""
        if label is not None and label != self._label:
            self._label, self._last_line = label, None
        if self._plain:
            now = self._clock()
            if self._last_line is None or now - self._last_line >= PLAIN_PROGRESS_INTERVAL:
                self._last_line = now
                from mcb.wording import progress_line

                sys.stderr.write(f"{self._label}: {progress_line(view)}\n")
                sys.stderr.flush()
            return
        if self._progress is None:
            return
        from mcb.wording import duration

        description = self._label
        about = "~" if view.estimated else ""
        if view.plans:
            description += f" plan {view.plan or 0}/{about}{view.plans}"
        if view.phase:
            description += f" {view.phase}"
        counts = f"{view.written:,}/{about}{view.total:,}" if view.total else f"{view.written:,}"
        self._progress.update(
            self._task,
            description=description,
            total=view.total or None,
            completed=view.done,
            counts=counts,
            speed=f"{view.rate:,.0f}/s" if view.rate else "",
            left=f"ETA {duration(view.eta)}" if view.eta is not None else "",
        )


def whole_word_widths(grid: list[list[str]], width: int | None) -> list[int] | None:
    """Content widths for the columns of ``grid`` (header first) in a table ``width`` columns wide (None: as wide
    as it needs) that breaks no word: each column as wide as its longest line when they all fit, else its longest
    word plus a share of the spare room by what it lacks; None when the longest words cannot stand side by side.

    >>> whole_word_widths([["key", "value"], ["url", "http://example.org:8765"]], 35)  # all fits
    [3, 23]
    >>> whole_word_widths([["key", "value"], ["note", "one two three four"]], 20)  # "four" wraps
    [4, 11]
    >>> whole_word_widths([["key", "value"], ["url", "http://example.org:8765"]], 30) is None  # the URL must fold
    True
    """
    from rich.cells import cell_len

    columns = list(zip(*grid))
    most = [max(cell_len(line) for cell in column for line in cell.split("\n")) for column in columns]
    if width is None:
        return most
    room = width - (3 * len(columns) - 1)  # a space each side of every cell and a rule between two columns
    least = [max((cell_len(word) for cell in column for word in cell.split()), default=0) for column in columns]
    if sum(most) <= room:
        return most
    if sum(least) > room:
        return None
    lacking = [high - low for high, low in zip(most, least)]
    spare = room - sum(least)
    widths = [low + spare * lack // sum(lacking) for low, lack in zip(least, lacking)]
    for index in sorted(range(len(widths)), key=lambda i: lacking[i], reverse=True)[: room - sum(widths)]:
        widths[index] += 1  # what rounding down kept back
    return widths


class ProgressHandle:
    def __init__(self, progress, task):
        self._progress = progress
        self._task = task

    def advance(self, amount: float = 1) -> None:
        if self._progress is not None:
            self._progress.advance(self._task, amount)

    def update(
        self, *, completed: float | None = None, total: float | None = None, description: str | None = None
    ) -> None:
        if self._progress is not None:
            kwargs = {
                k: v
                for k, v in (("completed", completed), ("total", total), ("description", description))
                if v is not None
            }
            self._progress.update(self._task, **kwargs)
