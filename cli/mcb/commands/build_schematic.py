"""`mcb build FILE --target X,Y,Z` for a schematic file: estimate, build, resume and undo (the face only; the
engine is :mod:`mcb.batch.schematic` on the batch machinery)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys

from mcb.commands.rpc_support import open_client
from mcb.errors import InputError, UsageError
from mcb.wording import duration, plural, shown


def is_schematic_file(source: str) -> bool:
    """A schematic is NBT (gzip or raw compound) or a file named like one (the format registry's extensions); a
    recipe is JSON. So `x.schem` missing, unreadable or holding a JPEG is reported by the schematic reader, which
    says what it is, not as a recipe that is not UTF-8. A folder is neither: InputError."""
    if source == "-":
        return False
    from mcb.schematics.formats import extensions_text, named_by

    if os.path.isdir(source):
        raise InputError(
            f"{source} is a directory, not a file",
            code="file.not_regular",
            hint=f"name one file: a schematic ({extensions_text()}) or a recipe (.json)",
        )
    if named_by(source):
        return True
    try:
        with open(source, "rb") as handle:
            head = handle.read(2)
    except OSError:  # the recipe path reports the unreadable file
        return False
    # gzip, or an uncompressed root compound (tag 10, then a name length whose high byte is 0): JSON has no NUL
    return head in (b"\x1f\x8b", b"\x0a\x00")


def run_schematic_build(
    ctx,
    term,
    file: str | None,
    *,
    target: str | None,
    rotation: int,
    mirror: str | None,
    skip_air: bool,
    keep_existing: bool,
    drop_extras: bool,
    replace_unknown: str | None,
    dry_run: bool,
    undo: bool,
    build_id: str | None,
    yes: bool,
    wait_timeout: float,
) -> None:
    from mcb.batch.file_build import open_file_build
    from mcb.building.placement import PlacementOptions
    from mcb.commands.rpc_support import parse_position

    if file is None:  # --undo --build-id ID
        if not (undo and build_id):
            raise UsageError("give FILE --target x,y,z, or --undo --build-id ID")
        with open_client(ctx, term) as client:
            return _undo(term, client, build_id, yes, wait_timeout)
    if target is None:
        raise UsageError(
            "a schematic build needs --target x,y,z (where the file's anchor goes)",
            hint=f"e.g. mcb build {shown(file)} --target 0,64,0 --dry-run",
        )
    anchor = parse_position(target, "--target")
    options = PlacementOptions(
        target=(anchor["x"], anchor["y"], anchor["z"]),
        rotation=rotation,
        mirror=mirror,
        skip_air=skip_air,
        keep_existing=keep_existing,
        drop_extras=drop_extras,
        replace_unknown=replace_unknown,
    )
    with open_client(ctx, term) as client:
        build = open_file_build(client, file, options, check_area=not undo)
        placement = build.placement
        for line in placement.upgrade.lines() if placement.upgrade is not None else []:
            term.info(f"{shown(file)}: {line}")
        if placement.dropped:
            one = sum(placement.dropped.values()) == 1
            term.warn(
                f"--drop-extras: {_extras(placement.dropped)} of {shown(file)} {'is' if one else 'are'} not built"
            )
        if undo:
            return _undo(term, client, build.build_id, yes, wait_timeout)
        if dry_run:
            return _dry_run(term, build)
        if not yes and not _confirmed(term, placement, build.capacity):
            raise InputError(
                "nothing was built (not confirmed)", code="not_confirmed", hint="add --yes to build without asking"
            )
        _build(term, build, wait_timeout)


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
    sys.stderr.write(
        f"build {shown(placement.path)}: up to {guess['blocks']:,} blocks in {_box(box)}, at most "
        f"{plural(guess['plans'], 'plan')} on empty land (about {duration(guess['seconds_at_20_tps'])} "
        f"at 20 TPS)\n"
    )
    import typer

    return typer.confirm("Build it?", default=False, err=True)


def _box(box) -> str:
    if box is None:
        return "nothing"
    (x1, y1, z1), (x2, y2, z2) = box
    return f"{x1},{y1},{z1} .. {x2},{y2},{z2} ({x2 - x1 + 1} x {y2 - y1 + 1} x {z2 - z1 + 1})"


# -- dry run ------------------------------------------------------------------------------------------------------
def _dry_run(term, build) -> None:
    from mcb.client.progress import ProgressView

    with term.operation_progress("reading") as bar:

        def on_plan(plans, positions, planner) -> None:
            bar.show(
                ProgressView(
                    done=0,
                    total=None,
                    written=0,
                    phase=f"{plural(plans, 'plan')}, {positions:,} positions to change so far",
                )
            )

        data = build.estimate(on_plan=on_plan)
    area = build.area

    def human() -> None:
        journal = data["journal_bytes"]
        pairs = [
            ("build", f"{build.build_id} (dry run: nothing was written)"),
            ("file", shown(build.path)),
            ("box", _box(build.placement.world_box()) + (f", inside {area.text()}" if area is not None else "")),
            (
                "to change",
                f"{data['positions_to_change']:,} positions, {data['replaces_blocks']:,} of them replace a block",
            ),
            ("plans", f"{data['plans']} (at most {build.capacity:,} positions each)"),
            ("time", f"about {duration(data['seconds_at_20_tps'])} at 20 TPS"),
            ("journal", f"{journal['low'] / 1e6:,.1f}-{journal['high'] / 1e6:,.1f} MB added to the plugin's journal"),
        ]
        term.kv(pairs)
        if data["replaced"]:
            term.table(
                ["replaced block", "positions"],
                [(state, f"{count:,}") for state, count in list(data["replaced"].items())[:20]],
            )

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


def _build(term, build, wait_timeout: float) -> None:
    from mcb.batch.plans import StopRequest

    stop = StopRequest()
    term.info(
        f"build {build.build_id}: {shown(build.path)} at {','.join(map(str, build.options.target))} "
        f"(state {shown(build.state_path)})"
    )
    with term.operation_progress(f"build {build.build_id}") as bar, ctrl_c(stop, term):
        data, error = build.run(
            stop=stop,
            on_view=bar.show,
            wait_timeout=wait_timeout,
            on_event=lambda event, details: _event(term, event, details),
        )

    def human() -> None:
        result = data["result"].replace("_", " ")
        if data["result"] == "error" and error is not None:
            result = f"stopped ({error.code})"
        term.kv(
            [
                ("build", build.build_id),
                ("result", result),
                (
                    "this run",
                    f"{plural(data['plans'], 'plan')}, {data['written']:,} positions written in "
                    f"{duration(data['seconds'])}",
                ),
                (
                    "operations",
                    f"{data['build_operations']} in all; undo them with `mcb build --undo --build-id {build.build_id}`",
                ),
            ]
        )

    term.emit(data, human)
    if error is not None:
        raise error


def _event(term, event: str, details: dict) -> None:
    if event == "replan":
        term.warn(f"re-reading near {details['tile']} ({details['why']})")
    elif event == "resume":
        term.info(f"an earlier run left operation {details['operation_id']} in flight: waiting for it first")
    elif event in ("prepared", "finished"):
        from mcb.commands.batch import describe_event

        term.debug(describe_event(event, details))


# -- undo ---------------------------------------------------------------------------------------------------------
def _undo(term, client, build_id: str, yes: bool, wait_timeout: float) -> None:
    from mcb.batch.file_build import recorded_undo_count, undo_file_build
    from mcb.batch.plans import StopRequest

    count = recorded_undo_count(client, build_id)
    if count and not yes and sys.stdin.isatty() and sys.stderr.isatty():
        import typer

        if not typer.confirm(
            f"Undo build {build_id} ({plural(count, 'operation')}, newest first)?", default=False, err=True
        ):
            raise InputError(
                "nothing was undone (not confirmed)", code="not_confirmed", hint="add --yes to undo without asking"
            )
    stop = StopRequest()
    with term.operation_progress(f"undo {build_id}") as bar, ctrl_c(stop, term):
        data = undo_file_build(
            client,
            build_id,
            stop=stop,
            on_view=bar.show,
            wait_timeout=wait_timeout,
            on_event=lambda event, details: _event(term, event, details),
        )
    term.emit(
        data,
        lambda: term.kv(
            [
                ("build", build_id),
                ("undone", plural(data["undone_operations"], "operation")),
                ("restored", f"{data['restored']:,} positions"),
            ]
        ),
    )
