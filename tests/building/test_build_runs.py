"""`mcb build FILE` end to end against a real `mcb serve`: read back cell for cell, undo, rotation, extras, the dry-run
estimate, the project area, and a batch file's schematic step."""

from __future__ import annotations

import json

import pytest
from buildkit import CORPUS_DIR, file_cells, world_at

TEXAS = CORPUS_DIR / "v3_nucleation_uss-texas.schem"
HOUSE = CORPUS_DIR / "v2_schematic4j_interieur-exterieur.schem"
C4 = CORPUS_DIR / "v2_nucleation_c4_ai_last_played.schem"


def box_of(cells):
    xs, ys, zs = zip(*cells)
    return (min(xs), min(ys), min(zs)), (max(xs), max(ys), max(zs))


def operations(client) -> int:
    return client.project_context().operations_total or 0


@pytest.mark.slow
def test_texas_is_built_cell_for_cell_in_14_plans_and_undone_as_one(wide_mcb, wide_client):
    result = wide_mcb("build", TEXAS, "--target", "-87,64,-15", "--json")
    assert result.exit_code == 0, result.stderr
    report = result.json()
    assert report["result"] == "applied" and report["plans"] == 14 and report["written"] == 54273
    want = file_cells(TEXAS, (-87, 64, -15))
    assert world_at(wide_client, want) == want
    again = wide_mcb("build", TEXAS, "--target", "-87,64,-15", "--json")
    assert again.exit_code == 0 and again.json()["result"] == "nothing_to_change"
    undo = wide_mcb("build", TEXAS, "--target", "-87,64,-15", "--undo", "--json")
    assert undo.exit_code == 0, undo.stderr
    assert undo.json()["undone_operations"] == 14 and undo.json()["restored"] == 54273
    assert set(world_at(wide_client, want).values()) == {"minecraft:air"}
    assert wide_mcb("build", "--undo", "--build-id", report["build_id"], "--json").json()["undone_operations"] == 0


def test_the_dry_run_estimates_and_makes_no_operation(wide_mcb, wide_client):
    result = wide_mcb("build", TEXAS, "--target", "-87,64,-15", "--dry-run", "--json")
    assert result.exit_code == 0, result.stderr
    estimate = result.json()
    assert estimate["plans"] == 14 and estimate["positions_to_change"] == 54273 and estimate["replaces_blocks"] == 0
    assert 80 < estimate["seconds_at_20_tps"] < 95  # 13 x 6.45 s + 1 x 1.6 s
    assert 19e6 < estimate["journal_bytes"]["low"] < estimate["journal_bytes"]["high"] < 27e6
    assert operations(wide_client) == 0
    text = wide_mcb("build", TEXAS, "--target", "-87,64,-18", "--dry-run")
    assert "54,273 positions, 0 of them replace a block" in text.stdout and "14 (at most 4,096" in text.stdout


def test_the_dry_run_names_the_blocks_a_paste_would_destroy(wide_mcb, wide_client):
    wide_client.call(
        "test_set_blocks",
        {"blocks": [{"pos": {"x": x, "y": 64, "z": 0}, "state": "minecraft:gold_block"} for x in range(-5, 5)]},
        admin=True,
        scoped=False,
    )
    estimate = wide_mcb("build", TEXAS, "--target", "-87,64,-15", "--dry-run", "--json").json()
    want = file_cells(TEXAS, (-87, 64, -15))
    kept = sum(1 for x in range(-5, 5) if want[(x, 64, 0)] == "minecraft:gold_block")
    assert estimate["replaced"] == ({"minecraft:gold_block": 10 - kept} if kept < 10 else {})


def test_rotation_90_equals_schem_rotate_then_build(wide_mcb, wide_client, tmp_path):
    rotated = tmp_path / "c4_90.schem"
    assert wide_mcb("schem", "rotate", C4, "--degrees", "90", "-o", rotated).exit_code == 0
    first = wide_mcb("build", C4, "--target", "-100,64,-100", "--rotation", "90", "--drop-extras", "--json")
    second = wide_mcb("build", rotated, "--target", "60,64,60", "--drop-extras", "--json")
    assert first.exit_code == 0 and second.exit_code == 0, first.stderr + second.stderr
    want = file_cells(C4, (-100, 64, -100), rotation=90)
    assert world_at(wide_client, want) == want
    b = world_at(wide_client, {(x + 160, y, z + 160): s for (x, y, z), s in want.items()})
    assert {(x - 160, y, z - 160): s for (x, y, z), s in b.items()} == want


