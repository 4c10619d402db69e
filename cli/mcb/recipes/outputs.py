"""Files written by `mcb recipe compile`: a Sponge v2 schematic and a PNG rendering of the compiled recipe."""

from __future__ import annotations

from pathlib import Path

from mcb.recipes.compile import CompiledRecipe


def write_outputs(
    compiled: CompiledRecipe,
    data_version: int,
    *,
    schem: Path | None = None,
    png: Path | None = None,
    view: str = "iso",
    scale: int | None = None,
    name: str | None = None,
) -> dict[str, str]:
    """Write the requested files (each atomically); returns {"schematic": path, "png": path} for what was written."""
    from mcb.recipes.export import SERVER_SCHEMATIC_VOLUME, recipe_to_schematic

    written: dict[str, str] = {}
    if schem is not None:  # checked first: a refusal must not leave a PNG behind
        schematic = recipe_to_schematic(compiled, data_version, max_volume=SERVER_SCHEMATIC_VOLUME)
    if png is not None:
        from mcb.schematics.render import write_png

        write_png(recipe_picture(compiled, data_version, view, scale), png)
        written["png"] = str(png)
    if schem is not None:
        from mcb.schematics.formats.sponge_writer import write_schematic

        write_schematic(schematic, schem, version=2, name=_asset_name(name or schem.stem), author="mcb")
        written["schematic"] = str(schem)
    return written


def recipe_picture(compiled: CompiledRecipe, data_version: int, view: str = "iso", scale: int | None = None):
    """The rendering of a compiled recipe (a PIL image), as `mcb recipe compile --png` writes it."""
    from mcb.recipes.export import RENDER_VOLUME_LIMIT, recipe_to_schematic
    from mcb.schematics.render import render_schematic

    picture = recipe_to_schematic(compiled, data_version, max_volume=RENDER_VOLUME_LIMIT)
    return render_schematic(picture, view, scale)


def _asset_name(text: str) -> str:
    """Metadata.Name must be 1..64 characters without control characters (protocol §6.4 rule 13)."""
    cleaned = "".join(ch for ch in text if ch >= " " and ch != "\x7f")[:64]
    return cleaned or "recipe"
