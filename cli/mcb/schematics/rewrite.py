"""Rotating or mirroring a schematic *file*: read (any format), upgrade, turn (:mod:`mcb.schematics.transform`),
write atomically in the format asked for, and say what changed and what the output cannot hold.

    summary = transform_file("house.schem", "house-90.schem", degrees=90)

The body of `mcb schem rotate|mirror` and of the MCP tools schem_rotate|schem_mirror.
"""

from __future__ import annotations

import numpy as np

from mcb.blocks.transform import transform_palette
from mcb.errors import InputError, McbError, UsageError
from mcb.schematics.cells import present_values, used_indices
from mcb.schematics.model import Schematic
from mcb.schematics.nbt import RAW, Encoded
from mcb.schematics.transform import _apply, _mirroring, _rotation


def transform_file(
    source,
    output,
    *,
    degrees: int | None = None,
    mirror_axis: str | None = None,
    rules: str = "vanilla",
    fmt: str | None = None,
    mc_version: str | None = None,
    replace_unknown: str | None = None,
    document=None,
) -> dict:
    """Read ``source`` (any format), upgrade, rotate or mirror it, write ``output`` atomically; a summary.

    ``fmt`` (sponge2, sponge3, litematic, structure) picks the format written; None: ``output``'s extension, else
    the input's format. ``mc_version`` picks the release the states are upgraded to and transformed with; None
    uses the schematic's DataVersion. ``output`` may equal ``source`` (in-place edit). ``document``: ``source``
    already read by :func:`mcb.schematics.document.load_document`.
    """
    from mcb.schematics.document import load_document, refuse_duplicate_names, with_file
    from mcb.schematics.formats import encode_any, from_document, name_mismatch, output_format
    from mcb.schematics.formats.losses import format_losses
    from mcb.schematics.upgrade import check_replacement, target_registry, upgrade_schematic

    check_replacement(replace_unknown, mc_version)
    if document is None:
        # Block-entity contents only move with their blocks: kept as their bytes, checked, copied when written
        # (the 256^3 corpus file's 10^6 item tags are never built). Private to this rewrite: the model it builds
        # never leaves this function.
        document = load_document(source, keep=_contents_as_bytes)
    path = document.path
    with with_file(path):  # until the output is written, what the file holds is at fault: errors name it
        refuse_duplicate_names(document)
        schem = from_document(document, compact=True)  # the cells are only moved and written: uint16 fits
        document = None  # its tree (a 17 MB BlockData among it) is not needed while the result is encoded
        in_place = _in_place_format(source, output, schem, fmt)
        written = in_place or output_format(fmt, output, schem)
        if _needs_contents(schem, written, mirror_axis, rules):
            schem = from_document(load_document(source), compact=True)
        registry = target_registry(schem, mc_version)
        schem, upgrade = upgrade_schematic(schem, registry, replace_unknown=replace_unknown)
        move = _mirroring(schem, mirror_axis) if mirror_axis is not None else _rotation(schem, degrees or 0)
        result, transformed = _apply(schem, move, rules, registry, contiguous=False)  # only written, never edited
        losses = format_losses(result, written)
        lost = [loss["detail"] for loss in losses if loss["data"]]
        if in_place and lost:  # the file itself would be replaced by less than it holds
            raise InputError(
                "{in_place} would lose data: " + "; ".join(lost),
                code="schem.edit.lossy",
                hint="write the result as a new file with {output=NEW_NAME} (the original stays as it is)",
                details={"losses": lost, "field": "in_place"},
            )
        mismatch = name_mismatch(written, output)
        if mismatch:
            losses.append({"what": "name", "count": 1, "data": False, "detail": mismatch})
        payload = encode_any(result, written)  # refused here if mcb could not read it back
    _write_atomically(payload, output)
    changed = len(set(result.palette) - set(schem.palette))  # states the transform produced anew
    turns = 0 if mirror_axis is not None else (degrees or 0) // 90
    other = "geometric" if rules == "vanilla" else "vanilla"
    differ = rule_set_differences(schem, turns, mirror_axis, registry, rules, other, transformed)
    return {
        "input": str(source),
        "output": str(output),
        "operation": "mirror" if mirror_axis is not None else "rotate",
        "degrees": None if mirror_axis is not None else (degrees or 0),
        "axis": mirror_axis,
        "rules": rules,
        "release": registry.release,
        "format": written,
        "size": list(result.size),
        "offset": list(result.offset),
        "palette_size": len(result.palette),
        "palette_changed": changed,
        "block_entities": len(result.block_entities),
        "entities": len(result.entities),
        "other_rules": other,
        "other_rules_differ": differ,  # used input states the other rule set would transform differently
        "upgrade": upgrade.to_json(),
        "losses": losses,
    }


