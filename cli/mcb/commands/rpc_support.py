"""Helpers shared by the RPC command modules: settings → client, argument parsing, plan/status printing.

Only stdlib, typer, ``mcb.options`` and ``mcb.errors`` at module level; the client is imported on use.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import typer

from mcb.errors import UsageError, exit_codes_epilog
from mcb.options import app_state, terminal
from mcb.wording import EMPTY_TABLE, positions_written

EXIT_CODES_HELP = exit_codes_epilog()


def json_terminal(ctx: typer.Context, json_flag: bool):
    """The command's terminal; a subcommand ``--json`` also makes errors come out as JSON on stderr."""
    state = app_state(ctx)
    state.json = state.json or json_flag
    return terminal(ctx, json_flag)


def load_settings(ctx: typer.Context, *, tolerant: bool = False):
    from mcb.config import load_settings as resolve

    state = app_state(ctx)
    return resolve(server=state.server, profile=state.profile, timeout=state.timeout, tolerant=tolerant)


@contextlib.contextmanager
def open_client(ctx: typer.Context, term=None):
    """An :class:`McbClient` for the effective settings, closed on exit; HTTP lines go to ``term.debug`` at ``-vv``.

    A ``recovery_required`` refusal escaping the block gets a hint naming the operation to review.
    """
    from mcb.client import McbClient
    from mcb.errors import AuthError, ConflictError
    from mcb.redact import redact_url

    settings = load_settings(ctx)
    log = None
    if term is not None and term.verbosity >= 2:
        log = term.debug
    if term is not None:
        term.debug(f"server {redact_url(settings.server)} (from {settings.sources.get('server', 'default')})")
    client = McbClient.from_settings(settings, log=log)
    try:
        yield client
    except ConflictError as error:
        from mcb.client.operations import recovery_hint

        recovery_hint(client, error)
        raise
    except AuthError as error:
        if (error.details or {}).get("reason") == "invalid_token":  # the refusal table's row for a stale token
            from mcb.client.methods import requires_admin
            from mcb.config import refused_token_hint

            error.hint = refused_token_hint(settings, requires_admin(error.details.get("method", "")))
        raise
    finally:
        client.close()


SPINNER_DELAY = 1.0  # a write that answers within a second needs no spinner


@contextlib.contextmanager
def spinner_after(term, text: str, delay: float = SPINNER_DELAY):
    """A spinner on stderr once a write has taken ``delay`` seconds; nothing unless ``term.animated`` (a TTY, not
    -q, no NO_COLOR/--no-color)."""
    if term is None or not term.animated:
        yield
        return
    import threading

    status = term.err.status(text)
    lock = threading.Lock()
    finished = False

    def start() -> None:
        with lock:
            if not finished:
                status.start()

    timer = threading.Timer(delay, start)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            finished = True
            status.stop()


def parse_position(text: str, option: str) -> dict[str, int]:
    parts = [p.strip() for p in text.split(",")]
    try:
        if len(parts) != 3:
            raise ValueError
        x, y, z = (int(p) for p in parts)
    except ValueError:
        raise UsageError(f"{option} expects x,y,z integers, got {text!r}", hint=f"e.g. {option} 0,64,0") from None
    return {"x": x, "y": y, "z": z}


def read_json_source(source: str, what: str) -> Any:
    """JSON from a file path or ``-`` (stdin), read up to 16 MiB; one-line errors with a hint (mcb.fileio)."""
    from mcb.fileio import parse_json_input, read_input_text

    name = "stdin" if source == "-" else source
    hint = empty_hint = None
    if what == "recipe":
        hint = f"`mcb recipe lint {source}` shows what is wrong and where"
        empty_hint = 'a recipe is a JSON object: {"version": 1, "operations": [...]}'
    return parse_json_input(read_input_text(source, what), what, name, hint=hint, empty_hint=empty_hint)


def check_output(path: Path | None, *inputs) -> None:
    """Refuse an output path that can never be written (a directory, a missing folder) or that is one of the
    command's ``inputs``, before asking the server."""
    if path is not None:
        from mcb.fileio import check_output_path, refuse_input_as_output

        refuse_input_as_output(path, inputs)
        check_output_path(path)  # OSError: the CLI boundary turns it into `error: PATH: reason`, exit 1


def write_text_atomic(path: Path, data: bytes | str) -> None:
    from mcb.fileio import write_atomic

    write_atomic(path, data)


