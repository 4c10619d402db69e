"""Render a schematic to a PNG: a top-down map and an isometric view.

* ``top``: the highest non-air block of every column, north up, shaded by height (lighter = higher) with a
  map-style relief (a column higher than its northern neighbour is brightened, lower is darkened).
* ``iso``: the schematic seen from the south-east and above; each visible cube face is drawn with light (top),
  medium (east) and dark (south) shading. Only faces next to air are drawn, back to front.

Colours come from :func:`mcb.blocks.colours.block_colour` (the camera of ``mcb serve`` uses the same ones).
Nothing here touches the terminal; the commands and ``mcb recipe compile --png`` call :func:`render_schematic`.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np

from mcb.blocks.colours import INVISIBLE, block_colour
from mcb.errors import InputError, UsageError
from mcb.fileio import write_atomic, writing
from mcb.schematics.model import Schematic
from mcb.schematics.render_limits import SCALE_MAX, SCALE_MIN, VIEWS
from mcb.wording import dimensions

BACKGROUND = (24, 26, 32)
MAX_AUTO_PIXELS = 1400  # longest side chosen by the automatic scale
MAX_CANVAS_PIXELS = 60_000_000  # refuse pictures that would need gigabytes of working memory


def _palette_tables(schem: Schematic) -> tuple[np.ndarray, np.ndarray]:
    colours = np.array([block_colour(s) for s in schem.palette] or [(0, 0, 0)], dtype=np.float32)
    visible = np.array([s.split("[", 1)[0].rpartition(":")[2] not in INVISIBLE for s in schem.palette] or [False])
    return colours, visible


def auto_scale(schem: Schematic, view: str) -> int:
    """Pixels per block for the top view / half cube width for the iso view, keeping the image readable."""
    w, h, l = schem.width, schem.height, schem.length
    longest = max(w, l) if view == "top" else max(w + l, (w + l) // 2 + h)
    return max(1 if view == "top" else 2, min(16, MAX_AUTO_PIXELS // max(longest, 1)))


def render_schematic(schem: Schematic, view: str = "both", scale: int | None = None):
    """A PIL image of the schematic: ``view`` is ``top``, ``iso`` or ``both`` (side by side)."""
    from PIL import Image, ImageDraw

    if view not in VIEWS:
        raise UsageError(f"unknown view {view!r}", hint="use top, iso or both")
    if scale is not None and not SCALE_MIN <= scale <= SCALE_MAX:
        raise UsageError(f"scale must be between {SCALE_MIN} and {SCALE_MAX}, not {scale}")
    if 0 in schem.size:  # a readable file with a 0 along an axis: no view has anything to show
        raise InputError(f"nothing to draw: the box is {dimensions(*schem.size)}", code="sponge.size")
    top = render_top(schem, scale or auto_scale(schem, "top")) if view != "iso" else None
    iso = render_iso(schem, scale or auto_scale(schem, "iso")) if view != "top" else None
    if view != "both":
        return top if view == "top" else iso
    font = _caption_font()
    top_text = f"top, north up ({dimensions(schem.width, schem.length)})"
    iso_text = f"isometric from the south-east (height {schem.height})"
    gap, caption = 16, 22
    left_width = max(top.width, int(font.getlength(top_text)))
    right_width = max(iso.width, int(font.getlength(iso_text)))
    body = max(top.height, iso.height)
    canvas = Image.new("RGB", (left_width + right_width + 3 * gap, body + 2 * gap + caption), BACKGROUND)
    canvas.paste(top, (gap, gap + caption + (body - top.height) // 2))
    canvas.paste(iso, (2 * gap + left_width, gap + caption + (body - iso.height) // 2))
    draw = ImageDraw.Draw(canvas)
    draw.text((gap, gap // 2), top_text, fill=(200, 204, 214), font=font)
    draw.text((2 * gap + left_width, gap // 2), iso_text, fill=(200, 204, 214), font=font)
    return canvas


def _caption_font():
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=13)
    except (TypeError, OSError):  # Pillow without FreeType: the small bitmap font
        return ImageFont.load_default()


def render_top(schem: Schematic, scale: int):
    """Top-down map, north up, one ``scale``-pixel square per column."""
    from PIL import Image

    _check_canvas(schem.width * scale, schem.length * scale, "top")
    colours, visible = _palette_tables(schem)
    h = schem.height
    solid = visible[schem.blocks]
    has_block = solid.any(axis=0)
    # Highest solid y per column: first hit scanning the flipped y axis.
    top_y = (h - 1 - np.argmax(solid[::-1], axis=0)).astype(np.int32)
    top_y[~has_block] = -1
    z_idx, x_idx = np.indices(top_y.shape)
    rgb = colours[schem.blocks[np.clip(top_y, 0, None), z_idx, x_idx]]
    height_factor = 0.55 + 0.45 * (np.clip(top_y, 0, None) / max(h - 1, 1))
    north = np.vstack([top_y[:1], top_y[:-1]])  # neighbour to the north (z - 1)
    relief = np.where(top_y > north, 1.12, np.where(top_y < north, 0.86, 1.0))
    rgb = np.clip(rgb * (height_factor * relief)[..., None], 0, 255)
    rgb[~has_block] = BACKGROUND
    image = Image.fromarray(rgb.astype(np.uint8), "RGB")
    return image.resize((schem.width * scale, schem.length * scale), Image.NEAREST)


def render_iso(schem: Schematic, scale: int):
    """Isometric view from the south-east: top, east and south faces, painter's order (x + y + z ascending).

    Faces are stamped as pre-rasterised pixel sprites; each pixel keeps the face drawn last (highest rank), which
    is what drawing polygons back to front would give, without a Python call per face.
    """
    from PIL import Image

    s = max(2, scale + scale % 2)  # even, so every cube corner lands on a whole pixel
    w, h, l = schem.width, schem.height, schem.length
    width_px = (w + l) * s + 2
    height_px = (w + l) * s // 2 + h * s + 2
    _check_canvas(width_px, height_px, "iso", top_fits=schem.width * scale * schem.length * scale <= MAX_CANVAS_PIXELS)
    if not schem.blocks.size:
        return Image.new("RGB", (width_px, height_px), BACKGROUND)
    colours, visible = _palette_tables(schem)
    solid = visible[schem.blocks]  # [y, z, x]
    padded = np.pad(solid, ((0, 1), (0, 1), (0, 1)))  # outside the box counts as air
    open_faces = (~padded[1:, :-1, :-1] & solid, ~padded[:-1, :-1, 1:] & solid, ~padded[:-1, 1:, :-1] & solid)
    ys, zs, xs = np.nonzero(open_faces[0] | open_faces[1] | open_faces[2])
    order = np.argsort(xs + ys + zs, kind="stable")
    ys, zs, xs = ys[order], zs[order], xs[order]
    base = colours[schem.blocks[ys, zs, xs]]
    shades = np.stack([np.clip(base * 1.08, 0, 255), base * 0.82, base * 0.62])  # top, east, south
    # Screen position of each voxel's (x, y, z) corner.
    u = (l * s + 1 + (xs - zs) * s).astype(np.int64)
    v = (h * s + 1 + (xs + zs) * s // 2 - ys * s).astype(np.int64)
    rank = np.full(width_px * height_px, -1, dtype=np.int64)
    for face, (du, dv) in enumerate(_face_sprites(s)):
        voxels = np.nonzero(open_faces[face][ys, zs, xs])[0]
        step = max(1, 2_000_000 // len(du))
        for begin in range(0, len(voxels), step):
            chunk = voxels[begin : begin + step]
            pixels = ((v[chunk, None] + dv[None, :]) * width_px + (u[chunk, None] + du[None, :])).ravel()
            np.maximum.at(rank, pixels, np.repeat(chunk * 3 + face, len(du)))
    rgb = np.full((width_px * height_px, 3), BACKGROUND, dtype=np.float32)
    drawn = rank >= 0
    rgb[drawn] = shades[rank[drawn] % 3, rank[drawn] // 3]
    image = Image.fromarray(rgb.reshape(height_px, width_px, 3).astype(np.uint8), "RGB")
    return _crop_to_content(image)


def _check_canvas(width: int, height: int, view: str, top_fits: bool = False) -> None:
    """Refuse a picture above the pixel budget; the hint names the top view only where it would fit."""
    if width * height > MAX_CANVAS_PIXELS:
        raise InputError(
            f"the {view} view would be {dimensions(width, height)} pixels, too large to draw",
            hint="use a smaller {scale}" + (", or {view=top} (it fits at this scale)" if top_fits else ""),
            details={"field": "scale"},
        )


def _face_sprites(s: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Pixel offsets of the top, east and south faces of the cube at (0,0,0), relative to its corner's pixel."""
    from PIL import Image, ImageDraw

    size = 2 * s + 3
    origin = s + 1

    def project(x, y, z):
        return origin + (x - z) * s, origin + (x + z) * s // 2 - y * s

    faces = (
        ((0, 1, 0), (1, 1, 0), (1, 1, 1), (0, 1, 1)),  # top
        ((1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1)),  # east (+x)
        ((0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)),  # south (+z)
    )
    sprites = []
    for corners in faces:
        mask = Image.new("L", (size, size), 0)
        ImageDraw.Draw(mask).polygon([project(*c) for c in corners], fill=255)
        dv, du = np.nonzero(np.asarray(mask))
        sprites.append((du.astype(np.int64) - origin, dv.astype(np.int64) - origin))
    return sprites


