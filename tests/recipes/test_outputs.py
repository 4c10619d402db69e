"""`mcb recipe compile --schem/--png`: a schematic the server accepts, holding exactly the recipe's blocks."""

from __future__ import annotations

import json
from pathlib import Path

from .helpers import box, cylinder, line, recipe

STAIRS = "minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]"


def write(path: Path, value) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_schem_round_trip_places_every_block_and_air_elsewhere(cli, tmp_path):
    from mcb.blocks.registry import load_registry
    from mcb.schematics.formats.sponge import read_schematic
    from mcb.schematics.server_rules import check_server_subset

    source = write(
        tmp_path / "hut.json",
        recipe(
            box((10, 64, -3), (12, 66, -1), hollow=True),
            line((10, 67, -3), (12, 67, -1), "minecraft:oak_stairs[facing=east]"),
            box((11, 65, -3), (11, 65, -3), "minecraft:air"),
        ),
    )
    out = tmp_path / "hut.schem"
    result = cli("recipe", "compile", "--schem", str(out), str(source))
    assert result.exit_code == 0, result.stderr
    assert "target {x: 10, y: 64, z: -3}" in result.stdout
    verdict = check_server_subset(out, registry=load_registry("26.2"))
    assert verdict.accepted, verdict.message
    schem = read_schematic(out)
    assert schem.size == (3, 4, 3) and schem.offset == (0, 0, 0)
    # hand-made expectation: the hollow 3x3x3 shell, its centre air, the door hole air, the diagonal stairs on top
    expected = {}
    for x in range(3):
        for y in range(4):
            for z in range(3):
                expected[(x, y, z)] = "minecraft:air"
                if y < 3 and (x in (0, 2) or y in (0, 2) or z in (0, 2)):
                    expected[(x, y, z)] = "minecraft:stone"
    expected[(1, 1, 0)] = "minecraft:air"
    for i in range(3):
        expected[(i, 3, i)] = STAIRS
    assert {(x, y, z): schem.state_at(x, y, z) for (x, y, z) in expected} == expected


def test_schem_refused_when_the_bounding_box_exceeds_4096_cells(cli, tmp_path):
    source = write(tmp_path / "wide.json", recipe(box((0, 64, 0), (0, 64, 0)), box((100, 64, 100), (100, 64, 100))))
    out = tmp_path / "wide.schem"
    result = cli("recipe", "compile", "--schem", str(out), str(source))
    assert result.exit_code == 1
    assert "101 x 1 x 101 = 10,201 cells" in result.stderr and "at most 4,096" in result.stderr
    assert not out.exists()


def test_png_rendering(cli, tmp_path):
    from PIL import Image

    source = write(
        tmp_path / "silo.json", recipe(cylinder((0, 64, 0), 3, 6, "minecraft:white_terracotta", hollow=True))
    )
    out = tmp_path / "silo.png"
    result = cli("recipe", "compile", "--json", "--png", str(out), "--view", "top", str(source))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["outputs"] == {"png": str(out)}
    with Image.open(out) as image:
        assert image.format == "PNG" and image.width > 0
