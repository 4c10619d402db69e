"""Library side of ``mcb schem info`` and ``mcb schem convert``."""

from __future__ import annotations

import os
from collections import Counter

from mcb.blocks.registry import release_name
from mcb.errors import InputError
from mcb.fileio import writing
from mcb.schematics.document import load_document
from mcb.schematics.model import Schematic
from mcb.schematics.server_rules import check_server_subset
from mcb.schematics.sponge import refuse_duplicate_names, schematic_from_document
from mcb.schematics.writer import encode_schematic, write_bytes_atomic
from mcb.wording import plural


def _server_verdict(source, mc_version, document=None) -> dict:
    from mcb.blocks.registry import load_registry

    registry = load_registry(mc_version)
    verdict = check_server_subset(source, server_data_version=registry.data_version, registry=registry,
                                  build_model=False, document=document)
    return {"accepted": verdict.accepted, "message": verdict.message, "rule": verdict.rule,
            "exact_server_message": verdict.exact if not verdict.accepted else None,
            "target": {"release": registry.release, "data_version": registry.data_version}}


def describe_schematic(path: str | os.PathLike, mc_version: str | int | None = None) -> dict:
    """Everything ``schem info`` shows, as a JSON-ready dict (raises InputError for unreadable input)."""
    # Block entities and entities are counted by id: their contents are walked and checked, not built (the
    # validators' read; this model, with only their ids and positions, never leaves this function).
    try:
        doc = load_document(path, fast=True)
        schem = schematic_from_document(doc)  # refuses a file that is not Sponge
    except InputError as error:
        if os.path.isfile(path):  # the contents are at fault: say what the server would say of them too
            server = _server_verdict(path, mc_version)
            error.details = {**(error.details or {}), "server": server}
            verdict = ("the server would accept it" if server["accepted"] else
                       f"the server refuses it too: {server['message']} ({server['rule']})")
            error.hint = f"{error.hint}; {verdict}" if error.hint else verdict
        raise
    src = schem.source
    meta = schem.metadata or {}
    counts = schem.palette_counts()
    return {
        "file": str(path),
        "format": doc.label,
        "version": src.version,
        "nonconforming_v3": src.nonconforming_v3,
        "compressed": src.compressed,
        "bytes": src.compressed_size,
        "inflated_bytes": src.inflated_size,
        "data_version": schem.data_version,
        "release": release_name(schem.data_version),
        "size": {"width": schem.width, "height": schem.height, "length": schem.length},
        "volume": schem.volume,
        "offset": list(schem.offset),
        "stored_offset": list(src.stored_offset) if src.stored_offset else None,
        "worldedit_offset": list(src.we_offset) if src.we_offset else None,
        "world_origin": list(schem.world_origin) if schem.world_origin else None,
        "producer": src.producer,
        "non_air_blocks": schem.non_air_count(counts),
        "palette": [{"state": state, "count": count} for state, count in counts],
        "block_entities": {"count": len(schem.block_entities),
                           "by_id": dict(schem.block_entity_ids().most_common())},
        "entities": {"count": len(schem.entities), "by_id": dict(Counter(e.id for e in schem.entities).most_common())},
        "biomes": None if schem.biome_palette is None else {
            "palette": list(schem.biome_palette), "layers": int(schem.biomes.shape[0])},
        "metadata": {k: _plain(v) for k, v in meta.items() if k in ("Name", "Author", "Date", "RequiredMods")},
        "server": _server_verdict(doc.data, mc_version, doc),
    }


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


def conversion_losses(schem: Schematic, version: int) -> list[str]:
    """What writing ``schem`` as Sponge v2 for the server would drop or what the server would refuse to keep."""
    if version == 3:
        return []
    losses = []
    for items, noun, nouns, data in ((schem.block_entities, "block entity", "block entities", "block-entity data"),
                                     (schem.entities, "entity", "entities", "entities")):
        if items:
            kinds = ", ".join(f"{n}x {k}" for k, n in Counter(item.id for item in items).most_common(3))
            losses.append(f"{plural(len(items), noun, nouns)} ({kinds}): the server imports no {data}")
    mods = (schem.metadata or {}).get("RequiredMods")
    if mods:
        losses.append(f"Metadata.RequiredMods {[str(m) for m in mods]}: the server refuses files that require mods")
    if schem.biome_palette is not None:
        layered = schem.biomes is not None and schem.biomes.shape[0] > 1 and bool(
            (schem.biomes != schem.biomes[:1]).any())
        losses.append("biomes (" + ("3-D biomes do not fit v2's 2-D layout; " if layered else "")
                      + "the server imports no biomes)")
    return losses


def _settle_data_version(schem: Schematic, mc_version) -> str:
    """A v1 file has no DataVersion: use the target release's when every state is valid there, else 1.13.2."""
    from mcb.blocks.registry import load_registry

    registry = load_registry(mc_version)
    if all(registry.is_valid(state) for state in schem.palette):
        schem.data_version = registry.data_version
        return (f"the file had no DataVersion; every state is valid in {registry.release}, so DataVersion "
                f"{registry.data_version} was written")
    return (f"the file had no DataVersion; wrote {schem.data_version} (Minecraft 1.13.2, WorldEdit's assumption) "
            f"because some states are not valid in {registry.release}")


def convert_schematic(source: str | os.PathLike, output: str | os.PathLike, *, version: int = 2,
                      drop_extras: bool = False, mc_version: str | int | None = None) -> dict:
    """Rewrite ``source`` as Sponge v2 (server layout, Offset = paste offset) or v3.

    For v2 the conversion refuses (InputError, exit 1) when data would be lost, unless ``drop_extras``; the
    result says what was dropped and whether the server would now accept the file.
    """
    doc = load_document(source)
    refuse_duplicate_names(doc)
    schem = schematic_from_document(doc)  # refuses a file that is not Sponge
    losses = conversion_losses(schem, version)
    if losses and not drop_extras:
        raise InputError("conversion to Sponge v2 for the server would lose data: " + "; ".join(losses),
                         hint="keep everything with --format v3, or drop it on purpose with --drop-extras",
                         code="schem.convert.lossy", details={"losses": losses})
    if losses:
        schem.block_entities, schem.entities = [], []
        schem.biome_palette, schem.biomes = None, None
        if schem.metadata and "RequiredMods" in schem.metadata:
            del schem.metadata["RequiredMods"]
    notes = []
    if schem.source.data_version_assumed:
        notes.append(_settle_data_version(schem, mc_version))
    payload = encode_schematic(schem, version)
    with writing(output) as target:
        write_bytes_atomic(target, payload)
    result = {
        "input": str(source), "output": str(target), "from": doc.label, "to": f"Sponge v{version}",
        "bytes": len(payload), "offset": list(schem.offset),
        "stored_offset_before": list(schem.source.stored_offset) if schem.source.stored_offset else None,
        "dropped": losses,
        "notes": notes,
    }
    if version == 2:
        result["server"] = _server_verdict(payload, mc_version)
    return result


__all__ = ["describe_schematic", "convert_schematic", "conversion_losses"]
