"""`mcb build FILE --target X,Y,Z` for a schematic file: estimate, build, resume and undo (the face only; the
engine is :mod:`mcb.batch.file_build` on the one engine)."""

from __future__ import annotations

import os
import re
import sys

from mcb.commands.events import write_events
from mcb.commands.rpc_support import ctrl_c, open_client, placement_options
from mcb.errors import InputError, UsageError
from mcb.wording import dimensions, duration, plural, shown

BUILD_ID = re.compile(r"[0-9a-f]{12}")  # what a build prints: build_identity's 12 hex digits of a SHA-256


def checked_build_id(value: str | None) -> str | None:
    """``--build-id`` as a build printed it (any case), or a UsageError (exit 2) before anything is read: the id
    names a file in mcb's state directory, so a path (``../x``) or any other text is no id."""
    if value is None:
        return None
    if not BUILD_ID.fullmatch(value.lower()):
        raise UsageError(
            f"--build-id {shown(value)} is not a build id: an id is the 12 hex digits a build printed "
            "(`build: 9d3c91fdeb01`)",
            hint="copy the id from the build's summary, or undo by FILE and its options: "
            "`mcb build FILE --target X,Y,Z --undo`",
            details={"field": "--build-id"},
        )
    return value.lower()


def is_schematic_file(source: str) -> bool:
    """A schematic is NBT (gzip or raw compound) or a file named like one (the format registry's extensions); a
    recipe is text (JSON). So `x.schem` missing, unreadable or holding a JPEG, and a file of any name that is not
    text (an image, an archive, random bytes), are reported by the schematic reader, which says what the file is,
    not as a recipe that is not UTF-8. UTF-16 text stays a recipe, whose reader asks for UTF-8. A folder is
    neither: InputError."""
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
    from mcb.schematics.document import looks_like_text

    try:
        with open(source, "rb") as handle:
            head = handle.read(4096)
    except OSError:  # the recipe path reports the unreadable file
        return False
    # gzip, or an uncompressed root compound (tag 10, then a name length whose high byte is 0): JSON has no NUL
    if head[:2] in (b"\x1f\x8b", b"\x0a\x00"):
        return True
    if not head or head.startswith((b"\xff\xfe", b"\xfe\xff")):  # empty, or UTF-16: the recipe reader says so
        return False
    return not looks_like_text(head)


def run_schematic_build(ctx, term, file: str | None, *, target: str | None, rotation: int, mirror: str | None,
                        skip_air: bool, keep_existing: bool, drop_extras: bool, replace_unknown: str | None,
                        dry_run: bool, undo: bool, build_id: str | None, yes: bool, wait_timeout: float,
                        extras_function: str | None = None) -> None:  # fmt: skip
    from mcb.batch.file_build import file_build_id, open_file_build

    if undo and dry_run:
        raise UsageError("--dry-run estimates a build and --undo reverts one: give one of them",
                         hint="--undo alone asks before it undoes anything")  # fmt: skip
    if file is not None and build_id is not None:  # two names of one build: which one was meant?
        raise UsageError("give FILE and its options, or --build-id, not both",
                         hint="`mcb build FILE --target X,Y,Z --undo` or `mcb build --undo --build-id ID`")  # fmt: skip
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
    # With --extras-function the block entities and entities are kept, in the function: the build needs no
    # --drop-extras to go ahead without them.
    options = placement_options(target, rotation, mirror, skip_air=skip_air, keep_existing=keep_existing,
                                drop_extras=drop_extras or bool(extras_function),
                                replace_unknown=replace_unknown)  # fmt: skip
    with open_client(ctx, term) as client:
        if undo:  # the build's id names it: the file need not be read, nor its extras dropped again
            return _undo(term, client, file_build_id(client, file, options), yes, wait_timeout)
        build = open_file_build(client, file, options)
        placement = build.placement
        for line in placement.upgrade.lines() if placement.upgrade is not None else []:
            term.info(f"{shown(file)}: {line}")
        if placement.dropped and not extras_function:
            one = sum(placement.dropped.values()) == 1
            term.warn(
                f"--drop-extras: {_extras(placement.dropped)} of {shown(file)} {'is' if one else 'are'} not built; "
                f"--extras-function PATH writes {'it' if one else 'them'} as a datapack function that puts "
                f"{'it' if one else 'them'} back"
            )
        if dry_run:
            return _dry_run(term, build)
        if extras_function:  # before the build: a path that cannot be written is refused before any write
            extras = _write_extras(build, extras_function)
            for line in _extras_lines(extras):
                term.info(line)
        resuming = build.resuming()
        if resuming is not None:
            term.info(_resuming_words(resuming))
        if not yes and not _confirmed(term, placement, build.capacity):
            raise InputError(
                "nothing was built (not confirmed)", code="not_confirmed", hint="add --yes to build without asking"
            )
        _build(term, build, wait_timeout, extras if extras_function else None)