def write_json_atomic(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def id_table(term, columns, rows) -> None:
    """A plain aligned table on stdout that never truncates or wraps (ids must stay copyable); "none" when empty."""
    if not rows:
        term.line(EMPTY_TABLE)
        return
    cells = [[str(c) for c in columns]] + [["" if v is None else str(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    for index, row in enumerate(cells):
        term.line("  ".join(value.ljust(width) for value, width in zip(row, widths)).rstrip())
        if index == 0:
            term.line("  ".join("-" * width for width in widths))


def show_plan(term, plan, *, title: str = "plan") -> None:
    pairs = [("plan id", plan.plan_id), ("plan hash", plan.plan_hash), ("changed blocks", plan.changed_blocks)]
    if plan.region is not None:
        pairs.append(("project area", plan.region.text()))
    if plan.expires_at:
        import time

        pairs.append(("expires in", f"{max(0, round(plan.expires_at / 1000 - time.time()))} s"))
    term.kv(pairs)


def show_status(term, status) -> None:
    term.kv(
        [
            ("operation", status.operation_id),
            ("status", status.status),
            ("progress", positions_written(status.written, status.total_changes, status.processed)),
            ("message", status.message),
        ]
    )
    if status.conflicts:
        term.table(
            ["pos", "reason", "expected", "current", "desired"],
            [(c.pos.text(), c.reason, c.expected, c.current, c.desired) for c in status.conflicts],
        )


def wait_with_progress(
    term, client, operation_id: str, *, timeout: float, interval: float | None = None, first=None,
    rerun: str | None = None,
):  # fmt: skip
    """Wait for a terminal status with progress on stderr (a bar on a TTY, else plain periodic lines).

    Ctrl-C stops the waiting, not the operation: it exits 130 naming the operation and the command that resumes
    waiting (``rerun``, e.g. "the same `mcb build` command", is offered as well).
    """
    from mcb.client.errors import Interrupted
    from mcb.client.operations import follow_operation
    from mcb.client.progress import OperationViews
    from mcb.waiting import WaitPolicy

    last = {"status": first}
    views = OperationViews()
    policy = WaitPolicy(timeout=timeout) if interval is None else WaitPolicy(timeout=timeout, interval=interval)
    with term.operation_progress(f"operation {operation_id[:8]}") as bar:

        def on_status(status) -> None:
            last["status"] = status
            bar.show(views(status))

        try:
            return follow_operation(client, operation_id, policy, on_status=on_status, first=first)
        except KeyboardInterrupt:
            seen = last["status"]
            where = ""
            if seen is not None:
                progress = positions_written(seen.written, seen.total_changes, seen.processed)
                where = f" (last seen {seen.status}, {progress})"
            also = f" (or run {rerun} again)" if rerun else ""
            raise Interrupted(
                f"interrupted: stopped waiting for operation {operation_id}{where}; Ctrl-C does not cancel it",
                hint=f"`mcb status {operation_id} --wait` resumes waiting{also}; `mcb cancel {operation_id}` stops it",
                details={"operation_id": operation_id, "status": seen.status if seen else None},
            ) from None


@contextlib.contextmanager
def ctrl_c(stop, term):
    """Ctrl-C during a write on the engine: once, stop after the plan under way; twice, cancel it too; a third
    time, now (exit 130). Every long write of mcb takes Ctrl-C this way."""
    import signal

    def handler(signum, frame) -> None:
        stop.press()
        if stop.presses == 1:
            term.warn("stopping after the plan under way (Ctrl-C again cancels it)")
        elif stop.presses == 2:
            term.warn("cancelling the running operation")
        else:
            raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread: Ctrl-C keeps its default
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def placement_options(target: str | None, rotation: int, mirror: str | None, *, skip_air: bool = False,
                      keep_existing: bool = False, drop_extras: bool = False, replace_unknown: str | None = None):  # fmt: skip
    """The one placement model (:class:`mcb.building.placement.PlacementOptions`) from the command line's options;
    a value it cannot take is a usage error naming the option."""
    from mcb.building.placement_options import PlacementOptions

    if target is None:
        raise UsageError("a schematic needs --target x,y,z (where the file's anchor goes)")
    if rotation not in (0, 90, 180, 270):
        raise UsageError(f"--rotation must be 0, 90, 180 or 270, not {rotation}")
    if mirror not in (None, "x", "z"):
        raise UsageError(f"--mirror must be x or z, not {mirror!r}")
    if replace_unknown is not None and not replace_unknown.strip():
        raise UsageError("--replace-unknown needs a block state, e.g. minecraft:stone")
    anchor = parse_position(target, "--target")
    optional = {"mirror": mirror, "replace_unknown": replace_unknown}
    return PlacementOptions(
        target=(anchor["x"], anchor["y"], anchor["z"]), rotation=rotation, skip_air=skip_air,
        keep_existing=keep_existing, drop_extras=drop_extras, **{k: v for k, v in optional.items() if v is not None},
    )  # fmt: skip


def finish_status(term, status) -> None:
    """Print a (terminal) status, then raise the error that gives the right exit code if it did not apply."""
    from mcb.client.operations import raise_for_outcome

    term.emit(status.wire(), lambda: show_status(term, status))
    raise_for_outcome(status)


__all__ = [
    "EXIT_CODES_HELP",
    "finish_status",
    "spinner_after",
    "id_table",
    "json_terminal",
    "load_settings",
    "open_client",
    "parse_position",
    "read_json_source",
    "check_output",
    "ctrl_c",
    "placement_options",
    "show_plan",
    "show_status",
    "terminal",
    "wait_with_progress",
    "write_json_atomic",
    "write_text_atomic",
]
