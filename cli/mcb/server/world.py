"""The emulated world: natural ground, durable edits, height, border and loaded chunks (protocol §12.3).

Reads go through :meth:`World.read`, which raises the same errors the plugin's ``BuildingWorld.ready`` does. Edits
live in memory (``_edits``) and are made durable by the engine in the same SQLite transaction as their receipts.
"""

from __future__ import annotations

from collections.abc import Callable

from mcb.server.errors import RpcError
from mcb.server.params import Pos, region_json

AIR = "minecraft:air"
GRASS = "minecraft:grass_block[snowy=false]"
GROUND_TOP_Y = 63


def natural_state(x: int, y: int, z: int) -> str:
    """Deterministic ground before any edit: bedrock floor, stone, three dirt layers, grass at y=63, then air.

    Every returned string is canonical. The terrain engineer swaps in a height field via :meth:`World.set_ground`.
    """
    if y > GROUND_TOP_Y:
        return AIR
    if y == GROUND_TOP_Y:
        return GRASS
    if y >= GROUND_TOP_Y - 3:
        return "minecraft:dirt"
    if y == -64:
        return "minecraft:bedrock"
    return "minecraft:stone"


GroundFactory = Callable[[object], Callable[[int, int, int], str]]
_GROUNDS: dict[str, GroundFactory] = {"flat": lambda config: natural_state}


def register_ground(name: str, factory: GroundFactory) -> None:
    """Offer another natural ground, chosen per server with ``mcb serve --ground NAME`` (saved in server.json).

    ``factory(config) -> fn(x, y, z) -> canonical state``. ``fn`` must be deterministic: unedited positions are
    recomputed on every start, so the same config must always give the same ground.
    """
    _GROUNDS[name] = factory


def ground_names() -> list[str]:
    return sorted(_GROUNDS)


class World:
    def __init__(self, config, ground: Callable[[int, int, int], str] | None = None):
        self.config = config
        self.world_id: str = config.world_id
        self.epoch: str = config.world_epoch
        if ground is None:
            factory = _GROUNDS.get(getattr(config, "ground", "flat"))
            if factory is None:
                raise ValueError(f"unknown ground {config.ground!r}; known: {', '.join(ground_names())}")
            ground = factory(config)
        self._ground = ground
        self._edits: dict[Pos, str] = {}
        self._chunk_overrides: dict[tuple[int, int], bool] = {}

    # -- area ---------------------------------------------------------------------------------------------------
    @property
    def region_min(self) -> Pos:
        return tuple(self.config.region_min)  # type: ignore[return-value]

    @property
    def region_max(self) -> Pos:
        return tuple(self.config.region_max)  # type: ignore[return-value]

    def region_json(self) -> dict:
        return region_json(self.world_id, self.region_min, self.region_max)

    def in_region(self, pos: Pos, low: Pos | None = None, high: Pos | None = None) -> bool:
        low = low or self.region_min
        high = high or self.region_max
        return all(a <= p <= b for a, p, b in zip(low, pos, high))

    # -- ground ---------------------------------------------------------------------------------------------------
    def set_ground(self, ground: Callable[[int, int, int], str]) -> None:
        """Replace natural ground generation (edited positions keep their edits)."""
        self._ground = ground

    def natural(self, pos: Pos) -> str:
        return self._ground(pos[0], pos[1], pos[2])

    # -- chunks ---------------------------------------------------------------------------------------------------
    def is_loaded(self, pos: Pos) -> bool:
        chunk = (pos[0] >> 4, pos[2] >> 4)
        override = self._chunk_overrides.get(chunk)
        if override is not None:
            return override
        radius = self.config.loaded_chunk_radius
        return radius is None or (abs(chunk[0]) <= radius and abs(chunk[1]) <= radius)

    def set_chunk_loaded(self, chunk_x: int, chunk_z: int, loaded: bool) -> None:
        self._chunk_overrides[(chunk_x, chunk_z)] = loaded

    # -- blocks ---------------------------------------------------------------------------------------------------
    def check_ready(self, pos: Pos) -> None:
        if not self.config.world_min_y <= pos[1] <= self.config.world_max_y:
            raise RpcError("out_of_bounds", "Position exceeds world height")
        border = self.config.world_border
        if not (-border <= pos[0] < border and -border <= pos[2] < border):
            raise RpcError("out_of_bounds", "Position exceeds world border")
        if not self.is_loaded(pos):
            raise RpcError("chunk_not_loaded", "Visit/load the target chunks before editing")

    def within_height(self, pos: Pos) -> bool:
        return self.config.world_min_y <= pos[1] <= self.config.world_max_y

    def read(self, pos: Pos) -> str:
        self.check_ready(pos)
        return self.peek(pos)

    def peek(self, pos: Pos) -> str:
        state = self._edits.get(pos)
        return state if state is not None else self._ground(pos[0], pos[1], pos[2])

    def set(self, pos: Pos, state: str) -> None:
        """Memory only; callers persist through the journal (see ``Engine``)."""
        self._edits[pos] = state

    def load_edits(self, rows) -> None:
        for x, y, z, state in rows:
            self._edits[(x, y, z)] = state
