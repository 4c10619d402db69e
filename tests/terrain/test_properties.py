"""Property tests: the vectorised height field against an independent scalar reading of §1.4; ID invariances."""

from __future__ import annotations

import json
import math
import random

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st
from terrain_cases import base_recipe

from mcb.terrain.fdlibm import java_hypot
from mcb.terrain.heightfield import surface_heights
from mcb.terrain.recipe import parse_recipe_text

MASK = 2**64 - 1


def ref_hash(seed, i, j):
    v = (seed & MASK) ^ ((i * 0x9E3779B97F4A7C15) & MASK) ^ ((j * 0xC2B2AE3D27D4EB4F) & MASK)
    v = ((v ^ (v >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    v = ((v ^ (v >> 27)) * 0x94D049BB133111EB) & MASK
    v ^= v >> 31
    return (v >> 11) * 2.0**-53 * 2 - 1


def ref_noise(seed, u, w):
    s = lambda t: t * t * (3 - 2 * t)  # noqa: E731
    lerp = lambda a, b, t: a + (b - a) * t  # noqa: E731
    i, j = math.floor(u), math.floor(w)
    return lerp(
        lerp(ref_hash(seed, i, j), ref_hash(seed, i + 1, j), s(u - i)),
        lerp(ref_hash(seed, i, j + 1), ref_hash(seed, i + 1, j + 1), s(u - i)),
        s(w - j),
    )


def hypot(a: float, b: float) -> float:
    """Java's Math.hypot (its numpy port is checked against a JVM in test_fdlibm.py); math.hypot is more accurate
    than fdlibm and differs in the last bit for about one fractional argument pair in ten."""
    return float(java_hypot(a, b))


def ref_height(r: dict, x: int, z: int) -> int:
    seed, scale, amp = r["seed"], r["noise"]["scale"], r["noise"]["amplitude"]
    n = (
        ref_noise(seed, x / scale, z / scale)
        + 0.5 * ref_noise(seed, x / (scale / 2), z / (scale / 2))
        + 0.25 * ref_noise(seed, x / (scale / 4), z / (scale / 4))
    )
    h = r["base_height"] + amp * n / 1.75
    s = lambda t: t * t * (3 - 2 * t)  # noqa: E731
    for f in r["features"]:
        if f["type"] == "terrace":
            h = h + (math.floor(h / f["step"]) * f["step"] - h) * f["strength"]
            continue
        if f["type"] == "plateau":
            dx = max(max(f["min"]["x"] - x, 0), x - f["max"]["x"])
            dz = max(max(f["min"]["z"] - z, 0), z - f["max"]["z"])
            d = hypot(dx, dz)
        elif f["type"] in ("hill", "basin"):
            d = max(0, hypot(x - f["center"]["x"], z - f["center"]["z"]) - f["radius"])
        else:
            best = math.inf
            pts = f["points"]
            for a, b in zip(pts, pts[1:]):
                bx, bz = b["x"] - a["x"], b["z"] - a["z"]
                length = bx * bx + bz * bz
                t = 0 if length == 0 else max(0, min(1, ((x - a["x"]) * bx + (z - a["z"]) * bz) / length))
                best = min(best, hypot(x - a["x"] - t * bx, z - a["z"] - t * bz))
            d = max(0, best - f["width"])
        w = 1 - s(min(1, d / f["falloff"]))
        if f["type"] in ("hill", "ridge"):
            h += f["height"] * w
        elif f["type"] in ("basin", "channel"):
            h = h + (min(h, f["height"]) - h) * w
        else:
            h = h + (f["height"] - h) * w
    return math.floor(h)


coord = st.integers(-40, 40)
real = st.floats(1, 30, allow_nan=False).map(lambda v: round(v, 2))
height = st.integers(-60, 90)
point = st.fixed_dictionaries({"x": coord, "z": coord})
circle = st.fixed_dictionaries(
    {"type": st.sampled_from(["hill", "basin"]), "center": point, "radius": real, "height": height, "falloff": real}
)
path = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["ridge", "channel"]),
        "points": st.lists(point, min_size=2, max_size=5),
        "width": real,
        "height": height,
        "falloff": real,
    }
)
plateau = st.tuples(coord, coord, coord, coord, height, real).map(
    lambda t: {
        "type": "plateau",
        "min": {"x": min(t[0], t[1]), "z": min(t[2], t[3])},
        "max": {"x": max(t[0], t[1]), "z": max(t[2], t[3])},
        "height": t[4],
        "falloff": t[5],
    }
)
terrace = st.fixed_dictionaries(
    {"type": st.just("terrace"), "step": st.integers(1, 16), "strength": st.floats(0, 1).map(lambda v: round(v, 3))}
)
features = st.lists(st.one_of(circle, path, plateau, terrace), max_size=5)


