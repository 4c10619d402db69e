"""Server refusals: the plugin's messages, codes and order of checks (protocol §4.1, §3.6 steps 1 and 4)."""

from __future__ import annotations

import json

import pytest

from mcb.recipes.compile import RecipeRejected, compile_geometry, compile_recipe

from .helpers import box, cylinder, line, pos, recipe, repeat

INT_MAX = 2147483647


def rejection(value, max_blocks=4096, registry=None) -> RecipeRejected:
    with pytest.raises(RecipeRejected) as caught:
        compile_recipe(value, registry, max_blocks=max_blocks)
    return caught.value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "Expected an object"),
        ([], "Expected an object"),
        ({"version": 1, "operations": [], "$schema": "x"}, "Unknown field: $schema"),
        ({"operations": []}, "Missing field: version"),
        ({"version": None, "operations": []}, "Missing field: version"),
        ({"version": 1.0, "operations": []}, "version must be an integer"),
        ({"version": "1", "operations": []}, "version must be an integer"),
        ({"version": True, "operations": []}, "version must be an integer"),
        ({"version": 2, "operations": []}, "Unsupported recipe version"),
        ({"version": 2**31, "operations": []}, "version exceeds 32-bit bounds"),
        ({"version": 1}, "Missing field: operations"),
        ({"version": 1, "operations": {}}, "operations must be an array"),
        (recipe("box"), "Operation must be an object"),
        (recipe({}), "Missing field: type"),
        (recipe({"type": 5}), "type must be a string"),
        (recipe({"type": "sphere", "radius": 2}), "Unsupported operation: sphere"),
        (recipe(box((0, 0, 0), (0, 0, 0), colour="red")), "Unknown field: colour"),
        (recipe({"type": "box", "max": pos(0, 0, 0), "block": "minecraft:stone"}), "Missing field: min"),
        (recipe(box((0, 0, 0), (0, 0, 0)) | {"min": [0, 0, 0]}), "min must be a position object"),
        (recipe(box((0, 0, 0), (0, 0, 0)) | {"min": {"x": 0, "y": 0, "z": 0, "w": 1}}), "Unknown field: w"),
        (recipe(box((0, 0, 0), (0, 0, 0)) | {"min": {"x": 0, "y": 0}}), "Missing field: z"),
        (recipe(box((0, 5.0, 0), (0, 0, 0))), "y must be an integer"),
        (recipe(box((0, 0, "3"), (0, 0, 0))), "z must be an integer"),
        (recipe(box((2**31, 0, 0), (0, 0, 0))), "x exceeds 32-bit bounds"),
        (recipe(box((-(2**31) - 1, 0, 0), (0, 0, 0))), "x exceeds 32-bit bounds"),
        (recipe(box((1, 0, 0), (0, 0, 0))), "Invalid inclusive region bounds"),
        (recipe(box((0, 0, 0), (0, 0, 0), "minecraft:Stone")), "Expected a Minecraft block state string"),
        (recipe(box((0, 0, 0), (0, 0, 0), "stone")), "Expected a Minecraft block state string"),
        (recipe(box((0, 0, 0), (0, 0, 0), "minecraft:stone\n")), "Expected a Minecraft block state string"),
        (recipe(box((0, 0, 0), (0, 0, 0), "minecraft:a" * 100)), "Expected a Minecraft block state string"),
        (recipe(box((0, 0, 0), (0, 0, 0), 5)), "block must be a string"),
        (recipe(box((0, 0, 0), (0, 0, 0), hollow=None)), "hollow must be a boolean"),
        (recipe(box((0, 0, 0), (0, 0, 0), hollow="true")), "hollow must be a boolean"),
        (recipe(cylinder((0, 0, 0), -1, 1)), "Cylinder radius must be nonnegative and height positive"),
        (recipe(cylinder((0, 0, 0), 1, 0)), "Cylinder radius must be nonnegative and height positive"),
        (recipe(repeat(0, (0, 0, 0), [])), "Repeat count must be 1..1024"),
        (recipe(repeat(1025, (0, 0, 0), [])), "Repeat count must be 1..1024"),
        (recipe(repeat(1, (0, 0, 0), []) | {"script": "x"}), "Unknown field: script"),
        (recipe(repeat(1, (0, 0, 0), {})), "operations must be an array"),
    ],
)
def test_compiler_messages(value, message):
    rejected = rejection(value)
    assert (rejected.code, rejected.message) == ("invalid_request", message)


def test_first_unknown_key_in_document_order_is_named():
    assert rejection(json.loads('{"b": 1, "version": 1, "a": 2, "operations": []}')).message == "Unknown field: b"


def test_block_limit_validation():
    assert rejection(recipe(), max_blocks=0).message == "Invalid recipe block limit"
    assert rejection(recipe(), max_blocks=2_000_001).message == "Invalid recipe block limit"


def test_block_limit_is_unique_positions():
    assert len(compile_geometry(recipe(box((0, 0, 0), (1, 1, 0))), max_blocks=4)) == 4
    assert rejection(recipe(box((0, 0, 0), (4, 0, 0))), max_blocks=4).message == "Recipe block limit exceeded"
    # the same cells twice are still 4 unique positions
    assert len(compile_geometry(recipe(box((0, 0, 0), (1, 1, 0)), box((0, 0, 0), (1, 1, 0))), max_blocks=4)) == 4


