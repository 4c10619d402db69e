"""``schem_build`` and ``region_export``: a schematic file of any size into the world, and a box of the world of any
size into a file — the core functions `mcb build FILE` and `mcb export -o` call (mcb.batch.file_build,
mcb.building.export), shaped for MCP.

A build may take far longer than one call: ``schem_build`` builds for at most ``wait_seconds``, stops at the next
plan boundary and answers ``result: running`` with the identical call as ``next_call``; that call resumes it (the
build's state file names every plan and operation, so nothing is written twice). A cancelled call stops polling at
once: the plan under way finishes on the server, no new one starts, and the next call picks it up.
"""

from __future__ import annotations

import time
from typing import Literal

from pydantic import ConfigDict, Field

from mcb.building.placement_options import PlacementOptions
from mcb.mcp.actions import Action, Cancelled, Context, Hints, Outcome, Refusal
from mcb.mcp.tools.adapters import Arguments, Path_, existing_input, new_output, refusal_from
from mcb.mcp.tools.rpc_arguments import Position
from mcb.schematics.formats import writable_names
from mcb.summaries import PLACEMENT_FIELDS, SUMMARIES

MAX_BUILD_WAIT = 600  # seconds one schem_build call may build before it answers "running"
PLAN_MARGIN_S = 8.0  # a plan of 4096 positions takes about 6.5 s at 20 TPS: stop asking for more this early
PROGRESS_INTERVAL_S = 0.1  # at most 10 progress notifications a second
BUILD_HINTS = Hints(read_only=False, destructive=True, idempotent=True, open_world=True)
EXPORT_HINTS = Hints(read_only=False, destructive=True, idempotent=True, open_world=True)


# The placement fields (target, rotation, mirror, skip_air, ...) are the one placement model's; the target is an
# {x, y, z} object here.
class SchemBuildArgs(Arguments, PlacementOptions):
    model_config = ConfigDict(extra="forbid", frozen=False)
    path: Path_ = Field(
        description="Schematic file: Sponge .schem, Litematica .litematic, structure .nbt or legacy "
        ".schematic, any size."
    )
    target: Position = Field(description=PLACEMENT_FIELDS["target"])
    dry_run: bool = Field(
        False,
        description="Only estimate: positions to change, blocks replaced, plans, time at "
        "20 TPS, journal size; nothing is prepared or written.",
    )
    undo: bool = Field(False, description="Revert this build's operations, newest first, instead of building.")
    wait_seconds: int = Field(
        25,
        ge=10,
        le=MAX_BUILD_WAIT,
        description=(
            "Build for at most this long, then stop at a plan boundary and answer result running; the same call "
            "goes on."
        ),
    )


class _Reporter:
    """Progress at most 10 times a second; a cancelled call or the time limit stops at the next plan boundary."""

    def __init__(self, ctx: Context, stop, wait_seconds: float):
        self.ctx, self.stop = ctx, stop
        self.until = time.monotonic() + wait_seconds - PLAN_MARGIN_S
        self.last = 0.0
        self.cancelled = self.timed_out = False

    def __call__(self, view) -> None:
        from mcb.wording import progress_line

        now = time.monotonic()
        try:
            self.ctx.check_cancelled()
        except Cancelled:
            self.cancelled = True
            self.stop.press()
            return
        if now >= self.until and not self.stop.stop:
            self.timed_out = True
            self.stop.press()
        if now - self.last >= PROGRESS_INTERVAL_S and view.total:
            self.last = now
            self.ctx.progress(int(view.done), view.total, progress_line(view))  # whole positions, as the words say


def run_schem_build(args: SchemBuildArgs, ctx: Context) -> Outcome:
    from mcb.batch.file_build import file_build_id, open_file_build
    from mcb.batch.source import StopRequest

    existing_input(args.path, "path")
    if args.undo and args.dry_run:
        raise Refusal("invalid_argument", "dry_run estimates a build and undo reverts one: nothing was done",
                      field="dry_run", remedy="give one of them: undo alone reverts the build",
                      retry_with={"dry_run": False})  # fmt: skip
    client = _client(ctx, args)
    options = PlacementOptions.of(args)
    stop = StopRequest()
    reporter = _Reporter(ctx, stop, args.wait_seconds)
    with _refusals(ctx, args):
        if args.undo:  # the build's id names it: the file is not read again, nor its extras refused
            data, error = _undo(client, file_build_id(client, str(args.path), options), stop, reporter)
        else:
            build = open_file_build(client, str(args.path), options)
            if args.dry_run:
                return Outcome(build.estimate())
            data, error = build.run(stop=stop, on_view=reporter)
    if reporter.cancelled:
        raise Cancelled()
    if error is not None and error.code in ("build_stopped", "undo_stopped"):  # the call's time: it goes on
        data.pop("error", None)
        data["result"] = "running"
        data["next_call"] = {
            "tool": "schem_build",
            "arguments": args.model_dump(mode="json", exclude_none=True),
            "reason": "the " + ("undo" if args.undo else "build") + " goes on from its last applied plan",
        }
        return Outcome(data)
    if error is not None:
        raise _refusal(error, ctx, args)
    return Outcome(data)


def _undo(client, build_id: str, stop, reporter):
    """The undo's summary and the error that ended it (None when done): a stop at the call's time is no failure."""
    from mcb.batch.file_build import undo_file_build
    from mcb.errors import McbError

    try:
        return {**undo_file_build(client, build_id, stop=stop, on_view=reporter), "result": "undone"}, None
    except McbError as error:
        if error.code != "undo_stopped":
            raise
        return {"build_id": build_id, **error.details["summary"]}, error


