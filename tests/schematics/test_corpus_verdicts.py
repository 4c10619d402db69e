"""Every corpus file gets the verdict its README gives (../shared/corpus/README.md), and none crashes."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from mcb.errors import InputError
from mcb.reports.model import Severity
from mcb.schematics.formats.sponge import read_schematic
from mcb.schematics.rules import validate_schematic

# file -> rule of the first error under the server profile (README "upstream codec" column); None = accepted.
# Litematica and structure files get the server's rule too (its first refusal), their format named as the cause.
SERVER_FIRST_ERROR = {
    "litematic_nucleation_4x4_sliding_door.litematic": "server.fields.unsupported",
    "litematic_schematic4j_demo_v6.litematic": "server.fields.unsupported",
    "litematic_schematic4j_simple_v5.litematic": "server.fields.unsupported",
    "notsponge_nucleation_xor_is_litematic.schem": "server.fields.unsupported",
    "nbt_fawe_minecraft_structure.nbt": "server.fields.unsupported",
    "nbt_nucleation_cart_curve.nbt": "server.fields.unsupported",
    "nbt_nucleation_wire_shapes.nbt": "server.fields.unsupported",
    "legacy_schematic4j_9383.schematic": "server.fields.unsupported",
    "legacy_schematic4j_12727.schematic": "server.fields.unsupported",
    "v1_schematic4j_sponge-v1.schem": "server.fields.unsupported",  # TileEntities
    "v1_fawe_sponge1_degenerate.schem": "server.fields.unsupported",  # TileEntities
    "v1_schemc_example.schem": "server.version",  # Version != 2
    "v2_fawe_sponge2.schem": None,
    "v2_nucleation_and.schem": None,
    "v2_nucleation_sample.schem": None,
    "v2_prismarine_smallhouse1.schem": "server.volume",
    "v2_nucleation_Evaluator_entities.schem": "server.volume",
    "v2_nucleation_new_chest_test.schem": "server.blockentities",
    "v2_nucleation_cutecounter.schem": "server.blockentities",
    "v2_nucleation_c4_ai_last_played.schem": "server.volume",
    "v2_arkitektonika_biomes.schem": "server.fields.unsupported",
    "v2_schematic4j_issue-1.schem": "server.entities",
    "v2_schematic4j_green-cottage.schem": "server.blockentities",
    "v2_schematic4j_interieur-exterieur.schem": "server.volume",
    "v2_nucleation_large_schematic.schem": "server.size.inflated",
    "v3_fawe_sponge3.schem": "server.fields.unsupported",
    "v3_prismarine_spongeV3.schem": "server.fields.unsupported",
    "v3_nucleation_REGISTER001.schem": "server.fields.unsupported",
    "v3_nucleation_test_cube.schem": "server.fields.unsupported",
    "v3_nucleation_workshop_entity.schem": "server.fields.unsupported",
    "v3_nucleation_uss-texas.schem": "server.fields.unsupported",
    "v3_schematic4j_sponge-v3_nonconforming.schem": "server.fields.unsupported",
    "v3_nucleation_stone_cube_1GB_inflated.schem": "server.size.inflated",  # README: REJECT: inflated > 4 MiB
}

# (W, H, L, palette entries, block entities, entities) from the README table
README_SHAPES = {
    "v1_schematic4j_sponge-v1.schem": (1, 41, 9, 366, 1, 0),
    "v1_schemc_example.schem": (2, 3, 4, 4, 0, 0),
    "v2_fawe_sponge2.schem": (2, 1, 2, 4, 0, 0),
    "v2_nucleation_and.schem": (3, 2, 3, 6, 0, 0),
    "v2_nucleation_sample.schem": (2, 2, 2, 5, 0, 0),
    "v2_prismarine_smallhouse1.schem": (21, 28, 20, 173, 72, 0),
    "v2_nucleation_Evaluator_entities.schem": (25, 27, 37, 234, 497, 8),
    "v2_nucleation_new_chest_test.schem": (7, 5, 12, 26, 6, 0),
    "v2_nucleation_cutecounter.schem": (3, 18, 4, 24, 1, 0),
    "v2_nucleation_c4_ai_last_played.schem": (52, 34, 39, 56, 14, 0),
    "v2_arkitektonika_biomes.schem": (31, 1, 31, 13, 0, 0),
    "v2_schematic4j_issue-1.schem": (1, 41, 9, 366, 1, 1),
    "v2_schematic4j_green-cottage.schem": (17, 12, 12, 40, 1, 0),
    "v2_schematic4j_interieur-exterieur.schem": (128, 18, 128, 1028, 931, 0),
    "v3_fawe_sponge3.schem": (2, 1, 2, 4, 0, 0),
    "v3_prismarine_spongeV3.schem": (13, 7, 14, 13, 1, 0),
    "v3_nucleation_REGISTER001.schem": (6, 18, 7, 40, 12, 0),
    "v3_nucleation_test_cube.schem": (3, 3, 3, 2, 0, 0),
    "v3_nucleation_workshop_entity.schem": (6, 2, 5, 5, 0, 1),
    "v3_nucleation_uss-texas.schem": (175, 53, 31, 365, 0, 0),
    "v3_schematic4j_sponge-v3_nonconforming.schem": (17, 12, 12, 40, 1, 1),
}


def test_corpus_is_complete(corpus):
    on_disk = {p.name for p in corpus.iterdir() if p.name != "README.md"}
    assert on_disk == set(SERVER_FIRST_ERROR)


@pytest.mark.parametrize(
    "name", sorted(n for n in SERVER_FIRST_ERROR if n.startswith(("litematic_", "nbt_", "notsponge_", "legacy_")))
)
def test_another_tools_format_gets_the_servers_rule_with_its_format_as_the_cause(corpus, name):
    server = validate_schematic(corpus / name).diagnostics
    spec = validate_schematic(corpus / name, profile="spec").diagnostics
    kind = {
        "litematic_": "Litematica",
        "notsponge": "Litematica",
        "nbt_": "structure .nbt",
        "legacy_": "legacy .schematic",
    }[next(p for p in ("litematic_", "notsponge", "nbt_", "legacy_") if name.startswith(p))]
    assert len(server) == 1 and server[0].message.startswith(f"this is a {kind}"), server
    assert 'server: "Unsupported schematic fields' in server[0].message
    assert "`mcb build FILE` builds this one" in server[0].hint and "mcb schem convert" in server[0].hint
    # the spec profile checks the file as what it is: named, read, and upgraded without an error
    assert (
        spec[0].rule == "schem.format.other" and spec[0].message == f"this is a {server[0].message[10:].split(',')[0]}"
    )
    assert [d for d in spec if d.severity is Severity.ERROR] == []


@pytest.mark.parametrize("name", sorted(SERVER_FIRST_ERROR))
def test_server_profile_verdict_matches_readme(corpus, name):
    report = validate_schematic(corpus / name)
    errors = [d for d in report.diagnostics if d.severity is Severity.ERROR]
    expected = SERVER_FIRST_ERROR[name]
    if expected is None:
        assert errors == [], errors
        assert report.facts["server_verdict"] == "accepted"
    else:
        assert errors, f"{name} should be rejected"
        assert errors[0].rule == expected
        assert report.facts["server_verdict"].startswith("rejected")


@pytest.mark.parametrize("name", sorted(SERVER_FIRST_ERROR))
def test_spec_profile_never_crashes_and_names_the_format(corpus, name):
    report = validate_schematic(corpus / name, profile="spec")
    assert report.facts["profile"] == "spec"
    for diagnostic in report.diagnostics:
        assert diagnostic.rule and diagnostic.message and diagnostic.file.endswith(name)


def test_readme_reasons_in_detail(corpus):
    def messages(name, profile="server"):
        return [(d.rule, d.message) for d in validate_schematic(corpus / name, profile=profile).diagnostics]

    biomes = dict(messages("v2_arkitektonika_biomes.schem"))["server.fields.unsupported"]
    for key in ("BiomeData", "BiomePalette", "BiomePaletteMax", "TileEntities"):
        assert key in biomes
    cottage = [m for r, m in messages("v2_schematic4j_green-cottage.schem", "spec") if r == "block.property.unknown"]
    assert cottage and all("north_east" in m for m in cottage)
    outside = [r for r, _ in messages("v1_schematic4j_sponge-v1.schem", "spec")]
    assert "sponge.block_entity.outside" in outside
    assert "sponge.blockdata.too_few" in [r for r, _ in messages("v1_fawe_sponge1_degenerate.schem", "spec")]
    assert "sponge.v3.nonconforming" in [r for r, _ in messages("v3_schematic4j_sponge-v3_nonconforming.schem", "spec")]
    evaluator = [r for r, _ in messages("v2_nucleation_Evaluator_entities.schem", "spec")]
    assert evaluator.count("sponge.entity.absolute_pos") == 8
    litematic = dict(messages("notsponge_nucleation_xor_is_litematic.schem", "spec"))["schem.format.other"]
    assert "Litematica" in litematic


def test_worldedit_offset_warning_says_where_the_server_pastes(corpus):
    report = validate_schematic(corpus / "v2_nucleation_and.schem")
    warning = next(d for d in report.diagnostics if d.rule == "sponge.offset.worldedit")
    assert warning.severity is Severity.WARNING
    assert "[-868, -57, 667]" in warning.message and "[-1, 0, -2]" in warning.message
    assert report.errors == 0


def test_a_v3_file_leads_with_its_version_then_the_servers_words_then_the_hint(corpus):
    report = validate_schematic(corpus / "v3_nucleation_test_cube.schem")
    first = report.diagnostics[0]
    assert first.rule == "server.fields.unsupported"
    assert first.message.startswith(
        "this is Sponge v3; the server imports only Sponge v2; server: "
        '"Unsupported schematic fields (biomes/custom data are not imported)"'
    )
    assert "mcb schem convert" in first.hint
    assert not [d for d in report.diagnostics if d.rule == "sponge.version.unsupported"]  # said once, first
    spec = validate_schematic(corpus / "v3_nucleation_test_cube.schem", profile="spec")
    warning = next(d for d in spec.diagnostics if d.rule == "sponge.version.unsupported")
    assert "v3" in warning.message and "mcb schem convert" in warning.hint


@pytest.mark.parametrize("name", sorted(README_SHAPES))
def test_reader_matches_readme_shapes(corpus, name):
    schem = read_schematic(corpus / name)
    width, height, length, palette, block_entities, entities = README_SHAPES[name]
    assert (schem.width, schem.height, schem.length) == (width, height, length)
    assert schem.blocks.shape == (height, length, width)
    assert len(schem.palette) == palette
    assert len(schem.block_entities) == block_entities
    assert len(schem.entities) == entities


def test_degenerate_and_hostile_files_are_clean_input_errors(corpus):
    for name in (
        "v1_fawe_sponge1_degenerate.schem",
        "v3_nucleation_stone_cube_1GB_inflated.schem",
        "notsponge_nucleation_xor_is_litematic.schem",
        "nbt_nucleation_cart_curve.nbt",
    ):
        with pytest.raises(InputError):
            read_schematic(corpus / name)


def test_decompression_bomb_is_refused_fast_with_bounded_memory(corpus):
    tracemalloc.start()
    started = time.perf_counter()
    report = validate_schematic(corpus / "v3_nucleation_stone_cube_1GB_inflated.schem")
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # the server's reason first, then what our reader saw
    assert [d.rule for d in report.diagnostics] == ["server.size.inflated", "nbt.limit.inflated"]
    assert report.facts["server_verdict"] == "rejected: Inflated schematic exceeds 4 MiB"
    assert elapsed < 1.0
    assert peak < 32 * 1024 * 1024


def test_fawe_v2_and_v3_twins_decode_to_the_same_clipboard(corpus):
    v2 = read_schematic(corpus / "v2_fawe_sponge2.schem")
    v3 = read_schematic(corpus / "v3_fawe_sponge3.schem")
    assert [v2.state_at(x, 0, z) for x in range(2) for z in range(2)] == [
        v3.state_at(x, 0, z) for x in range(2) for z in range(2)
    ]
    # README: v2 Offset [-101,74,73] + WEOffset [-1,-1,0]  <=>  v3 Offset [-1,-1,0] + Origin [-100,75,73]
    assert v2.offset == v3.offset == (-1, -1, 0)
    assert v2.world_origin == v3.world_origin == (-100, 75, 73)
    assert v2.source.stored_offset == (-101, 74, 73)


def test_worldedit_v2_entity_positions_become_local(corpus):
    schem = read_schematic(corpus / "v2_nucleation_Evaluator_entities.schem")
    for entity in schem.entities:
        assert all(0 <= p <= s for p, s in zip(entity.pos, schem.size)), entity.pos


def test_every_emitted_rule_id_is_described(corpus):
    from mcb.schematics.rule_ids import RULES

    seen = set()
    for path in corpus.iterdir():
        for profile in ("server", "spec"):
            seen |= {d.rule for d in validate_schematic(path, profile=profile).diagnostics}
    assert seen - set(RULES) == set()


def test_spec_profile_finds_each_bad_block_entity_among_thousands(tmp_path):
    # 2,000 look-alike chests (one template: the checks run on arrays) with three bad ones in between: two
    # outside the box and one without an Id. The findings come in list order with their own indices.
    import gzip

    from mcb.schematics.nbt import ByteArray, Compound, Int, IntArray, List, Short, String
    from mcb.schematics.nbt_encoder import encode_nbt

    size = 20
    entries = []
    for i in range(2000):
        x, z = i % size, (i // size) % size
        entries.append(
            Compound(
                {"Id": String("minecraft:chest"), "Pos": IntArray((x, i // (size * size), z)), "Items": List((), 0)}
            )
        )
    entries[1500] = Compound({"Id": String("minecraft:chest"), "Pos": IntArray((size, 0, 0)), "Items": List((), 0)})
    entries[700] = Compound({"Id": String("minecraft:chest"), "Pos": IntArray((0, -1, 0)), "Items": List((), 0)})
    entries[42] = Compound({"Pos": IntArray((1, 1, 1)), "Items": List((), 0)})
    root = Compound(
        {
            "Version": Int(2),
            "DataVersion": Int(3700),
            "Width": Short(size),
            "Height": Short(size),
            "Length": Short(size),
            "PaletteMax": Int(1),
            "Palette": Compound({"minecraft:stone": Int(0)}),
            "BlockData": ByteArray(bytes(size**3)),
            "BlockEntities": List(entries, 10),
        }
    )
    path = tmp_path / "chests.schem"
    path.write_bytes(gzip.compress(encode_nbt(root)))
    found = [
        (d.rule, d.pointer)
        for d in validate_schematic(path, profile="spec").diagnostics
        if d.rule.startswith("sponge.block_entity")
    ]
    assert found == [
        ("sponge.block_entity.shape", "/BlockEntities/42"),
        ("sponge.block_entity.outside", "/BlockEntities/700/Pos"),
        ("sponge.block_entity.outside", "/BlockEntities/1500/Pos"),
    ]
