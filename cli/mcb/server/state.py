"""ServerState: everything a handler can reach (see :mod:`mcb.server.api` for the contract) plus the tick thread."""

from __future__ import annotations

import threading
from pathlib import Path

from mcb.server.chatqueue import ChatQueue
from mcb.server.config import ServerConfig, Tokens, load_config, load_tokens, save_config
from mcb.server.engine import Engine
from mcb.server.errors import RpcError
from mcb.server.journal import Journal
from mcb.server.mainthread import MainThread
from mcb.server.parts import PartStore
from mcb.server.plans import Plan, prepare_plan
from mcb.server.snapshots import Snapshots
from mcb.server.world import World

MAIN_THREAD_WAIT_S = 20.0


class ServerState:
    def __init__(self, data_dir: Path, overrides: dict | None = None):
        self.data_dir = Path(data_dir)
        self.config: ServerConfig = load_config(self.data_dir, overrides)
        self.tokens: Tokens = load_tokens(self.data_dir)
        self.lock = threading.RLock()
        self.idle = threading.Condition(self.lock)
        self.io_busy = False  # the engine is writing a step to the journal
        self.journal_latch = False  # a prepare-like call's work is done and its third hop not yet run (paced only)
        self.apply_held = False  # test hook: the apply tick does nothing ...
        self.apply_steps = 0  # ... but this many more steps
        self.halted = False
        self.owner_online = True
        self.writes_paused = False
        self.world = World(self.config)
        self.journal = Journal(self.data_dir)
        self.parts = PartStore(self.journal)
        self.chat_queue = ChatQueue()
        self.plans: dict[str, Plan] = {}
        self.engine = Engine(self)
        self._registry = None
        self.snapshots = Snapshots(lambda: self.registry)
        self.main = MainThread(self.lock, self.config.tick_ms, self.engine.step)
        self._restore()

    def _restore(self) -> None:
        loaded = self.journal.load()
        for _id, kind, sha256, _created, record in loaded["plans"]:
            self.plans[record["id"]] = Plan.from_record(kind, sha256, record)
        self.world.load_edits(loaded["blocks"])
        self.parts.load(loaded["parts"])
        self.engine.restore(loaded)

    # -- main thread ----------------------------------------------------------------------------------------------
    def main_thread(self):
        """One hop to the emulated Minecraft main thread (a context manager; see :mod:`mcb.server.mainthread`): the
        body runs at the next tick boundary (at once with ``tick_ms`` 0) holding ``lock``; a wait beyond 20 s gives
        ``timeout``."""
        return self.main.hop(MAIN_THREAD_WAIT_S)

    def latch_journal(self) -> None:
        """At the end of a prepare-like call's work hop (on the main thread): hold the journal latch (``busy`` for
        other prepare-like calls, no engine step) until :meth:`release_journal_latch`, the plugin's third hop."""
        if self.main.paced:
            self.journal_latch = True

    def release_journal_latch(self) -> None:
        """The third hop of build_prepare, build_apply, operation_undo_prepare, schematic_import_prepare and
        recovery_abandon. Its work is done whatever happens here: a hop that times out still clears the latch."""
        if not self.main.paced:
            return
        try:
            with self.main_thread():
                self.journal_latch = False
                self.idle.notify_all()
        except RpcError:
            self.journal_latch = False

    def wait_until_idle(self) -> None:
        """Block (holding the lock) until no journal step is in flight; used before edits outside the engine."""
        while self.io_busy:
            self.idle.wait(1.0)

    # -- scope, availability, guard --------------------------------------------------------------------------------
    def check_scope(self, params: dict) -> tuple[str, str]:
        config = self.config
        project = params.get("project_id")
        if project is None:
            project = config.project_id
        elif _text(project) != config.project_id:
            raise RpcError("permission_denied", "Unknown project scope")
        player = params.get("player_id")
        if config.allow_local_automation and player == "console":
            return "console", config.project_id
        if not config.owner_uuid or _text(player) != config.owner_uuid:
            raise RpcError("permission_denied", "Only the bound project owner can use this capability; run /ai setup")
        if not self.owner_online:
            raise RpcError("permission_denied", "Owner is offline or permission was revoked")
        return config.owner_uuid, config.project_id

    def available(self) -> None:
        if self.halted:
            raise RpcError("recovery_required", "Journal unavailable")
        if self.io_busy or self.journal_latch:
            raise RpcError("busy", "A journal step is in progress; retry")

    def guard(self, plan: Plan | None, *, mode: str) -> None:
        """The write guard (§3.6 step 8, §3.7 step 4, §3.15); ``mode`` is prepare, apply or recovery."""
        world = self.world
        if plan is not None and (
            plan.project_id != self.config.project_id
            or plan.world_epoch != world.epoch
            or plan.world_id != world.world_id
        ):
            raise RpcError("version_mismatch", "Project or world changed")
        if not self.config.allow_local_automation and not self.owner_online:
            raise RpcError("permission_denied", "Project owner must be online and authorised")
        if plan is not None and mode in ("apply", "recovery"):
            for which, message in (
                ("changes", "Plan exceeds current project area"),
                ("dependencies", "Dependency exceeds current project area"),
            ):
                box = plan.bounds(which)
                if box is not None and not (world.in_region(box[0]) and world.in_region(box[1])):
                    raise RpcError("out_of_bounds", message)
        if mode == "recovery":
            return
        if self.halted:
            raise RpcError("recovery_required", "Journal IO failed; restart and inspect recovery")
        if self.writes_paused:
            raise RpcError("cancelled", "Writing paused by the owner; send a new request or /ai resume")
        if plan is not None and mode == "apply":
            part = self.parts.protected_overlap(plan.actual_positions())
            if part is not None:
                raise RpcError("permission_denied", f"Part is protected: {part.name}")

    # -- states and plans -----------------------------------------------------------------------------------------
    @property
    def registry(self):
        if self._registry is None:
            from mcb.blocks.registry import load_registry

            self._registry = load_registry()
        return self._registry

    def canonicalize(self, text) -> str:
        if not isinstance(text, str) or len(text) > 1024:
            raise RpcError("unsupported_block", "Invalid registered block or block properties")
        try:
            return self.registry.canonicalize(text)
        except Exception:
            raise RpcError("unsupported_block", "Invalid registered block or block properties") from None

    def create_plan(
        self, kind, changes, *, dependencies=(), part_id=None, expected_blocks=None, undo_of=None, check_available=True
    ) -> dict:
        return prepare_plan(
            self,
            kind,
            changes,
            dependencies=dependencies,
            part_id=part_id,
            expected_blocks=expected_blocks,
            undo_of=undo_of,
            check_available=check_available,
        )

    def store_plan(self, plan: Plan) -> None:
        try:
            payload = plan.text or plan.record_text()
            self.journal.persist(plans=[(plan.id, plan.kind, plan.sha256, plan.created_ms, payload)])
        except Exception as error:
            self.halted = True
            raise RpcError("recovery_required", "Journal IO failed; restart and inspect recovery") from error
        self.plans[plan.id] = plan

    # -- owner actions (in-game commands in the plugin; test hooks here) --------------------------------------------
    def pause_writes(self) -> None:
        """``/ai stop``: pause writes, cancel every non-terminal operation, drop unleased chat, queue a cancel."""
        self.writes_paused = True
        self.engine.cancel_all()
        self.chat_queue.drop_unleased()
        self.chat_queue.enqueue(
            player_id=self.config.owner_uuid,
            project_id=self.config.project_id,
            world_id=self.world.world_id,
            kind="cancel",
        )

    def set_area(self, low, high) -> None:
        if self.engine.active() is not None:
            raise RpcError("busy", "An operation is still running")
        self.config.region_min, self.config.region_max = tuple(low), tuple(high)
        save_config(self.data_dir, self.config)

    # -- tick loop ------------------------------------------------------------------------------------------------
    def wake(self) -> None:
        self.main.wake()

    def start(self) -> None:
        self.main.start()

    def close(self) -> None:
        """Stop the tick loop after its current tick (a step in flight ends with its transaction; hops still
        waiting get ``timeout``), finish a staged slice (see ``Engine.finish_slice``), close the journal. The
        operation itself is left as it is: a restart turns it into ``recovery_required``."""
        if self.main.stop(timeout=30):
            self.engine.finish_slice()
        with self.lock:
            self.journal.close()
        with self.lock:
            self.journal.close()


def _text(value) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
