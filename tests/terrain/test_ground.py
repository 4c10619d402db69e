"""Height-field ground for the local server's world."""

from __future__ import annotations

from terrain_cases import EXAMPLES

from mcb.terrain.ground import recipe_ground
from mcb.terrain.heightfield import surface_height
from mcb.terrain.recipe import parse_recipe_text


def test_ground_layers_follow_the_field_everywhere():
    recipe = parse_recipe_text((EXAMPLES / "small-hill.json").read_text())
    ground = recipe_ground(recipe)
    for x, z in [(4, 4), (0, 0), (-37, 1000), (123456, -98765)]:
        h = surface_height(recipe, x, z)
        assert ground(x, h, z) == "minecraft:grass_block[snowy=false]"
        assert ground(x, h + 1, z) == "minecraft:air"
        assert [ground(x, y, z) for y in range(h - 3, h)] == ["minecraft:dirt"] * 3
        assert ground(x, h - 4, z) == "minecraft:stone"
    assert ground(5, -64, 5) == "minecraft:bedrock"


def test_ground_is_usable_by_the_server_world(tmp_path):
    """World.set_ground swaps it in; terrain_prepare then sees the field's layers as natural terrain."""
    from mcb.server.testing import run_server

    valley = parse_recipe_text((EXAMPLES / "valley-lake.json").read_text())
    with run_server(tmp_path / "srv", tick_ms=1) as server:
        server.state.world.set_ground(recipe_ground(valley))
        h = surface_height(valley, 0, 0)
        assert server.state.world.peek((0, h, 0)) == "minecraft:grass_block[snowy=false]"
        assert server.state.world.peek((0, h + 1, 0)) == "minecraft:air"
        assert server.state.world.peek((0, h - 1, 0)) != "minecraft:air"
