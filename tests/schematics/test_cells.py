"""Piecewise cell codecs (mcb.schematics.cells): the same answers as the whole-array ways, on views too."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcb.schematics import cells
from mcb.schematics.cells import decode_cells, encode_cells, first_seen_in
from mcb.schematics.varint import decode_varints, encode_varints

STATES = ["minecraft:air", "minecraft:stone", "minecraft:dirt", "minecraft:stone", "minecraft:glass"]


def reference_encoding(grid: np.ndarray, palette: list[str]) -> tuple[list[str], bytes]:
    """First-seen palette of the strings (duplicates merged) and the renumbered cells, the plain Python way."""
    numbers: dict[str, int] = {}
    renumbered = []
    for index in np.ascontiguousarray(grid).ravel().tolist():
        renumbered.append(numbers.setdefault(palette[index], len(numbers)))
    return list(numbers), encode_varints(np.array(renumbered, dtype=np.int64)) if renumbered else b""


def moved(grid: np.ndarray, flip: int, turns: int) -> np.ndarray:
    if flip == 1:
        grid = grid[:, :, ::-1]
    elif flip == 2:
        grid = grid[:, ::-1, :]
    return np.rot90(grid, k=-turns, axes=(1, 2)) if turns else grid


grids = st.tuples(
    st.integers(1, 5),
    st.integers(1, 40),
    st.integers(1, 40),
    st.integers(1, 300),
    st.integers(0, 2),
    st.integers(0, 3),
    st.integers(0, 2**32 - 1),
)


@settings(max_examples=150, deadline=None)
@given(grids, st.sampled_from([64, 1 << 16]))
def test_encode_cells_matches_renumbering_the_whole_array(shape, step):
    height, length, width, size, flip, turns, seed = shape
    rng = np.random.default_rng(seed)
    palette = [STATES[i % len(STATES)] + ("" if i < len(STATES) else f"[n={i}]") for i in range(size)]
    # skewed values: most cells use the first few entries, a few use indices above 127 (2-byte varints)
    grid = np.minimum(rng.geometric(0.05, size=(height, length, width)) - 1, size - 1).astype(np.int32)
    view = moved(grid, flip, turns)
    old_step, cells._STEP = cells._STEP, step  # small pieces: rows and layer groups of the view
    try:
        assert encode_cells(view, palette) == reference_encoding(view, palette)
    finally:
        cells._STEP = old_step


def test_encode_cells_of_an_empty_array():
    assert encode_cells(np.zeros((0, 3, 3), dtype=np.int32), ["minecraft:air"]) == ([], b"")


def test_indices_outside_the_palette_are_refused():
    with pytest.raises(ValueError):
        first_seen_in(np.array([[[0, -1]]], dtype=np.int32), 2)
    with pytest.raises(IndexError):
        first_seen_in(np.array([[[0, 2]]], dtype=np.int32), 2)
    late = np.zeros((1, 1, 200_000), dtype=np.int32)
    late[0, 0, 1] = 1
    late[0, 0, -1] = 5  # after every palette entry was seen
    with pytest.raises(IndexError):
        encode_cells(late, ["minecraft:air", "minecraft:stone"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 20000), max_size=300), st.binary(max_size=4), st.integers(0, 3), st.integers(-2, 2))
def test_decode_cells_matches_the_general_decoder(values, junk, where, count_shift):
    data = encode_varints(np.array(values, dtype=np.int64)) if values else b""
    if junk and where:  # broken streams: truncated, too long, non-canonical, stray bytes
        cut = where * len(data) // 3
        data = data[:cut] + junk + data[cut:]
    count = max(0, len(values) + count_shift)
    got, problem, top = decode_cells(data, count)
    expected, expected_problem = decode_varints(data, count)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)
    assert (problem is None) == (expected_problem is None)
    if problem is not None:
        assert (problem.kind, problem.index, problem.message) == (
            expected_problem.kind,
            expected_problem.index,
            expected_problem.message,
        )
    elif expected.size:
        assert top == int(expected.max())


def test_encode_cells_with_three_byte_indices():
    palette = [f"minecraft:stone[n={i}]" for i in range(20000)]
    grid = np.arange(20000, dtype=np.int32)[::-1].reshape(1, 100, 200).copy()
    assert encode_cells(moved(grid, 1, 1), palette) == reference_encoding(moved(grid, 1, 1), palette)
