"""asset_list and schematic_import_prepare over real HTTP: the library rules and the server's Sponge v2 subset
(protocol §6.1, §6.2, §6.4, §6.5)."""

from __future__ import annotations

import gzip
import hashlib
import shutil

import pytest
from test_peripheral_support import P, Rpc, peripheral_rpc, sponge, tag  # noqa: F401  (the `rpc` fixture of these tests)

from mcb.server.testing import run_server

CORPUS_ACCEPTED = "v2_fawe_sponge2.schem"
AIR = "minecraft:air"


def test_asset_list_sorts_by_file_name_and_filters_by_name(rpc, corpus):
    rpc.put_file("b-second", sponge({"minecraft:stone": 0}, [0], name="Tower East"))
    rpc.put_file("A_first", sponge({"minecraft:dirt": 0}, [0], name="cellar"))
    shutil.copy(corpus / CORPUS_ACCEPTED, rpc.library / "corpus.schem")
    (rpc.library / "notes.txt").write_text("ignored")
    listed = rpc.ok("asset_list")["assets"]
    assert [a["assetId"] for a in listed] == ["A_first", "b-second", "corpus"]
    assert listed[2]["name"] == "Imported schematic"
    assert listed[2]["sha256"] == hashlib.sha256((corpus / CORPUS_ACCEPTED).read_bytes()).hexdigest()
    assert [a["assetId"] for a in rpc.ok("asset_list", {"query": "TOWER"})["assets"]] == ["b-second"]
    assert rpc.ok("asset_list", {"query": "a_first"})["assets"] == []  # matches names, not ids
    assert len(rpc.ok("asset_list", {"query": ""})["assets"]) == 3


@pytest.mark.parametrize("file_name", ["-dash.schem", "has space.schem", "x" * 65 + ".schem", ".schem"])
def test_one_badly_named_file_fails_the_listing(rpc, file_name):
    rpc.put_file("good", sponge({"minecraft:stone": 0}, [0]))
    (rpc.library / file_name).write_bytes(sponge({"minecraft:stone": 0}, [0]))
    assert rpc.error("asset_list")[0] == "invalid_request"


def test_one_invalid_file_fails_the_listing_but_not_dataversion(rpc):
    rpc.put_file("future", sponge({"minecraft:stone": 0}, [0], data_version=99999))
    assert rpc.ok("asset_list")["assets"][0]["dataVersion"] == 99999
    assert rpc.error("schematic_import_prepare", {"asset_id": "future", "target": P((0, 70, 0))}) == (
        "invalid_request",
        "Schematic DataVersion is newer than the target server",
    )
    rpc.put_file("v3", sponge({"minecraft:stone": 0}, [0], version=3))
    assert rpc.error("asset_list") == ("invalid_request", "Only Sponge schematic version 2 is supported")


def test_symlinks_are_refused(rpc, tmp_path):
    rpc.put_file("real", sponge({"minecraft:stone": 0}, [0]))
    (rpc.library / "link.schem").symlink_to(rpc.library / "real.schem")
    assert rpc.error("asset_list")[0] == "invalid_request"
    assert rpc.error("schematic_import_prepare", {"asset_id": "link", "target": P((0, 70, 0))}) == (
        "invalid_request",
        "Asset not found or is not a regular file",
    )


# -- import errors --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "data, message",
    [
        (sponge({"minecraft:stone": 0}, [0], version=3), "Only Sponge schematic version 2 is supported"),
        (
            sponge({"minecraft:stone": 0}, [0], extra=[("BiomeData", tag(7, b""))]),
            "Unsupported schematic fields (biomes/custom data are not imported)",
        ),
        (
            sponge({"minecraft:chest": 0}, [0], block_entities=[[("Id", tag(8, "minecraft:chest"))]]),
            "BlockEntities are unsupported; import rejected without dropping data",
        ),
        (
            sponge({"minecraft:stone": 0}, [0], entities=[[("Id", tag(8, "minecraft:pig"))]]),
            "Entities are unsupported; import rejected without dropping data",
        ),
        (sponge({"minecraft:stone": 0}, [0, 0], size=(1, 1, 1)), "BlockData has extra entries"),
        (sponge({"minecraft:stone": 0}, [1]), "BlockData refers to missing palette index"),
        (sponge({"minecraft:stone": 0}, [0] * 4097, size=(4097, 1, 1)), "Schematic volume must be 1..4096"),
        (sponge({"minecraft:stone[color=blue]": 0}, [0]), "Invalid runtime schematic block state"),
        (sponge({"minecraft:stone": 0, "minecraft:dirt": 0}, [0]), "Invalid or duplicate palette index"),
        (gzip.decompress(sponge({"minecraft:stone": 0}, [0])), None),
    ],
)
def test_import_rejects_files_outside_the_server_subset(rpc, data, message):
    rpc.put_file("bad", data)
    code, text = rpc.error("schematic_import_prepare", {"asset_id": "bad", "target": P((0, 70, 0))})
    assert code == "invalid_request"
    if message is not None:
        assert text == message


