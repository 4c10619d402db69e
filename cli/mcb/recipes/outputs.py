"""Files written by `mcb recipe compile`: a Sponge v2 schematic and a PNG rendering of the compiled recipe."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from mcb.errors import InputError
from mcb.recipes.compile import CompiledRecipe


def write_outputs(compiled: CompiledRecipe, data_version: int, *, schem: Path | None = None,
                  png: Path | None = None, view: str = "iso", scale: int = 8) -> dict[str, str]:
    from mcb.recipes.export import recipe_to_schematic

    schematic = recipe_to_schematic(compiled, data_version)
    written: dict[str, str] = {}
    if schem is not None:
        try:
            from mcb.schematics.sponge import write_schematic
        except ImportError:
            raise InputError("writing schematics is not available in this build", hint="update mcb") from None
        write_schematic(schematic, schem, version=2)
        written["schematic"] = str(schem)
    if png is not None:
        try:
            from mcb.schematics.render import render_schematic
        except ImportError:
            raise InputError("rendering is not available in this build", hint="update mcb") from None
        image = render_schematic(schematic, view, scale)
        _save_png_atomically(image, png)
        written["png"] = str(png)
    return written


def _save_png_atomically(image, path: Path) -> None:
    fd, temp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix=f".{path.name}.", suffix=".png")
    os.close(fd)
    try:
        image.save(temp, format="PNG")
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise
