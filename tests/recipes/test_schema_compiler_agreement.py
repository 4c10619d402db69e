"""The published schema and the server's compiler agree: whatever compiles passes the schema, and whatever passes
the schema fails to compile only for reasons a schema cannot express. Lint relies on the first half."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcb.recipes.compile import RecipeRejected, compile_geometry
from mcb.recipes.lint import recipe_validator

NOT_EXPRESSIBLE = {
    "Invalid inclusive region bounds",
    "Recipe scan budget exceeded",
    "Recipe block limit exceeded",
    "Expanded operation count exceeds limit",
    "integer overflow",
    "long overflow",
}

small = st.integers(-3, 3)
odd_numbers = st.sampled_from([0, 1, -1, 2**31 - 1, 2**31, -(2**31) - 1, 1.0, 0.5, "1", True, None, 1025, 0])
positions = st.fixed_dictionaries({"x": small, "y": small, "z": small})
blocks = st.sampled_from(
    [
        "minecraft:stone",
        "minecraft:oak_stairs[facing=east]",
        "stone",
        "minecraft:Stone",
        "minecraft:stone\n",
        "minecraft:a[]",
        5,
        None,
    ]
)


def shapes():
    box = st.fixed_dictionaries(
        {"type": st.just("box"), "min": positions, "max": positions, "block": blocks},
        optional={"hollow": st.sampled_from([True, False, None, 1])},
    )
    line = st.fixed_dictionaries({"type": st.just("line"), "from": positions, "to": positions, "block": blocks})
    cylinder = st.fixed_dictionaries(
        {
            "type": st.just("cylinder"),
            "center": positions,
            "radius": st.integers(-1, 3),
            "height": st.integers(0, 3),
            "block": blocks,
        },
        optional={"hollow": st.booleans()},
    )
    return st.one_of(box, line, cylinder)


def operations(children):
    repeat = st.fixed_dictionaries(
        {
            "type": st.just("repeat"),
            "count": st.integers(0, 4),
            "offset": positions,
            "operations": st.lists(children, max_size=3),
        }
    )
    return st.one_of(shapes(), repeat)


operation_trees = st.recursive(shapes(), operations, max_leaves=12)


@st.composite
def recipes(draw):
    value = {
        "version": draw(st.sampled_from([1, 1, 1, 2, 1.0])),
        "operations": draw(st.lists(operation_trees, max_size=4)),
    }
    # sometimes break one thing in a random place
    if draw(st.booleans()):
        target = value
        path = draw(st.lists(st.integers(0, 5), max_size=6))
        for step in path:
            children = [
                v
                for v in (target.values() if isinstance(target, dict) else target)
                if isinstance(v, (dict, list)) and v
            ]
            if not children:
                break
            target = children[step % len(children)]
        if isinstance(target, dict) and target:
            key = draw(st.sampled_from(sorted(target)))
            action = draw(st.sampled_from(["odd", "delete", "extra"]))
            if action == "odd":
                target[key] = draw(odd_numbers)
            elif action == "delete":
                del target[key]
            else:
                target["extra"] = 1
    return value


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(recipes())
def test_compiler_and_schema_agree(value):
    schema_errors = list(recipe_validator().iter_errors(copy.deepcopy(value)))
    try:
        compile_geometry(value, max_blocks=2_000_000)
    except RecipeRejected as rejected:
        if not schema_errors:
            assert rejected.message in NOT_EXPRESSIBLE, rejected.message
        return
    assert schema_errors == [], [e.message for e in schema_errors]