class RegionExportArgs(Arguments):
    min: Position = Field(description="Lowest corner.")
    max: Position = Field(description="Highest corner (any size: it is read tile by tile).")
    output: Path_ = Field(description="File to write (atomically).")
    format: Literal[tuple(writable_names())] = Field(
        None,
        description="File format; default: the output's extension (.litematic, .nbt), else sponge2. A name with "
        "another extension (.schematic, .png) is refused unless format is given.",
    )
    origin: Position = Field(None, description="Paste anchor (default: min).")
    name: str = Field(None, min_length=1, max_length=64, description="Name stored in the file.")
    overwrite: bool = Field(False, description="Replace output if it exists.")


def run_region_export(args: RegionExportArgs, ctx: Context) -> Outcome:
    from mcb.building.export import export_region

    low, high = (args.min.x, args.min.y, args.min.z), (args.max.x, args.max.y, args.max.z)
    if any(a > b for a, b in zip(low, high)):
        raise Refusal(
            "invalid_argument",
            "min is above max on some axis",
            field="min",
            remedy="swap the corners",
            retry_with={"min": args.max.wire(), "max": args.min.wire()},
        )
    output = new_output(ctx, args.output, overwrite=args.overwrite)
    fmt = _export_format(args)
    client = _client(ctx, args)
    cells = (high[0] - low[0] + 1) * (high[1] - low[1] + 1) * (high[2] - low[2] + 1)
    done = {"cells": 0, "at": 0.0}

    def on_read(part) -> None:
        ctx.check_cancelled()
        done["cells"] += part.codes.size
        if time.monotonic() - done["at"] >= PROGRESS_INTERVAL_S:
            done["at"] = time.monotonic()
            ctx.progress(done["cells"], cells, f"{done['cells']:,} of {cells:,} cells read")

    origin = (args.origin.x, args.origin.y, args.origin.z) if args.origin else None
    with _refusals(ctx, args, field="output"):
        data = export_region(client, low, high, output, fmt, origin=origin, name=args.name, on_read=on_read)
    if data["block_entities"]:
        from mcb.wording import plural

        data["warning"] = (
            f"{plural(data['block_entities'], 'block entity', 'block entities')} exported as block states only: "
            "their data cannot be read over the protocol"
        )
    return Outcome(data)


def _export_format(args: RegionExportArgs) -> str:
    """The format `mcb export -o` and `schem convert` would choose for this name (one rule, the format registry)."""
    from mcb.errors import UsageError
    from mcb.schematics.formats import output_format

    try:
        return output_format(args.format, args.output, None, default="sponge2")
    except UsageError as error:
        raise refusal_from(error, "output") from None


# -- errors ---------------------------------------------------------------------------------------------------------
def _client(ctx: Context, args):
    from mcb.errors import McbError

    try:
        return ctx.client()
    except McbError as error:
        raise _refusal(error, ctx, args) from None


class _refusals:
    """mcb's errors as refusals: the server's and the network's through the one RPC mapping, the file's own as
    invalid_input naming the argument."""

    def __init__(self, ctx: Context, args, field: str = "path"):
        self.ctx, self.args, self.field = ctx, args, field

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        from mcb.errors import McbError

        if isinstance(error, (McbError, OSError)):
            raise _refusal(error, self.ctx, self.args, self.field) from None
        return False


def _refusal(error, ctx: Context, args, field: str = "path") -> Refusal:
    """The file's own faults name the argument; the server's and the network's go through the one table."""
    from mcb.errors import InputError, NetworkError
    from mcb.mcp.refusals import refusal_for

    ctx.check_cancelled()  # a cancelled call answers nothing
    if isinstance(error, (InputError, OSError)):  # its field and retry_with (drop_extras, a target inside) are kept
        return refusal_from(error, field)
    refusal = refusal_for(
        error,
        "schem_build" if field == "path" else "region_export",
        args.model_dump(mode="json", exclude_none=True),
        server=getattr(ctx, "server", None),
    )
    if isinstance(error, NetworkError) and field == "path":  # every plan is recorded before its request leaves
        refusal.retry_with = {}
        refusal.data.pop("outcome_unknown", None)
        refusal.remedy = (
            "the build's record names every plan it sent: once the server answers again, the identical call "
            "settles what was in flight and goes on, writing nothing twice; project_context says when it is back"
        )
    return refusal


BUILD_ACTIONS: list[Action] = [
    Action(
        name="schem_build",
        title="Build schematic file",
        group="rpc",
        input_model=SchemBuildArgs,
        hints=BUILD_HINTS,
        run=run_schem_build,
        deadline_s=MAX_BUILD_WAIT + 60,
        description=f"{SUMMARIES['schem_build']} Reads the world tile by tile and plans only what differs, in as "
        "few plans as the server allows. dry_run estimates first; a long build answers result "
        "running after wait_seconds with next_call, the identical call, which goes on; undo reverts it "
        "as one. Next: region_export or camera_capture to check the result.",
    ),
    Action(
        name="region_export",
        title="Export region to a file",
        group="rpc",
        input_model=RegionExportArgs,
        hints=EXPORT_HINTS,
        run=run_region_export,
        deadline_s=MAX_BUILD_WAIT,
        description=f"{SUMMARIES['region_export']} Block entities keep their states only (their data cannot be "
        "read over the protocol); schematic_export is the server's own, small export. Next: schem_info "
        "or schem_render on the file, schem_build to place it elsewhere.",
    ),
]
