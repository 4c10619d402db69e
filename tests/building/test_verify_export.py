"""`mcb verify` and `mcb export -o` against a real `mcb serve`: read-only comparisons and any-size exports."""

from __future__ import annotations

import numpy as np
import pytest
from buildkit import CORPUS_DIR, file_cells

HOUSE = CORPUS_DIR / "v2_schematic4j_interieur-exterieur.schem"
C4 = CORPUS_DIR / "v2_nucleation_c4_ai_last_played.schem"


def set_blocks(client, *blocks):
    client.call(
        "test_set_blocks",
        {"blocks": [{"pos": {"x": x, "y": y, "z": z}, "state": s} for (x, y, z), s in blocks]},
        admin=True,
        scoped=False,
    )


def test_verify_after_a_build_then_after_one_hand_edit(wide_mcb, wide_client):
    assert wide_mcb("build", C4, "--target", "0,100,0", "--drop-extras").exit_code == 0
    operations = wide_client.project_context().operations_total
    clean = wide_mcb("verify", C4, "--target", "0,100,0", "--json")
    assert clean.exit_code == 0, clean.stderr
    facts = clean.json()["files"][0]["facts"]
    assert facts["differences"] == 0 and facts["compared"] == 52 * 34 * 39
    want = file_cells(C4, (0, 100, 0))
    block = next(p for p, s in sorted(want.items()) if s != "minecraft:air" and "[" not in s)
    air = next(p for p, s in sorted(want.items()) if s == "minecraft:air")
    set_blocks(wide_client, (block, "minecraft:gold_block"))
    changed = wide_mcb("verify", C4, "--target", "0,100,0", "--json")
    assert changed.exit_code == 1
    facts = changed.json()["files"][0]["facts"]
    assert facts["differences"] == 1 and facts["wrong_block"] == 1
    assert facts["first"]["wrong_block"] == [
        {"pos": dict(zip("xyz", block)), "want": want[block], "have": "minecraft:gold_block"}
    ]
    set_blocks(wide_client, (block, want[block]), (air, "minecraft:dirt"))
    text = wide_mcb("verify", C4, "--target", "0,100,0")
    assert text.exit_code == 1
    assert (
        f"1 position holds a block where the file has air: {','.join(map(str, air))} has minecraft:dirt" in text.stdout
    )
    assert "differs from" in text.stderr and "at 1 position of 68,952 compared" in text.stderr
    assert wide_mcb("verify", C4, "--target", "0,100,0", "--ignore", "dirt").exit_code == 0
    junit = wide_mcb("verify", C4, "--target", "0,100,0", "--format", "junit")
    assert junit.exit_code == 1 and 'name="verify.extra"' in junit.stdout
    assert wide_client.project_context().operations_total == operations  # verify never writes


def test_verify_tells_missing_from_wrong_state(wide_mcb, wide_client):
    want = file_cells(C4, (0, 100, 0))
    stairs = next(p for p, s in sorted(want.items()) if "facing=" in s)
    other = (
        want[stairs].replace("facing=north", "facing=south")
        if "facing=north" in want[stairs]
        else want[stairs].replace(
            "facing=" + want[stairs].split("facing=")[1].split(",")[0].rstrip("]"), "facing=north"
        )
    )
    set_blocks(wide_client, (stairs, other))
    facts = wide_mcb("verify", C4, "--target", "0,100,0", "--json").json()["files"][0]["facts"]
    assert facts["wrong_state"] == 1
    assert facts["missing"] == sum(s != "minecraft:air" for s in want.values()) - 1


@pytest.mark.slow
def test_export_of_a_128x18x128_region_round_trips(wide_mcb, wide_client, tmp_path):
    from mcb.schematics.formats import read_any

    assert wide_mcb("build", HOUSE, "--target", "-64,64,64", "--drop-extras").exit_code == 0
    for fmt, name in (("sponge2", "house.schem"), ("litematic", "house.litematic")):
        out = tmp_path / name
        result = wide_mcb("export", "--min", "-64,64,-64", "--max", "63,81,63", "-o", out, "--format", fmt, "--json")
        assert result.exit_code == 0, result.stderr
        assert result.json()["size"] == {"width": 128, "height": 18, "length": 128}
        assert "block entities exported as block states only" in result.stderr
        schem = read_any(out)
        got = np.array(schem.palette, dtype=object)[schem.blocks]
        want = file_cells(HOUSE, (-64, 64, 64))
        expected = np.empty(got.shape, dtype=object)
        for (x, y, z), state in want.items():
            expected[y - 64, z + 64, x + 64] = state
        assert (got == expected).all()
    # and it builds back: another place, the same blocks
    assert wide_mcb("build", tmp_path / "house.schem", "--target", "-64,100,-64").exit_code == 0
    assert wide_mcb("verify", tmp_path / "house.schem", "--target", "-64,100,-64").exit_code == 0
    before = wide_client.project_context().operations_total
    assert wide_mcb("export", "--min", "5,64,5", "--max", "4,64,5", "-o", tmp_path / "x.schem").exit_code == 2
    assert wide_client.project_context().operations_total == before


def test_export_writes_the_format_its_file_name_says(wide_mcb, tmp_path):
    # Before: `mcb export ... -o tower.litematic` (no --format) wrote a Sponge v2 file named .litematic, which
    # Litematica cannot open; `schem convert -o tower.litematic` already went by the name.
    for name, fmt, shown in (
        ("t.litematic", "litematic", "Litematica"),
        ("t.nbt", "structure", "structure .nbt"),
        ("t.schem", "sponge2", "Sponge v2"),
    ):
        result = wide_mcb("export", "--min", "0,60,0", "--max", "3,63,3", "-o", tmp_path / name)
        assert result.exit_code == 0, result.stderr
        assert f"format:         {fmt}" in result.stdout
        assert f"format:         {shown}" in wide_mcb("schem", "info", tmp_path / name).stdout
    chosen = wide_mcb("export", "--min", "0,60,0", "--max", "3,63,3", "-o", tmp_path / "u.litematic", "-f", "sponge3")
    assert chosen.exit_code == 0 and "format:         sponge3" in chosen.stdout
    legacy = wide_mcb("export", "--min", "0,60,0", "--max", "3,63,3", "-o", tmp_path / "old.schematic")
    assert legacy.exit_code == 2 and legacy.stderr.splitlines() == [
        "error: mcb does not write legacy .schematic files (Minecraft 1.12 and older)",
        "hint: write .schem (Sponge), .litematic or .nbt (structure), or choose with --format",
    ]
    assert not (tmp_path / "old.schematic").exists()


def test_export_of_one_cell_says_cell_in_the_singular(wide_mcb, tmp_path):
    one = wide_mcb("export", "--min", "0,60,0", "--max", "0,60,0", "-o", tmp_path / "one.schem")
    assert one.exit_code == 0, one.stderr
    assert "export: 1 of 1 cell read (100%)" in one.stderr  # before: "1 of 1 cells read"
    two = wide_mcb("export", "--min", "0,60,0", "--max", "1,60,0", "-o", tmp_path / "two.schem")
    assert "export: 2 of 2 cells read (100%)" in two.stderr
