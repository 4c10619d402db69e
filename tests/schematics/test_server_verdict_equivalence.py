"""`mcb schem validate --profile server`, `mcb schem info` and a live `mcb serve` (over HTTP) give every file the same
verdict.

Thousands of mutated files (byte flips in the NBT and in the gzip stream, huge declared lengths, truncations,
crafted rule breaks, duplicate names inside block entities, non-empty End-typed lists) go through the validator
and through `schematic_import_prepare`; the verdicts must agree word for word, the validator's first error must
carry the verdict's rule id, and where both profiles stop in the NBT reader they name the same rule.
"""

from __future__ import annotations

import gzip
import struct
import sys
import zlib
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schem_nbt_bytes import document, v2_entries

from mcb.blocks.registry import load_registry
from mcb.errors import InputError
from mcb.schematics.info import describe_schematic
from mcb.schematics.rules import validate_schematic
from mcb.schematics.server_rules import check_server_subset
from mcb.server.testing import run_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "client"))

BLOCK_ENTITY_DUPLICATE_ID = document(
    v2_entries(
        extra=[
            (
                "BlockEntities",
                9,
                (10, [[("Pos", 11, [0, 0, 0]), ("Id", 8, "minecraft:chest"), ("Id", 8, "minecraft:chest")]]),
            )
        ]
    )
)
# A block entity holding a list of element type End with one element (the bytes are built by hand below).
_END_LIST = b"\x09\x00\x05Items\x00\x00\x00\x00\x01"
SEEDS = {
    "valid": document(v2_entries()),
    "duplicate Id in a block entity": BLOCK_ENTITY_DUPLICATE_ID,
    "non-empty End list in a block entity": gzip.compress(
        b"\x0a"
        + struct.pack(">H", 9)
        + b"Schematic"
        + gzip.decompress(document(v2_entries()))[12:-1]
        + b"\x09\x00\x0dBlockEntities\x0a\x00\x00\x00\x01\x0b\x00\x03Pos\x00\x00\x00\x03"
        + bytes(12)
        + b"\x08\x00\x02Id\x00\x0fminecraft:chest"
        + _END_LIST
        + b"\x00\x00",
        mtime=0,
    ),
    "a block entity": document(
        v2_entries(
            extra=[
                (
                    "BlockEntities",
                    9,
                    (
                        10,
                        [
                            [
                                ("Pos", 11, [1, 0, 1]),
                                ("Id", 8, "minecraft:chest"),
                                ("Items", 9, (10, [[("Slot", 1, 0)]])),
                            ]
                        ],
                    ),
                )
            ]
        )
    ),
    "v3 wrapper": document([("Schematic", 10, v2_entries(version=3))], root_name=""),
    "v1": document(v2_entries(version=1)),
    "newer DataVersion": document(v2_entries(data_version=99999)),
    "extra root key": document(v2_entries(extra=[("Biomes", 10, [])])),
    "bad palette index": document(v2_entries(palette=(("minecraft:stone", 0), ("minecraft:air", 7)))),
    "index beyond the palette": document(v2_entries(data=(0, 1, 2, 0))),
    "too many cells": document(v2_entries(size=(64, 2, 64), data=bytes(64 * 2 * 64))),
    "bad state": document(v2_entries(palette=(("stone", 0), ("minecraft:air", 1)))),
    "unknown block": document(v2_entries(palette=(("minecraft:no_such_block", 0), ("minecraft:air", 1)))),
    "required mods": document(v2_entries(extra=[("Metadata", 10, [("RequiredMods", 9, (8, ["x"]))])])),
    "raw NBT": document(v2_entries(), compress=False),
    "trailing data": document(v2_entries(), trailing=b"\x00\x01"),
    # Java's GZIPInputStream reads a second member as more of the stream (trailing NBT), and ignores other bytes
    "second gzip member": document(v2_entries()) + gzip.compress(b"xx", mtime=0),
    "bytes after the gzip member": document(v2_entries()) + b"garbage!",
    "root name": document(v2_entries(), root_name="Other"),
}


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    with run_server(tmp_path_factory.mktemp("verdicts") / "data") as server:
        with httpx.Client(timeout=30) as client:
            yield server, client


def served_verdict(serve, data: bytes) -> str:
    server, client = serve
    library = server.data_dir / "schematics"
    library.mkdir(exist_ok=True)
    (library / "probe.schem").write_bytes(data)
    params = {"player_id": server.owner_uuid, "asset_id": "probe", "target": {"x": 0, "y": 70, "z": 0}}
    for _ in range(200):
        body = client.post(
            server.url + "/v1/rpc",
            json={"method": "schematic_import_prepare", "params": params},
            headers={"Authorization": f"Bearer {server.agent_token}"},
        ).json()
        if body.get("error", {}).get("message") != "A journal step is in progress; retry":
            break
    if body["ok"] or body["error"]["code"] != "invalid_request" or body["error"]["message"] == "integer overflow":
        return "accepted"  # decoded; then placed (or refused for where it lands: region, budget, int32 overflow)
    return f"rejected: {body['error']['message']}"


