"""Reading and writing have one policy of limits: what convert writes, info reads, in every pair of formats, and a
writer refuses (before writing, naming the limit and a format that holds the schematic) exactly what a reader
would refuse."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_format_round_trips import FORMATS, schematics

from mcb.errors import InputError
from mcb.schematics.convert import convert_schematic
from mcb.schematics.formats import encode_any, read_any
from mcb.schematics.info import describe_schematic
from mcb.schematics.model import Schematic
from mcb.schematics.nbt import ReadLimits, read_nbt

LIMIT_RULES = ("nbt.limit.", ".size.limit")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(schem=schematics(void=True), source=st.sampled_from(FORMATS), target=st.sampled_from(FORMATS))
def test_what_convert_writes_info_reads_for_every_pair_of_formats(tmp_path, schem, source, target):
    first = tmp_path / f"first.{source}"
    first.write_bytes(encode_any(schem, source))
    out = tmp_path / f"second.{target}"
    result = convert_schematic(first, out, fmt=target, drop_extras=True)
    info = describe_schematic(out)
    assert info["format"].startswith(result["to"]) and info["volume"] == schem.volume
    assert info["upgrade"]["unknown"] == []
    placed = {entry["state"]: entry["count"] for entry in info["palette"]}
    assert sum(placed.values()) + info["void_cells"] == schem.volume


def _limits(schem: Schematic, unlimited: bytes, draw) -> ReadLimits:
    """Caps at, just below and just above what this file needs, one kind at a time."""
    _, stats = read_nbt(unlimited, ReadLimits(max_cells=1 << 30))
    near = draw(st.integers(-2, 2))
    big = 1 << 30
    kind = draw(st.sampled_from(["cells", "file", "nbt", "tags", "depth"]))
    caps = {"max_cells": big, "max_compressed": big, "max_inflated": big, "max_tags": big}
    if kind == "cells":
        caps["max_cells"] = schem.volume + min(near, 0)
    elif kind == "file":
        caps["max_compressed"] = len(unlimited) + near
    elif kind == "nbt":
        caps["max_inflated"] = stats.inflated_size + near
    elif kind == "tags":
        caps["max_tags"] = stats.tag_count + near
    else:
        return ReadLimits(**caps, max_depth=stats.max_depth + near)
    return ReadLimits(**caps)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(schem=schematics(void=True), fmt=st.sampled_from(FORMATS), data=st.data())
def test_a_writer_refuses_exactly_what_a_reader_refuses(monkeypatch, schem, fmt, data):
    monkeypatch.setattr("time.time", lambda: 1_700_000_000.0)  # Litematica stamps the time it was written
    unlimited = encode_any(schem, fmt, ReadLimits(max_cells=1 << 30))
    limits = _limits(schem, unlimited, data.draw)
    try:
        read_any(unlimited, limits)
    except InputError as error:
        assert error.rule.startswith(LIMIT_RULES) or error.rule.endswith(LIMIT_RULES[1]), error.rule
        reader_refuses = True
    else:
        reader_refuses = False
    try:
        written = encode_any(schem, fmt, limits)
    except InputError as error:
        assert error.code == "schem.write.limit" and "mcb reads" in error.message
        assert reader_refuses, error.message
        holder = error.details["holds"]
        if holder is not None:  # the format the hint names holds it: its file reads back under these limits
            read_any(encode_any(schem, holder, limits), limits)
    else:
        assert not reader_refuses
        assert written == unlimited


def _big(cells_per_side: tuple[int, int, int]) -> Schematic:
    width, height, length = cells_per_side
    blocks = (np.arange(width * height * length, dtype=np.int32) % 7).reshape(height, length, width)
    palette = [
        "minecraft:stone",
        *(f"minecraft:{c}_wool" for c in ("white", "orange", "red", "blue", "green", "black")),
    ]
    return Schematic(width=width, height=height, length=length, palette=palette, blocks=blocks, data_version=4903)


@pytest.mark.slow  # 3.15 M cells written and read back as a structure: a few seconds
def test_a_3m_cell_structure_round_trip(tmp_path):
    # Before: `schem convert --to structure` of a 3.1 M-cell file exited 0 and wrote a file that `schem info`
    # refused ("more than 5000000 tags"); reading it as tags took 21 s and 1.8 GB.
    source = tmp_path / "big.schem"
    source.write_bytes(encode_any(_big((150, 140, 150)), "sponge3"))
    out = tmp_path / "big.nbt"
    convert_schematic(source, out, fmt="structure")
    info = describe_schematic(out)
    assert info["format"] == "structure .nbt" and info["volume"] == 150 * 140 * 150
    assert {entry["state"]: entry["count"] for entry in info["palette"]}["minecraft:stone"] == 450_000
    back = read_any(out)
    assert np.array_equal(back.blocks, read_any(source).blocks)


@pytest.mark.slow  # 31.5 M cells: refused before anything is written, and a format that holds it is named
def test_a_structure_mcb_could_not_read_back_is_refused_before_writing(tmp_path):
    # Before: a 31 M-cell conversion wrote 78 MB, above the 64 MiB mcb reads.
    source = tmp_path / "huge.schem"
    source.write_bytes(encode_any(_big((350, 300, 300)), "sponge3"))
    out = tmp_path / "huge.nbt"
    with pytest.raises(InputError) as refused:
        convert_schematic(source, out, fmt="structure")
    assert refused.value.message == (
        f"{source}: a structure .nbt file of this schematic would hold at least 189,000,000 tags, above the "
        "33,554,432 tags mcb reads"
    )
    assert refused.value.hint == "write it as litematic (a Litematica file holds it)"
    assert not out.exists()


def test_a_lossy_refusal_suggests_only_formats_that_hold_the_schematic(cli, corpus, tmp_path):
    # Before: the 256³ file's refusal said "keep everything with --to sponge3 or litematic or structure", and
    # structure was then refused by the write limits (at least 100,663,296 tags).
    source = corpus / "v2_nucleation_large_schematic.schem"
    refused = cli("schem", "convert", str(source), "-o", str(tmp_path / "l.schem"), "--json")
    assert refused.exit_code == 1
    error = json.loads(refused.stderr)["error"]
    assert error["details"]["lossless_formats"] == ["sponge3", "litematic"]
    text = cli("schem", "convert", str(source), "-o", str(tmp_path / "l.schem"))
    assert "hint: keep everything with --to sponge3 or litematic, or drop it on purpose with --drop-extras" in (
        text.stderr
    )
    structure = cli("schem", "convert", str(source), "-o", str(tmp_path / "l.nbt"))  # what is no longer suggested
    assert structure.exit_code == 1 and "above the 33,554,432 tags mcb reads" in structure.stderr
    kept = cli("schem", "convert", str(source), "-o", str(tmp_path / "l3.schem"), "--to", "sponge3", "--json")
    assert kept.exit_code == 0 and json.loads(kept.stdout)["dropped"] == []  # what is suggested holds it


def test_may_hold_is_the_writers_own_first_check():
    from mcb.schematics.formats import by_name
    from mcb.schematics.formats.limits import encode_within, may_hold

    schem = _big((40, 40, 40))  # 64,000 cells: 384,000 tags as a structure
    small = ReadLimits(max_tags=100_000)
    assert may_hold(schem, by_name("litematic"), small) and not may_hold(schem, by_name("structure"), small)
    with pytest.raises(InputError) as refused:
        encode_within(schem, by_name("structure"), small)
    assert "at least 384,000 tags" in refused.value.message
