"""`mcb schem validate|info|convert` as a user runs them: output formats, exit codes, files written."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from mcb.schematics.formats.sponge import read_schematic

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "schematics"


def test_validate_accepted_file_exits_0(cli, corpus):
    result = cli("schem", "validate", str(corpus / "v2_nucleation_sample.schem"))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "sponge.offset.worldedit" in result.stdout


def test_validate_rejected_file_exits_1_with_the_server_message(cli, corpus):
    result = cli("schem", "validate", str(corpus / "v3_fawe_sponge3.schem"))
    assert result.exit_code == 1
    assert "Unsupported schematic fields (biomes/custom data are not imported)" in result.stdout
    assert "1 of 1 schematic has errors" in result.stderr


def test_strict_fails_on_warnings(cli, corpus):
    path = str(corpus / "v2_nucleation_and.schem")
    assert cli("schem", "validate", path).exit_code == 0
    assert cli("schem", "validate", "--strict", path).exit_code == 1


def test_directory_walk_uses_the_glob(cli):
    result = cli("schem", "validate", str(SAMPLES), "--format", "json")
    data = json.loads(result.stdout)
    files = sorted(Path(report["file"]).name for report in data["files"])
    assert files == sorted(p.name for p in SAMPLES.iterdir() if p.suffix in (".schem", ".litematic", ".schematic"))
    only = json.loads(cli("schem", "validate", str(SAMPLES), "--glob", "*.litematic", "--format", "json").stdout)
    assert [Path(report["file"]).name for report in only["files"] if "skipped" not in report["facts"]] == [
        "watchtower.litematic"
    ]


def test_spec_profile_flags_mod_properties(cli, corpus):
    result = cli(
        "schem", "validate", "--profile", "spec", "--format", "json", str(corpus / "v2_schematic4j_green-cottage.schem")
    )
    rules = {d["rule"] for f in json.loads(result.stdout)["files"] for d in f["diagnostics"]}
    assert "block.property.unknown" in rules and result.exit_code == 1


def test_sarif_shape(cli, corpus):
    result = cli("schem", "validate", "--format", "sarif", str(corpus / "v2_prismarine_smallhouse1.schem"))
    sarif = json.loads(result.stdout)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["name"]
    rule_ids = {r["id"] for r in run["tool"]["driver"]["rules"]}
    assert run["results"]
    for item in run["results"]:
        assert item["ruleId"] in rule_ids and item["level"] in ("error", "warning", "note")
        location = item["locations"][0]
        assert location["physicalLocation"]["artifactLocation"]["uri"].endswith("v2_prismarine_smallhouse1.schem")
        assert location["physicalLocation"]["region"]["startLine"] == 1


def test_github_annotations(cli, corpus):
    result = cli("schem", "validate", "--format", "github", str(corpus / "v2_nucleation_cutecounter.schem"))
    lines = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert any(line.startswith("::error file=") and "BlockEntities are unsupported" in line for line in lines)
    assert any(line.startswith("::warning file=") for line in lines)


def test_github_format_is_the_default_inside_actions(cli, corpus):
    result = cli("schem", "validate", str(corpus / "v3_fawe_sponge3.schem"), env={"GITHUB_ACTIONS": "true"})
    assert result.stdout.lstrip().startswith("::")


def test_junit_parses(cli, corpus):
    result = cli(
        "schem",
        "validate",
        "--format",
        "junit",
        str(corpus / "v3_fawe_sponge3.schem"),
        str(corpus / "v2_fawe_sponge2.schem"),
    )
    root = ET.fromstring(result.stdout)
    failures = root.findall(".//failure")
    assert failures and any("Unsupported schematic fields" in (f.get("message") or "") for f in failures)


def test_missing_path_is_a_clean_error(cli, tmp_path):
    result = cli("schem", "validate", str(tmp_path / "nope.schem"))
    assert result.exit_code == 1 and "no such file" in result.stderr and "Traceback" not in result.stderr


def test_bad_profile_and_version_are_usage_errors(cli):
    assert cli("schem", "validate", "--profile", "strictest", str(SAMPLES)).exit_code == 2
    assert cli("schem", "validate", "--mc-version", "9.99", str(SAMPLES)).exit_code == 2


def test_info_json(cli, corpus):
    result = cli("schem", "info", "--json", str(corpus / "v2_nucleation_and.schem"))
    assert result.exit_code == 0
    info = json.loads(result.stdout)
    assert info["format"] == "Sponge v2" and info["data_version"] == 3700 and info["release"] == "1.20.4"
    assert info["size"] == {"width": 3, "height": 2, "length": 3}
    assert info["offset"] == [-1, 0, -2] and info["stored_offset"] == [-868, -57, 667]
    assert sum(p["count"] for p in info["palette"]) == 18
    assert info["non_air_blocks"] == 18 - next(p["count"] for p in info["palette"] if p["state"] == "minecraft:air")
    assert info["server"]["accepted"] is True


def test_info_text_shows_brackets_of_states(cli):
    result = cli("schem", "info", str(SAMPLES / "house.schem"))
    assert result.exit_code == 0
    assert "minecraft:oak_door[facing=south" in result.stdout
    assert "accepted" in result.stdout


def test_info_on_litematica_names_it(cli, corpus):
    result = cli("schem", "info", str(corpus / "notsponge_nucleation_xor_is_litematic.schem"))
    assert result.exit_code == 0 and "format:         Litematica v6 (gzip)" in result.stdout
    assert "`mcb build FILE` builds it" in result.stdout


def test_convert_v3_to_server_v2_then_validate(cli, corpus, tmp_path):
    out = tmp_path / "cube.schem"
    result = cli("schem", "convert", str(corpus / "v3_nucleation_test_cube.schem"), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert cli("schem", "validate", "--strict", str(out)).exit_code == 0
    before, after = read_schematic(corpus / "v3_nucleation_test_cube.schem"), read_schematic(out)
    assert after.source.version == 2 and after.offset == before.offset
    assert [after.state_at(x, y, z) for x, y, z in [(0, 0, 0), (2, 2, 2), (1, 1, 1)]] == [
        before.state_at(x, y, z) for x, y, z in [(0, 0, 0), (2, 2, 2), (1, 1, 1)]
    ]


def test_convert_normalises_worldedit_offset(cli, corpus, tmp_path):
    out = tmp_path / "and.schem"
    assert cli("schem", "convert", str(corpus / "v2_nucleation_and.schem"), "-o", str(out)).exit_code == 0
    assert read_schematic(out).source.stored_offset == (-1, 0, -2)
    result = cli("schem", "validate", "--format", "json", str(out))
    rules = {d["rule"] for d in json.loads(result.stdout)["files"][0]["diagnostics"]}
    assert "sponge.offset.worldedit" not in rules


def test_convert_refuses_lossy_v2_and_says_what(cli, tmp_path):
    out = tmp_path / "loot.schem"
    result = cli("schem", "convert", str(SAMPLES / "chest_with_loot_v3.schem"), "-o", str(out))
    assert result.exit_code == 1 and "1 block entity (minecraft:chest x1)" in result.stderr
    assert not out.exists()
    forced = cli(
        "schem", "convert", "--drop-extras", "--json", str(SAMPLES / "chest_with_loot_v3.schem"), "-o", str(out)
    )
    assert forced.exit_code == 0 and json.loads(forced.stdout)["server"]["accepted"] is True
    back = cli(
        "schem",
        "convert",
        "--format",
        "v3",
        str(SAMPLES / "chest_with_loot_v3.schem"),
        "-o",
        str(tmp_path / "v3.schem"),
    )
    assert back.exit_code == 0
    assert read_schematic(tmp_path / "v3.schem").block_entities[0].id == "minecraft:chest"


def test_a_refused_conversion_suggests_only_formats_that_keep_everything(cli, tmp_path):
    # The watchtower has cells it leaves unchanged (outside its two regions) and a chest: Sponge v3 cannot hold
    # the first, so only Litematica (its regions written again) and a structure keep everything.
    tower = cli("schem", "convert", str(SAMPLES / "watchtower.litematic"), "-o", str(tmp_path / "t.schem"))
    assert tower.exit_code == 1
    assert "hint: keep everything with --to litematic or structure, or drop it on purpose with --drop-extras" in (
        tower.stderr
    )
    # The cabin's block entities fit every format but the server's.
    cabin = cli("schem", "convert", str(SAMPLES / "cabin.schematic"), "-o", str(tmp_path / "c.schem"))
    assert "keep everything with --to sponge3 or litematic or structure, or drop" in cabin.stderr
    followed = cli(
        "schem", "convert", str(SAMPLES / "watchtower.litematic"), "-o", str(tmp_path / "t.schem"), "--to", "structure"
    )
    assert followed.exit_code == 0, followed.stderr


def test_a_name_that_says_another_format_is_warned_and_a_bad_replacement_is_a_usage_error(cli, tmp_path):
    odd = cli("schem", "convert", str(SAMPLES / "house.schem"), "-o", str(tmp_path / "h.litematic"), "--to", "sponge2")
    assert odd.exit_code == 0 and "h.litematic is named like a Litematica file but holds Sponge v2 data" in odd.stderr
    typo = cli(
        "schem",
        "convert",
        str(SAMPLES / "house.schem"),
        "-o",
        str(tmp_path / "h.nbt"),
        "--replace-unknown",
        "minecraft:stoen",
    )
    assert typo.exit_code == 2 and "--replace-unknown minecraft:stoen" in typo.stderr


def test_samples_are_up_to_date():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_samples", ROOT / "scripts" / "make_samples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, payload in module.build().items():
        assert (SAMPLES / name).read_bytes() == payload, f"{name} is stale: run scripts/make_samples.py"


def test_pre_commit_hook_manifest_names_the_validate_hook():
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "- id: mcb-schem-validate" in text
    assert "entry: mcb schem validate" in text and r"files: \.schem$" in text


def test_convert_worldedit_v2_to_v3_matches_the_fawe_v3_twin(cli, corpus, tmp_path):
    out = tmp_path / "twin.schem"
    assert (
        cli("schem", "convert", "--format", "v3", str(corpus / "v2_fawe_sponge2.schem"), "-o", str(out)).exit_code == 0
    )
    ours, fawe = read_schematic(out), read_schematic(corpus / "v3_fawe_sponge3.schem")
    assert ours.source.version == 3
    assert ours.offset == fawe.offset == (-1, -1, 0)
    assert ours.world_origin == fawe.world_origin == (-100, 75, 73)
    cells = [(x, 0, z) for x in range(2) for z in range(2)]
    assert [ours.state_at(*c) for c in cells] == [fawe.state_at(*c) for c in cells]


def test_convert_v1_without_dataversion_picks_the_target_and_drops_mods_on_request(cli, corpus, tmp_path):
    out = tmp_path / "v1.schem"
    refused = cli("schem", "convert", str(corpus / "v1_schematic4j_sponge-v1.schem"), "-o", str(out))
    assert refused.exit_code == 1 and "RequiredMods" in refused.stderr and "campfire" in refused.stderr
    result = cli(
        "schem", "convert", "--drop-extras", "--json", str(corpus / "v1_schematic4j_sponge-v1.schem"), "-o", str(out)
    )
    data = json.loads(result.stdout)
    assert data["server"]["accepted"] is True and read_schematic(out).data_version == 4903
    assert "no DataVersion" in data["notes"][0]


def test_mc_version_sets_the_server_target(cli, corpus):
    path = str(corpus / "v2_nucleation_sample.schem")  # DataVersion 3700 = 1.20.4
    older = cli("schem", "validate", "--mc-version", "1.19.2", "--format", "json", path)
    rules = [d["rule"] for d in json.loads(older.stdout)["files"][0]["diagnostics"]]
    assert older.exit_code == 1 and "server.data_version.newer" in rules
    same = cli("schem", "validate", "--mc-version", "1.20.4", "--format", "json", path)
    report = json.loads(same.stdout)["files"][0]
    assert same.exit_code == 0 and report["facts"]["checked_against"]["data_version"] == 3700
    assert "sponge.data_version.old" not in [d["rule"] for d in report["diagnostics"]]


def test_text_file_is_named_not_nbt(cli, corpus):
    result = cli("schem", "validate", str(corpus / "README.md"))
    assert result.exit_code == 1 and "not an NBT compound" in result.stdout


def test_a_v1_file_leads_with_its_version_then_the_hint(cli, corpus):
    for name in ("v1_fawe_sponge1_degenerate.schem", "v1_schematic4j_sponge-v1.schem", "v1_schemc_example.schem"):
        result = cli("schem", "validate", str(corpus / name))
        assert result.exit_code == 1
        lines = result.stdout.splitlines()
        assert "error[" in lines[0] and ": this is Sponge v1; the server imports only Sponge v2; server: " in lines[0]
        assert lines[1].strip().startswith("hint: convert it with `mcb schem convert")
        assert "sponge.version.unsupported" not in result.stdout  # said once, first


def test_counts_of_one_are_singular(cli, corpus, tmp_path):
    from schem_nbt_bytes import document, v2_entries

    chest = [("Id", 8, "minecraft:chest"), ("Pos", 11, [0, 0, 0])]
    one = tmp_path / "one.schem"
    one.write_bytes(
        document(
            v2_entries(
                palette=(("minecraft:chest", 0), ("minecraft:air", 1)), extra=[("BlockEntities", 9, (10, [chest]))]
            )
        )
    )
    validated = cli("schem", "validate", str(one))
    assert "(1 entry)" in validated.stdout and "entries" not in validated.stdout
    converted = cli("schem", "convert", str(one), "-o", str(tmp_path / "out.schem"))
    assert converted.exit_code != 0 and "1 block entity (minecraft:chest x1)" in converted.stderr
    info = cli("schem", "info", str(corpus / "v1_fawe_sponge1_degenerate.schem"))
    assert "BlockData has 0 entries for 1 cell" in info.stderr and "1 cells" not in info.stderr


def test_counts_of_one_read_right_in_refusals_and_warnings(cli, tmp_path):
    fixture = str(SAMPLES / "rotation_fixture.schem")
    unknown = cli("schem", "convert", fixture, "-o", str(tmp_path / "old.schem"), "--mc-version", "1.16")
    assert f"error: {fixture}: 1 block unknown in Minecraft 1.16: minecraft:crafter (1 cell)" in unknown.stderr
    mirrored = cli("schem", "mirror", fixture, "-a", "x", "-o", str(tmp_path / "m.schem"))
    assert "warning: 3 block states come out geometrically wrong" in mirrored.stderr


def test_validate_excludes_named_and_walked_files_as_lint_does(cli, tmp_path):
    samples = Path(__file__).resolve().parents[2] / "schematics"
    (tmp_path / "old").mkdir()
    shutil.copy(samples / "house.schem", tmp_path / "house.schem")
    shutil.copy(samples / "house.schem", tmp_path / "old" / "kept-out.schem")
    named = tmp_path / "named.schem"
    shutil.copy(samples / "house.schem", named)
    result = cli(
        "schem", "validate", str(tmp_path), str(named), "--exclude", "old/*", "--exclude", "named.schem", "--json"
    )
    assert result.exit_code == 0, result.stderr
    files = [report["file"] for report in json.loads(result.stdout)["files"]]
    assert files == [str(tmp_path / "house.schem")]


def test_help_and_hints_name_options_that_exist_and_defaults_that_hold(cli, tmp_path):
    import re

    def help_of(*command):
        text = cli(*command, "--help", env={"COLUMNS": "80"}).stdout
        return re.sub(r"[\s│]+", " ", text)

    assert "default *.schem, *.litematic, *.nbt and *.schematic for schematics" in help_of("schem", "validate")
    for command in ("convert", "rotate", "mirror"):
        words = help_of("schem", command)
        assert "upgrade the states to (default: the file's own release; 26.2 for legacy files" in words, command
        assert "as the command's help says" not in words
    (tmp_path / "notes.txt").write_text("x")
    assert "--glob" in cli("schem", "validate", str(tmp_path)).stderr
    for command in (["schem", "info"], ["schem", "render", "-o", str(tmp_path / "pictures")]):
        result = cli(*command[:2], str(tmp_path), *command[2:])
        assert result.exit_code == 1 and "no schematic found" in result.stderr
        assert "--glob" not in result.stderr  # info and render have no --glob


def test_validate_and_info_name_a_files_kind_alike(cli):
    import json

    for name, kind in (("watchtower.litematic", "litematic"), ("cabin.schematic", "legacy"), ("house.schem", "sponge")):
        info = json.loads(cli("schem", "info", str(SAMPLES / name), "--json").stdout)
        for profile in ("server", "spec"):
            report = json.loads(cli("schem", "validate", str(SAMPLES / name), "--format", "json", "-p", profile).stdout)
            assert report["files"][0]["facts"]["kind"] == info["kind"] == kind, (name, profile)
