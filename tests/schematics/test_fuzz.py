"""Thousands of damaged schematics: every one yields a model or a clean InputError / report, never a crash."""

from __future__ import annotations

import gzip
import random
import struct
import time

import pytest

from mcb.errors import InputError
from mcb.reports.model import FileReport
from mcb.schematics.formats import read_any
from mcb.schematics.info import describe_schematic
from mcb.schematics.nbt import ReadLimits
from mcb.schematics.rules import validate_schematic

SEEDS = [
    "v2_nucleation_and.schem",
    "v2_fawe_sponge2.schem",
    "v3_nucleation_test_cube.schem",
    "v1_schemc_example.schem",
    "v2_nucleation_cutecounter.schem",
    "v3_prismarine_spongeV3.schem",
    "v2_arkitektonika_biomes.schem",
    "v3_nucleation_workshop_entity.schem",
    # every other format the readers take
    "litematic_schematic4j_simple_v5.litematic",
    "litematic_schematic4j_demo_v6.litematic",
    "nbt_nucleation_cart_curve.nbt",
    "nbt_fawe_minecraft_structure.nbt",
    "legacy_schematic4j_9383.schematic",
]
LIMITS = ReadLimits(max_inflated=8 * 1024 * 1024)


def mutate(raw: bytes, rng: random.Random) -> bytes:
    data = bytearray(raw)
    kind = rng.randrange(6)
    if kind == 0:  # truncation
        return bytes(data[: rng.randrange(len(data))])
    if kind == 1:  # bit flips
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(data))
            data[at] ^= 1 << rng.randrange(8)
    elif kind == 2:  # a length-like field set huge or negative
        at = rng.randrange(max(1, len(data) - 4))
        data[at : at + 4] = struct.pack(">i", rng.choice([2**31 - 1, -1, -(2**31), 2**24, 65535]))
    elif kind == 3:  # a short length set huge
        at = rng.randrange(max(1, len(data) - 2))
        data[at : at + 2] = b"\xff\xff"
    elif kind == 4:  # random tag type bytes
        at = rng.randrange(len(data))
        data[at] = rng.choice([0, 7, 9, 10, 11, 12, 13, 99, 255])
    else:  # splice garbage
        at = rng.randrange(len(data))
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return bytes(data)


def check_one(data: bytes, tmp_file) -> None:
    try:
        read_any(data, LIMITS)
    except InputError:
        pass
    tmp_file.write_bytes(data)
    report = validate_schematic(tmp_file, profile=random.choice(["server", "spec"]), limits=LIMITS)
    assert isinstance(report, FileReport)
    try:  # what `schem info` says of it: the upgrade included
        describe_schematic(tmp_file)
    except InputError:
        pass


@pytest.mark.parametrize("seed_file", SEEDS)
def test_mutated_schematics_never_crash(corpus, tmp_path, seed_file):
    raw = gzip.decompress((corpus / seed_file).read_bytes())
    rng = random.Random(seed_file)
    target = tmp_path / "fuzz.schem"
    started = time.perf_counter()
    for i in range(300):
        mutated = mutate(raw, rng)
        check_one(gzip.compress(mutated, compresslevel=1, mtime=0) if i % 2 else mutated, target)
    assert time.perf_counter() - started < 20


def test_mutated_gzip_streams_never_crash(corpus, tmp_path):
    rng = random.Random(7)
    target = tmp_path / "fuzz.schem"
    for seed_file in SEEDS[:4]:
        packed = (corpus / seed_file).read_bytes()
        for _ in range(60):
            check_one(mutate(packed, rng), target)


def test_empty_and_tiny_inputs(tmp_path):
    target = tmp_path / "tiny.schem"
    for data in (
        b"",
        b"\x0a",
        b"\x1f\x8b",
        b"\x0a\x00\x00",
        b"\x0a\x00\x00\x00",
        b"\x08\x00\x00",
        gzip.compress(b""),
        b"\x0a\x00\x00" + b"\x0a\x00\x01a" * 600,
    ):
        check_one(data, target)