def _resuming_words(resuming: dict) -> str:
    done, total = resuming["plans_done"], resuming["plans"]
    words = f"resuming: {done:,} of {plural(total, 'plan')} done" if total else f"resuming: {plural(done, 'plan')} done"
    if resuming["in_flight"]:
        words += f", {plural(resuming['in_flight'], 'operation')} of an earlier run to settle first"
    return words


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
    air = guess["cells"] - guess["blocks"]
    sys.stderr.write(
        f"build {shown(placement.path)} in {_box(placement.world_box())}: up to {plural(guess['cells'], 'position')} "
        f"to change ({guess['blocks']:,} blocks, {air:,} air); on empty land {plural(guess['plans'], 'plan')}, about "
        f"{duration(guess['seconds_at_20_tps'])} at 20 TPS (--dry-run reads the world and says exactly)\n"
    )
    import typer

    return typer.confirm("Build it?", default=False, err=True)


def _box(box) -> str:
    if box is None:
        return "nothing"
    (x1, y1, z1), (x2, y2, z2) = box
    return f"{x1},{y1},{z1} .. {x2},{y2},{z2} ({dimensions(x2 - x1 + 1, y2 - y1 + 1, z2 - z1 + 1)})"


# -- dry run ------------------------------------------------------------------------------------------------------
def _dry_run(term, build) -> None:
    from mcb.client.progress import ProgressView

    with term.operation_progress("reading") as bar:

        def on_plan(plans, positions, planner) -> None:
            left, estimated = planner.remaining()
            bar.show(ProgressView(done=positions, total=positions + left, written=positions, estimated=estimated,
                                  noun="positions to change found", phase=f"{plural(plans, 'plan')} so far"))  # fmt: skip

        data = build.estimate(on_plan=on_plan)
    area = build.area

    def human() -> None:
        journal = data["journal_bytes"]
        pairs = [
            ("build", f"{build.build_id} (dry run: nothing was written)"),
            ("file", shown(build.path)),
            ("box", _box(build.placement.world_box()) + (f", inside {area.text()}" if area is not None else "")),
            ("to change", f"{plural(data['positions_to_change'], 'position')}, {data['replaces_blocks']:,} of them "
                          "replace a block"),
            ("plans", f"{data['plans']:,} (at most {build.capacity:,} positions each)"),
            ("time", f"about {duration(data['seconds_at_20_tps'])} at 20 TPS"),
            ("journal", f"{journal['low'] / 1e6:,.1f}-{journal['high'] / 1e6:,.1f} MB added to the plugin's journal"),
        ]  # fmt: skip
        term.kv(pairs)
        if data["replaced"]:
            rows = list(data["replaced"].items())
            term.table(["replaced block", "positions"], [(state, f"{count:,}") for state, count in rows[:20]])
            if len(rows) > 20:
                term.info(f"showing 20 of {len(rows):,} replaced blocks (--json lists all)")

    term.emit(data, human)


