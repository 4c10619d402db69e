"""`mcb build FILE` as one core function for both faces (the CLI command and the MCP ``schem_build`` tool).

    build = open_file_build(client, "ship.schem", PlacementOptions(target=(0, 64, 0)))
    build.estimate()                    # the dry run: reads, plans, prepares nothing
    data, error = build.run(stop=StopRequest(), on_view=show)
    undo_file_build(client, build.build_id)

A build is the one-step batch of :mod:`mcb.batch.schematic`, its state in the user state directory under its id.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from mcb.batch.plans import StopRequest
from mcb.batch.schematic import BUILD_STEP, build_identity, build_state_path, one_step_batch, restart_finished
from mcb.errors import InputError, McbError
from mcb.wording import shown


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
        return data

    def estimate(self, on_plan=None) -> dict:
        """The dry run (docs/building.md): no prepare, no operation."""
        from mcb.building.estimate import estimate_build

        area = self.area
        estimate = estimate_build(self.client, self.placement, capacity=self.capacity, on_plan=on_plan)
        return {
            **self.header(),
            "dry_run": True,
            "area": None if area is None else {"min": area.min.wire(), "max": area.max.wire()},
            **estimate,
        }

    def run(
        self,
        *,
        stop: StopRequest | None = None,
        on_view=None,
        on_event=None,
        wait_timeout: float = 600.0,
        interval: float = 0.1,
    ) -> tuple[dict, McbError | None]:
        """Build (or resume, or build again what differs): ``(the --json result, the error that ended it)``."""
        from mcb.batch.runner import BatchRunner
        from mcb.batch.state import BatchState, exclusive_run

        options = self.options
        self.state_path.parent.mkdir(parents=True, exist_ok=True)
        fields = {
            "target": list(options.target),
            "rotation": options.rotation,
            "mirror": options.mirror,
            "skip_air": options.skip_air,
            "keep_existing": options.keep_existing,
            "drop_extras": options.drop_extras,
            "replace_unknown": options.replace_unknown,
        }
        batch = one_step_batch(Path(self.path), fields, self.state_path)
        started = time.monotonic()
        with exclusive_run(self.state_path):
            state = BatchState.load(self.state_path, server=self.client.server, project_id=self.client.project_id)
            state.data["build_id"] = self.build_id
            restart_finished(state)
            runner = BatchRunner(
                self.client,
                batch,
                state,
                retry_failed=True,
                wait_timeout=wait_timeout,
                interval=interval,
                stop=stop,
                on_event=(lambda event, name, details: on_event(event, details)) if on_event else None,
                on_view=(lambda name, view: on_view(view)) if on_view else None,
            )
            runner.context.placements[(str(Path(self.path).resolve()), options)] = self.placement
            report = runner.run().steps[0]
        record = state.step(BUILD_STEP) or {}
        run = record.get("last_run") or {}
        entries = [e for e in record.get("plans", []) if e.get("operation_id")]
        data = {
            **self.header(),
            "state_file": str(self.state_path),
            "result": report.result,
            "plans": run.get("plans", 0),
            "operations": run.get("operations", []),
            "written": run.get("written", 0),
            "seconds": round(time.monotonic() - started, 1),
            "build_operations": len(entries),
            "reads": run.get("reads"),
        }
        if report.error is not None:
            data["error"] = report.error.to_json()
        return data, report.error


def open_file_build(client, path: str, options, *, check_area: bool = True) -> FileBuild:
    """Read and place the file (refusing extras without drop_extras), name the build, check the project area."""
    from mcb.building.placement import check_fits, load_placement

    placement = load_placement(path, options)
    build_id = build_identity(
        client.server, client.project_id, client.player_id, placement.file_sha256, options.to_json()
    )
    area, capacity = None, 4096
    if check_area:
        context = client.project_context()
        area, capacity = context.region, context.max_plan_blocks or 4096
        check_fits(placement, area)
    return FileBuild(client, str(path), placement, build_id, build_state_path(build_id), area, capacity)


def recorded_undo_count(client, build_id: str) -> int:
    """Operations a build's undo would revert (0 for an unknown build)."""
    from mcb.batch.schematic import undoable
    from mcb.batch.state import BatchState

    path = build_state_path(build_id)
    if not path.exists():
        return 0
    state = BatchState.load(path, server=client.server, project_id=client.project_id)
    return len(undoable((state.step(BUILD_STEP) or {}).get("plans") or []))


def undo_file_build(
    client,
    build_id: str,
    *,
    stop: StopRequest | None = None,
    on_view=None,
    on_event=None,
    wait_timeout: float = 600.0,
    interval: float = 0.1,
) -> dict:
    """Every operation of a build, newest first (resumable); then the build starts afresh."""
    from mcb.batch.schematic import undo_build
    from mcb.batch.state import BatchState, exclusive_run

    state_path = build_state_path(build_id)
    if not state_path.exists():
        raise InputError(
            f"no build {build_id} is recorded here ({shown(state_path)})",
            code="unknown_build",
            hint="use the FILE, --target and placement options of the build, or the build id it printed",
        )
    with exclusive_run(state_path):
        state = BatchState.load(state_path, server=client.server, project_id=client.project_id)
        result = undo_build(
            client, state, wait_timeout=wait_timeout, interval=interval, stop=stop, on_view=on_view, on_event=on_event
        )
    return {
        "build_id": build_id,
        "undone_operations": result["undone"],
        "restored": result["written"],
        "state_file": str(state_path),
    }