def test_scan_budget_is_16_per_block_and_charges_every_repeat():
    assert compile_geometry(recipe(line((0, 0, 0), (15, 0, 0))), max_blocks=16).scan_used == 16
    assert rejection(recipe(line((0, 0, 0), (16, 0, 0))), max_blocks=1).message == "Recipe scan budget exceeded"
    one_cell = box((0, 0, 0), (0, 0, 0))
    assert len(compile_geometry(recipe(repeat(16, (0, 0, 0), [one_cell])), max_blocks=1)) == 1
    assert rejection(recipe(repeat(17, (0, 0, 0), [one_cell])), max_blocks=1).message == "Recipe scan budget exceeded"
    # a 1001^3 box is charged before anything else in it is looked at
    huge = box((0, 0, 0), (1000, 1000, 1000), "not a block")
    assert rejection(recipe(huge), max_blocks=100).message == "Recipe scan budget exceeded"


def test_scan_charges_of_each_shape():
    compiled = compile_geometry(
        recipe(box((0, 0, 0), (2, 3, 4)), line((0, 0, 0), (-7, 2, 3)), cylinder((0, 0, 0), 2, 3, hollow=True))
    )
    assert compiled.scan_used == 3 * 4 * 5 + 8 + 25 * 3


def test_scan_budget_caps_at_two_million():
    compiled = compile_geometry(recipe(), max_blocks=200_000)
    assert compiled.scan_limit == 2_000_000


def test_expanded_operation_count():
    four = [box((0, 0, 0), (0, 0, 0))] * 4
    assert compile_geometry(recipe(repeat(1023, (0, 0, 0), four))).operations_expanded == 1 + 1023 * 4
    assert rejection(recipe(repeat(1024, (0, 0, 0), four))).message == "Expanded operation count exceeds limit"


def test_too_many_operations_in_one_array():
    ops = [box((0, 0, 0), (0, 0, 0))] * 4097
    assert rejection(recipe(*ops)).message == "Too many operations"


def test_nesting_limit_nine_repeats_fail_even_when_empty():
    inner: list = []
    for _ in range(8):
        inner = [repeat(1, (0, 0, 0), inner)]
    compile_geometry(recipe(*inner))
    assert rejection(recipe(repeat(1, (0, 0, 0), inner))).message == "Recipe nesting exceeds limit"


def test_int32_overflow_from_repeat_offset():
    value = recipe(repeat(2, (1, 0, 0), [box((INT_MAX, 0, 0), (INT_MAX, 0, 0))]))
    rejected = rejection(value)
    assert rejected.message == "integer overflow" and rejected.code == "invalid_request"


def test_overflow_messages_follow_java_int_and_long_arithmetic():
    whole = box((-(2**31), -(2**31), 0), (INT_MAX, INT_MAX, 0))
    assert rejection(recipe(whole)).message == "long overflow"
    assert rejection(recipe(cylinder((0, 0, 0), INT_MAX, 1))).message == "long overflow"
    assert rejection(recipe(cylinder((INT_MAX, 0, 0), 1, 1))).message == "integer overflow"
    assert rejection(recipe(cylinder((0, INT_MAX, 0), 0, 2))).message == "integer overflow"
    assert rejection(recipe(repeat(3, (2**30, 0, 0), []))).message == "integer overflow"


def test_errors_are_found_in_expansion_order():
    # the first iteration's box is fine; the error inside the second child is reached before the later sibling's
    value = recipe(repeat(2, (0, 0, 0), [box((0, 0, 0), (0, 0, 0)), {"type": "cone"}]), {"type": "pyramid"})
    assert rejection(value).message == "Unsupported operation: cone"


def test_pointer_names_the_failing_place():
    value = recipe(box((0, 0, 0), (0, 0, 0)), repeat(2, (0, 0, 0), [line((0, 0, 0), (0, 0, 1.5))]))
    rejected = rejection(value)
    assert rejected.message == "z must be an integer"
    assert rejected.pointer == "/operations/1/operations/0/to/z"


def test_compiler_errors_come_before_canonicalization():
    from mcb.blocks.registry import load_registry

    registry = load_registry("26.2")
    unknown = box((0, 0, 0), (0, 0, 0), "minecraft:diamond")
    assert rejection(recipe(unknown, {"type": "x"}), registry=registry).code == "invalid_request"
    rejected = rejection(recipe(unknown), registry=registry)
    assert (rejected.code, rejected.message) == ("unsupported_block", "Invalid registered block or block properties")
    for state in ("minecraft:stone[foo=bar]", "minecraft:oak_stairs[facing=up]", "minecraft:no_such_block"):
        assert rejection(recipe(box((0, 0, 0), (0, 0, 0), state)), registry=registry).code == "unsupported_block"
    # without a registry the states are kept as written
    assert compile_recipe(recipe(unknown)).states == ["minecraft:diamond"]