@settings(max_examples=120, deadline=None)
@given(
    features,
    st.integers(-(2**31), 2**31 - 1),
    st.integers(0, 64),
    st.integers(1, 200),
    st.lists(st.tuples(st.integers(-300, 300), st.integers(-300, 300)), min_size=1, max_size=8),
)
def test_vectorised_field_equals_scalar_reference(feats, seed, amplitude, scale, points):
    raw = base_recipe(features=feats, seed=seed, noise={"amplitude": amplitude, "scale": scale})
    recipe = parse_recipe_text(json.dumps(raw))
    xs = np.array([p[0] for p in points])
    zs = np.array([p[1] for p in points])
    assert surface_heights(recipe, xs, zs).tolist() == [ref_height(raw, x, z) for x, z in points]


def shuffled(value, rng):
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {k: shuffled(value[k], rng) for k in keys}
    if isinstance(value, list):
        return [shuffled(v, rng) for v in value]
    return value


@settings(max_examples=60, deadline=None)
@given(features, st.integers(0, 2**32))
def test_id_ignores_key_order_and_whitespace(feats, salt):
    raw = base_recipe(features=feats)
    rng = random.Random(salt)
    a = parse_recipe_text(json.dumps(raw)).terrain_id
    b = parse_recipe_text(json.dumps(shuffled(raw, rng), indent=rng.choice([None, 1, 4]))).terrain_id
    assert a == b
    if len(feats) >= 2 and feats[0] != feats[-1]:
        flipped = base_recipe(features=[feats[-1], *feats[1:-1], feats[0]])
        assert parse_recipe_text(json.dumps(flipped)).terrain_id != a


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.floats(0, 1), st.floats(0, 1), st.integers(1, 6), st.integers(-50, 50))
def test_brush_raise_and_lower_are_mirror_images(amount, strength, falloff, radius, top):
    from mcb.terrain.brush import compile_brush, parse_brush

    low, high = top - amount - 1, top + amount + 1
    window = {"min": {"x": -radius, "y": low, "z": -radius}, "max": {"x": radius, "y": high, "z": radius}}
    snap = {
        (x, y, z): ("minecraft:stone" if y <= top else "minecraft:air")
        for x in range(-radius, radius + 1)
        for z in range(-radius, radius + 1)
        for y in range(low, high + 1)
    }
    results = []
    for action in ("raise", "lower"):
        spec = parse_brush(
            {
                **window,
                "center": {"x": 0, "z": 0},
                "radius": radius,
                "action": action,
                "amount": amount,
                "strength": strength,
                "falloff": falloff,
            }
        )
        results.append(compile_brush(spec, snap))
    up, down = results
    assert up.raised == down.lowered and up.changed_columns == down.changed_columns
    for row_up, row_down in zip(up.after, down.after):
        assert [h - top for h in row_up] == [top - h for h in row_down]


plain_text = st.characters(blacklist_characters="\u2028\u2029", blacklist_categories=("Cs",))
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(plain_text, max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(plain_text, max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


def _java_key_order(value):
    if isinstance(value, dict):
        return {key: _java_key_order(value[key]) for key in sorted(value, key=lambda k: k.encode("utf-16-be"))}
    if isinstance(value, list):
        return [_java_key_order(item) for item in value]
    return value


def test_canonical_keys_follow_java_string_order_not_code_points():
    from mcb.terrain.jsontext import canonical_text, loads_keeping_numbers

    parsed = loads_keeping_numbers(r'{"\ue000": 1, "\ud800\udc00": 2, "a": 3}')  # JSON escapes, not Python's
    assert canonical_text(parsed) == '{"a":3,"\U00010000":2,"\ue000":1}'


@settings(max_examples=200, deadline=None)
@given(json_values)
@example({"\ue000": None, "\U00010000": None})  # once found by CI: code-point order would put U+E000 first
def test_canonical_text_is_sorted_compact_json_with_literals_kept(value):
    from mcb.terrain.jsontext import canonical_text, loads_keeping_numbers, to_plain

    text = json.dumps(value)
    parsed = loads_keeping_numbers(text)
    canonical = canonical_text(parsed)
    # Python's own compact dump writes the same literals (json.dumps prints floats with repr), once the keys are
    # put in Java String order: UTF-16 code units, where U+10000 (a surrogate pair) sorts before U+E000.
    assert canonical == json.dumps(_java_key_order(value), separators=(",", ":"), ensure_ascii=False)
    assert json.loads(canonical) == value
    assert canonical_text(loads_keeping_numbers(json.dumps(value, indent=2))) == canonical
    assert to_plain(parsed) == value


def test_canonical_strings_escape_like_gson():
    from mcb.terrain.jsontext import canonical_text

    assert canonical_text({"a\u2028": '\u2029\n"é'}) == '{"a\\u2028":"\\u2029\\n\\"é"}'
