"""`mcb build FILE --target X,Y,Z` for a schematic file: estimate, build, resume and undo (the face only; the
engine is :mod:`mcb.batch.schematic` on the batch machinery)."""

from __future__ import annotations

import contextlib
import signal
import sys
import time
from pathlib import Path

from mcb.commands.rpc_support import open_client
from mcb.errors import InputError, UsageError
from mcb.wording import duration, plural, shown


def is_schematic_file(source: str) -> bool:
    """A schematic is NBT (gzip or raw compound); a recipe is JSON. The content decides, never the name."""
    if source == "-":
        return False
    try:
        with open(source, "rb") as handle:
            head = handle.read(2)
    except OSError:
        return False  # the recipe path reports the unreadable file
    return head == b"\x1f\x8b" or head[:1] == b"\x0a"


def run_schematic_build(ctx, term, file: str | None, *, target: str | None, rotation: int, mirror: str | None,
                        skip_air: bool, keep_existing: bool, drop_extras: bool, dry_run: bool, undo: bool,
                        build_id: str | None, yes: bool, wait_timeout: float) -> None:
    from mcb.batch.schematic import build_identity, build_state_path
    from mcb.building.placement import PlacementOptions, load_placement
    from mcb.commands.rpc_support import parse_position

    if file is None:  # --undo --build-id ID
        if not (undo and build_id):
            raise UsageError("give FILE --target x,y,z, or --undo --build-id ID")
        with open_client(ctx, term) as client:
            return _undo(term, client, build_id, build_state_path(build_id), yes, wait_timeout, None)
    if target is None:
        raise UsageError("a schematic build needs --target x,y,z (where the file's anchor goes)",
                         hint=f"e.g. mcb build {shown(file)} --target 0,64,0 --dry-run")
    anchor = parse_position(target, "--target")
    options = PlacementOptions(target=(anchor["x"], anchor["y"], anchor["z"]), rotation=rotation, mirror=mirror,
                               skip_air=skip_air, keep_existing=keep_existing, drop_extras=drop_extras)
    with open_client(ctx, term) as client:
        placement = load_placement(file, options)
        for line in (placement.upgrade.lines() if placement.upgrade is not None else []):
            term.info(f"{shown(file)}: {line}")
        if placement.dropped:
            term.warn(f"--drop-extras: {_extras(placement.dropped)} of {shown(file)} are not built")
        identity = build_id or build_identity(client.server, client.project_id, client.player_id,
                                              placement.file_sha256, options.to_json())
        state_path = build_state_path(identity)
        if undo:
            return _undo(term, client, identity, state_path, yes, wait_timeout, file)
        context = client.project_context()
        from mcb.building.placement import check_fits

        check_fits(placement, context.region)
        capacity = context.max_plan_blocks or 4096
        if dry_run:
            return _dry_run(term, client, placement, identity, capacity, context)
        if not yes and not _confirmed(term, placement, capacity):
            raise InputError("nothing was built (not confirmed)", code="not_confirmed",
                             hint="add --yes to build without asking")
        _build(term, client, file, placement, options, identity, state_path, wait_timeout)


def _extras(dropped: dict) -> str:
    parts = []
    if dropped.get("block_entities"):
        parts.append(plural(dropped["block_entities"], "block entity", "block entities"))
    if dropped.get("entities"):
        parts.append(plural(dropped["entities"], "entity", "entities"))
    return " and ".join(parts)


