"""check_server_subset answers like the plugin (protocol §6.4; upstream SchematicAssetsTest cases, spec §B.6)."""

from __future__ import annotations

import gzip
import struct

import pytest
from schem_nbt_bytes import document, v2_entries

from mcb.blocks.registry import load_registry
from mcb.schematics.server_rules import check_server_subset

REGISTRY = load_registry("26.2")


def verdict(data: bytes, **kwargs):
    return check_server_subset(data, registry=REGISTRY, **kwargs)


def test_independent_fixture_decodes_in_x_then_z_then_y_order():
    result = verdict(document(v2_entries()))
    assert result.accepted, result.message
    schem = result.schematic
    # data [0,1,1,0] on a 2x1x2 box: (0,0,0)=stone, (1,0,0)=air, (0,0,1)=air, (1,0,1)=stone
    assert [schem.state_at(0, 0, 0), schem.state_at(1, 0, 0), schem.state_at(0, 0, 1), schem.state_at(1, 0, 1)] == [
        "minecraft:stone",
        "minecraft:air",
        "minecraft:air",
        "minecraft:stone",
    ]


def test_server_reads_offset_as_paste_offset_and_ignores_weoffset():
    meta = ("Metadata", 10, [("WEOffsetX", 3, -1), ("WEOffsetY", 3, 0), ("WEOffsetZ", 3, -2)])
    result = verdict(document(v2_entries(offset=(-868, -57, 667), extra=[meta])))
    assert result.accepted
    assert result.schematic.offset == (-868, -57, 667)


def test_palette_states_come_back_canonical():
    result = verdict(document(v2_entries(palette=(("minecraft:oak_stairs[facing=east]", 0), ("minecraft:air", 1)))))
    assert result.accepted
    assert (
        result.canonical_palette[0] == "minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]"
    )


@pytest.mark.parametrize(
    "data, message",
    [
        ((2, 1, 1, 0), "BlockData refers to missing palette index"),
        ((0, 0, 0, 0, 0), "BlockData has extra entries"),
    ],
)
def test_blockdata_rejections_with_server_messages(data, message):
    result = verdict(document(v2_entries(data=data)))
    assert not result.accepted and result.message == message and result.exact


@pytest.mark.parametrize(
    "data, kind",
    [
        ((), "too_few"),
        ((0x80,), "truncated"),
        ((0x80, 0x00), "non_canonical"),
        ((0xFF, 0xFF, 0xFF, 0xFF, 0x7F), "too_long"),
        ((0, 1, 1, 0x80), "truncated"),
    ],
)
def test_malformed_varints_are_rejected(data, kind):
    result = verdict(document(v2_entries(data=data)))
    assert not result.accepted
    assert result.rule == f"server.blockdata.{kind}"


def test_other_upstream_rejections():
    cases = {
        "Only Sponge schematic version 2 is supported": document(v2_entries(version=3)),
        "Schematic volume must be 1..4096": document(v2_entries(size=(4097, 1, 1), data=[0] * 4097)),
        "Unsupported schematic fields (biomes/custom data are not imported)": document(
            v2_entries(extra=[("BiomeData", 7, b"\x00")])
        ),
        "Entities are unsupported; import rejected without dropping data": document(
            v2_entries(extra=[("Entities", 9, (10, [[("Id", 8, "minecraft:pig")]]))])
        ),
        "BlockEntities are unsupported; import rejected without dropping data": document(
            v2_entries(extra=[("BlockEntities", 9, (10, [[("Id", 8, "minecraft:chest")]]))])
        ),
        "Schematic DataVersion is newer than the target server": document(v2_entries(data_version=5000)),
        "Invalid runtime schematic block state": document(
            v2_entries(palette=(("minecraft:oak_stairs[facing=up]", 0), ("minecraft:air", 1)))
        ),
        "Unexpected schematic root name": document(v2_entries(), root_name="Other"),
        "Trailing NBT data is not accepted": document(v2_entries(), trailing=b"\x00"),
        "Invalid or duplicate palette index": document(
            v2_entries(palette=(("minecraft:stone", 0), ("minecraft:air", 0)))
        ),
        "Missing or mistyped schematic field: Width": document([e for e in v2_entries() if e[0] != "Width"]),
    }
    for message, data in cases.items():
        result = verdict(data)
        assert not result.accepted, message
        assert result.message == message, (message, result.message)


def test_duplicate_version_tag_is_rejected():
    entries = v2_entries()
    result = verdict(document(entries[:1] + entries))
    assert not result.accepted and result.rule == "nbt.duplicate"


def test_import_dataversion_check_can_be_skipped_for_listing():
    data = document(v2_entries(data_version=5000))
    assert check_server_subset(data, registry=REGISTRY, server_data_version=None).accepted


def test_size_limits_and_gzip():
    raw = document(v2_entries(), compress=False)
    assert verdict(raw).message == "Not in GZIP format"
    padding = ("Metadata", 10, [("Blob", 7, bytes(4 * 1024 * 1024))])
    big = document(v2_entries(extra=[padding]))
    assert verdict(big).message == "Inflated schematic exceeds 4 MiB"
    truncated = document(v2_entries())[:-6]
    assert not verdict(truncated).accepted


def test_offset_array_claiming_two_billion_entries_is_rejected_without_allocating():
    raw = bytearray(document(v2_entries(), compress=False))
    at = raw.index(b"Offset") + len(b"Offset")
    raw[at : at + 4] = struct.pack(">i", 2**31 - 1)
    result = verdict(gzip.compress(bytes(raw)))
    assert not result.accepted


def test_deep_nesting_is_rejected():
    nested = [("leaf", 3, 1)]
    for _ in range(30):
        nested = [("n", 10, nested)]
    result = verdict(document(v2_entries(extra=[("Metadata", 10, nested)])))
    assert not result.accepted and result.rule == "server.nbt.depth"


def test_metadata_rules():
    bad_name = ("Metadata", 10, [("Name", 8, "bad\x07name")])
    assert not verdict(document(v2_entries(extra=[bad_name]))).accepted
    mods = ("Metadata", 10, [("RequiredMods", 9, (8, ["somemod"]))])
    assert not verdict(document(v2_entries(extra=[mods]))).accepted
    fine = ("Metadata", 10, [("Name", 8, "Tower"), ("Author", 8, "me"), ("WEOffsetX", 3, 4)])
    assert verdict(document(v2_entries(extra=[fine]))).accepted


def test_implicit_namespace_is_refused_by_the_server_syntax_check():
    result = verdict(document(v2_entries(palette=(("stone", 0), ("minecraft:air", 1)))))
    assert not result.accepted and result.rule == "server.state.syntax"
