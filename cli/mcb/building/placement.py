"""Where a schematic file goes in the world, and which of its cells a build places.

    placement = load_placement("ship.schem", PlacementOptions(target=(0, 64, 0), rotation=90))
    placement.world_box()           # ((x1, y1, z1), (x2, y2, z2)) of the cells it places
    check_fits(placement, region)   # before any write: the whole build inside the project area

The file's anchor goes to ``target`` as WorldEdit pastes it: local (0,0,0) lands at ``target + offset`` (the model's
paste offset, after ``--mirror`` and then ``--rotation``, turned by the same code as ``schem rotate``). States are
upgraded to the target release's canonical full states (the server compares those). A cell is placed unless the file
leaves it unchanged (``void``) or it is air and ``skip_air`` is set.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field

import numpy as np

from mcb.blocks.state import AIR_STATES
from mcb.building.passes import build_pass, partner_offset
from mcb.building.placement_options import PlacementOptions, Vec3Input  # noqa: F401 (the one model, here too)
from mcb.errors import InputError
from mcb.wording import dimensions, plural, shown

Vec3 = tuple[int, int, int]


@dataclass
class Placement:
    path: str
    file_sha256: str
    options: PlacementOptions
    schem: object  # mcb.schematics.model.Schematic, turned and upgraded
    origin: Vec3  # world position of local (0, 0, 0)
    states: list[str]  # canonical state of each palette index
    placed: np.ndarray  # bool per palette index: a build writes cells of this index
    air: np.ndarray  # bool per palette index
    pass_of: np.ndarray  # int8 per palette index (mcb.building.passes)
    partner: np.ndarray  # int8 (n, 3) per palette index: other half's offset, (0,0,0) for single blocks
    lo: Vec3 | None  # local box of the placed cells: lo inclusive, hi exclusive (None: nothing is placed)
    hi: Vec3 | None
    dropped: dict = field(default_factory=dict)  # {"block_entities": n, "entities": n} left out by drop_extras
    upgrade: object = None  # mcb.schematics.upgrade.UpgradeReport

    @property
    def blocks(self) -> np.ndarray:
        return self.schem.blocks

    @property
    def void(self) -> np.ndarray | None:
        return self.schem.void

    def placed_mask(self, ys: slice, zs: slice, xs: slice) -> np.ndarray:
        """bool [y, z, x] of the cells a build writes inside a local sub-box."""
        mask = self.placed[self.blocks[ys, zs, xs]]
        if self.void is not None:
            mask &= ~self.void[ys, zs, xs]
        return mask

    def world_box(self) -> tuple[Vec3, Vec3] | None:
        if self.lo is None:
            return None
        ox, oy, oz = self.origin
        return (
            (ox + self.lo[0], oy + self.lo[1], oz + self.lo[2]),
            (ox + self.hi[0] - 1, oy + self.hi[1] - 1, oz + self.hi[2] - 1),
        )

    def placed_counts(self) -> dict:
        """{"cells": placed cells, "blocks": placed non-air cells} over the whole file."""
        counts = np.bincount(self.blocks.ravel(), minlength=len(self.states))
        if self.void is not None:
            counts = counts - np.bincount(self.blocks[self.void], minlength=len(self.states))
        placed = int(counts[self.placed].sum())
        return {"cells": placed, "blocks": int(counts[self.placed & ~self.air].sum())}


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load_placement(path: str | os.PathLike, options: PlacementOptions, registry=None) -> Placement:
    """Read, check (extras), mirror, rotate and upgrade a schematic file for ``options``."""
    from mcb.blocks.registry import load_registry
    from mcb.schematics.document import load_document
    from mcb.schematics.formats import from_document
    from mcb.schematics.transform import mirror_schematic, rotate_schematic
    from mcb.schematics.upgrade import check_replacement, upgrade_schematic

    check_replacement(options.replace_unknown)
    # A build places block states only: the contents of block entities and entities are walked (and checked) but
    # not kept, except in legacy files, whose 1.12 block entities still carry parts of block states. Read from the
    # path, so an unreadable or malformed file is named in the error, with what a schematic is.
    document = load_document(path, fast=True)
    data = document.data
    if document.kind == "legacy":
        document = load_document(data)
    schem = from_document(document)
    dropped = _check_extras(schem, str(path), options.drop_extras)
    registry = registry if registry is not None else load_registry(None)
    try:
        schem, report = upgrade_schematic(schem, registry, replace_unknown=options.replace_unknown, canonical=True)
    except InputError as error:
        error.message = f"{shown(path)}: {error.template}"
        raise
    # Turned after the upgrade, as `schem mirror`/`schem rotate` do: the states are then ones the registry knows
    # (a mod's `north_east` on a fence is dropped first, not refused by the turn).
    if options.mirror:
        schem = mirror_schematic(schem, options.mirror, registry=registry)
    if options.rotation:
        schem = rotate_schematic(schem, options.rotation, registry=registry)
    states = list(schem.palette)
    air = np.array([s in AIR_STATES for s in states], dtype=bool)
    placed = ~air if options.skip_air else np.ones(len(states), dtype=bool)
    partner = np.array([partner_offset(s) or (0, 0, 0) for s in states], dtype=np.int8).reshape(-1, 3)
    placement = Placement(
        path=str(path),
        file_sha256=file_digest(data),
        options=options,
        schem=schem,
        origin=tuple(t + o for t, o in zip(options.target, schem.offset)),
        states=states,
        placed=placed,
        air=air,
        pass_of=np.array([build_pass(s) for s in states], dtype=np.int8),
        partner=partner,
        lo=None,
        hi=None,
        dropped=dropped,
        upgrade=report,
    )
    placement.lo, placement.hi = _placed_box(placement)
    return placement


def _check_extras(schem, path: str, drop: bool) -> dict:
    entities, block_entities = len(schem.entities), len(schem.block_entities)
    if not (entities or block_entities):
        return {}
    if drop:
        return {"block_entities": block_entities, "entities": entities}
    what = " and ".join(
        part
        for part in (
            plural(block_entities, "block entity", "block entities") if block_entities else "",
            plural(entities, "entity", "entities") if entities else "",
        )
        if part
    )
    raise InputError(
        f"{shown(path)} has {what}; a build places block states only, so nothing was written",
        code="schematic_extras",
        details={"block_entities": block_entities, "entities": entities, "retry_with": {"drop_extras": True}},
        hint='add {drop_extras=true} (in a batch step: "drop_extras": true) to build the block states '
        "without them (containers empty, signs blank)",
    )


def _placed_box(placement: Placement) -> tuple[Vec3 | None, Vec3 | None]:
    schem = placement.schem
    if placement.placed.all() and schem.void is None:
        if schem.volume == 0:
            return None, None
        return (0, 0, 0), (schem.width, schem.height, schem.length)
    mask = placement.placed_mask(slice(None), slice(None), slice(None))
    if not mask.any():
        return None, None
    ys = np.flatnonzero(mask.any(axis=(1, 2)))
    zs = np.flatnonzero(mask.any(axis=(0, 2)))
    xs = np.flatnonzero(mask.any(axis=(0, 1)))
    return (int(xs[0]), int(ys[0]), int(zs[0])), (int(xs[-1]) + 1, int(ys[-1]) + 1, int(zs[-1]) + 1)


_SIDES = (("west (-x)", "east (+x)"), ("down (-y)", "up (+y)"), ("north (-z)", "south (+z)"))


def check_fits(placement: Placement, region, *, reading: bool = False) -> None:
    """Refuse (before any write) a build whose box leaves the project area ``region`` (a client Region): one
    larger than the area on some axis (no target helps), one reaching below the world's floor or above its top
    (no area helps), else one that sticks out (another target helps). ``reading``: a command that only reads there
    (verify, materials) is refused before any read, and says so ("nothing was read: the file's box ...")."""
    box = placement.world_box()
    if box is None or region is None:
        return
    floor, top = -64, 319  # the overworld's build height (Minecraft 1.18+); a project area lies inside it
    low = (region.min.x, region.min.y, region.min.z)
    high = (region.max.x, region.max.y, region.max.z)
    out = []
    for axis in range(3):
        below, above = low[axis] - box[0][axis], box[1][axis] - high[axis]
        if below > 0:
            out.append(f"{plural(below, 'block')} {_SIDES[axis][0]}")
        if above > 0:
            out.append(f"{plural(above, 'block')} {_SIDES[axis][1]}")
    if not out:
        return
    size = [box[1][a] - box[0][a] + 1 for a in range(3)]
    room = [high[a] - low[a] + 1 for a in range(3)]
    larger = [a for a in range(3) if size[a] > room[a]]
    details = {"box": [list(box[0]), list(box[1])], "area": [list(low), list(high)]}
    thing = "the file" if reading else "the build"
    where = f"{thing}'s box {_text(box[0])} .. {_text(box[1])}"
    if larger:
        axes = " and ".join("xyz"[a] for a in larger)
        details["larger_than_area"] = ["xyz"[a] for a in larger]
        union = [min(low[a], box[0][a]) for a in range(3)], [max(high[a], box[1][a]) for a in range(3)]
        union[0][1], union[1][1] = max(union[0][1], floor), min(union[1][1], top)
        message = (
            f"{thing} is {dimensions(*size)} blocks (W x H x L), larger than the project area "
            f"{dimensions(*room)} on {axes}: no {{target}} puts it inside"
        )
        hint = (
            "ask the owner to enlarge the area (/ai area); a local `mcb serve` takes it at start: "
            f"`mcb serve --region {_text(union[0])},{_text(union[1])}` holds it at this {{target}}"
        )
    elif box[0][1] < floor or box[1][1] > top:
        details["world_height"] = [floor, top]
        if box[0][1] < floor:
            reach, move = f"y={box[0][1]}, below the world's floor (y={floor})", low[1] - box[0][1]
        else:
            reach, move = f"y={box[1][1]}, above the world's top (y={top})", high[1] - box[1][1]
        message = f"{where} reaches {reach}: no project area holds it there"
        direction = "raise" if move > 0 else "lower"
        hint = f"{direction} {{target}}'s y by at least {abs(move):,}, into the project area (y {low[1]} .. {high[1]})"
    else:
        apart = any(box[0][a] > high[a] or box[1][a] < low[a] for a in range(3))
        fit = "is outside" if apart else "does not fit"
        message = f"{where} {fit} the project area {_text(low)} .. {_text(high)}: it sticks out {', '.join(out)}"
        hint = "choose another {target}, or ask the owner to enlarge the area (/ai area; `mcb serve --region`)"
    message = f"nothing was read: {message}" if reading else f"{message}; nothing was written"
    details["field"] = "target"
    moved = None if larger else _target_inside(placement.options.target, box, (low, high))
    if moved is not None:  # the same build, moved the least that puts it inside (none helps a larger build)
        details["retry_with"] = {"target": dict(zip("xyz", moved))}
    raise InputError(message, code="out_of_bounds", details=details, hint=hint)


def _target_inside(target, box, area) -> tuple[int, int, int] | None:
    """The nearest target that puts the build's ``box`` inside the project ``area``; None when no target does (the
    box is larger than the area on some axis)."""
    moved = list(target)
    for axis in range(3):
        below, above = area[0][axis] - box[0][axis], box[1][axis] - area[1][axis]
        if below > 0 and above > 0:
            return None
        moved[axis] += below if below > 0 else -above if above > 0 else 0
    return tuple(moved)


def _text(pos) -> str:
    return ",".join(str(v) for v in pos)
