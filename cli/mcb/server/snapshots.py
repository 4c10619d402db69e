"""Block-entity snapshots (protocol §4.5), modelled with default entity data only.

The plugin captures ``"\\u0000mcb-block-v1:" + state + "\\n" + <entity SNBT>`` for blocks with a block entity and
publishes only its SHA-256 as ``snapshot_id``. This world never holds custom NBT (no RPC can write any), so the
captured value is a pure function of the state: the entity part is ``{id:"<block id>"}``. Blocks without a block
entity are captured as their plain state and have no snapshot id.
"""

from __future__ import annotations

import hashlib

PREFIX = "\u0000mcb-block-v1:"


class Snapshots:
    def __init__(self, registry_source):
        self._registry_source = registry_source  # callable: the registry is loaded lazily
        self._entity_blocks: dict[str, bool] = {}
        self._ids: dict[str, str | None] = {}

    def has_entity(self, state: str) -> bool:
        name = state.split("[", 1)[0]
        known = self._entity_blocks.get(name)
        if known is None:
            try:
                known = "block_entity" in self._registry_source().behavior(name).get("behavior", ())
            except Exception:
                known = False
            self._entity_blocks[name] = known
        return known

    def captured(self, state: str) -> str:
        if not self.has_entity(state):
            return state
        return f'{PREFIX}{state}\n{{id:"{state.split("[", 1)[0]}"}}'

    def snapshot_id(self, state: str) -> str | None:
        if state not in self._ids:
            self._ids[state] = (
                hashlib.sha256(self.captured(state).encode("utf-8")).hexdigest() if self.has_entity(state) else None
            )
        return self._ids[state]