def _crop_to_content(image, margin: int = 6):
    """Trim the empty background around the drawing (a mostly-air box would otherwise be mostly margin)."""
    pixels = np.asarray(image)
    content = np.any(pixels != np.array(BACKGROUND, dtype=np.uint8), axis=2)
    if not content.any():
        return image
    rows, cols = np.nonzero(content.any(axis=1))[0], np.nonzero(content.any(axis=0))[0]
    top, bottom = max(0, rows[0] - margin), min(image.height, rows[-1] + 1 + margin)
    left, right = max(0, cols[0] - margin), min(image.width, cols[-1] + 1 + margin)
    return image.crop((left, top, right, bottom))


def png_bytes(image) -> bytes:
    """``image`` encoded as PNG."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def write_png(image, path: str | os.PathLike) -> Path:
    """Write ``image`` as PNG atomically (temp file in the same directory, then ``os.replace``)."""
    with writing(path) as target:
        return write_atomic(target, png_bytes(image))


def render_png(source, view: str = "both", scale: int | None = None) -> tuple[bytes, dict]:
    """Read a schematic file and render it; (PNG bytes, summary). The MCP tool sends the bytes as an image."""
    from mcb.schematics.document import load_document, refuse_duplicate_names
    from mcb.schematics.formats import from_document

    # Only blocks are drawn: the validators' read (block-entity and entity contents walked and checked, not built;
    # this model never leaves this function). A tag named twice is refused: a picture of one of the two values
    # would show what the server never imports.
    document = load_document(source, fast=True)
    refuse_duplicate_names(document)
    schem = from_document(document)  # any format; void cells hold air, so they are not drawn
    image = render_schematic(schem, view, scale)
    return png_bytes(image), {
        "input": str(source),
        "view": view,
        "width": image.width,
        "height": image.height,
        "size": list(schem.size),
        "non_air": schem.non_air_count(),
    }


def render_file(source, output, view: str = "both", scale: int | None = None) -> dict:
    """Read a schematic file and write its PNG rendering atomically; return a summary for the CLI."""
    png, summary = render_png(source, view, scale)
    with writing(output) as target:
        write_atomic(target, png)
    return {"input": summary.pop("input"), "output": str(output), **summary}
