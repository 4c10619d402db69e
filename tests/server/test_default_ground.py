"""`mcb serve` starts a new world on the terrain height field; an existing world keeps its saved ground."""

from __future__ import annotations

from mcb.server.runner import ServeRequest, build_server
from mcb.terrain.ground import default_ground


def _surface(world, x, z):
    for y in range(200, -64, -1):
        if world.read((x, y, z)) != "minecraft:air":
            return y, world.read((x, y, z))
    raise AssertionError("no ground")


def test_new_world_gets_hills_with_a_flat_build_site(tmp_path):
    server = build_server(ServeRequest(data_dir=tmp_path / "new", port=0))
    try:
        assert server.state.config.ground == "hills"
        world = server.state.world
        # the build site around the origin is flat grass at y=63, like the flat world
        assert _surface(world, 0, 0) == (63, "minecraft:grass_block[snowy=false]")
        # the hill rises well above it, and matches the terrain code's own height field
        height, _ = _surface(world, 44, -40)
        assert height > 75
        assert default_ground().surface(44, -40) == height
    finally:
        server.close()


def test_existing_world_keeps_flat_ground(tmp_path):
    first = build_server(ServeRequest(data_dir=tmp_path, port=0, ground="flat"))
    assert first.state.config.ground == "flat"
    first.close()
    again = build_server(ServeRequest(data_dir=tmp_path, port=0))
    try:
        assert again.state.config.ground == "flat"
        assert _surface(again.state.world, 44, -40)[0] == 63
    finally:
        again.close()
