"""Plan sources of one plan at a time: a recipe, a library schematic, an operation's undo, terrain tiles.

Each is something :class:`mcb.batch.engine.Engine` runs: it prepares the next plan when asked and decides what an
ended plan means. A plan that expired before it applied, or whose operation an administrator abandoned after a
restart, is prepared again (once): neither wrote what the plan asked for.
"""

from __future__ import annotations

from collections.abc import Callable

from mcb.batch.source import FAIL, NEXT, Prepared, Remaining
from mcb.client.models import OperationStatus, PlanSummary
from mcb.errors import McbError, ServerError
from mcb.refusals import failure_reason


def prepare_again(final: OperationStatus | None) -> bool:
    """Did the plan not (fully) happen for a reason that preparing it again mends: it expired before any operation
    started, expired while queued, or an administrator abandoned its operation after a restart?"""
    if final is None:
        return True
    return failure_reason(final.status, final.message) in {"plan_expired", "abandoned"}


class OnePlan:
    """A log of one plan: ``prepare()`` returns the plan summary, or None when there is nothing to change.

    A plan that changes no block (``changed_blocks`` 0: every position already holds what it asks for) is not applied
    — it would only add an operation that writes nothing — unless ``apply_empty``; it is kept as ``unchanged`` and
    told as the event ``unchanged`` ``{plan_id, plan_hash}``."""

    ahead = False
    capacity = 4096

    def __init__(self, prepare: Callable[[], PlanSummary | None], *, again: int = 1, apply_empty: bool = False):
        self.prepare = prepare
        self.again = again  # how many times an expired or abandoned plan is prepared anew
        self.apply_empty = apply_empty
        self.unchanged: PlanSummary | None = None
        self.finished = False
        self.event = lambda name, details: None

    def next_plan(self, *, beside: bool) -> Prepared | None:
        if self.finished:
            return None
        plan = self.prepare()
        self.finished = True
        if plan is None:
            return None
        if plan.changed_blocks == 0 and not self.apply_empty:
            self.unchanged = plan
            self.event("unchanged", {"plan_id": plan.plan_id, "plan_hash": plan.plan_hash})
            return None
        return Prepared(plan, {"positions": plan.changed_blocks})

    def on_settled(self, entry: dict, final: OperationStatus) -> str:
        return self.on_finished(entry, final)

    def on_finished(self, entry: dict, final: OperationStatus | None) -> str:
        if final is not None and final.status == "applied":
            self.finished = True
            return NEXT
        if prepare_again(final) and self.again > 0:
            self.again -= 1
            self.finished = False
            return NEXT
        return FAIL

    def remaining(self) -> Remaining:
        return Remaining()

    def more(self) -> bool:
        return not self.finished


class TerrainTiles:
    """Every tile of a terrain from ``start``, in order: ``terrain_prepare`` each, skipping empty ones, until
    ``tile_count`` (when known) or the server's "Tile index outside terrain". ``record["next_tile"]`` is where a
    re-run goes on; ``record["tiles"]`` says what each visited tile was."""

    ahead = False
    capacity = 4096

    def __init__(self, client, terrain_id: str, log, *, start: int = 0, tile_count: int | None = None,
                 on_tile: Callable[[int, str, dict], None] | None = None):  # fmt: skip
        self.client, self.terrain_id, self.log = client, terrain_id, log
        self.index = int(log.record.get("next_tile", start))
        self.tile_count = tile_count
        self.on_tile = on_tile or (lambda index, result, entry: None)
        self.again = 1
        self.visited: set[int] = set()  # tiles this run ended (the others in the record ended in earlier runs)
        self.event = lambda name, details: None

    def next_plan(self, *, beside: bool) -> Prepared | None:
        while self.tile_count is None or self.index < self.tile_count:
            try:
                result = self.client.terrain_prepare(self.terrain_id, self.index)
            except ServerError as error:
                if is_past_last_tile(error):
                    self.tile_count = self.index
                    return None
                raise
            plan = result.plan()
            if plan is not None:
                return Prepared(plan, {"tile": self.index, "positions": plan.changed_blocks})
            self._visited(self.index, "nothing_to_change", {"changed_blocks": 0})
        return None

    def _visited(self, index: int, result: str, fields: dict, *, done: bool = True) -> None:
        """Record the tile's result and, in the same save, the tile a re-run starts from: the next one, or this
        one again when it is not ``done``."""
        tiles = self.log.record.setdefault("tiles", [])
        tiles[:] = [t for t in tiles if t.get("tile") != index]
        tiles.append({"tile": index, "result": result, **fields})
        self.visited.add(index)
        self.index = index + 1 if done else index
        self.log.set(next_tile=self.index)
        self.on_tile(index, result, fields)

    def on_settled(self, entry: dict, final: OperationStatus) -> str:
        self.index = entry["tile"]
        return self.on_finished(entry, final)

    def on_finished(self, entry: dict, final: OperationStatus | None) -> str:
        fields = {"changed_blocks": entry["plan"].get("changed_blocks"), "operation_id": entry.get("operation_id")}
        if final is not None:
            fields.update(status=final.status, written=final.written, total_changes=final.total_changes,
                          processed=final.processed)  # fmt: skip
        if final is not None and final.status == "applied":
            self._visited(entry["tile"], "applied" if final.written else "nothing_to_change", fields)
            return NEXT
        if prepare_again(final) and self.again > 0:
            self.again -= 1
            return NEXT
        self._visited(entry["tile"], final.status if final is not None else "expired", fields, done=False)
        return FAIL  # a re-run tries this tile again

    def remaining(self) -> Remaining:
        return Remaining()

    def more(self) -> bool:
        return self.tile_count is None or self.index < self.tile_count


def is_past_last_tile(error: McbError | None) -> bool:
    """The server's "Tile index outside terrain" (the refusal table's reason): the tile before was the last."""
    return isinstance(error, ServerError) and error.details.get("reason") == "tile_outside_terrain"