def test_a_file_with_block_entities_is_refused_unless_drop_extras(wide_mcb, wide_client):
    refused = wide_mcb("build", HOUSE, "--target", "-64,64,64")
    assert refused.exit_code == 1
    assert "931 block entities" in refused.stderr and "--drop-extras" in refused.stderr
    assert operations(wide_client) == 0
    built = wide_mcb("build", HOUSE, "--target", "-64,64,64", "--drop-extras", "--json")
    assert built.exit_code == 0, built.stderr
    want = file_cells(HOUSE, (-64, 64, 64))
    assert world_at(wide_client, want) == want


def test_a_build_that_leaves_the_area_is_refused_before_any_write(wide_mcb, wide_client):
    result = wide_mcb("build", TEXAS, "--target", "100,64,180")
    assert result.exit_code == 1
    assert "sticks out 83 blocks east (+x), 19 blocks south (+z)" in result.stderr
    assert operations(wide_client) == 0


def test_a_batch_file_builds_a_schematic_step_and_undoes_it_as_one(wide_mcb, wide_client, tmp_path):
    batch = tmp_path / "ship.batch.json"
    batch.write_text(
        json.dumps(
            {
                "version": 1,
                "steps": [
                    {"name": "c4", "kind": "schematic", "file": str(C4), "target": [0, 100, 0], "drop_extras": True},
                    {"name": "no-c4", "kind": "undo", "step": "c4"},
                ],
            }
        )
    )
    result = wide_mcb("batch", batch, "--json")
    assert result.exit_code == 0, result.stderr
    steps = result.json()["steps"]
    assert [s["result"] for s in steps] == ["applied", "applied"]
    want = file_cells(C4, (0, 100, 0))
    assert steps[0]["plans"] == 1, steps
    assert steps[0]["written"] == sum(s != "minecraft:air" for s in want.values())
    assert steps[1]["plans"] == 1
    assert set(world_at(wide_client, want).values()) == {"minecraft:air"}
    rerun = wide_mcb("batch", batch, "--json")
    assert [s["result"] for s in rerun.json()["steps"]] == ["already_done", "already_done"]
    assert operations(wide_client) == 2
    table = wide_mcb("batch", batch).stdout  # a schematic step's operations and writes in the summary table
    assert "1 operation " in table and f"{steps[0]['written']:,} positions" in table


def _corpus(small: bool) -> list:
    from mcb.schematics.formats import read_any

    files = []
    for path in sorted(CORPUS_DIR.iterdir()):
        try:
            schem = read_any(path)
        except Exception:  # not a schematic, or one the readers refuse (a test of its own elsewhere)
            continue
        if schem.volume <= 4_000_000 and (schem.volume <= 80_000) == small:
            files.append(path)
    return files


SMALL, LARGE = _corpus(True), [p for p in _corpus(False) if p not in (TEXAS, HOUSE)]


@pytest.mark.parametrize(
    "path", SMALL + [pytest.param(p, marks=pytest.mark.slow) for p in LARGE], ids=[p.name for p in SMALL + LARGE]
)
def test_every_corpus_file_builds_and_reads_back_equal(wide_mcb, wide_client, path):
    # The small files go into the ground (y 40, the flat ground's top is 63), so their air is built too; the large
    # ones stand on it, where their air is the world's already: the same cell-for-cell check, a third of the writes.
    target = (0, 40, 0) if path in SMALL else (0, 64, 0)
    where = ",".join(map(str, target))
    result = wide_mcb("build", path, "--target", where, "--drop-extras", "--json")
    assert result.exit_code == 0, result.stderr
    want = file_cells(path, target)
    assert world_at(wide_client, want) == want
    verify = wide_mcb("verify", path, "--target", where, "--json")
    assert verify.exit_code == 0 and verify.json()["files"][0]["facts"]["differences"] == 0