def _confirmed(term, placement, capacity: int) -> bool:
    """Ask on a terminal (scripts pass --yes; without a terminal nobody can answer, so the build goes ahead)."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return True
    from mcb.building.estimate import file_estimate

    guess = file_estimate(placement, capacity)
    box = placement.world_box()
    sys.stderr.write(f"build {shown(placement.path)}: up to {guess['blocks']:,} blocks in {_box(box)}, at most "
                     f"{plural(guess['plans'], 'plan')} on empty land (about {duration(guess['seconds_at_20_tps'])} "
                     f"at 20 TPS)\n")
    import typer

    return typer.confirm("Build it?", default=False, err=True)


def _box(box) -> str:
    if box is None:
        return "nothing"
    (x1, y1, z1), (x2, y2, z2) = box
    return f"{x1},{y1},{z1} .. {x2},{y2},{z2} ({x2 - x1 + 1} x {y2 - y1 + 1} x {z2 - z1 + 1})"


# -- dry run ------------------------------------------------------------------------------------------------------
def _dry_run(term, client, placement, identity: str, capacity: int, context) -> None:
    from mcb.building.estimate import estimate_build

    with term.operation_progress("reading") as bar:
        from mcb.client.progress import ProgressView

        def on_plan(plans, positions, planner) -> None:
            bar.show(ProgressView(done=0, total=None, written=0, phase=f"{plural(plans, 'plan')}, "
                                  f"{positions:,} positions to change so far"))

        estimate = estimate_build(client, placement, capacity=capacity, on_plan=on_plan)
    area = context.region
    data = {"build_id": identity, "file": placement.path, "dry_run": True, **placement.options.to_json(),
            "area": None if area is None else {"min": area.min.wire(), "max": area.max.wire()}, **estimate}

    def human() -> None:
        journal = estimate["journal_bytes"]
        pairs = [("build", f"{identity} (dry run: nothing was written)"), ("file", shown(placement.path)),
                 ("box", _box(placement.world_box()) + (f", inside {area.text()}" if area is not None else "")),
                 ("to change", f"{estimate['positions_to_change']:,} positions, "
                               f"{estimate['replaces_blocks']:,} of them replace a block"),
                 ("plans", f"{estimate['plans']} (at most {capacity:,} positions each)"),
                 ("time", f"about {duration(estimate['seconds_at_20_tps'])} at 20 TPS"),
                 ("journal", f"{journal['low'] / 1e6:,.1f}-{journal['high'] / 1e6:,.1f} MB added to the plugin's "
                             "journal")]
        term.kv(pairs)
        if estimate["replaced"]:
            term.table(["replaced block", "positions"],
                       [(state, f"{count:,}") for state, count in list(estimate["replaced"].items())[:20]])

    term.emit(data, human)


# -- the build ------------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def ctrl_c(stop, term):
    """Ctrl-C once: stop at the next plan boundary; twice: cancel the running operation too; a third time: now."""
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


def _build(term, client, file: str, placement, options, identity: str, state_path: Path,
           wait_timeout: float) -> None:
    from mcb.batch.plans import StopRequest
    from mcb.batch.runner import BatchRunner
    from mcb.batch.schematic import BUILD_STEP, one_step_batch, restart_finished
    from mcb.batch.state import BatchState, exclusive_run

    state_path.parent.mkdir(parents=True, exist_ok=True)
    fields = {"target": list(options.target), "rotation": options.rotation, "mirror": options.mirror,
              "skip_air": options.skip_air, "keep_existing": options.keep_existing,
              "drop_extras": options.drop_extras}
    batch = one_step_batch(Path(file), fields, state_path)
    stop = StopRequest()
    started = time.monotonic()
    with exclusive_run(state_path):
        state = BatchState.load(state_path, server=client.server, project_id=client.project_id)
        state.data["build_id"] = identity
        restart_finished(state)
        term.info(f"build {identity}: {shown(file)} at {','.join(map(str, options.target))} "
                  f"(state {shown(state_path)})")
        with term.operation_progress(f"build {identity}") as bar, ctrl_c(stop, term):
            runner = BatchRunner(client, batch, state, retry_failed=True, wait_timeout=wait_timeout, interval=0.1,
                                 on_event=lambda event, name, details: _event(term, event, details),
                                 on_view=lambda name, view: bar.show(view), stop=stop)
            runner.context.placements[(str(Path(file).resolve()), options)] = placement
            report = runner.run().steps[0]
    record = state.step(BUILD_STEP) or {}
    run = record.get("last_run") or {}
    entries = [e for e in record.get("plans", []) if e.get("operation_id")]
    data = {"build_id": identity, "file": placement.path, **options.to_json(), "state_file": str(state_path),
            "result": report.result, "plans": run.get("plans", 0), "operations": run.get("operations", []),
            "written": run.get("written", 0), "seconds": round(time.monotonic() - started, 1),
            "build_operations": len(entries), "reads": run.get("reads")}
    if report.error is not None:
        data["error"] = report.error.to_json()

    def human() -> None:
        result = report.result.replace("_", " ")
        if report.result == "error" and report.error is not None:
            result = f"stopped ({report.error.code})"
        term.kv([("build", identity), ("result", result),
                 ("this run", f"{plural(data['plans'], 'plan')}, {data['written']:,} positions written in "
                              f"{duration(data['seconds'])}"),
                 ("operations", f"{data['build_operations']} in all; undo them with "
                                f"`mcb build --undo --build-id {identity}`")])

    term.emit(data, human)
    if report.error is not None:
        raise report.error


def _event(term, event: str, details: dict) -> None:
    if event == "replan":
        term.warn(f"re-reading near {details['tile']} ({details['why']})")
    elif event == "resume":
        term.info(f"an earlier run left operation {details['operation_id']} in flight: waiting for it first")
    elif event in ("prepared", "finished"):
        from mcb.commands.batch import describe_event

        term.debug(describe_event(event, details))


# -- undo ---------------------------------------------------------------------------------------------------------
def _undo(term, client, identity: str, state_path: Path, yes: bool, wait_timeout: float, file: str | None) -> None:
    from mcb.batch.plans import StopRequest
    from mcb.batch.schematic import BUILD_STEP, undo_build, undoable
    from mcb.batch.state import BatchState, exclusive_run

    if not state_path.exists():
        raise InputError(f"no build {identity} is recorded here ({shown(state_path)})", code="unknown_build",
                         hint="use the FILE, --target and placement options of the build, or the build id it printed")
    stop = StopRequest()
    with exclusive_run(state_path):
        state = BatchState.load(state_path, server=client.server, project_id=client.project_id)
        record = state.step(BUILD_STEP) or {}
        count = len(undoable(record.get("plans") or []))
        if count and not yes and sys.stdin.isatty() and sys.stderr.isatty():
            import typer

            if not typer.confirm(f"Undo build {identity} ({plural(count, 'operation')}, newest first)?",
                                 default=False, err=True):
                raise InputError("nothing was undone (not confirmed)", code="not_confirmed",
                                 hint="add --yes to undo without asking")
        with term.operation_progress(f"undo {identity}") as bar, ctrl_c(stop, term):
            result = undo_build(client, state, wait_timeout=wait_timeout, interval=0.1, stop=stop,
                                on_view=bar.show, on_event=lambda event, details: _event(term, event, details))
    data = {"build_id": identity, "undone_operations": result["undone"], "restored": result["written"],
            "state_file": str(state_path)}
    term.emit(data, lambda: term.kv([("build", identity), ("undone", plural(result["undone"], "operation")),
                                     ("restored", f"{result['written']:,} positions")]))
