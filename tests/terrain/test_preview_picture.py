"""`mcb terrain preview --offline -o FILE` writes a picture a person can read: big enough, the server's cells
scaled up, a height key, the materials, the preserve boxes, a scale bar; and -r/--resolution does what it says."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mcb.terrain.picture import INK, MATERIAL_RGB, PRESERVE_OUTLINE, ramp_colour, scale_bar_blocks
from mcb.terrain.preview import PRESERVED_RGB, render_preview
from mcb.terrain.recipe import parse_recipe_text

ROOT = Path(__file__).resolve().parents[2]
TERRAIN = ROOT / "recipes" / "terrain"


def preview(cli, tmp_path, name, *extra):
    out = tmp_path / (name + ".png")
    result = cli("terrain", "preview", str(TERRAIN / f"{name}.json"), "--offline", "-o", str(out), "--json", *extra)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout), np.asarray(Image.open(out).convert("RGB"))


def server_cells(name, resolution):
    """The cell colours of the server's own PNG (2 px per sample) for the same recipe."""
    recipe = parse_recipe_text((TERRAIN / f"{name}.json").read_text())
    png = base64.b64decode(render_preview(recipe, resolution)["imageBase64"])
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))[::2, ::2]


def patch_centres(box, rows, cols):
    ys = [box["top"] + int((i + 0.5) * box["height"] / rows) for i in range(rows)]
    xs = [box["left"] + int((j + 0.5) * box["width"] / cols) for j in range(cols)]
    return np.array(ys), np.array(xs)


def same_cells(pixels, ys, xs, cells) -> bool:
    """The map's patch centres show the server's cells, except where a preserve box's outline is drawn."""
    seen = pixels[ys[:, None], xs[None, :]]
    outline = np.all(seen == np.array(PRESERVE_OUTLINE, dtype=np.uint8), axis=-1)
    return bool(np.array_equal(seen[~outline], cells[~outline])) and outline.mean() < 0.1


def has_colour(pixels, rgb) -> bool:
    return bool(np.all(pixels == np.array(rgb, dtype=np.uint8), axis=-1).any())


@pytest.mark.parametrize("name", ["small-hill", "valley-lake", "terraced-ridge"])
def test_the_picture_is_big_and_its_map_is_the_servers_cells(cli, tmp_path, name):
    data, pixels = preview(cli, tmp_path, name)
    assert max(pixels.shape[:2]) >= 256 and min(pixels.shape[:2]) >= 200
    box = data["picture"]["map"]
    assert max(box["width"], box["height"]) >= 256
    cells = server_cells(name, 256)
    rows, cols = cells.shape[:2]
    assert (data["sample_grid"]["width"], data["sample_grid"]["height"]) == (cols, rows)
    ys, xs = patch_centres(box, rows, cols)
    assert same_cells(pixels, ys, xs, cells)
    # true proportions: the map's aspect is the envelope's (within a pixel)
    b = data["bounds"]
    width, length = b["max"]["x"] - b["min"]["x"] + 1, b["max"]["z"] - b["min"]["z"] + 1
    assert abs(box["width"] / box["height"] - width / length) < 2 / min(box["width"], box["height"])


def test_legend_shows_heights_materials_and_scale(cli, tmp_path):
    data, pixels = preview(cli, tmp_path, "small-hill")
    box = data["picture"]["map"]
    right = box["left"] + box["width"] + 1
    panel = pixels[:, right:]
    assert has_colour(panel, ramp_colour(0.0)) and has_colour(panel, ramp_colour(1.0))  # the height key's ends
    assert has_colour(panel, MATERIAL_RGB["minecraft:grass_block"])  # surface swatch
    assert has_colour(panel, MATERIAL_RGB["minecraft:dirt"]) and has_colour(panel, MATERIAL_RGB["minecraft:stone"])
    assert (np.abs(panel.astype(int) - np.array(INK)).sum(axis=-1) < 60).sum() > 200  # there is text
    # the scale bar: a solid run of ink under the map, exactly N blocks long
    below = pixels[box["top"] + box["height"] + 2 :, box["left"] : box["left"] + box["width"]]
    runs = [int(np.argmin(np.append(np.all(row == INK, axis=-1), False))) for row in below]  # ink from the left
    blocks = scale_bar_blocks(8)
    assert blocks in (1, 2) and max(runs) == round(blocks * box["pixels_per_block"])


def test_preserve_boxes_are_outlined_and_explained(cli, tmp_path):
    data, pixels = preview(cli, tmp_path, "valley-lake")
    box = data["picture"]["map"]
    ppb = box["pixels_per_block"]
    # preserve box x -36..-30, z -4..3 in an envelope starting at x -40, z -24
    left = box["left"] + round(4 * ppb)
    top = box["top"] + round(20 * ppb)
    assert tuple(pixels[top + 1, left + 5]) == PRESERVE_OUTLINE
    map_pixels = pixels[box["top"] : box["top"] + box["height"], box["left"] : box["left"] + box["width"]]
    assert has_colour(map_pixels, PRESERVED_RGB)
    panel = pixels[:, box["left"] + box["width"] + 1 :]
    assert has_colour(panel, PRESERVED_RGB) and has_colour(panel, PRESERVE_OUTLINE)


def test_resolution_is_honoured(cli, tmp_path):
    data, pixels = preview(cli, tmp_path, "valley-lake", "-r", "32")
    assert data["sample_grid"] == {"width": 32, "height": 32}
    cells = server_cells("valley-lake", 32)
    ys, xs = patch_centres(data["picture"]["map"], 32, 32)
    assert same_cells(pixels, ys, xs, cells)
    full, _ = preview(cli, tmp_path, "valley-lake")
    assert full["sample_grid"] == {"width": 80, "height": 48}  # one sample per block: the envelope is 80 x 48


def test_help_says_resolution_is_capped_by_the_envelope(cli):
    text = " ".join(cli("terrain", "preview", "--help").stdout.split())
    assert "at most one per block" in text