def mutate(data: bytes, kind: str, at: int, value: int) -> bytes:
    """One mutation of the inflated NBT (then gzipped again), or of the gzip bytes themselves."""
    if kind == "gzip flip":
        raw = bytearray(data)
        raw[at % len(raw)] ^= value or 1
        return bytes(raw)
    if kind == "gzip cut":
        return data[: at % len(data)]
    try:
        raw = bytearray(gzip.decompress(data))
    except (OSError, EOFError, zlib.error):
        raw = bytearray(data)
    if not raw:
        return b""
    where = at % len(raw)
    if kind == "flip":
        raw[where] ^= value or 1
    elif kind == "huge length":
        raw[where : where + 4] = struct.pack(">i", [0x7FFFFFFF, -1, 0x00FFFFFF, 5000, 20001][value % 5])
    elif kind == "cut":
        del raw[where:]
    elif kind == "set byte":
        raw[where] = value % 14  # a tag type, valid or not
    return gzip.compress(bytes(raw), mtime=0)


@pytest.mark.slow  # 2000 files through the validator, schem info and the server: fewer reach less code
@settings(
    max_examples=2000,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.sampled_from(sorted(SEEDS)),
    kinds=st.lists(
        st.tuples(
            st.sampled_from(["flip", "huge length", "cut", "set byte", "gzip flip", "gzip cut"]),
            st.integers(0, 10_000),
            st.integers(0, 255),
        ),
        max_size=2,
    ),
)
def test_validate_and_serve_agree_on_every_mutated_file(serve, tmp_path_factory, seed, kinds):
    data = SEEDS[seed]
    for kind, at, value in kinds:
        data = mutate(data, kind, at, value) if data else data
    path = tmp_path_factory.getbasetemp() / "probe.schem"
    path.write_bytes(data)
    report = validate_schematic(path, profile="server")
    assert report.facts["server_verdict"] == served_verdict(serve, data)
    verdict = check_server_subset(data, build_model=False, registry=load_registry(None))
    try:  # info describes what it can read; what it cannot, it refuses with the server's verdict beside
        info = describe_schematic(path)["server"]
    except InputError as error:
        info = error.details["server"]
    assert (info["accepted"], info["rule"], info["message"]) == (verdict.accepted, verdict.rule, verdict.message)
    errors = [d.rule for d in report.diagnostics if d.severity.value == "error"]
    assert verdict.accepted == (not errors)
    if not verdict.accepted:
        assert errors[0] == verdict.rule
        spec = [d.rule for d in validate_schematic(path, profile="spec").diagnostics if d.severity.value == "error"]
        if verdict.rule.startswith(("nbt.", "gzip.")) and spec and spec[0].startswith(("nbt.", "gzip.")):
            assert spec[0] == verdict.rule


@pytest.mark.parametrize(
    "seed, rule, message",
    [
        ("duplicate Id in a block entity", "nbt.duplicate", "Duplicate NBT tag name"),
        ("non-empty End list in a block entity", "nbt.list.end", "Malformed schematic"),
    ],
)
def test_the_two_reproductions_get_one_answer_everywhere(serve, tmp_path, seed, rule, message):
    path = tmp_path / "repro.schem"
    path.write_bytes(SEEDS[seed])
    for profile in ("server", "spec"):
        report = validate_schematic(path, profile=profile)
        assert report.facts["server_verdict"] == f"rejected: {message}"
        assert report.errors  # the spec profile no longer says "ok"
    assert validate_schematic(path, profile="server").diagnostics[0].rule == rule
    spec_rules = [d.rule for d in validate_schematic(path, profile="spec").diagnostics]
    assert rule in spec_rules  # one reader check, one rule id in every profile
    assert served_verdict(serve, SEEDS[seed]) == f"rejected: {message}"


def test_an_nbt_file_of_no_known_kind_leads_with_the_servers_own_verdict(serve, tmp_path):
    """Found by the fuzz test: a v3 wrapper whose root name length byte is flipped reads as an unknown NBT; the
    server profile's first error is the verdict's rule (`server.nbt.root_name`), and what the file is follows."""
    data = mutate(SEEDS["v3 wrapper"], "flip", 2, 0)
    path = tmp_path / "flipped.schem"
    path.write_bytes(data)
    report = validate_schematic(path, profile="server")
    rules = [d.rule for d in report.diagnostics]
    assert rules[0] == "server.nbt.root_name" and rules[-1] == "sponge.format.unknown"
    assert report.facts["server_verdict"] == served_verdict(serve, data) == "rejected: Unexpected schematic root name"
    assert "this is an unknown NBT" in report.diagnostics[-1].message


@pytest.mark.parametrize(
    "seed, verdict",
    [
        ("second gzip member", "rejected: Trailing NBT data is not accepted"),
        ("bytes after the gzip member", "accepted"),
    ],
)
def test_what_follows_the_gzip_member_is_read_as_java_reads_it(serve, tmp_path, seed, verdict):
    path = tmp_path / "after.schem"
    path.write_bytes(SEEDS[seed])
    assert validate_schematic(path, profile="server").facts["server_verdict"] == verdict
    assert served_verdict(serve, SEEDS[seed]) == verdict
    spec = {d.rule for d in validate_schematic(path, profile="spec").diagnostics}  # said as a warning there
    assert spec == ({"sponge.nbt.trailing"} if verdict != "accepted" else {"sponge.gzip.trailing"})
