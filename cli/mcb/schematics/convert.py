"""``mcb schem convert`` (and the MCP tool schem_convert): rewrite a schematic of any format in another, upgraded
to the target release, refusing to lose data unless asked."""

from __future__ import annotations

import os
from collections import Counter

from mcb.errors import InputError
from mcb.fileio import write_atomic, writing
from mcb.schematics.document import load_document, refuse_duplicate_names, with_file
from mcb.schematics.formats import from_document
from mcb.schematics.info import format_label, server_verdict
from mcb.schematics.model import Schematic
from mcb.wording import plural, tally


def conversion_losses(schem: Schematic, fmt: str) -> list[str]:
    """What writing ``schem`` as ``fmt`` would not carry: for Sponge v2 (the server's format) also what the server
    would refuse to keep."""
    from mcb.schematics.formats.losses import format_losses

    losses = [loss["detail"] for loss in format_losses(schem, fmt) if loss["data"]]
    if fmt != "sponge2":
        return losses
    for items, noun, nouns, data in (
        (schem.block_entities, "block entity", "block entities", "block-entity data"),
        (schem.entities, "entity", "entities", "entities"),
    ):
        if items:
            kinds = tally(Counter(str(item.id) for item in items).most_common(), 3)
            losses.append(f"{plural(len(items), noun, nouns)} ({kinds}): the server imports no {data}")
    mods = (schem.metadata or {}).get("RequiredMods")
    if mods:
        losses.append(f"Metadata.RequiredMods {[str(m) for m in mods]}: the server refuses files that require mods")
    if schem.biome_palette is not None and not any(loss.startswith("3-D biomes") for loss in losses):
        losses.append("biomes (the server imports no biomes)")
    return losses


def lossless_formats(schem: Schematic, refused: str) -> list[str]:
    """The formats other than ``refused`` that keep all of ``schem`` and that mcb can write it in: a format that loses
    nothing but whose file would pass the write limits (a 256³ structure .nbt) is no way to keep everything."""
    from mcb.schematics.formats import by_name, writable_names
    from mcb.schematics.formats.limits import may_hold

    return [
        other
        for other in writable_names()
        if other != refused and not conversion_losses(schem, other) and may_hold(schem, by_name(other))
    ]


def _drop_extras(schem: Schematic, fmt: str) -> None:
    from mcb.schematics.formats import by_name
    from mcb.schematics.formats.losses import writable_parts

    schem.block_entities, schem.entities = writable_parts(schem, fmt)
    if fmt == "sponge2":
        schem.block_entities, schem.entities = [], []
        if schem.metadata and "RequiredMods" in schem.metadata:
            del schem.metadata["RequiredMods"]
    if fmt != "sponge3":
        schem.biome_palette, schem.biomes = None, None
    if "void" in by_name(fmt).cannot_hold and schem.void is not None:
        schem.void = None  # the cells already hold air (Litematica keeps the mask: its regions leave cells out)


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
    and the result says what the upgrade changed. The conversion refuses (InputError, exit 1, naming ``source``)
    when the target would lose data, unless ``drop_extras``; the result says what was dropped.
    """
    from mcb.schematics.formats import by_name, encode_any, name_mismatch, output_format
    from mcb.schematics.formats.losses import format_losses
    from mcb.schematics.upgrade import check_replacement, target_registry, upgrade_schematic

    check_replacement(replace_unknown, mc_version)
    doc = load_document(source)
    with with_file(doc.path):  # until the output is written, what the file holds is at fault: errors name it
        refuse_duplicate_names(doc)
        schem = from_document(doc)
        fmt = output_format(fmt, output, schem, default="sponge2")  # convert's own default: the server's format
        losses = conversion_losses(schem, fmt)
        if losses and not drop_extras:
            keeping = lossless_formats(schem, fmt)
            keep = f"keep everything with {{format}} {' or '.join(keeping)}, or " if keeping else ""
            raise InputError(
                f"conversion to {by_name(fmt).label} would lose data: " + "; ".join(losses),
                hint=f"{keep}drop it on purpose with {{drop_extras}}",
                code="schem.convert.lossy",
                details={"losses": losses, "lossless_formats": keeping, "retry_with": {"drop_extras": True}},
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
        write_atomic(target, payload)
    result = {
        "input": str(source),
        "output": str(target),
        "from": format_label(doc, schem),
        "to": by_name(fmt).label,
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
        result["server"] = server_verdict(payload, mc_version)
    return result