# -- the build ------------------------------------------------------------------------------------------------------
def _build(term, build, wait_timeout: float, extras: dict | None) -> None:
    from mcb.batch.source import StopRequest
    from mcb.waiting import WaitPolicy

    stop = StopRequest()
    term.info(
        f"build {build.build_id}: {shown(build.path)} at {','.join(map(str, build.options.target))} "
        f"(state {shown(build.state_path)})"
    )
    with term.operation_progress(f"build {build.build_id}") as bar, ctrl_c(stop, term):
        data, error = build.run(stop=stop, on_view=bar.show, wait=WaitPolicy(timeout=wait_timeout),
                                on_event=write_events(term))  # fmt: skip
    if extras is not None:
        data["extras_function"] = extras

    def human() -> None:
        result = data["result"].replace("_", " ")
        if error is not None and data["result"] != "stopped":
            result = f"{result} ({error.code})"
        this_run = f"{plural(data['plans'], 'plan')}, {plural(data['written'], 'position')} written"
        if data["positions"] > data["written"]:
            this_run += f" ({data['positions'] - data['written']:,} already held their block)"
        if data["settled_operations"]:
            this_run += (f"; {plural(data['settled_operations'], 'operation')} an earlier run left ended "
                         f"({plural(data['settled_written'], 'position')} written)")  # fmt: skip
        term.kv(
            [
                ("build", build.build_id),
                ("result", result),
                ("this run", f"{this_run} in {duration(data['seconds'])}"),
                ("operations", f"{plural(data['build_operations'], 'operation')} in all "
                               f"({plural(data['build_written'], 'position')} written); undo them with "
                               f"`mcb build --undo --build-id {build.build_id}`"),
            ]
        )  # fmt: skip

    term.emit(data, human)
    if error is not None:
        raise error


def _write_extras(build, path: str) -> dict:
    from mcb.building.extras import write_extras_function

    options = build.options
    return write_extras_function(build.path, options.target, options.rotation, options.mirror, path)


def _extras_lines(summary: dict) -> list[str]:
    from mcb.building.extras_file import summary_lines

    return summary_lines(summary)


# -- undo ---------------------------------------------------------------------------------------------------------
def _undo(term, client, build_id: str, yes: bool, wait_timeout: float) -> None:
    from mcb.batch.file_build import recorded_undo_count, undo_file_build
    from mcb.batch.source import StopRequest
    from mcb.waiting import WaitPolicy

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
        data = undo_file_build(client, build_id, stop=stop, on_view=bar.show, wait=WaitPolicy(timeout=wait_timeout),
                               on_event=write_events(term))  # fmt: skip
    term.emit(data, lambda: _show_undo(term, build_id, data))


def _show_undo(term, build_id: str, data: dict) -> None:
    pairs = [
        ("build", build_id),
        ("undone", f"{plural(data['undone_operations'], 'operation')} by the plugin, "
                   f"{plural(data['restored_operations'], 'operation')} restored by mcb"),
        ("back", f"{plural(data['restored'], 'position')} as before the build (by the plugin's undo and mcb)"),
    ]  # fmt: skip
    term.kv(pairs + undo_leftovers(data))
    show_undo_tables(term, data)


def undo_leftovers(data: dict) -> list[tuple[str, str]]:
    """What an undo could not bring back (mcb.batch.undo.undo_summary), as (label, words) pairs; none when all came
    back. `mcb build --undo` and a batch `undo` step show the same."""
    pairs = []
    if data["kept"]:
        pairs.append(("kept", f"{plural(len(data['kept']), 'position')} someone else changed since the build"))
    if data["data_not_restorable"]:
        pairs.append(("data lost", f"{plural(len(data['data_not_restorable']), 'block entity', 'block entities')} "
                                   "got their state back, not their content"))  # fmt: skip
    if data["not_recorded"]:
        pairs.append(("not restored", f"{plural(len(data['not_recorded']), 'operation')} built by an older mcb "
                                      "(nothing recorded to restore from)"))  # fmt: skip
    return pairs


def show_undo_tables(term, data: dict) -> None:
    """The positions an undo kept (what is there now, what the build wrote, what was there before it) and the block
    entities whose content it could not bring back: the first 20 of each (--json lists all)."""
    tables = (
        ("kept", ["now", "build wrote", "before the build"], ("now", "wrote", "before"), data["kept"]),
        ("data not restorable", ["state", "operation"], ("state", "operation_id"), data["data_not_restorable"]),
    )
    for label, headers, keys, rows in tables:
        if rows:
            term.table([label, *headers], [(_at(r["pos"]), *(r.get(key) for key in keys)) for r in rows[:20]])
            if len(rows) > 20:
                term.info(f"showing 20 of {len(rows):,} ({label}); --json lists all")


def _at(pos: dict) -> str:
    return f"{pos['x']},{pos['y']},{pos['z']}"
