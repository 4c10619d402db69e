"""Helpers for the build engine's tests: the corpus, a project area big enough for it, and independent readings of
the world and of what a file says each cell should hold."""

from __future__ import annotations

from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
AREA = ((-192, -64, -192), (191, 255, 191))


def read_world(client, low, high) -> dict:
    """Every state in ``low .. high`` read with plain ``region_inspect`` calls: {(x, y, z): state}. A 16³ box
    whose summary names one state holds it everywhere; only the others are read block by block."""
    cells = {}
    for y in range(low[1], high[1] + 1, 16):
        for z in range(low[2], high[2] + 1, 16):
            for x in range(low[0], high[0] + 1, 16):
                top = (min(x + 15, high[0]), min(y + 15, high[1]), min(z + 15, high[2]))
                box = {"min": {"x": x, "y": y, "z": z}, "max": {"x": top[0], "y": top[1], "z": top[2]}}
                palette = client.call("region_inspect", box)["palette"]
                if len(palette) == 1:  # one state in the whole box (the protocol's counts say so): no need to list
                    (state,) = palette
                    cells.update(
                        ((i, j, k), state)
                        for j in range(y, top[1] + 1)
                        for k in range(z, top[2] + 1)
                        for i in range(x, top[0] + 1)
                    )
                    continue
                answer = client.call("region_inspect", {**box, "detail": "blocks"})
                for block in answer["blocks"]:
                    pos = block["pos"]
                    cells[(pos["x"], pos["y"], pos["z"])] = block["state"]
    return cells


def world_at(client, want: dict) -> dict:
    """The world's state at each position of ``want`` (read over the positions' box)."""
    xs, ys, zs = zip(*want)
    world = read_world(client, (min(xs), min(ys), min(zs)), (max(xs), max(ys), max(zs)))
    return {pos: world[pos] for pos in want}


def file_cells(path, target, *, rotation: int = 0, mirror=None) -> dict:
    """What a file says each world cell should hold, computed independently of the build engine: the model, the
    shared transform and upgrade, and the paste rule local (0,0,0) -> target + offset."""
    from mcb.blocks.registry import load_registry
    from mcb.schematics.formats import read_any
    from mcb.schematics.transform import mirror_schematic, rotate_schematic
    from mcb.schematics.upgrade import upgrade_schematic

    schem = read_any(path)
    if mirror:
        schem = mirror_schematic(schem, mirror)
    if rotation:
        schem = rotate_schematic(schem, rotation)
    schem, _ = upgrade_schematic(schem, load_registry(None), canonical=True)
    origin = tuple(t + o for t, o in zip(target, schem.offset))
    cells = {}
    for (y, z, x), index in __import__("numpy").ndenumerate(schem.blocks):
        if schem.void is not None and schem.void[y, z, x]:
            continue
        cells[(origin[0] + x, origin[1] + y, origin[2] + z)] = schem.palette[index]
    return cells
