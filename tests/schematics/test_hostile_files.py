"""Hostile Litematica, structure and legacy files: declared sizes, lengths and indices that cannot be right are
refused with a clear error, fast, before anything their size is allocated (the Sponge reader's limits)."""

from __future__ import annotations

import time
import tracemalloc

import nbtlib
import pytest

from mcb.errors import InputError
from mcb.schematics.formats import read_any

N = nbtlib


def _xyz(x, y, z):
    return N.Compound({"x": N.Int(x), "y": N.Int(y), "z": N.Int(z)})


def _region(position, size, palette=("minecraft:air", "minecraft:stone"), longs=None):
    volume = abs(size[0] * size[1] * size[2])
    bits = max(2, (len(palette) - 1).bit_length())
    count = longs if longs is not None else -(-volume * bits // 64)
    return N.Compound(
        {
            "Position": _xyz(*position),
            "Size": _xyz(*size),
            "BlockStatePalette": N.List[N.Compound]([N.Compound({"Name": N.String(p)}) for p in palette]),
            "BlockStates": N.LongArray([0] * count),
            "TileEntities": N.List[N.Compound]([]),
            "Entities": N.List[N.Compound]([]),
        }
    )


def _litematic(path, regions):
    root = N.Compound(
        {
            "Version": N.Int(6),
            "MinecraftDataVersion": N.Int(3700),
            "Metadata": N.Compound({}),
            "Regions": N.Compound(regions),
        }
    )
    N.File(root, gzipped=True).save(path)
    return path


def _structure(path, size, blocks=(), palette=("minecraft:stone",)):
    root = N.Compound(
        {
            "DataVersion": N.Int(4903),
            "size": N.List[N.Int](list(size)),
            "palette": N.List[N.Compound]([N.Compound({"Name": N.String(p)}) for p in palette]),
            "blocks": N.List[N.Compound](
                [N.Compound({"state": N.Int(s), "pos": N.List[N.Int](list(p))}) for s, p in blocks]
            ),
            "entities": N.List[N.Compound]([]),
        }
    )
    N.File(root, gzipped=True).save(path)
    return path


def _legacy(path, size, blocks: int | None = None, materials="Alpha"):
    volume = size[0] * size[1] * size[2]
    count = volume if blocks is None else blocks
    root = N.Compound(
        {
            "Width": N.Short(size[0]),
            "Height": N.Short(size[1]),
            "Length": N.Short(size[2]),
            "Materials": N.String(materials),
            "Blocks": N.ByteArray([0] * count),
            "Data": N.ByteArray([0] * count),
            "TileEntities": N.List[N.Compound]([]),
            "Entities": N.List[N.Compound]([]),
        }
    )
    N.File(root, gzipped=True).save(path)
    return path


CASES = {
    "litematic.size.limit": lambda p: _litematic(p, {"huge": _region((0, 0, 0), (100_000, 100_000, 1), longs=1)}),
    "litematic.size.limit/negative": lambda p: _litematic(p, {"min": _region((0, 0, 0), (-(2**31), 2, 2), longs=1)}),
    "litematic.size.limit/enclosing": lambda p: _litematic(
        p, {"a": _region((0, 0, 0), (1, 1, 1)), "b": _region((2**30, 2**30, 0), (1, 1, 1))}
    ),
    "litematic.blockstates.length": lambda p: _litematic(p, {"r": _region((0, 0, 0), (64, 64, 64), longs=3)}),
    "structure.size.limit": lambda p: _structure(p, (2**31 - 1, 2**31 - 1, 1)),
    "structure.size.negative": lambda p: _structure(p, (-1, 5, 5)),
    "structure.blocks.position": lambda p: _structure(p, (2, 2, 2), blocks=[(0, (5, 0, 0))]),
    "structure.blocks.state": lambda p: _structure(p, (2, 2, 2), blocks=[(7, (0, 0, 0))]),
    "legacy.size.limit": lambda p: _legacy(p, (-1, -1, -1), blocks=4),  # shorts read unsigned: 65535^3
    "legacy.length": lambda p: _legacy(p, (16, 16, 16), blocks=100),
    "legacy.materials.unsupported": lambda p: _legacy(p, (1, 1, 1), materials="Pocket"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_declarations_are_refused_fast_and_small(tmp_path, case):
    path = CASES[case](tmp_path / "hostile.bin")
    tracemalloc.start()
    started = time.perf_counter()
    with pytest.raises(InputError) as caught:
        read_any(path)
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert caught.value.rule == case.split("/")[0], caught.value.message
    assert elapsed < 1.0 and peak < 64 * 1024 * 1024
    assert str(path) in caught.value.message  # the file is named


def test_a_litematica_palette_index_beyond_the_palette_is_named(tmp_path):
    region = _region((0, 0, 0), (2, 1, 1), palette=("minecraft:air", "minecraft:stone"))
    region["BlockStates"] = N.LongArray([0b1111])  # two 2-bit entries of value 3: the palette has 2 entries
    with pytest.raises(InputError, match="palette index 3, which the palette"):
        read_any(_litematic(tmp_path / "bad.litematic", {"r": region}))
