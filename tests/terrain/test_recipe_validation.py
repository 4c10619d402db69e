"""Every §1.1/§1.3 rule and message, in the server's order, with strict integer literals."""

from __future__ import annotations

import json

import pytest
from terrain_cases import base_recipe

from mcb.terrain.recipe import TerrainRecipeError, parse_recipe_text


def error_of(text: str) -> TerrainRecipeError:
    with pytest.raises(TerrainRecipeError) as info:
        parse_recipe_text(text)
    return info.value


def with_(**changes) -> str:
    return json.dumps(base_recipe(**changes))


def replace(old: str, new: str) -> str:
    text = json.dumps(base_recipe())
    assert old in text
    return text.replace(old, new, 1)


def without(key: str) -> str:
    recipe = base_recipe()
    del recipe[key]
    return json.dumps(recipe)


HILL = {"type": "hill", "center": {"x": 0, "z": 0}, "radius": 2, "height": 8, "falloff": 4}
PLATEAU = {"type": "plateau", "min": {"x": 0, "z": 0}, "max": {"x": 1, "z": 1}, "height": 8, "falloff": 4}
RIDGE = {"type": "ridge", "points": [{"x": 0, "z": 0}, {"x": 4, "z": 0}], "width": 2, "height": 8, "falloff": 4}


def feature(**changes) -> str:
    return with_(features=[{**HILL, **changes}])


CASES = [
    ("[]", "Expected object", ""),
    (with_(extra=1), "Unknown field: extra", "/extra"),
    (without("version"), "Missing field: version", "/version"),
    (with_(version=None), "Missing field: version", "/version"),
    (with_(version=2), "version out of range", "/version"),
    (replace('"version": 1', '"version": 1.0'), "version must be an integer", "/version"),
    (replace('"version": 1', '"version": 1e0'), "version must be an integer", "/version"),
    (with_(version="1"), "version must be an integer", "/version"),
    (with_(min=[1, 2, 3]), "min must be an object", "/min"),
    (with_(min={"x": 0, "y": 0, "z": 0, "w": 0}), "Unknown field: w", "/min/w"),
    (with_(min={"x": 0, "z": 0}), "Missing field: y", "/min/y"),
    (with_(min={"x": 30_000_001, "y": 0, "z": 0}), "x out of range", "/min/x"),
    (with_(min={"x": 0, "y": -4097, "z": 0}), "y out of range", "/min/y"),
    (with_(max={"x": 0, "y": 4097, "z": 0}), "y out of range", "/max/y"),
    (with_(min={"x": 0, "y": 0, "z": 1.5}), "z must be an integer", "/min/z"),
    (with_(min={"x": 5, "y": 0, "z": 0}, max={"x": 4, "y": 0, "z": 0}), "Invalid inclusive region bounds", ""),
    (
        with_(min={"x": 0, "y": 0, "z": 0}, max={"x": 2048, "y": 0, "z": 0}),
        "Terrain envelope exceeds 2048 per side, 384 height, 1M columns or 128M voxels",
        "",
    ),
    (
        with_(min={"x": 0, "y": 0, "z": 0}, max={"x": 0, "y": 384, "z": 0}),
        "Terrain envelope exceeds 2048 per side, 384 height, 1M columns or 128M voxels",
        "",
    ),
    (
        with_(min={"x": 0, "y": 0, "z": 0}, max={"x": 1024, "y": 0, "z": 1023}),
        "Terrain envelope exceeds 2048 per side, 384 height, 1M columns or 128M voxels",
        "",
    ),
    (with_(base_height=4097), "base_height out of range", "/base_height"),
    (replace('"base_height": 5', '"base_height": 1.5'), "base_height must be an integer", "/base_height"),
    (with_(seed=2**31), "seed out of range", "/seed"),
    (replace('"seed": 123', '"seed": 1.5'), "seed must be an integer", "/seed"),
    (with_(mode=1), "mode must be text", "/mode"),
    (with_(mode="carve"), "Mode must be sculpt, fill or cut", "/mode"),
    (with_(noise={"amplitude": 0, "scale": 24, "octaves": 3}), "Unknown field: octaves", "/noise/octaves"),
    (with_(noise={"amplitude": "0", "scale": 24}), "amplitude must be numeric", "/noise/amplitude"),
    (with_(noise={"amplitude": 257, "scale": 24}), "amplitude out of range", "/noise/amplitude"),
    (with_(noise={"amplitude": 0, "scale": 0.5}), "scale out of range", "/noise/scale"),
    (with_(noise={"amplitude": 0, "scale": 4096.5}), "scale out of range", "/noise/scale"),
    (replace('"scale": 24', '"scale": 1e400'), "scale out of range", "/noise/scale"),
    (with_(noise={"amplitude": 0}), "Missing field: scale", "/noise/scale"),
    (
        with_(palette={"rock": "stone", "soil": "minecraft:dirt", "surface": "minecraft:grass_block", "soil_depth": 2}),
        "Unsupported terrain material: stone",
        "/palette/rock",
    ),
    (
        with_(
            palette={
                "rock": "minecraft:stone",
                "soil": "minecraft:gold_block",
                "surface": "minecraft:grass_block",
                "soil_depth": 2,
            }
        ),
        "Unsupported terrain material: minecraft:gold_block",
        "/palette/soil",
    ),
    (
        with_(
            palette={
                "rock": "minecraft:stone",
                "soil": "minecraft:dirt",
                "surface": "minecraft:grass_block",
                "soil_depth": 17,
            }
        ),
        "soil_depth out of range",
        "/palette/soil_depth",
    ),
    (with_(features={}), "features must be an array of at most 64", "/features"),
    (with_(features=[HILL] * 65), "features must be an array of at most 64", "/features"),
    (with_(features=[1]), "Feature must be an object", "/features/0"),
    (with_(features=[{"center": {"x": 0, "z": 0}}]), "Missing field: type", "/features/0/type"),
    (with_(features=[{"type": 5}]), "type must be text", "/features/0/type"),
    (with_(features=[{"type": "crater"}]), "Unsupported terrain feature: crater", "/features/0/type"),
    (feature(seed=1), "Unknown field: seed", "/features/0/seed"),
    (feature(radius=0.5), "radius out of range", "/features/0/radius"),
    (feature(radius=2048.5), "radius out of range", "/features/0/radius"),
    (feature(falloff=0), "falloff out of range", "/features/0/falloff"),
    (feature(height=-4097), "height out of range", "/features/0/height"),
    (feature(center={"x": 0.5, "z": 0}), "x must be an integer", "/features/0/center/x"),
    (feature(center={"x": 0, "y": 0, "z": 0}), "Unknown field: y", "/features/0/center/y"),
    (with_(features=[{**PLATEAU, "min": {"x": 2, "z": 0}}]), "Invalid plateau bounds", "/features/0"),
    (with_(features=[{**RIDGE, "points": [{"x": 0, "z": 0}]}]), "A path needs 2..32 points", "/features/0/points"),
    (
        with_(features=[{**RIDGE, "points": [{"x": 0, "z": 0}] * 33}]),
        "points must be an array of at most 32",
        "/features/0/points",
    ),
    (with_(features=[{**RIDGE, "points": [{"x": 0, "z": 0}, 7]}]), "Expected path point", "/features/0/points/1"),
    (with_(features=[{**RIDGE, "width": 1025}]), "width out of range", "/features/0/width"),
    (with_(features=[{"type": "terrace", "step": 129, "strength": 1}]), "step out of range", "/features/0/step"),
    (
        with_(features=[{"type": "terrace", "step": 4, "strength": 1.5}]),
        "strength out of range",
        "/features/0/strength",
    ),
    (with_(preserve=[HILL] * 0 + [{}] * 65), "preserve must be an array of at most 64", "/preserve"),
    (with_(preserve=[3]), "Preserve box must be an object", "/preserve/0"),
    (with_(preserve=[{"min": {"x": 0, "y": 0, "z": 0}}]), "Missing field: max", "/preserve/0/max"),
    (
        with_(preserve=[{"min": {"x": 1, "y": 0, "z": 0}, "max": {"x": 0, "y": 0, "z": 0}}]),
        "Invalid inclusive region bounds",
        "/preserve/0",
    ),
    (
        with_(preserve=[{"min": {"x": 0, "y": 0, "z": 0}, "max": {"x": 18, "y": 0, "z": 0}}]),
        "Preserve box exceeds envelope",
        "/preserve/0",
    ),
]


