"""`mcb schem rotate|mirror|render` end to end on corpus files: what a user sees and what lands on disk."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mcb.blocks.registry import load_registry
from mcb.blocks.transform import rotate_state
from mcb.schematics.formats.sponge import read_schematic

CHESTS = "v2_nucleation_new_chest_test.schem"  # v2 with double chests and block entities
TEXAS = "v3_nucleation_uss-texas.schem"  # v3
FENCE_QUIRK = "v2_schematic4j_green-cottage.schem"  # non-vanilla fence property north_east
SAMPLES = Path(__file__).resolve().parents[2] / "schematics"


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def placement(schem, degrees: int) -> dict:
    """Protocol §6.5 at target (0, 0, 0): d = p + Offset, (dx, dz) <- (-dz, dx) per 90°."""
    out = {}
    for y in range(schem.height):
        for z in range(schem.length):
            for x in range(schem.width):
                dx, dy, dz = x + schem.offset[0], y + schem.offset[1], z + schem.offset[2]
                for _ in range(degrees // 90):
                    dx, dz = -dz, dx
                out[(dx, dy, dz)] = schem.state_at(x, y, z)
    return out


def test_rotate_writes_a_file_that_imports_like_the_original_at_that_rotation(cli, corpus, tmp_path):
    source = corpus / CHESTS
    before = digest(source)
    out = tmp_path / "r90.schem"
    result = cli("schem", "rotate", str(source), "--degrees", "90", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert "rotated 90°" in result.stdout and str(out) in result.stdout
    assert digest(source) == before  # input untouched

    original, rotated = read_schematic(source), read_schematic(out)
    assert rotated.source.version == 2  # input's version kept
    assert (rotated.width, rotated.height, rotated.length) == (original.length, original.height, original.width)
    registry = load_registry(original.data_version)
    expected = {
        pos: registry.canonicalize(rotate_state(state, 1, registry=registry))
        for pos, state in placement(original, 90).items()
    }
    got = {pos: registry.canonicalize(state) for pos, state in placement(rotated, 0).items()}
    assert got == expected
    # Block entities sit on the same (turned) blocks: local (x, y, z) -> (L - 1 - z, y, x).
    assert len(rotated.block_entities) == len(original.block_entities) > 0
    moved = {(original.length - 1 - z, y, x): be.id for be in original.block_entities for x, y, z in [be.pos]}
    assert {be.pos: be.id for be in rotated.block_entities} == moved
    for be in original.block_entities:
        x, y, z = be.pos
        turned = rotate_state(original.state_at(x, y, z), 1, registry=registry)
        assert registry.canonicalize(rotated.state_at(original.length - 1 - z, y, x)) == registry.canonicalize(turned)


def test_four_quarter_turns_through_the_cli_give_the_original_cells(cli, corpus, tmp_path):
    source = corpus / CHESTS
    current = source
    for step in range(4):
        out = tmp_path / f"step{step}.schem"
        assert cli("schem", "rotate", str(current), "-d", "90", "-o", str(out)).exit_code == 0
        current = out
    original, back = read_schematic(source), read_schematic(current)
    registry = load_registry(original.data_version)
    assert back.size == original.size and back.offset == original.offset
    assert placement(back, 0).keys() == placement(original, 0).keys()
    assert all(
        registry.canonicalize(a) == registry.canonicalize(b)
        for a, b in zip(placement(back, 0).values(), placement(original, 0).values())
    )
    assert sorted(be.pos for be in back.block_entities) == sorted(be.pos for be in original.block_entities)


def test_a_mods_properties_are_dropped_and_said(cli, corpus, tmp_path):
    out = tmp_path / "cottage.schem"
    quirk = cli("schem", "rotate", str(corpus / FENCE_QUIRK), "-d", "90", "-o", str(out))
    assert quirk.exit_code == 0, quirk.stderr
    assert (
        "dropped minecraft:birch_fence's properties north_east, north_west, south_east, south_west (not in "
        "Minecraft 1.20.1): 18 cells"
    ) in quirk.stderr
    assert all("north_east" not in state for state in read_schematic(out).palette)


def test_other_formats_turn_and_stay_in_their_format(cli, corpus, tmp_path):
    out = tmp_path / "xor"
    turned = cli(
        "schem",
        "mirror",
        str(corpus / "notsponge_nucleation_xor_is_litematic.schem"),
        "-a",
        "x",
        "-o",
        str(out),
        "--json",
    )
    assert turned.exit_code == 0, turned.stderr
    assert json.loads(turned.stdout)["format"] == "litematic"
    from mcb.schematics.formats import read_any

    assert read_any(out).source.format == "litematic"


def test_mirror_json_and_format_switch(cli, corpus, tmp_path):
    out = tmp_path / "m.schem"
    result = cli(
        "schem",
        "mirror",
        str(corpus / TEXAS),
        "--axis",
        "x",
        "--rules",
        "geometric",
        "--format",
        "v2",
        "-o",
        str(out),
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["operation"] == "mirror" and data["axis"] == "x" and data["format"] == "sponge2"
    original = read_schematic(corpus / TEXAS)
    mirrored = read_schematic(out)
    assert mirrored.source.version == 2 and original.source.version == 3
    assert data["size"] == [original.width, original.height, original.length]
    assert data["offset"] == [-(original.offset[0] + original.width - 1), original.offset[1], original.offset[2]]
    assert list(mirrored.offset) == data["offset"]


def test_in_place(cli, corpus, tmp_path):
    copy = tmp_path / "copy.schem"
    copy.write_bytes((corpus / CHESTS).read_bytes())
    before = read_schematic(copy)
    result = cli("schem", "rotate", str(copy), "-d", "180", "--in-place")
    assert result.exit_code == 0, result.stderr
    after = read_schematic(copy)
    assert after.offset == (
        -(before.offset[0] + before.width - 1),
        before.offset[1],
        -(before.offset[2] + before.length - 1),
    )
    assert [p.name for p in tmp_path.iterdir()] == ["copy.schem"]  # no temp files left


def test_an_edit_in_place_never_changes_the_files_format(cli, tmp_path):

    cabin = tmp_path / "cabin.schematic"
    shutil.copy(SAMPLES / "cabin.schematic", cabin)
    before = cabin.read_bytes()
    for extra in ([], ["--to", "sponge3"]):
        result = cli("schem", "rotate", str(cabin), "-d", "90", "--in-place", *extra)
        assert result.exit_code == 2
        assert "--in-place cannot rewrite a legacy .schematic file" in result.stderr
        assert "-o NAME.schem" in result.stderr
    assert cabin.read_bytes() == before
    house = tmp_path / "house.schem"
    shutil.copy(SAMPLES / "house.schem", house)
    refused = cli("schem", "mirror", str(house), "-a", "x", "--in-place", "--to", "litematic")
    assert refused.exit_code == 2
    assert "--in-place keeps the file's format (Sponge v2); --to litematic would put Litematica data" in refused.stderr
    kept = cli("schem", "rotate", str(house), "-d", "90", "--in-place", "--to", "v2", "--json")
    assert kept.exit_code == 0 and '"format": "sponge2"' in kept.stdout


def test_an_in_place_edit_that_would_lose_data_is_refused_and_the_file_kept(cli, tmp_path):
    tower = tmp_path / "watchtower.litematic"
    shutil.copy(SAMPLES / "watchtower.litematic", tower)
    before = tower.read_bytes()
    refused = cli("schem", "rotate", str(tower), "-d", "90", "--in-place")
    assert (
        refused.exit_code == 1 and "--in-place would lose data: 165 cells the file leaves unchanged" in refused.stderr
    )
    assert tower.read_bytes() == before
    assert cli("schem", "rotate", str(tower), "-d", "90", "-o", str(tmp_path / "t.nbt")).exit_code == 0


@pytest.mark.parametrize(
    "args,code,message",
    [
        (["-d", "45", "-o", "x.schem"], 2, "90, 180 or 270"),
        (["-d", "90"], 2, "missing --output"),
        (["-d", "90", "-o", "x.schem", "--in-place"], 2, "not both"),
        (["-d", "90", "-o", "x.schem", "--rules", "worldedit"], 2, "unknown rule set"),
        (["-d", "90", "-o", "x.schem", "--format", "v9"], 2, "unknown schematic format"),
    ],
)
def test_usage_errors(cli, corpus, tmp_path, monkeypatch, args, code, message):
    monkeypatch.chdir(tmp_path)
    result = cli("schem", "rotate", str(corpus / CHESTS), *args)
    assert result.exit_code == code
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "x.schem").exists()


def test_input_errors_leave_no_output(cli, corpus, tmp_path):
    out = tmp_path / "x.schem"
    missing = cli("schem", "rotate", str(tmp_path / "nope.schem"), "-d", "90", "-o", str(out))
    assert missing.exit_code == 1 and "nope.schem: no such file" in missing.stderr  # as validate and info say
    fifo = tmp_path / "pipe.schem"
    os.mkfifo(fifo)
    piped = cli("schem", "rotate", str(fifo), "-d", "90", "-o", str(out))
    assert piped.exit_code == 1 and "pipe.schem: not a regular file" in piped.stderr
    assert not out.exists()
    bad_axis = cli("schem", "mirror", str(corpus / CHESTS), "--axis", "y", "-o", str(out))
    assert bad_axis.exit_code == 2


def test_render_command(cli, corpus, tmp_path):
    out = tmp_path / "house.png"
    result = cli(
        "schem",
        "render",
        str(corpus / "v2_prismarine_smallhouse1.schem"),
        "-o",
        str(out),
        "--view",
        "top",
        "--scale",
        "4",
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    schem = read_schematic(corpus / "v2_prismarine_smallhouse1.schem")
    with Image.open(out) as image:
        assert image.format == "PNG"
        assert image.size == (schem.width * 4, schem.length * 4) == (data["width"], data["height"])
        pixels = np.asarray(image.convert("RGB")).reshape(-1, 3)
        assert len({tuple(p) for p in pixels}) > 10
    both = cli("schem", "render", str(corpus / "v2_prismarine_smallhouse1.schem"), "-o", str(tmp_path / "b.png"))
    assert both.exit_code == 0 and "top and iso views" in both.stdout
    bad = cli("schem", "render", str(corpus / CHESTS), "-o", str(tmp_path / "c.png"), "--view", "side")
    assert bad.exit_code == 2


def test_vanilla_mirror_warns_about_geometrically_wrong_states(cli, corpus, tmp_path):
    """The chest file holds double chests: vanilla mirror keeps their type, which splits them (spec §C.3)."""
    out = tmp_path / "m.schem"
    vanilla = cli("schem", "mirror", str(corpus / CHESTS), "-a", "x", "-o", str(out))
    assert vanilla.exit_code == 0
    assert "geometrically wrong" in vanilla.stderr and "type=left" in vanilla.stderr
    data = json.loads(
        cli("schem", "mirror", str(corpus / CHESTS), "-a", "x", "-o", str(out), "--rules", "geometric", "--json").stdout
    )
    assert data["other_rules"] == "vanilla"
    assert any("chest" in state and "type=left" in state for state in data["other_rules_differ"])
    rotate = cli("schem", "rotate", str(corpus / CHESTS), "-d", "90", "-o", str(out))
    assert "geometrically wrong" not in rotate.stderr  # no chorus plant or fire in this file