def _in_place_format(source, output, schem: Schematic, requested: str | None) -> str | None:
    """The format an edit in place writes, the file's own (None: not in place). Another one under the old name
    (Sponge data in a .schematic or a .litematic) would replace the user's file with one its tools no longer read."""
    import os

    from mcb.fileio import is_dash
    from mcb.schematics.formats import by_name, output_format, source_format

    if is_dash(source) or is_dash(output) or os.path.abspath(source) != os.path.abspath(output):
        return None
    read_as = source_format(schem.source)
    if not read_as.writable and not set(read_as.extensions) & set(by_name(read_as.rewritten_as).extensions):
        raise UsageError(
            f"{{in_place}} cannot rewrite a {read_as.label} file: mcb does not write that format",
            hint="write the result as a new file with {output=NAME.schem} (or .litematic, .nbt)",
            details={"field": "in_place"},
        )
    own = output_format(None, None, schem)
    if requested is not None and requested != own:
        mine, theirs = by_name(own).label, by_name(requested).label
        raise UsageError(
            f"{{in_place}} keeps the file's format ({mine}); {{format}} {requested} would put {theirs} data under its "
            "old name",
            hint=f"write the {theirs} file with {{output=NEW_NAME}}, or leave out {{format}}",
            details={"field": "in_place"},
        )
    return own


def _contents_as_bytes(path: list[str]):
    """``keep`` for a rewrite: the containers inside block entities stay encoded bytes; everything else is built."""
    if len(path) >= 3 and path[-1] != "Pos" and path[-3] in ("BlockEntities", "TileEntities"):
        return RAW
    return True


def _needs_contents(schem: Schematic, written: str, mirror_axis: str | None, rules: str) -> bool:
    """Whether this rewrite must look into block-entity contents read as bytes: a v3 ``Data`` compound written
    any other way than as v3, or the books of chiseled bookshelves under a geometric mirror."""
    if written != "sponge3" and any(type(be.data) is Encoded for be in schem.block_entities):
        return True
    return bool(
        mirror_axis
        and rules == "geometric"
        and any(be.id == "minecraft:chiseled_bookshelf" for be in schem.block_entities)
    )


def rule_set_differences(
    schem: Schematic,
    turns: int,
    mirror_axis: str | None,
    registry,
    rules: str,
    other: str,
    transformed: list[str] | None = None,
) -> list[str]:
    """Used palette states that the other rule set would transform differently (palette-level, cheap).

    ``transformed``: the whole palette already transformed with ``rules``. With it, the other rule set is applied to
    the whole palette first and the cells are searched only for the few entries that differ (none at all for most
    rotations), instead of listing every used index of 16M cells."""
    if not schem.blocks.size:
        return []
    if transformed is not None and len(transformed) == len(schem.palette):
        try:
            theirs = transform_palette(
                schem.palette, quarter_turns=turns, mirror_axis=mirror_axis, rules=other, registry=registry
            )
        except McbError:  # an unused entry the other rules refuse: compare the used entries only
            theirs = None
        if theirs is not None:
            differing = [i for i, (a, b) in enumerate(zip(transformed, theirs)) if a != b]
            if not differing:
                return []
            try:
                used = present_values(schem.blocks.ravel(), differing, len(schem.palette))
            except (IndexError, ValueError):  # indices outside the palette: the general way below
                pass
            else:
                return sorted({schem.palette[i] for i in used})
    try:
        used = used_indices(schem.blocks.ravel(), len(schem.palette))
    except (IndexError, ValueError):  # indices outside the palette: the slow way, skipping those beyond it
        used = np.unique(schem.blocks)
        used = used[used < len(schem.palette)]
    palette = [schem.palette[i] for i in used]
    mine = transform_palette(palette, quarter_turns=turns, mirror_axis=mirror_axis, rules=rules, registry=registry)
    theirs = transform_palette(palette, quarter_turns=turns, mirror_axis=mirror_axis, rules=other, registry=registry)
    return sorted({state for state, a, b in zip(palette, mine, theirs) if a != b})


def _write_atomically(payload: bytes, output) -> None:
    """Via a temp file in the same directory + ``os.replace``; refused as every writer refuses."""
    from mcb.fileio import write_atomic, writing

    with writing(output) as target:
        write_atomic(target, payload)