def test_import_parameter_errors(rpc):
    rpc.put_file("ok", sponge({"minecraft:stone": 0}, [0]))
    target = {"target": P((0, 70, 0))}
    assert rpc.error("schematic_import_prepare", {**target, "asset_id": "../ok"}) == (
        "invalid_request",
        "Invalid asset ID; paths are not accepted",
    )
    assert rpc.error("schematic_import_prepare", {**target, "asset_id": "ok.schem"})[1] == (
        "Invalid asset ID; paths are not accepted"
    )
    assert rpc.error("schematic_import_prepare", {**target, "asset_id": "missing"}) == (
        "invalid_request",
        "Asset not found or is not a regular file",
    )
    assert rpc.error("schematic_import_prepare", target) == ("invalid_request", "Required bounded string: asset_id")
    assert rpc.error("schematic_import_prepare", {"asset_id": "ok"}) == (
        "invalid_request",
        "Integer coordinate required: target",
    )
    for rotation in [45, -90, 360, 90.5]:
        expected = (
            "Integer coordinate required: rotation"
            if rotation == 90.5
            else ("Rotation must be 0, 90, 180 or 270 degrees")
        )
        assert rpc.error("schematic_import_prepare", {**target, "asset_id": "ok", "rotation": rotation}) == (
            "invalid_request",
            expected,
        )
    assert rpc.error("schematic_import_prepare", {"asset_id": "ok", "target": P((64, 70, 65))}) == (
        "out_of_bounds",
        "Recipe exceeds project region",
    )


def test_import_placement_overflow(rpc):
    rpc.put_file("far", sponge({"minecraft:stone": 0}, [0, 0], size=(2, 1, 1), offset=(2**31 - 1, 0, 0)))
    assert rpc.error("schematic_import_prepare", {"asset_id": "far", "target": P((0, 70, 0))}) == (
        "invalid_request",
        "integer overflow",
    )


def test_import_while_writes_are_paused(rpc):
    rpc.put_file("ok", sponge({"minecraft:stone": 0}, [0]))
    rpc.ok("test_pause_writes", {"paused": True}, admin=True, scope=False)
    assert rpc.error("schematic_import_prepare", {"asset_id": "ok", "target": P((0, 70, 0))})[0] == "cancelled"


def test_corpus_file_places_by_its_offset(rpc, corpus):
    rpc.library.mkdir(parents=True)
    shutil.copy(corpus / CORPUS_ACCEPTED, rpc.library / "fawe.schem")
    offset = rpc.ok("asset_list")["assets"][0]["offset"]
    assert rpc.error("schematic_import_prepare", {"asset_id": "fawe", "target": P((0, 0, 0))})[0] == "out_of_bounds"
    target = (offset["x"], 80 - offset["y"], offset["z"])  # a half turn maps offset + cell to -(offset + cell)
    plan = rpc.ok("schematic_import_prepare", {"asset_id": "fawe", "target": P(target), "rotation": 180})
    rpc.apply(plan)
    placed = rpc.blocks((-1, 80, -1), (1, 80, 1))
    assert sum(1 for s in placed.values() if s != AIR) == 4


def test_import_respects_the_journal_latch(rpc):
    rpc.put_file("ok", sponge({"minecraft:stone": 0}, [0]))
    state = rpc.server.state
    params = {"asset_id": "ok", "target": P((0, 70, 0)), "player_id": rpc.server.owner_uuid}
    body = {"method": "schematic_import_prepare", "params": params}
    headers = {"Authorization": f"Bearer {rpc.server.agent_token}"}
    for flag, expected in [
        ("io_busy", ("busy", "A journal step is in progress; retry")),
        ("halted", ("recovery_required", "Journal unavailable")),
    ]:
        with state.lock:
            setattr(state, flag, True)
        try:
            error = rpc.client.post(rpc.server.url + "/v1/rpc", json=body, headers=headers).json()["error"]
        finally:
            with state.lock:
                setattr(state, flag, False)
        assert (error["code"], error["message"]) == expected


def test_a_symlinked_data_dir_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with run_server(tmp_path / "link") as server:
        client = Rpc(server)
        assert client.error("asset_list")[0] == "invalid_request"
        assert client.error("schematic_export", {"name": "n", "min": P((0, 70, 0)), "max": P((0, 70, 0))})[0] == (
            "invalid_request"
        )
        client.close()


def test_the_server_data_version_is_what_exports_write_and_imports_allow(tmp_path):
    with run_server(tmp_path / "old", data_version=4000) as server:
        client = Rpc(server)
        exported = client.ok("schematic_export", {"name": "old", "min": P((0, 70, 0)), "max": P((0, 70, 0))})
        assert exported["dataVersion"] == 4000
        client.put_file("newer", sponge({"minecraft:stone": 0}, [0], data_version=4001))
        client.put_file("same", sponge({"minecraft:stone": 0}, [0], data_version=4000))
        assert client.error("schematic_import_prepare", {"asset_id": "newer", "target": P((0, 70, 0))}) == (
            "invalid_request",
            "Schematic DataVersion is newer than the target server",
        )
        assert (
            client.ok("schematic_import_prepare", {"asset_id": "same", "target": P((0, 70, 0))})["changed_blocks"] == 1
        )
        assert [a["assetId"] for a in client.ok("asset_list")["assets"]][-2:] == ["newer", "same"]
        client.close()


def test_listing_shows_the_record_export_returned(rpc):
    exported = rpc.ok(
        "schematic_export",
        {"name": "Same Record", "min": P((0, 62, 0)), "max": P((3, 64, 2)), "origin": P((10, 60, -10))},
    )
    assert rpc.ok("asset_list", {"query": "same"})["assets"] == [exported]
    assert exported["offset"] == P((-10, 2, 10))