@pytest.mark.parametrize(("text", "message", "pointer"), CASES, ids=[c[1][:40] + f"#{i}" for i, c in enumerate(CASES)])
def test_server_messages(text, message, pointer):
    error = error_of(text)
    assert error.message == message
    assert error.pointer == pointer
    assert error.code == "invalid_request"


def test_check_order_unknown_key_before_anything_else():
    assert error_of(with_(version=7, extra=1)).message == "Unknown field: extra"


def test_check_order_envelope_before_base_height():
    text = with_(min={"x": 0, "y": 0, "z": 0}, max={"x": 0, "y": 400, "z": 0}, base_height=99999)
    assert error_of(text).message.startswith("Terrain envelope exceeds")


def test_limits_at_the_edge_are_accepted():
    box = {"min": {"x": -30_000_000, "y": 0, "z": 0}, "max": {"x": -30_000_000, "y": 0, "z": 0}}
    ok = base_recipe(
        min={"x": -30_000_000, "y": -64, "z": 0},
        max={"x": -29_998_977, "y": 63, "z": 1023},
        features=[HILL] * 64,
        preserve=[box] * 64,
        seed=-(2**31),
        base_height=-4096,
    )
    recipe = parse_recipe_text(json.dumps(ok))
    assert recipe.width * recipe.length == 1_048_576 and recipe.bounds.volume == 134_217_728
    tall = base_recipe(min={"x": 0, "y": -192, "z": 0}, max={"x": 2047, "y": 191, "z": 0})
    assert parse_recipe_text(json.dumps(tall)).height == 384
    too_many_voxels = base_recipe(min={"x": 0, "y": -64, "z": 0}, max={"x": 1023, "y": 64, "z": 1023})
    assert error_of(json.dumps(too_many_voxels)).message.startswith("Terrain envelope exceeds")


def test_null_counts_as_missing_and_negative_zero_is_an_integer():
    assert error_of(with_(mode=None)).message == "Missing field: mode"
    recipe = parse_recipe_text(replace('"seed": 123', '"seed": -0'))
    assert recipe.seed == 0 and '"seed":-0' in recipe.canonical


def test_key_order_does_not_matter_but_feature_order_does():
    a = base_recipe(features=[HILL, PLATEAU])
    b = dict(reversed(list(base_recipe(features=[HILL, PLATEAU]).items())))
    c = base_recipe(features=[PLATEAU, HILL])
    ids = [parse_recipe_text(json.dumps(r)).terrain_id for r in (a, b, c)]
    assert ids[0] == ids[1] != ids[2]
