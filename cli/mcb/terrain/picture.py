"""The offline preview picture: the server's cell colours, scaled up, with a legend a person can read.

The RPC's PNG (:func:`mcb.terrain.preview.encode_png`) is the plugin's: 2 px per sample, no legend, and it stays
exactly that. ``mcb terrain preview --offline -o FILE`` writes this picture instead: the same cells scaled up
nearest-neighbour to the envelope's true proportions (the samples per axis differ once an axis is longer than the
resolution), the map's long side at least :data:`MIN_MAP_SIDE` px and 2 px per sample; then a title, a height
key, the palette's materials, the preserve boxes outlined and explained, a scale bar and the orientation.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

import numpy as np

from mcb.terrain.preview import PRESERVED_RGB, RAMP, cell_colours
from mcb.terrain.recipe import TerrainRecipe
from mcb.wording import dimensions

MIN_MAP_SIDE = 384  # px on the map's long side (256 samples get 2 px each: 512 px)
PANEL_WIDTH = 230
MARGIN = 14
BACKGROUND = (250, 250, 247)
INK = (30, 30, 30)
SOFT_INK = (95, 95, 95)
PRESERVE_OUTLINE = (150, 20, 130)
# Approximate map colours of the materials a terrain palette may use (model.MaterialId), for the swatches.
MATERIAL_RGB = {
    "minecraft:stone": (125, 125, 125),
    "minecraft:andesite": (136, 136, 137),
    "minecraft:granite": (149, 103, 85),
    "minecraft:diorite": (188, 188, 188),
    "minecraft:deepslate": (80, 80, 82),
    "minecraft:cobbled_deepslate": (77, 77, 80),
    "minecraft:dirt": (134, 96, 67),
    "minecraft:grass_block": (95, 159, 53),
    "minecraft:moss_block": (89, 109, 45),
    "minecraft:sandstone": (216, 203, 155),
    "minecraft:terracotta": (152, 94, 67),
}


@dataclass(frozen=True)
class MapBox:
    """Where the map sits in the picture, and its scale (``pixels_per_block`` on both axes)."""

    left: int
    top: int
    width: int
    height: int
    pixels_per_block: float

    def to_json(self) -> dict:
        return {
            "left": self.left,
            "top": self.top,
            "width": self.width,
            "height": self.height,
            "pixels_per_block": round(self.pixels_per_block, 4),
        }

    def x(self, block_offset: float) -> int:
        return self.left + round(block_offset * self.pixels_per_block)

    def y(self, block_offset: float) -> int:
        return self.top + round(block_offset * self.pixels_per_block)


def map_size(blocks_w: int, blocks_l: int, samples_w: int, samples_l: int) -> tuple[int, int, float]:
    """(width, height, pixels per block) of the map: true proportions, long side >= MIN_MAP_SIDE, >= 2 px/sample."""
    long_blocks, long_samples = (blocks_w, samples_w) if blocks_w >= blocks_l else (blocks_l, samples_l)
    scale = max(MIN_MAP_SIDE, 2 * long_samples) / long_blocks
    return max(1, round(blocks_w * scale)), max(1, round(blocks_l * scale)), scale


def ramp_colour(t: float) -> tuple[int, int, int]:
    """The colour of a flat cell at relative height ``t`` (0 = lowest sample, 1 = highest)."""
    return tuple(min(255, int((offset + span * t) * 0.9)) for offset, span in RAMP)


def scale_bar_blocks(blocks_across: int) -> int:
    """A round length (1, 2, 5, 10, 20, 50, ...) of about a quarter of the map's width, in blocks."""
    target = max(1.0, blocks_across / 4)
    step = 10 ** math.floor(math.log10(target))
    for factor in (5, 2, 1):
        if factor * step <= target:
            return int(factor * step)
    return 1


def render_picture(
    recipe: TerrainRecipe, xs: np.ndarray, zs: np.ndarray, heights: np.ndarray, *, title: str
) -> tuple[bytes, MapBox]:
    """(PNG bytes, where the map is) for the sampled grid ``heights[z, x]`` at columns ``xs`` / rows ``zs``."""
    from PIL import Image, ImageDraw

    cells = cell_colours(recipe, xs, zs, heights)
    rows, cols = heights.shape
    map_w, map_h, scale = map_size(recipe.width, recipe.length, cols, rows)
    font, small = _font(14), _font(12)
    line = 18
    top = MARGIN + 3 * line
    box = MapBox(MARGIN + 6, top, map_w, map_h, scale)
    below = 3 * line + 16
    panel_lines = 12 + 3 * len(recipe.preserve)
    width = box.left + box.width + MARGIN + PANEL_WIDTH
    height = max(box.top + box.height + below, top + panel_lines * line + 120)
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)

    draw.text((MARGIN, MARGIN), title, fill=INK, font=font)
    b = recipe.bounds
    draw.text(
        (MARGIN, MARGIN + line),
        f"{recipe.mode} · {dimensions(recipe.width, recipe.length)} blocks · y {b.min[1]}..{b.max[1]} · {dimensions(cols, rows)} samples",
        fill=SOFT_INK,
        font=small,
    )

    image.paste(scale_cells(cells, map_w, map_h), (box.left, box.top))
    draw.rectangle((box.left - 1, box.top - 1, box.left + box.width, box.top + box.height), outline=INK)
    _orientation(draw, box, recipe, small)
    for preserve in recipe.preserve:
        _outline_preserve(draw, box, recipe, preserve)
    _scale_bar(draw, box, recipe, small, line)
    _panel(draw, box.left + box.width + MARGIN + 6, top, recipe, heights, font, small, line)

    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue(), box


