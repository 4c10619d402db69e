"""BEFORE / AFTER / HEIGHT CHANGE image and preview fields of a brush stroke (§4 "Image", "Result")."""

from __future__ import annotations

import base64
import io

import numpy as np

from mcb.terrain.brush import BrushResult

WIDTH, HEIGHT = 780, 300
BACKGROUND = (0x17, 0x21, 0x26)
TEXT = (0xEC, 0xF0, 0xE9)
UNCHANGED, RAISED, LOWERED = (0x34, 0x46, 0x4A), (0x89, 0xCC, 0x70), (0xE5, 0xA3, 0x5B)
LABELS = ("BEFORE", "AFTER", "HEIGHT CHANGE")


def height_range(result: BrushResult) -> tuple[int, int]:
    values = [v for row in result.before for v in row] + [v for row in result.after for v in row]
    return min(values), max(values)


def _ramp(value: int, low: int, high: int) -> tuple[int, int, int]:
    t = (value - low) / max(1, high - low)
    return int(45 + 160 * t), int(83 + 120 * t), int(65 + 107 * t)


def render_brush_image(result: BrushResult) -> np.ndarray:
    """RGB array ``[300, 780, 3]``; cell colours exact, label glyphs font-dependent."""
    from PIL import Image, ImageDraw

    rows, cols = len(result.before), len(result.before[0])
    low, high = height_range(result)
    pixels = np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
    pixels[:] = BACKGROUND
    cell = min(240.0 / cols, 240.0 / rows)
    for panel in range(3):
        left = panel * 260 + 10
        for z in range(rows):
            z0, z1 = 36 + int(z * cell), 36 + int((z + 1) * cell)
            for x in range(cols):
                old, new = result.before[z][x], result.after[z][x]
                if panel == 2:
                    colour = UNCHANGED if new == old else RAISED if new > old else LOWERED
                else:
                    colour = _ramp(old if panel == 0 else new, low, high)
                pixels[z0:z1, left + int(x * cell) : left + int((x + 1) * cell)] = colour
    image = Image.fromarray(pixels)
    draw = ImageDraw.Draw(image)
    for panel, label in enumerate(LABELS):
        draw.text((panel * 260 + 10, 24), label, fill=TEXT, anchor="ls")
    footer = f"N (-Z) up  |  Y {low} .. {high}  |  Green: raised   Orange: lowered   Grey: unchanged"
    draw.text((10, 289), footer, fill=TEXT, anchor="ls")
    return np.asarray(image)


def brush_preview_fields(result: BrushResult) -> dict:
    """The preview part of a ``terrain_brush_prepare`` result (without plan fields)."""
    from PIL import Image

    low, high = height_range(result)
    out = io.BytesIO()
    Image.fromarray(render_brush_image(result)).save(out, format="PNG")
    return {
        "status": "completed",
        "kind": "terrain_brush_preview",
        "source": "live_snapshot",
        "world_edited": False,
        "scan_bounds": result.bounds.region("brush"),
        "changed_columns": result.changed_columns,
        "raised_volume": result.raised,
        "lowered_volume": result.lowered,
        "dependency_blocks": result.dependencies,
        "height_min": low,
        "height_max": high,
        "mimeType": "image/png",
        "imageBase64": base64.b64encode(out.getvalue()).decode("ascii"),
    }
