"""``mcb schem info`` (and the MCP tool schem_info): what a schematic file of any format holds, and what a build in
the target release would change."""

from __future__ import annotations

import os
from collections import Counter

from mcb.blocks.registry import release_name
from mcb.blocks.state import AIR_STATES
from mcb.errors import InputError
from mcb.schematics.document import Document, load_document
from mcb.schematics.formats import from_document
from mcb.schematics.model import Schematic
from mcb.schematics.server_rules import check_server_subset


def server_verdict(source, mc_version, document=None) -> dict:
    from mcb.blocks.registry import load_registry

    registry = load_registry(mc_version)
    verdict = check_server_subset(
        source, server_data_version=registry.data_version, registry=registry, build_model=False, document=document
    )
    return {
        "accepted": verdict.accepted,
        "message": verdict.message,
        "reason": verdict.findings[0].text() if verdict.findings else None,
        "rule": verdict.rule,
        "exact_server_message": verdict.exact if not verdict.accepted else None,
        "target": {"release": registry.release, "data_version": registry.data_version},
    }


def format_label(doc: Document, schem: Schematic) -> str:
    """``Sponge v2``, ``Litematica v6``, ``structure .nbt``, ``legacy .schematic (Schematica)``: the format's label
    and what the file adds to it."""
    if doc.kind == "litematic":
        return f"{doc.label} v{schem.source.version}"
    if doc.kind == "legacy" and schem.source.producer:
        return f"{doc.label} ({schem.source.producer.title()})"
    return doc.label


def describe_schematic(path: str | os.PathLike, mc_version: str | int | None = None, *, top: int | None = None) -> dict:
    """Everything ``schem info`` shows, as a JSON-ready dict (raises InputError for unreadable input).

    ``top``: only the ``top`` most common palette states (by cell count); None: all, in palette order.
    """
    from mcb.blocks.registry import load_registry
    from mcb.schematics.upgrade import upgrade_schematic

    # Block entities and entities are counted by id: their contents are walked and checked, not built (the
    # validators' read; this model, with only their ids and positions, never leaves this function).
    try:
        doc = load_document(path, fast=True)
        schem = from_document(doc)
    except InputError as error:
        if os.path.isfile(path):  # the contents are at fault: say what the server would say of them too
            server = server_verdict(path, mc_version)
            error.details = {**(error.details or {}), "server": server}
            verdict = (
                "the server would accept it"
                if server["accepted"]
                else f"the server refuses it too: {server['message']} ({server['rule']})"
            )
            error.hint = f"{error.hint_template}; {verdict}" if error.hint_template else verdict
        raise
    src = schem.source
    meta = schem.metadata or {}
    counts = palette_counts(schem)
    shown = sorted(counts, key=lambda entry: -entry["count"])[:top] if top else counts
    _, upgrade = upgrade_schematic(schem, load_registry(mc_version), strict=False)
    return {
        "file": str(path),
        "format": format_label(doc, schem),
        "kind": doc.kind,
        "version": src.version,
        "nonconforming_v3": src.nonconforming_v3,
        "compressed": src.compressed,
        "bytes": src.compressed_size,
        "inflated_bytes": src.inflated_size,
        "data_version": None if src.data_version_assumed or src.format == "legacy" else schem.data_version,
        "release": None if src.data_version_assumed or src.format == "legacy" else release_name(schem.data_version),
        "size": {"width": schem.width, "height": schem.height, "length": schem.length},
        "volume": schem.volume,
        "offset": list(schem.offset),
        "stored_offset": list(src.stored_offset) if src.stored_offset else None,
        "worldedit_offset": list(src.we_offset) if src.we_offset else None,
        "world_origin": list(schem.world_origin) if schem.world_origin else None,
        "producer": src.producer,
        "regions": src.regions,
        "palettes": src.palettes,
        "non_air_blocks": sum(e["count"] for e in counts if e["state"].split("[", 1)[0] not in AIR_STATES),
        "void_cells": int(schem.void.sum()) if schem.void is not None else 0,
        "palette_size": len(counts),
        "palette": shown,
        "block_entities": _by_id(schem.block_entities),
        "entities": _by_id(schem.entities),
        "biomes": None
        if schem.biome_palette is None
        else {"palette": list(schem.biome_palette), "layers": int(schem.biomes.shape[0])},
        "metadata": {
            k: _plain(v) for k, v in meta.items() if k in ("Name", "Author", "Date", "Description", "RequiredMods")
        },
        "upgrade": upgrade.to_json(),
        "server": server_verdict(doc.data, mc_version, doc),
    }


def _by_id(items) -> dict:
    """``{"count", "by_id"}``, most common first; items without an id under ``(no id)``."""
    return {"count": len(items), "by_id": dict(Counter(item.id or NO_ID for item in items).most_common())}


NO_ID = "(no id)"


def palette_counts(schem: Schematic) -> list[dict]:
    """``{"state", "count"}`` for every state placed (void cells not counted), in palette order; duplicate
    strings merged."""
    from mcb.schematics.upgrade import used_counts

    merged: dict[str, int] = {}
    for index, count in sorted(used_counts(schem).items()):
        state = schem.palette[index]
        merged[state] = merged.get(state, 0) + count
    return [{"state": state, "count": count} for state, count in merged.items()]


def _plain(value):
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, float):
        return float(value)
    if isinstance(value, int):
        return int(value)
    return str(value)


__all__ = ["describe_schematic", "format_label", "palette_counts", "server_verdict"]
