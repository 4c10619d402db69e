"""A compiled recipe as a Sponge schematic of its bounding box (for `mcb recipe compile --schem/--png`).

Cells the recipe does not set become ``minecraft:air``. The server imports **every** cell, air included
(protocol §6.5), so importing the file clears whatever stands in those cells. ``Offset`` is (0, 0, 0): importing
with ``target`` = the recipe's minimum corner puts every block where the recipe would. The server refuses
schematics whose W×H×L exceeds 4096 cells (§6.4 rule 7), so a recipe whose bounding box is larger cannot be
exported this way.
"""

from __future__ import annotations

from mcb.errors import InputError
from mcb.recipes.compile import CompiledRecipe
from mcb.wording import dimensions

SERVER_SCHEMATIC_VOLUME = 4096
# Rendering has no server limit; this only keeps a far-flung recipe from allocating gigabytes.
RENDER_VOLUME_LIMIT = 16 * 1024 * 1024
AIR = "minecraft:air"


def recipe_to_schematic(compiled: CompiledRecipe, data_version: int, *, max_volume: int = SERVER_SCHEMATIC_VOLUME):
    """The bounding box of ``compiled`` as a :class:`mcb.schematics.model.Schematic` (air where nothing is set)."""
    import numpy as np

    from mcb.schematics.model import Schematic

    bounds = compiled.bounds
    if bounds is None:
        raise InputError("the recipe places no blocks; there is nothing to export")
    low, high = bounds
    width, height, length = (high[i] - low[i] + 1 for i in range(3))
    volume = width * height * length
    if volume > max_volume:
        raise InputError(
            f"the recipe's bounding box is {dimensions(width, height, length)} = {volume:,} cells; "
            + (
                f"the server imports schematics of at most {max_volume:,} cells"
                if max_volume == SERVER_SCHEMATIC_VOLUME
                else f"at most {max_volume:,} cells can be rendered"
            ),
            hint="export a smaller recipe, or split it; {recipe_compile} lists every block",
        )
    palette = [AIR]
    index_of = {AIR: 0}
    blocks = np.zeros((height, length, width), dtype=np.int32)
    for (x, y, z), state in zip(compiled.positions, compiled.states):
        index = index_of.get(state)
        if index is None:
            index = index_of[state] = len(palette)
            palette.append(state)
        blocks[y - low[1], z - low[2], x - low[0]] = index
    schem = Schematic(
        width=width,
        height=height,
        length=length,
        palette=palette,
        blocks=blocks,
        data_version=data_version,
        offset=(0, 0, 0),
    )
    return schem.compact_palette()
