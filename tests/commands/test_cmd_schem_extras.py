"""`mcb schem extras` as a user runs it: the function written, what it says on stdout and stderr, --json, and the
refusals (a bad target, the input as output, a file that is no schematic)."""

from __future__ import annotations

import json


def test_it_writes_the_function_and_says_what_it_holds(cli, corpus, tmp_path):
    output = tmp_path / "evaluator.mcfunction"
    result = cli(
        "schem", "extras", str(corpus / "v2_nucleation_Evaluator_entities.schem"),
        "--target", "100,64,200", "--rotation", "90", "-o", str(output),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        f"wrote {output}: 318 commands for 310 block entities and 8 entities (run it with "
        "/function <namespace>:<name> in a datapack, after the build)\n"
    )
    assert "187 block entities hold nothing a placed block lacks" in result.stderr
    assert "upgraded items from Count and tag into count and components (Minecraft 1.20.5): 3,050" in result.stderr
    text = output.read_text()
    assert text.startswith("# Block-entity and entity data of v2_nucleation_Evaluator_entities.schem")
    assert sum(1 for line in text.splitlines() if not line.startswith("#")) == 318


def test_one_block_entity_is_one_in_the_sentence_too(cli, corpus, tmp_path):
    # Before: "1 block entity hold nothing a placed block lacks".
    output = tmp_path / "counter.mcfunction"
    result = cli("schem", "extras", str(corpus / "v2_nucleation_cutecounter.schem"), "--target", "0,64,0", "-o", output)
    assert result.exit_code == 0, result.stderr
    assert "1 block entity holds nothing a placed block lacks (empty containers, blank signs)" in result.stderr


def test_json_prints_the_summary(cli, corpus, tmp_path):
    output = tmp_path / "workshop.mcfunction"
    result = cli(
        "schem", "extras", str(corpus / "v3_nucleation_workshop_entity.schem"),
        "--target", "0,64,0", "--mirror", "x", "-o", str(output), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) == {
        "file", "output", "function", "target", "rotation", "mirror", "release", "data_version", "commands",
        "longest_command", "limit", "block_entities", "entities", "box", "upgraded", "not_upgraded", "notes",
    }  # fmt: skip
    assert (data["target"], data["rotation"], data["mirror"]) == ({"x": 0, "y": 64, "z": 0}, 0, "x")
    assert data["entities"] == {"in_file": 1, "written": 1, "left_out": []} and data["commands"] == 1
    # a file of modern blocks that says DataVersion 1343 is read as the release its palette proves
    assert data["data_version"] == {"file": 1343, "read_as": 1519}
    (line,) = [line for line in output.read_text().splitlines() if not line.startswith("#")]
    # local (3.5, 1, 1.5) of a 6-wide file mirrored across x: 6 - 3.5 = 2.5, offset (-3, 0, -2) -> (-2, 0, -2)
    assert line.startswith("summon minecraft:armor_stand 0.5 65.0 -0.5 {ShowArms:1b,Rotation:[0.0f,0.0f],")
    assert 'equipment:{feet:{id:"minecraft:diamond_boots",count:1},' in line


def test_refusals_name_what_is_wrong(cli, corpus, tmp_path):
    house = corpus / "v2_nucleation_new_chest_test.schem"
    bad = cli("schem", "extras", str(house), "--target", "1,2", "-o", str(tmp_path / "x.mcfunction"))
    assert bad.exit_code == 2 and "--target expects x,y,z integers" in bad.stderr
    turn = cli("schem", "extras", str(house), "--target", "0,0,0", "--rotation", "45", "-o", str(tmp_path / "x"))
    assert turn.exit_code == 2 and "--rotation must be 0, 90, 180 or 270, not 45" in turn.stderr
    same = cli("schem", "extras", str(house), "--target", "0,0,0", "-o", str(house))
    assert same.exit_code == 2 and "is the input file" in same.stderr
    junk = tmp_path / "junk.schem"
    junk.write_bytes(b"not nbt")
    unreadable = cli("schem", "extras", str(junk), "--target", "0,0,0", "-o", str(tmp_path / "y.mcfunction"))
    assert unreadable.exit_code == 1 and str(junk) in unreadable.stderr and "Traceback" not in unreadable.stderr
    assert not (tmp_path / "y.mcfunction").exists()
