"""`mcb build FILE` as a user meets it: what the content decides, usage errors, the text summary, undo by id."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
C4 = CORPUS / "v2_nucleation_c4_ai_last_played.schem"
COUNTER = CORPUS / "v2_nucleation_cutecounter.schem"  # 3 x 18 x 4, one block entity: one plan


def test_a_schematic_needs_a_target_and_schematic_options_need_a_schematic(mcb, tmp_path):
    result = mcb("build", C4)
    assert result.exit_code == 2 and "--target" in result.stderr
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps({"version": 1, "operations": []}))
    for flag in ("--skip-air", "--keep-existing", "--drop-extras", "--yes"):
        result = mcb("build", recipe, flag)
        assert result.exit_code == 2 and "schematic files" in result.stderr
    assert mcb("build", C4, "--target", "0,80,30", "--build-id", "abc").exit_code == 2
    assert mcb("build", C4, "--target", "0,80,30", "--mirror", "y", "--drop-extras").exit_code == 2
    assert mcb("build", C4, "--target", "0,80,30", "--rotation", "45", "--drop-extras").exit_code == 2


def test_build_summary_then_undo_by_build_id(mcb):
    built = mcb("build", C4, "--target", "0,80,30", "--drop-extras")
    assert built.exit_code == 0, built.stderr
    assert "14 block entities of" in built.stderr and "are not built" in built.stderr
    assert "--extras-function PATH writes them" in built.stderr
    build_id = next(line.split()[1] for line in built.stdout.splitlines() if line.startswith("build:"))
    assert "result:     applied" in built.stdout and "1 plan, 3,778 positions written" in built.stdout
    assert f"mcb build --undo --build-id {build_id}" in built.stdout
    assert "operations: 1 operation in all (3,778 positions written); undo them with" in built.stdout
    unknown = mcb("build", "--undo", "--build-id", "000000000000")
    assert unknown.exit_code == 1 and "no build 000000000000 is recorded" in unknown.stderr
    undone = mcb("build", "--undo", "--build-id", build_id, "--json")
    assert undone.exit_code == 0, undone.stderr
    assert undone.json() == {
        "build_id": build_id,
        "undone_operations": 1,
        "restored_operations": 0,
        "restored": 3778,
        "kept": [],
        "data_not_restorable": [],
        "not_recorded": [],
        "state_file": undone.json()["state_file"],
    }
    assert mcb("verify", C4, "--target", "0,80,30").exit_code == 1  # gone again


def test_the_content_decides_not_the_name(mcb, tmp_path):
    disguised = tmp_path / "c4.json"
    disguised.write_bytes(C4.read_bytes())
    result = mcb("build", disguised, "--target", "0,80,30", "--drop-extras", "--dry-run", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["dry_run"] is True and result.json()["plans"] == 1


def test_a_file_that_is_neither_recipe_nor_schematic_is_called_what_it_is_as_schem_info_calls_it(mcb, tmp_path):
    # Before: `mcb build photo.jpg` said "recipe photo.jpg is not UTF-8 text (byte 0)", whatever the file was.
    files = {
        "photo.jpg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01" + bytes(64),
        "picture.png": b"\x89PNG\r\n\x1a\n" + bytes(64),
        "bundle.zip": b"PK\x03\x04" + bytes(64),
        "noise.bin": bytes([0x9C, 0xFF, 0x01, 0x02, 0x80, 0x00, 0xC3]) * 8,
    }
    for name, data in files.items():
        path = tmp_path / name
        path.write_bytes(data)
        built = mcb("build", path, "--target", "0,64,0", "--dry-run")
        info = mcb("schem", "info", path)
        assert built.exit_code == info.exit_code == 1
        assert built.stderr.splitlines()[0] == info.stderr.splitlines()[0], name
        assert built.stderr.startswith(f"error: {path}: ") and "recipe" not in built.stderr
    assert mcb("build", tmp_path / "picture.png", "--target", "0,64,0").stderr.startswith(
        f"error: {tmp_path / 'picture.png'}: this is a PNG image, not a schematic"
    )
    text = tmp_path / "notes.txt"  # text is a recipe, and the recipe reader says what is wrong with it
    text.write_text("hello there")
    said = mcb("build", text, "--dry-run")
    assert said.exit_code == 1 and said.stderr.startswith(f"error: recipe {text} is not valid JSON")
    wide = tmp_path / "wide.json"  # UTF-16 JSON is a recipe in the wrong encoding, not a schematic
    wide.write_text('{"version": 1, "operations": []}', encoding="utf-16")
    said = mcb("build", wide, "--dry-run")
    assert said.exit_code == 1 and "not UTF-8 text" in said.stderr and "hint: save it as UTF-8" in said.stderr


def test_a_broken_or_missing_schematic_is_named_with_a_next_step(mcb, tmp_path):
    # Before: `mcb build cut.schem` and `mcb verify cut.schem` said only "error: gzip stream is truncated" (which
    # file? what now?), and a missing `x.schem` was "recipe x.schem does not exist".
    files = tmp_path / "files"
    files.mkdir()
    cut = files / "cut.schem"
    cut.write_bytes(C4.read_bytes()[:150])
    for command in ("build", "verify"):
        result = mcb(command, cut, "--target", "0,80,30", "--drop-extras" if command == "build" else "--skip-air")
        assert result.exit_code == 1 and "Traceback" not in result.stderr
        assert result.stderr.splitlines() == [
            f"error: {cut}: gzip stream is truncated",
            "hint: the file ends early: it was cut short while being saved, copied or downloaded; get it again",
        ]
    missing = mcb("build", files / "gone.schem", "--target", "0,80,30")
    assert missing.exit_code == 1
    assert missing.stderr.splitlines() == [f"error: {files / 'gone.schem'}: no such file", "hint: check the path"]
    assert [p.name for p in files.iterdir()] == ["cut.schem"]  # nothing written
    other = tmp_path / "level.nbt"  # NBT, but no format mcb reads (it said "... not a Sponge schematic", no file)
    other.write_bytes(gzip.compress(b"\x0a\x00\x00\x03\x00\x03Foo\x00\x00\x00\x01\x00"))
    refused = mcb("build", other, "--target", "0,80,30")
    assert refused.exit_code == 1
    assert refused.stderr.splitlines()[0] == f"error: {other}: this is an unknown NBT, not a schematic (root keys: Foo)"


def test_a_turned_build_of_a_file_with_a_mods_properties_builds_what_schem_rotate_writes(mcb, tmp_path):
    # Before: the green cottage's birch fences carry a mod's north_east..south_west; `mcb build F --rotation 90`
    # (and --mirror) stopped with "minecraft:birch_fence has no property 'north_east'" while `schem rotate` and
    # the unturned build drop those properties. Now the build upgrades first and turns after, as `schem rotate`.
    cottage = CORPUS / "v2_schematic4j_green-cottage.schem"
    turned = tmp_path / "c90.schem"
    assert mcb("schem", "rotate", cottage, "--degrees", "90", "-o", turned).exit_code == 0
    for flags in (("--rotation", "90"), ("--mirror", "x"), ("--rotation", "180", "--mirror", "z")):
        result = mcb("build", cottage, "--target", "0,90,30", *flags, "--drop-extras", "--dry-run", "--json")
        assert result.exit_code == 0, result.stderr
        assert result.json()["positions_to_change"] == 627
    built = mcb("build", cottage, "--target", "0,90,30", "--rotation", "90", "--drop-extras")
    assert built.exit_code == 0, built.stderr
    assert "dropped minecraft:birch_fence's properties north_east" in built.stderr
    again = mcb("build", turned, "--target", "0,90,30", "--drop-extras", "--dry-run", "--json")
    assert again.json()["positions_to_change"] == 0  # the same blocks, the same states


def test_extras_function_keeps_what_the_build_cannot_place(mcb, tmp_path):
    """A file with block entities builds without --drop-extras when --extras-function writes their content: the
    function is written first (its path checked before any write) and named in the summary."""
    chests = CORPUS / "v2_nucleation_new_chest_test.schem"  # six chests, five with something in them
    function = tmp_path / "pack" / "data" / "castle" / "function" / "chests.mcfunction"
    function.parent.mkdir(parents=True)
    built = mcb("build", chests, "--target", "0,80,30", "--extras-function", function, "--json")
    assert built.exit_code == 0, built.stderr
    data = built.json()
    assert data["result"] == "applied" and data["extras_function"]["function"] == "castle:chests"
    assert data["extras_function"]["block_entities"] == {"in_file": 6, "written": 5, "defaults_only": 1,
                                                        "left_out": []}  # fmt: skip
    commands = [line for line in function.read_text().splitlines() if line and not line.startswith("#")]
    assert len(commands) == data["extras_function"]["commands"] == 5
    assert all(line.startswith("data merge block ") for line in commands)
    assert "--drop-extras" not in built.stderr and "run it with /function castle:chests" in built.stderr
    again = tmp_path / "pack" / "data" / "castle" / "function" / "again.mcfunction"
    text = mcb("build", chests, "--target", "0,80,45", "--extras-function", again)
    assert text.exit_code == 0, text.stderr
    wrote = [line for line in text.stderr.splitlines() if line.startswith("wrote ")]
    assert wrote == [  # said once, when it is written (it was said again after the build's summary)
        f"wrote {again}: 5 commands for 5 block entities and 0 entities (run it with /function castle:again in a "
        "datapack, after the build)"
    ]
    missing = tmp_path / "missing" / "x.mcfunction"
    refused = mcb("build", chests, "--target", "0,80,60", "--extras-function", missing)
    assert refused.exit_code == 1 and mcb("context", "--json").json()["operations_total"] == 2


def test_undo_needs_no_drop_extras_and_a_second_run_meets_the_builds_lock(mcb):
    """`--undo` finds the build by its file and placement without reading the file's extras again, and a second run
    of a build under way (another terminal, another MCP session) is told that, not something about parts."""
    from mcb.batch.schematic import build_state_path
    from mcb.batch.state import exclusive_run

    built = mcb("build", C4, "--target", "0,80,30", "--drop-extras", "--json")
    assert built.exit_code == 0, built.stderr
    build_id = built.json()["build_id"]
    with exclusive_run(build_state_path(build_id), f"build {build_id}"):  # as if another run held it
        second = mcb("build", C4, "--target", "0,80,30", "--drop-extras")
    assert second.exit_code == 7 and f"another mcb run is writing build {build_id} now" in second.stderr
    undone = mcb("build", C4, "--target", "0,80,30", "--undo", "--yes", "--json")  # no --drop-extras
    assert undone.exit_code == 0, undone.stderr
    assert undone.json()["build_id"] == build_id and undone.json()["undone_operations"] == 1


def test_what_the_upgrade_changed_is_in_the_json_too(mcb):
    """A file without a DataVersion read for 26.2: the note on stderr, the report in the --json answer (dry run and
    build)."""
    old = CORPUS / "v1_schematic4j_sponge-v1.schem"
    for extra in (["--dry-run"], ["--yes"]):
        result = mcb("build", old, "--target", "0,80,30", "--drop-extras", "--json", *extra)
        assert result.exit_code == 0, result.stderr
        upgrade = result.json()["upgrade"]
        assert upgrade["release"] == "26.2" and upgrade["data_version"]["read_as"] == 2724
        assert upgrade["data_version"]["note"] in result.stderr


def test_one_block_entity_and_one_plan_are_said_in_the_singular(cli, rpc_env, monkeypatch):
    # Before: "--extras-function PATH writes them" of 1 block entity, and "resuming: 0 of 1 plans done".
    from rpc_testkit import FaultProxy

    dry = cli("build", str(COUNTER), "--target", "0,80,30", "--drop-extras", "--dry-run")
    assert dry.exit_code == 0, dry.stderr
    assert (
        f"warning: --drop-extras: 1 block entity of {COUNTER} is not built; --extras-function PATH writes it as a "
        "datapack function that puts it back"
    ) in dry.stderr
    lose = {"on": True}

    def decide(request):
        method = request["json"]["method"] if request["json"] else None
        return "drop_after_forward" if lose["on"] and method == "build_apply" else "forward"

    house = Path(__file__).resolve().parents[2] / "schematics" / "house.schem"  # 9 x 8 x 9: one tile, one plan
    with FaultProxy(rpc_env.url, decide) as proxy:
        monkeypatch.setenv("MCB_SERVER", proxy.url)
        first = cli("build", str(house), "--target", "0,80,30")
        assert first.exit_code == 6, first.stderr
        lose["on"] = False
        again = cli("build", str(house), "--target", "0,80,30")
    assert again.exit_code == 0, again.stderr
    # the earlier run sent its first plan before it knew how many there would be
    assert "resuming: 0 plans done, 1 operation of an earlier run to settle first" in again.stderr
    from mcb.commands.build_schematic import _resuming_words

    known = {"plans_done": 0, "plans": 1, "in_flight": 1}
    assert _resuming_words(known) == "resuming: 0 of 1 plan done, 1 operation of an earlier run to settle first"
    assert _resuming_words({"plans_done": 1, "plans": None, "in_flight": 0}) == "resuming: 1 plan done"
    assert _resuming_words({"plans_done": 1200, "plans": 4096, "in_flight": 0}) == "resuming: 1,200 of 4,096 plans done"


def test_a_build_id_is_the_12_hex_digits_a_build_prints(mcb):
    # Before: `--build-id ../builds/9d3c91fdeb01` was taken as a path out of the state directory, `zz` exited 1.
    for wrong in ("../builds/9d3c91fdeb01", "zz", "9d3c91fdeb01.state", "9d3c91fdeb0", "9d3c91fdeb01x", ""):
        result = mcb("build", "--undo", "--build-id", wrong)
        assert result.exit_code == 2, (wrong, result.stderr)
        assert result.stderr.splitlines()[0] == (
            f"error: --build-id {wrong} is not a build id: an id is the 12 hex digits a build printed "
            "(`build: 9d3c91fdeb01`)"
        )
    refused = mcb("build", "--undo", "--build-id", "../x", "--json")
    assert refused.exit_code == 2 and json.loads(refused.stderr)["error"]["details"] == {"field": "--build-id"}
    unknown = mcb("build", "--undo", "--build-id", "9D3C91FDEB01")  # as printed, in either case: looked up
    assert unknown.exit_code == 1 and "no build 9d3c91fdeb01 is recorded" in unknown.stderr
    both = mcb("build", C4, "--target", "0,80,30", "--undo", "--build-id", "9d3c91fdeb01")  # it undid FILE's build
    assert both.exit_code == 2 and "give FILE and its options, or --build-id, not both" in both.stderr


def _answer_on_a_terminal(args: list[str], answer: bytes) -> tuple[int, str]:
    """Run ``mcb ARGS`` with a terminal on stdin and stderr, answer its question, return (exit code, what the terminal
    showed)."""
    import os
    import pty
    import subprocess
    import sys
    import time

    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "mcb", "--no-color", *args], stdin=follower, stderr=follower,
                               stdout=subprocess.DEVNULL)  # fmt: skip
    os.close(follower)
    shown, asked, deadline = b"", False, time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the process closed the terminal
            break
        if not chunk:
            break
        shown += chunk
        if not asked and b"? [y/N]" in shown:
            os.write(leader, answer)
            asked = True
    os.close(leader)
    return process.wait(timeout=30), shown.decode().replace("\r\n", "\n")


def test_a_question_answered_no_is_not_called_an_error(mcb, tmp_path):
    # Before: "error: nothing was built (not confirmed)", as if the user had made a mistake.
    code, shown = _answer_on_a_terminal(["build", str(COUNTER), "--target", "0,80,30", "--drop-extras"], b"n\n")
    assert code == 1 and "\nnothing was built (not confirmed)\nhint: add --yes to build without asking" in shown, shown
    assert "error" not in shown
    assert mcb("context", "--json").json()["operations_total"] == 0
