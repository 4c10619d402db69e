"""Which format a schematic is written in, and what that format cannot hold.

    fmt = output_format(requested, output_path, schem)   # --to, else -o's extension, else the input's format
    losses = format_losses(schem, fmt)                    # what writing it as fmt would not carry, with counts

Writers live with their formats (:mod:`mcb.schematics.formats`); commands and MCP tools choose and report here.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING

from mcb.errors import UsageError

if TYPE_CHECKING:  # argument checks import this module before any file is read: no numpy here
    from mcb.schematics.model import Schematic

FORMATS = ("sponge2", "sponge3", "litematic", "structure")
_ALIASES = {
    "v2": "sponge2",
    "2": "sponge2",
    "v3": "sponge3",
    "3": "sponge3",
    "litematica": "litematic",
    "nbt": "structure",
}
_BY_EXTENSION = {".litematic": "litematic", ".nbt": "structure"}
LABELS = {"sponge2": "Sponge v2", "sponge3": "Sponge v3", "litematic": "Litematica", "structure": "structure .nbt"}


def parse_format(value: str | None) -> str | None:
    """``sponge2|sponge3|litematic|structure`` (``v2``/``v3`` too); None stays None (decided later)."""
    if value is None:
        return None
    fmt = _ALIASES.get(value.lower(), value.lower())
    if fmt not in FORMATS:
        raise UsageError(
            f"unknown schematic format {value!r}",
            hint="use sponge2, sponge3, litematic or structure",
            details={"field": "format"},
        )
    return fmt


def output_format(
    requested: str | None, output, schem: Schematic | None, *, default: str | None = None, option: str = "--to"
) -> str:
    """The format to write: ``requested``, else what ``output``'s extension names, else ``default``, else the
    input's own format (a legacy file, which mcb does not write, becomes Sponge v3). Without ``requested`` a name
    whose extension is no format mcb writes (``.schematic``, ``.jpg``) is refused. ``option``: the face's name
    for ``requested``, as the hint names it."""
    if requested is not None:
        return requested
    suffix = PurePath(str(output)).suffix.lower() if output is not None and str(output) != "-" else ""
    if suffix == ".schematic":
        raise UsageError(
            "mcb does not write legacy .schematic files (Minecraft 1.12 and older)",
            hint=f"write .schem (Sponge), .litematic or .nbt (structure), or choose with {option}",
            details={"field": "output"},
        )
    if suffix in _BY_EXTENSION:
        return _BY_EXTENSION[suffix]
    if suffix and suffix != ".schem":  # out/x.jpg would hold schematic data under a picture's name
        raise UsageError(
            f"{PurePath(str(output)).name}: {suffix} is not a schematic format mcb writes",
            hint=f"name it .schem (Sponge), .litematic or .nbt (structure), or choose the format with {option}",
            details={"field": "output"},
        )
    if default is not None:
        return default
    source = schem.source
    if source.format == "sponge":
        return "sponge3" if source.version == 3 or source.nonconforming_v3 else "sponge2"
    if source.format in ("litematic", "structure") and suffix != ".schem":
        return source.format
    return "sponge3"


def name_mismatch(fmt: str, output) -> str | None:
    """A warning when ``output``'s extension names another format than the one written (``-o x.litematic --to
    sponge2``), else None."""
    suffix = PurePath(str(output)).suffix.lower() if output is not None and str(output) != "-" else ""
    named = {".schem": "sponge", **_BY_EXTENSION}.get(suffix)
    if named is None or fmt.startswith(named):
        return None
    return f"{PurePath(str(output)).name} is named like a {named} file but holds {LABELS[fmt]} data (as --to asks)"


def format_losses(schem: Schematic, fmt: str) -> list[dict]:
    """What ``fmt`` cannot hold of ``schem``: ``{"what", "count", "detail", "data"}`` each (an empty list:
    nothing). ``data`` False marks what changes no block (the anchor): a conversion says it, and refuses only
    for the rest."""
    import numpy as np

    losses = []
    void = int(np.count_nonzero(schem.void)) if schem.void is not None else 0
    if void and fmt != "structure":
        losses.append(
            {
                "what": "void cells",
                "count": void,
                "data": True,
                "detail": f"{void} cells the file leaves unchanged are written as air ({LABELS[fmt]} has no "
                "'leave unchanged' cell)",
            }
        )
    if fmt == "structure" and any(schem.offset):
        losses.append(
            {
                "what": "anchor",
                "count": 1,
                "data": False,
                "detail": f"the paste offset {', '.join(map(str, schem.offset))} is not kept: a structure "
                "is placed from its corner",
            }
        )
    outside = outside_block_entities(schem)
    if outside and fmt in ("litematic", "structure"):
        kinds = ", ".join(sorted({be.id for be in outside}))
        losses.append(
            {
                "what": "block entities outside the box",
                "count": len(outside),
                "data": True,
                "detail": f"{len(outside)} block {'entity' if len(outside) == 1 else 'entities'} ({kinds}) "
                f"outside the {schem.width} x {schem.height} x {schem.length} box "
                f"{'is' if len(outside) == 1 else 'are'} not written "
                f"({LABELS[fmt]} keeps block entities on their blocks)",
            }
        )
    if schem.biome_palette is not None and schem.biomes is not None:
        if fmt in ("litematic", "structure"):
            losses.append(
                {
                    "what": "biomes",
                    "count": len(schem.biome_palette),
                    "data": True,
                    "detail": f"biomes are not written ({LABELS[fmt]} has none)",
                }
            )
        elif fmt == "sponge2" and schem.biomes.shape[0] > 1 and bool((schem.biomes != schem.biomes[:1]).any()):
            losses.append(
                {
                    "what": "biomes",
                    "count": len(schem.biome_palette),
                    "data": True,
                    "detail": "3-D biomes keep only their lowest layer (Sponge v2 biomes are 2-D)",
                }
            )
    return losses


def outside_block_entities(schem: Schematic) -> list:
    """Block entities whose position lies outside the box (a Sponge file may hold them; no block carries them)."""
    size = schem.size
    return [be for be in schem.block_entities if not all(0 <= int(p) < n for p, n in zip(be.pos, size))]
