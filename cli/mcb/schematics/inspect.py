"""Library side of ``mcb schem info`` and ``mcb schem convert``, for every format."""

from __future__ import annotations

import os
from collections import Counter

from mcb.blocks.registry import release_name
from mcb.blocks.state import AIR_STATES
from mcb.errors import InputError
from mcb.fileio import writing
from mcb.schematics.document import Document, load_document
from mcb.schematics.formats import from_document
from mcb.schematics.model import Schematic
from mcb.schematics.server_rules import check_server_subset
from mcb.schematics.sponge import refuse_duplicate_names
from mcb.schematics.writer import write_bytes_atomic
from mcb.wording import plural


def _server_verdict(source, mc_version, document=None) -> dict:
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
    """``Sponge v2``, ``Litematica v6``, ``structure .nbt``, ``legacy .schematic (Schematica)``."""
    kind = doc.format_kind
    if kind == "litematic":
        return f"Litematica v{schem.source.version}"
    if kind == "structure":
        return "structure .nbt"
    if kind == "legacy":
        return "legacy .schematic" + (f" ({schem.source.producer.title()})" if schem.source.producer else "")
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
            server = _server_verdict(path, mc_version)
            error.details = {**(error.details or {}), "server": server}
            verdict = (
                "the server would accept it"
                if server["accepted"]
                else f"the server refuses it too: {server['message']} ({server['rule']})"
            )
            error.hint = f"{error.hint}; {verdict}" if error.hint else verdict
        raise
    src = schem.source
    meta = schem.metadata or {}
    counts = palette_counts(schem)
    shown = sorted(counts, key=lambda entry: -entry["count"])[:top] if top else counts
    _, upgrade = upgrade_schematic(schem, load_registry(mc_version), strict=False)
    return {
        "file": str(path),
        "format": format_label(doc, schem),
        "kind": doc.format_kind,
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
        "block_entities": {"count": len(schem.block_entities), "by_id": dict(schem.block_entity_ids().most_common())},
        "entities": {"count": len(schem.entities), "by_id": dict(Counter(e.id for e in schem.entities).most_common())},
        "biomes": None
        if schem.biome_palette is None
        else {"palette": list(schem.biome_palette), "layers": int(schem.biomes.shape[0])},
        "metadata": {
            k: _plain(v) for k, v in meta.items() if k in ("Name", "Author", "Date", "Description", "RequiredMods")
        },
        "upgrade": upgrade.to_json(),
        "server": _server_verdict(doc.data, mc_version, doc),
    }


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


def conversion_losses(schem: Schematic, fmt: str) -> list[str]:
    """What writing ``schem`` as ``fmt`` would not carry: for Sponge v2 (the server's format) also what the server
    would refuse to keep."""
    from mcb.schematics.outputs import format_losses

    losses = [loss["detail"] for loss in format_losses(schem, fmt) if loss["data"]]
    if fmt != "sponge2":
        return losses
    for items, noun, nouns, data in (
        (schem.block_entities, "block entity", "block entities", "block-entity data"),
        (schem.entities, "entity", "entities", "entities"),
    ):
        if items:
            kinds = ", ".join(f"{n}x {k}" for k, n in Counter(item.id for item in items).most_common(3))
            losses.append(f"{plural(len(items), noun, nouns)} ({kinds}): the server imports no {data}")
    mods = (schem.metadata or {}).get("RequiredMods")
    if mods:
        losses.append(f"Metadata.RequiredMods {[str(m) for m in mods]}: the server refuses files that require mods")
    if schem.biome_palette is not None and not any(loss.startswith("3-D biomes") for loss in losses):
        losses.append("biomes (the server imports no biomes)")
    return losses


def _drop_extras(schem: Schematic, fmt: str) -> None:
    from mcb.schematics.outputs import outside_block_entities

    if fmt in ("litematic", "structure"):
        outside = {id(be) for be in outside_block_entities(schem)}
        schem.block_entities = [be for be in schem.block_entities if id(be) not in outside]
    if fmt == "sponge2":
        schem.block_entities, schem.entities = [], []
        if schem.metadata and "RequiredMods" in schem.metadata:
            del schem.metadata["RequiredMods"]
    if fmt != "sponge3":
        schem.biome_palette, schem.biomes = None, None
    if fmt != "structure" and schem.void is not None:
        schem.void = None  # the cells already hold air


def convert_schematic(
    source: str | os.PathLike,
    output: str | os.PathLike,
    *,
    fmt: str | None = None,
    drop_extras: bool = False,
    mc_version: str | int | None = None,
    replace_unknown: str | None = None,
) -> dict:
    """Rewrite ``source`` (any format) as ``fmt``: sponge2 (the server's layout, Offset = paste offset; the
    default for a ``.schem`` output), sponge3, litematic or structure (None: by ``output``'s extension).

    States are upgraded to ``mc_version`` (default: the file's own release; legacy files: the default release),
    and the result says what the upgrade changed. The conversion refuses (InputError, exit 1) when the target
    would lose data, unless ``drop_extras``; the result says what was dropped.
    """
    from mcb.schematics.formats import encode_any
    from mcb.schematics.outputs import FORMATS, LABELS, format_losses, name_mismatch, output_format
    from mcb.schematics.upgrade import check_replacement, target_registry, upgrade_schematic

    check_replacement(replace_unknown, mc_version)
    doc = load_document(source)
    refuse_duplicate_names(doc)
    schem = from_document(doc)
    fmt = output_format(fmt, output, schem, default="sponge2")  # convert's own default: the server's format
    losses = conversion_losses(schem, fmt)
    if losses and not drop_extras:
        keeping = [other for other in FORMATS if other != fmt and not conversion_losses(schem, other)]
        keep = f"keep everything with --to {' or '.join(keeping)}, or " if keeping else ""
        raise InputError(
            f"conversion to {LABELS[fmt]} would lose data: " + "; ".join(losses),
            hint=f"{keep}drop it on purpose with --drop-extras",
            code="schem.convert.lossy",
            details={"losses": losses, "lossless_formats": keeping},
        )
    if losses:
        _drop_extras(schem, fmt)
    notes = [loss["detail"] for loss in format_losses(schem, fmt) if not loss["data"]]
    mismatch = name_mismatch(fmt, output)
    if mismatch:
        notes.insert(0, mismatch)
    registry = target_registry(schem, mc_version)
    before = schem.source
    schem, upgrade = upgrade_schematic(schem, registry, replace_unknown=replace_unknown)
    payload = encode_any(schem, fmt)
    with writing(output) as target:
        write_bytes_atomic(target, payload)
    result = {
        "input": str(source),
        "output": str(target),
        "from": format_label(doc, schem),
        "to": LABELS[fmt],
        "format": fmt,
        "bytes": len(payload),
        "offset": list(schem.offset),
        "stored_offset_before": list(before.stored_offset) if before.stored_offset else None,
        "release": registry.release,
        "dropped": losses,
        "upgrade": upgrade.to_json(),
        "notes": notes + upgrade.lines(),
    }
    if fmt == "sponge2":
        result["server"] = _server_verdict(payload, mc_version)
    return result


__all__ = ["describe_schematic", "convert_schematic", "conversion_losses", "palette_counts"]
