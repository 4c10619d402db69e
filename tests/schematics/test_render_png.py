"""PNG rendering: image sizes, that blocks show up where they are, colour choices, atomic writing."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from mcb.errors import UsageError
from mcb.schematics.model import Schematic
from mcb.schematics.render import BACKGROUND, block_colour, render_schematic, write_png


def tower_schematic() -> Schematic:
    """4 x 3 x 2 (W x H x L): a stone floor, one column of oak planks rising to the top at (3, *, 1)."""
    palette = ["minecraft:air", "minecraft:stone", "minecraft:oak_planks"]
    blocks = np.zeros((3, 2, 4), dtype=np.int32)
    blocks[0] = 1
    blocks[:, 1, 3] = 2
    return Schematic(4, 3, 2, palette, blocks, 4903)


def test_top_view_size_and_pixels():
    image = render_schematic(tower_schematic(), "top", scale=5)
    assert image.size == (4 * 5, 2 * 5)  # one 5-pixel square per column, north up
    pixels = np.asarray(image.convert("RGB"))
    tower = pixels[1 * 5 + 2, 3 * 5 + 2]
    floor = pixels[0 * 5 + 2, 0 * 5 + 2]
    assert tuple(tower) != tuple(floor)
    assert len({tuple(p) for p in pixels.reshape(-1, 3)}) >= 2


def test_top_view_is_brighter_for_higher_columns_of_the_same_block():
    palette = ["minecraft:air", "minecraft:stone"]
    blocks = np.zeros((4, 1, 2), dtype=np.int32)
    blocks[0, 0, 0] = 1  # low column at x = 0
    blocks[:, 0, 1] = 1  # high column at x = 1
    image = np.asarray(render_schematic(Schematic(2, 4, 1, palette, blocks, 4903), "top", scale=1).convert("RGB"))
    assert image[0, 1].sum() > image[0, 0].sum()


def test_empty_columns_show_background():
    palette = ["minecraft:air", "minecraft:stone"]
    blocks = np.zeros((1, 1, 2), dtype=np.int32)
    blocks[0, 0, 1] = 1
    image = np.asarray(render_schematic(Schematic(2, 1, 1, palette, blocks, 4903), "top", scale=1).convert("RGB"))
    assert tuple(image[0, 0]) == BACKGROUND and tuple(image[0, 1]) != BACKGROUND


def test_iso_view_draws_shaded_faces():
    schem = tower_schematic()
    image = render_schematic(schem, "iso", scale=8)
    s, w, h, l = 8, 4, 3, 2
    # The whole box projects to (W + L)·s wide and (W + L)·s/2 + H·s high; the tower fills it, plus a small margin.
    assert (w + l) * s <= image.width <= (w + l) * s + 14
    assert image.height <= (w + l) * s // 2 + h * s + 14
    colours = {tuple(p) for p in np.asarray(image.convert("RGB")).reshape(-1, 3)}
    # background + at least top/east/south shades of two materials
    assert len(colours) >= 5
    assert BACKGROUND in colours


def test_both_view_is_wider_than_each_part(tmp_path):
    schem = tower_schematic()
    both = render_schematic(schem, "both", scale=4)
    assert both.width > render_schematic(schem, "top", scale=4).width
    assert both.width > render_schematic(schem, "iso", scale=4).width
    out = write_png(both, tmp_path / "view.png")
    with Image.open(out) as reread:
        assert reread.format == "PNG" and reread.size == both.size
    assert [p.name for p in tmp_path.iterdir()] == ["view.png"]  # no temp file left behind


def test_all_air_schematic_renders_background_only():
    schem = Schematic(3, 2, 3, ["minecraft:air"], np.zeros((2, 3, 3), dtype=np.int32), 4903)
    for view in ("top", "iso"):
        colours = {tuple(p) for p in np.asarray(render_schematic(schem, view, scale=2).convert("RGB")).reshape(-1, 3)}
        assert colours == {BACKGROUND}
    both = np.asarray(render_schematic(schem, "both", scale=2).convert("RGB"))
    assert {tuple(p) for p in both[30:].reshape(-1, 3)} == {BACKGROUND}  # below the captions: nothing drawn


def test_bad_view_and_scale():
    with pytest.raises(UsageError):
        render_schematic(tower_schematic(), "side")
    with pytest.raises(UsageError):
        render_schematic(tower_schematic(), "top", scale=0)


def test_write_png_into_missing_directory_is_an_input_error(tmp_path):
    from mcb.errors import InputError

    with pytest.raises(InputError):
        write_png(render_schematic(tower_schematic(), "top", scale=1), tmp_path / "missing" / "x.png")


def test_an_empty_box_is_refused_in_every_view():
    from mcb.errors import InputError

    schem = Schematic(3, 0, 3, ["minecraft:air"], np.zeros((0, 3, 3), dtype=np.int32), 4903)
    for view in ("top", "iso", "both"):
        with pytest.raises(InputError, match="nothing to draw: the box is 3 x 0 x 3"):
            render_schematic(schem, view)


def test_block_colours_tell_materials_apart():
    assert block_colour("minecraft:stone") != block_colour("minecraft:dirt")
    assert block_colour("minecraft:oak_planks") != block_colour("minecraft:spruce_planks")
    assert block_colour("minecraft:oak_stairs[facing=north]") == block_colour("minecraft:oak_planks")
    assert block_colour("minecraft:dark_oak_planks") != block_colour("minecraft:oak_planks")
    assert block_colour("minecraft:red_wool") != block_colour("minecraft:blue_wool")
    assert block_colour("minecraft:light_gray_concrete") != block_colour("minecraft:gray_concrete")
    assert block_colour("minecraft:white_terracotta") != block_colour("minecraft:white_concrete")
    assert block_colour("minecraft:deepslate_diamond_ore") != block_colour("minecraft:deepslate_coal_ore")
    assert block_colour("minecraft:stone_brick_wall[up=true]") == block_colour("minecraft:stone_bricks")
    unknown = block_colour("othermod:glowing_thing")
    assert unknown == block_colour("othermod:glowing_thing[lit=true]")  # stable
    assert all(0 <= c <= 255 for c in unknown)


def test_iso_view_is_cropped_to_the_drawing():
    """A single block in a big air box gives a small picture, not a big empty one."""
    palette = ["minecraft:air", "minecraft:gold_block"]
    blocks = np.zeros((20, 20, 20), dtype=np.int32)
    blocks[5, 5, 5] = 1
    image = render_schematic(Schematic(20, 20, 20, palette, blocks, 4903), "iso", scale=4)
    assert image.width <= 2 * 4 + 14 and image.height <= 2 * 4 + 14
    colours = {tuple(p) for p in np.asarray(image.convert("RGB")).reshape(-1, 3)}
    assert len(colours - {BACKGROUND}) == 3  # top, east and south shades


def test_iso_nearer_block_hides_the_one_behind():
    """Voxel (1,1,1) projects exactly onto voxel (0,0,0): drawn back to front, no gold pixel may remain."""
    palette = ["minecraft:air", "minecraft:gold_block", "minecraft:stone"]
    blocks = np.zeros((2, 2, 2), dtype=np.int32)
    blocks[0, 0, 0] = 1  # gold, far corner
    gold_only = np.asarray(render_schematic(Schematic(2, 2, 2, palette, blocks, 4903), "iso", scale=8))
    blocks[1, 1, 1] = 2  # stone, the near corner one block up
    both = np.asarray(render_schematic(Schematic(2, 2, 2, palette, blocks, 4903), "iso", scale=8))
    gold_colours = {tuple(p) for p in gold_only.reshape(-1, 3)} - {BACKGROUND}
    assert len(gold_colours) == 3
    assert not gold_colours & {tuple(p) for p in both.reshape(-1, 3)}


def test_oversized_pictures_are_refused_cleanly():
    from mcb.errors import InputError

    schem = Schematic(4000, 1, 4000, ["minecraft:stone"], np.zeros((1, 1, 1), dtype=np.int32)[:0], 4903)
    with pytest.raises(InputError, match="too large") as iso:
        render_schematic(schem, "iso", scale=4)
    # the hint names the arguments (scale, view=top); each face says them its own way (--view top, view=top)
    assert "{view=top}" not in iso.value.hint_template  # 16000 x 16000 from above is too large as well
    narrow = Schematic(600, 1, 600, ["minecraft:stone"], np.zeros((1, 1, 1), dtype=np.int32)[:0], 4903)
    with pytest.raises(InputError, match="too large") as fits:
        render_schematic(narrow, "iso", scale=10)
    assert "{view=top} (it fits at this scale)" in fits.value.hint_template  # 6000 x 6000 from above does
    with pytest.raises(InputError, match="too large") as top:
        render_schematic(schem, "top", scale=8)
    assert "{view=top}" not in top.value.hint_template  # never the view that just failed
