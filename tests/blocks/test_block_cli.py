"""`mcb block check` / `mcb block describe` as a user sees them: stdout, stderr, exit codes and --json shape."""

from __future__ import annotations

import json


def test_check_prints_canonical_form(cli):
    result = cli("block", "check", "oak_stairs[facing=east]")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]\n"


def test_check_bad_value_exits_1_and_names_allowed_values(cli):
    result = cli("block", "check", "minecraft:oak_stairs[facing=up]")
    assert result.exit_code == 1
    assert "north, south, west, east" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_check_suggests_close_block(cli):
    result = cli("block", "check", "oak_stair")
    assert result.exit_code == 1
    assert "did you mean minecraft:oak_stairs" in result.stderr


def test_check_json_shape(cli):
    result = cli("block", "check", "stone", "oak_stair", "oak_stairs[facing=up]", "oak_log[", "--json")
    assert result.exit_code == 1
    items = json.loads(result.stdout)
    assert [item["input"] for item in items] == ["stone", "oak_stair", "oak_stairs[facing=up]", "oak_log["]
    assert items[0] == {"input": "stone", "ok": True, "canonical": "minecraft:stone", "error": None}
    codes = [item["error"]["code"] for item in items[1:]]
    assert codes == ["block.unknown", "block.value.invalid", "block.syntax"]
    for item in items[1:]:
        assert item["ok"] is False and item["canonical"] is None
        assert set(item["error"]) == {"code", "message", "hint"} and item["error"]["hint"]


def test_check_all_valid_json_exit_0(cli):
    result = cli("block", "check", "stone", "minecraft:chest", "--json")
    assert result.exit_code == 0
    assert [item["canonical"] for item in json.loads(result.stdout)] == [
        "minecraft:stone",
        "minecraft:chest[facing=north,type=single,waterlogged=false]",
    ]


def test_check_reads_stdin(cli):
    result = cli("block", "check", "-", input="stone\n\noak_log\n")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["minecraft:stone", "minecraft:oak_log[axis=y]"]


def test_check_stdin_line_that_is_not_utf8(cli):
    # A UTF-8 locale reads stdin strictly; one undecodable byte must be one invalid state, not a traceback.
    result = cli("block", "check", "-", input=b"minecraft:stone\nminecraft:stone\xff\n")
    assert "Traceback" not in result.stderr
    assert result.exit_code == 1
    assert "minecraft:stone" in result.stdout
    assert "1 of 2 block states invalid" in result.stderr


def test_check_mc_version(cli):
    assert cli("block", "check", "chain", "--mc-version", "1.21.8").exit_code == 0
    newer = cli("block", "check", "chain", "--mc-version", "1.21.9")
    assert newer.exit_code == 1 and "iron_chain" in newer.stderr
    assert cli("block", "check", "potent_sulfur", "--mc-version", "4903").exit_code == 0
    assert cli("block", "check", "potent_sulfur", "--mc-version", "26.1").exit_code == 1


def test_unknown_mc_version_is_usage_error(cli):
    result = cli("block", "check", "stone", "--mc-version", "banana")
    assert result.exit_code == 2
    assert "banana" in result.stderr and "Traceback" not in result.stderr


def test_mc_version_from_environment(cli):
    result = cli("block", "check", "chain", env={"MCB_MC_VERSION": "1.21.9"})
    assert result.exit_code == 1


def test_recipe_flag_requires_prefix(cli):
    assert cli("block", "check", "--recipe", "minecraft:stone").exit_code == 0
    result = cli("block", "check", "--recipe", "stone")
    assert result.exit_code == 1 and "minecraft:" in result.stderr


def test_describe_human(cli):
    result = cli("block", "describe", "oak_stairs")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "minecraft:oak_stairs[facing=north,half=bottom,shape=straight,waterlogged=false]" in out
    assert "north, south, west, east" in out and "DataVersion 4903" in out


def test_describe_json(cli):
    result = cli("block", "describe", "minecraft:copper_door", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["id"] == "minecraft:copper_door"
    assert data["default_state"] == "minecraft:copper_door[facing=north,half=lower,hinge=left,open=false,powered=false]"
    assert list(data["properties"]) == ["facing", "half", "hinge", "open", "powered"]
    assert data["properties"]["half"] == ["upper", "lower"]
    assert data["defaults"]["hinge"] == "left"
    assert data["behavior"] == ["multi_block", "half_property"]
    assert (data["release"], data["data_version"]) == ("26.2", 4903)


def test_describe_block_without_properties(cli):
    data = json.loads(cli("block", "describe", "stone", "--json").stdout)
    assert data["properties"] == {} and data["default_state"] == "minecraft:stone"


def test_describe_errors(cli):
    unknown = cli("block", "describe", "oak_stair")
    assert unknown.exit_code == 1 and "oak_stairs" in unknown.stderr
    with_props = cli("block", "describe", "stone[a=b]")
    assert with_props.exit_code == 1 and "without properties" in with_props.stderr
    old = cli("block", "describe", "stone", "--mc-version", "1.12.2")
    assert old.exit_code == 2