def scale_cells(cells: np.ndarray, width: int, height: int):
    """The cell colours as an image of ``width`` × ``height``, nearest-neighbour (each sample a flat patch)."""
    from PIL import Image

    return Image.fromarray(np.ascontiguousarray(cells)).resize((width, height), Image.Resampling.NEAREST)


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has only the small bitmap font
        return ImageFont.load_default()


def _orientation(draw, box: MapBox, recipe: TerrainRecipe, font) -> None:
    b = recipe.bounds
    draw.text((box.left + box.width // 2 - 4, box.top - 16), "N", fill=INK, font=font)
    draw.text((box.left + 1, box.top - 16), f"z {b.min[2]}", fill=SOFT_INK, font=font)
    draw.text((box.left + 1, box.top + box.height + 3), f"x {b.min[0]}", fill=SOFT_INK, font=font)
    label = f"x {b.max[0]}"
    draw.text(
        (box.left + box.width - draw.textlength(label, font=font), box.top + box.height + 3),
        label,
        fill=SOFT_INK,
        font=font,
    )


def _outline_preserve(draw, box: MapBox, recipe: TerrainRecipe, preserve) -> None:
    """The box's footprint on the map (its x/z blocks, edges included)."""
    b = recipe.bounds
    left, right = box.x(preserve.min[0] - b.min[0]), box.x(preserve.max[0] - b.min[0] + 1) - 1
    upper, lower = box.y(preserve.min[2] - b.min[2]), box.y(preserve.max[2] - b.min[2] + 1) - 1
    draw.rectangle((left, upper, right, lower), outline=PRESERVE_OUTLINE, width=2)


def _scale_bar(draw, box: MapBox, recipe: TerrainRecipe, font, line: int) -> None:
    blocks = scale_bar_blocks(recipe.width)
    length = max(1, round(blocks * box.pixels_per_block))
    y = box.top + box.height + line + 8
    draw.rectangle((box.left, y, box.left + length - 1, y + 4), fill=INK)
    draw.line((box.left, y - 3, box.left, y + 7), fill=INK)
    draw.line((box.left + length - 1, y - 3, box.left + length - 1, y + 7), fill=INK)
    unit = "block" if blocks == 1 else "blocks"
    draw.text((box.left + length + 8, y - 5), f"{blocks} {unit}", fill=INK, font=font)
    b = recipe.bounds
    draw.text(
        (box.left, y + 12),
        f"north (-Z) up, east (+X) right; z {b.min[2]} top .. {b.max[2]} bottom",
        fill=SOFT_INK,
        font=font,
    )


def _panel(draw, left: int, top: int, recipe: TerrainRecipe, heights: np.ndarray, font, small, line: int) -> None:
    low, high = int(heights.min()), int(heights.max())
    draw.text((left, top), "surface height", fill=INK, font=font)
    bar_top, bar_height, bar_width = top + line + 4, 110, 22
    for row in range(bar_height):
        t = 1 - row / (bar_height - 1)
        draw.line((left, bar_top + row, left + bar_width - 1, bar_top + row), fill=ramp_colour(t))
    draw.rectangle((left - 1, bar_top - 1, left + bar_width, bar_top + bar_height), outline=INK)
    middle = (low + high) // 2
    ticks = [high] + ([middle] if low < middle < high else []) + ([low] if low != high else [])
    for value in ticks:
        t = (value - low) / max(1, high - low)
        y = bar_top + round((1 - t) * (bar_height - 1))
        draw.line((left + bar_width, y, left + bar_width + 4, y), fill=INK)
        draw.text((left + bar_width + 8, y - 7), f"y {value}", fill=INK, font=small)
    draw.text((left, bar_top + bar_height + 4), "shaded by slope", fill=SOFT_INK, font=small)

    y = bar_top + bar_height + line + 10
    draw.text((left, y), "materials", fill=INK, font=font)
    y += line + 2
    for role, material, note in (
        ("surface", recipe.surface, ""),
        ("soil", recipe.soil, f", {recipe.soil_depth} deep"),
        ("rock", recipe.rock, ", below"),
    ):
        draw.rectangle((left, y + 1, left + 13, y + 14), fill=MATERIAL_RGB.get(material, SOFT_INK), outline=INK)
        draw.text((left + 20, y), f"{role}: {material.removeprefix('minecraft:')}{note}", fill=INK, font=small)
        y += line

    y += 10
    draw.text((left, y), "preserved", fill=INK, font=font)
    y += line + 2
    if not recipe.preserve:
        draw.text((left, y), "no preserve boxes", fill=SOFT_INK, font=small)
        return
    draw.rectangle((left, y + 1, left + 13, y + 14), fill=PRESERVED_RGB, outline=INK)
    draw.text((left + 20, y), "surface inside a box:", fill=INK, font=small)
    draw.text((left + 20, y + line - 3), "never written", fill=INK, font=small)
    y += 2 * line
    draw.rectangle((left, y + 1, left + 13, y + 14), outline=PRESERVE_OUTLINE, width=2)
    draw.text((left + 20, y), "box footprint:", fill=INK, font=small)
    y += line - 3
    for preserve in recipe.preserve:
        lo, hi = preserve.min, preserve.max
        draw.text(
            (left + 20, y), f"x {lo[0]}..{hi[0]} z {lo[2]}..{hi[2]} y {lo[1]}..{hi[1]}", fill=SOFT_INK, font=small
        )
        y += line - 3
