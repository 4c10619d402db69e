"""`mcb build FILE` as one core function for both faces (the CLI command and the MCP ``schem_build`` tool).

    build = open_file_build(client, "ship.schem", PlacementOptions(target=(0, 64, 0)))
    build.estimate()                    # the dry run: reads, plans, prepares nothing
    data, error = build.run(stop=StopRequest(), on_view=show)
    build.undo(stop=StopRequest())      # or undo_file_build(client, build_id)

A build's state lives in the user state directory under its id (:func:`mcb.batch.schematic.build_identity`): the
record "build" holds the plan log of the build (``plans``) and of its undo (``undo``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from mcb.batch.engine import Engine
from mcb.batch.log import PlanLog
from mcb.batch.schematic import BUILD_STEP, SchematicSource, build_identity, build_state_path
from mcb.batch.source import StopRequest, stopped_error
from mcb.batch.state import BatchState, exclusive_run
from mcb.batch.undo import UndoSource, undo_summary, undoable
from mcb.errors import InputError, McbError
from mcb.refusals import code_hint
from mcb.waiting import WaitPolicy
from mcb.wording import plural, shown


@dataclass
class FileBuild:
    client: object
    path: str
    placement: object  # mcb.building.placement.Placement
    build_id: str
    state_path: Path
    area: object  # the project area (client Region) or None
    capacity: int

    @property
    def options(self):
        return self.placement.options

    def header(self) -> dict:
        data = {"build_id": self.build_id, "file": self.path, **self.options.to_json()}
        if self.placement.dropped:
            data["dropped"] = self.placement.dropped
        upgrade = self.placement.upgrade
        if upgrade is not None and upgrade.lines():  # what reading the file for this release changed
            data["upgrade"] = upgrade.to_json()
        return data

    def estimate(self, on_plan=None) -> dict:
        """The dry run (docs/building.md): no prepare, no operation."""
        from mcb.building.estimate import estimate_build

        area = self.area
        estimate = estimate_build(self.client, self.placement, capacity=self.capacity, on_plan=on_plan)
        return {**self.header(), "dry_run": True,
                "area": None if area is None else {"min": area.min.wire(), "max": area.max.wire()}, **estimate}  # fmt: skip

    def resuming(self) -> dict | None:
        """What an earlier run of this build left (before this one asks to go on), or None for a new build:
        ``{"plans_done", "plans", "in_flight"}`` (``plans`` the earlier run's count of all plans, when it knew)."""
        if not self.state_path.exists():
            return None
        try:
            state = BatchState.load(self.state_path, server=self.client.server, project_id=self.client.project_id)
        except McbError:
            return None
        record = state.step(BUILD_STEP) or {}
        if record.get("phase") != "running":
            return None
        entries = record.get("plans") or []
        done = sum(1 for e in entries if e.get("phase") == "done")
        in_flight = sum(1 for e in entries if e.get("phase") in ("applying", "started"))
        return {"plans_done": done, "plans": record.get("plans_expected"), "in_flight": in_flight}

    def run(self, *, stop: StopRequest | None = None, on_view=None, on_event=None,
            wait: WaitPolicy | None = None) -> tuple[dict, McbError | None]:  # fmt: skip
        """Build (or resume, or build again what differs): ``(the --json result, the error that ended it)``."""
        self.state_path.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        with exclusive_run(self.state_path, f"build {self.build_id}"):
            state = BatchState.load(self.state_path, server=self.client.server, project_id=self.client.project_id)
            state.data["build_id"] = self.build_id
            log = PlanLog(state, BUILD_STEP)
            again = log.record.get("phase") in ("done", "undone", "failed")  # walk again, reading everything afresh
            log.set(phase="running", result=None, file=self.path, placement=self.options.to_json(),
                    dropped=self.placement.dropped or None, build_id=self.build_id,
                    **({"cursor": None} if again else {}))  # fmt: skip
            source = SchematicSource(self.client, self.placement, log, capacity=self.capacity)
            done_before = sum(1 for e in log.entries if e.get("phase") == "done")
            engine = Engine(self.client, log, wait=wait, stop=stop, on_event=on_event,
                            on_view=_counting(on_view, log, done_before))  # fmt: skip
            error = None
            try:
                outcome = engine.run(source)
            except McbError as failure:  # the phase stays "running": the same command resumes
                outcome, error = engine.outcome, failure
                log.set(last_error=error.to_json())
            finally:
                source.close()
            result = self._finish(log, outcome, error)
            if result == "stopped":
                error = stopped_error(outcome, self.state_path)
            elif result == "failed" and error is None:
                error = outcome.error
        reads = source.planner.walker.counter.to_json()
        data = {**self.header(), "state_file": str(self.state_path), "result": result,
                "plans": outcome.plans, "operations": outcome.operations,
                "written": outcome.written, "positions": outcome.positions,
                "settled_operations": len(outcome.settled), "settled_written": outcome.settled_written,
                "seconds": round(time.monotonic() - started, 1),
                "build_operations": sum(1 for e in log.entries if e.get("operation_id")),
                "build_written": sum((e.get("status") or {}).get("written", 0) for e in log.entries),
                "reads": reads}  # fmt: skip
        if error is not None:
            data["error"] = error.to_json()
        return data, error

    @staticmethod
    def _finish(log: PlanLog, outcome, error: McbError | None) -> str:
        result = "error" if error is not None else outcome.result
        ended: dict = {}  # an error or a stop keeps the phase "running": the same command resumes
        if result == "failed":
            ended = {"phase": "failed", "result": "failed"}
        elif result not in ("error", "stopped"):  # applied, nothing_to_change
            ended = {"phase": "done", "result": result}
            log.record.pop("plans_expected", None)
        log.set(last_run=outcome.to_json(), **ended)  # one save, whatever the end
        return result

    def undo(self, **options) -> dict:
        return undo_file_build(self.client, self.build_id, **options)


def _counting(on_view, log: PlanLog, done_before: int):
    """The bar's views; once every tile is read, the build's plans in all are recorded, for a later run's
    "resuming: 8 of 14 plans done"."""

    def show(view) -> None:
        if not view.estimated and view.plans:
            log.record["plans_expected"] = done_before + view.plans
        if on_view is not None:
            on_view(view)

    return show


def open_file_build(client, path: str, options, *, check_area: bool = True) -> FileBuild:
    """Read and place the file (refusing extras without drop_extras), name the build, check the project area."""
    from mcb.building.placement import check_fits, load_placement

    placement = load_placement(path, options)
    build_id = _known_id(client, placement.file_sha256, options)
    context = client.project_context()
    area, capacity = context.region, context.max_plan_blocks or 4096
    if check_area:
        check_fits(placement, area)
    return FileBuild(client, str(path), placement, build_id, build_state_path(build_id), area, capacity)


def file_build_id(client, path: str, options) -> str:
    """The id of the build of ``path`` placed by ``options`` (the file is hashed, not read as a schematic: an undo
    needs nothing else)."""
    from mcb.batch.schematic import file_identity

    return _known_id(client, file_identity(Path(path)), options)


def _known_id(client, file_sha256: str, options) -> str:
    """The build id; a build recorded under the id an older mcb gave it (which counted --drop-extras) keeps it."""
    placement = options.to_json()
    build_id = build_identity(client.server, client.project_id, client.player_id, file_sha256,
                              {k: v for k, v in placement.items() if k != "drop_extras"})  # fmt: skip
    if not build_state_path(build_id).exists():
        for drop in (placement["drop_extras"], not placement["drop_extras"]):
            older = build_identity(client.server, client.project_id, client.player_id, file_sha256,
                                   {**placement, "drop_extras": drop})  # fmt: skip
            if build_state_path(older).exists():
                return older
    return build_id


def recorded_undo_count(client, build_id: str) -> int:
    """Operations a build's undo would revert (0 for an unknown build)."""
    path = build_state_path(build_id)
    if not path.exists():
        return 0
    state = BatchState.load(path, server=client.server, project_id=client.project_id)
    return len(undoable((state.step(BUILD_STEP) or {}).get("plans") or []))


def undo_file_build(client, build_id: str, *, stop: StopRequest | None = None, on_view=None, on_event=None,
                    wait: WaitPolicy | None = None, capacity: int | None = None) -> dict:  # fmt: skip
    """Every operation of a build, newest first (resumable): the plugin's undo where it allows it, else a restore
    from what mcb recorded; then the build starts afresh. The result names what could not come back."""
    state_path = build_state_path(build_id)
    if not state_path.exists():
        raise InputError(
            f"no build {build_id} is recorded here ({shown(state_path)})",
            code="unknown_build",
            hint="use the FILE, {target} and placement options of the build, or the build id it printed",
        )
    if capacity is None:
        capacity = client.project_context().max_plan_blocks or 4096
    with exclusive_run(state_path, f"build {build_id}"):
        state = BatchState.load(state_path, server=client.server, project_id=client.project_id)
        build_log, undo_log = PlanLog(state, BUILD_STEP), PlanLog(state, BUILD_STEP, "undo")
        if not build_log.entries:
            return {"build_id": build_id, "state_file": str(state_path), **_no_undo()}
        # What the build left in flight ends first (an operation a restart interrupted is settled there too).
        Engine(client, build_log, wait=wait, stop=stop, on_event=on_event).settle()
        source = UndoSource(client, build_log, undo_log, capacity=capacity)
        outcome = Engine(client, undo_log, wait=wait, stop=stop, on_event=on_event, on_view=on_view).run(source)
        summary = undo_summary(undo_log)
        if outcome.result == "stopped":
            raise stopped_undo(summary, state_path)
        if outcome.result == "failed":
            raise outcome.error
        record = build_log.record
        history = record.setdefault("undone_plans", [])
        history.extend(record.pop("plans", []))
        history.extend(record.pop("undo", []))
        record.setdefault("undo_reports", []).append(record.pop("undo_report", {}))
        state.update(BUILD_STEP, phase="undone", cursor=None, result="undone")
    return {"build_id": build_id, "state_file": str(state_path), **summary}


def _no_undo() -> dict:
    return {"undone_operations": 0, "restored_operations": 0, "restored": 0, "kept": [], "data_not_restorable": [],
            "not_recorded": []}  # fmt: skip


def stopped_undo(summary: dict, state_path: Path) -> McbError:
    from mcb.client.errors import Interrupted

    done = summary["undone_operations"] + summary["restored_operations"]
    return Interrupted(
        f"stopped after undoing {plural(done, 'operation')}",
        code="undo_stopped",
        hint=code_hint("undo_stopped"),
        details={"state_file": str(state_path), "summary": summary},
    )
