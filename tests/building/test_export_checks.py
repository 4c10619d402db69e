"""`mcb export -o`'s checks and counts (issue 29): the block-entity line says the file holds none (counted here from
the file and from the source with nbtlib), a name that is no schematic format is refused as `schem convert` refuses
it, and a box outside the area or beyond the reader's cell limit is refused before anything is read or allocated."""

from __future__ import annotations

import json
import time

import nbtlib
from buildkit import AREA

CHESTS = "v2_nucleation_new_chest_test.schem"


def test_the_exported_files_block_entities_are_counted_as_what_they_are(wide_mcb, corpus, tmp_path):
    source = nbtlib.load(corpus / CHESTS)
    in_source = len(source["BlockEntities"])
    built = wide_mcb("build", corpus / CHESTS, "--target", "0,70,0", "--drop-extras", "--yes")
    assert built.exit_code == 0, built.stderr
    box = ("-2,69,-2", "4,73,9")  # the file's 7 x 5 x 12 at its paste offset -2,-1,-2 from the target
    result = wide_mcb("export", "--min", box[0], "--max", box[1], "-o", tmp_path / "chests.schem")
    assert result.exit_code == 0, result.stderr
    exported = nbtlib.load(tmp_path / "chests.schem")
    assert len(exported.get("BlockEntities", [])) == 0
    line = next(line for line in result.stdout.splitlines() if line.startswith("block entities:"))
    assert line == f"block entities: none in the file (the box's {in_source} written as block states only)"
    assert f"warning: {in_source} block entities exported as block states only" in result.stderr


def test_a_name_that_is_no_schematic_format_is_refused_as_convert_refuses_it(wide_mcb, corpus, tmp_path):
    for name in ("x.jpg", "x.png"):
        exported = wide_mcb("export", "--min", "0,60,0", "--max", "3,63,3", "-o", tmp_path / name)
        converted = wide_mcb("schem", "convert", corpus / CHESTS, "-o", tmp_path / name)
        suffix = name[1:]
        assert exported.exit_code == converted.exit_code == 2
        assert (
            exported.stderr.splitlines()[0]
            == converted.stderr.splitlines()[0]
            == (f"error: {name}: {suffix} is not a schematic format mcb writes")
        )
        assert "choose the format with --format" in exported.stderr and "with --to" in converted.stderr
        assert not (tmp_path / name).exists()
    chosen = wide_mcb("export", "--min", "0,60,0", "--max", "3,63,3", "-o", tmp_path / "x.bin", "--format", "sponge2")
    assert chosen.exit_code == 0, chosen.stderr  # asked for by name: written as asked


def test_a_box_outside_the_area_is_refused_before_anything_is_read(wide_mcb, tmp_path):
    started = time.monotonic()
    result = wide_mcb(
        "export", "--min", "-30000000,0,-30000000", "--max", "30000000,10,30000000", "-o", tmp_path / "big.schem"
    )
    assert time.monotonic() - started < 5 and "Traceback" not in result.stderr and "memory" not in result.stderr
    low, high = AREA
    assert result.exit_code == 1 and result.stderr.splitlines()[0] == (
        "error: the box -30000000,0,-30000000 .. 30000000,10,30000000 leaves the project area "
        f"{','.join(map(str, low))} .. {','.join(map(str, high))} on x and z: nothing was read"
    )
    assert not (tmp_path / "big.schem").exists()


def test_a_box_beyond_the_cell_limit_is_refused_with_its_count(wide_mcb, tmp_path):
    """The whole wide area, 384 x 320 x 384 cells, is more than a schematic mcb reads back (2^25 cells)."""
    low, high = AREA
    cells = 1
    for a, b in zip(low, high):
        cells *= b - a + 1
    assert cells > 2**25
    started = time.monotonic()
    result = wide_mcb(
        "export", "--min", ",".join(map(str, low)), "--max", ",".join(map(str, high)), "-o", tmp_path / "a.schem"
    )
    assert time.monotonic() - started < 5
    assert result.exit_code == 1 and f"holds {cells:,} cells, more than a schematic mcb reads back ({2**25:,})" in (
        result.stderr
    )


def test_dash_output_writes_the_schematic_to_stdout_and_the_summary_to_stderr(wide_mcb, tmp_path, monkeypatch):
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    result = wide_mcb("export", "--min", "0,60,0", "--max", "3,63,3", "-o", "-")
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes.startswith(b"\x1f\x8b")  # gzip: a Sponge schematic, not the text summary
    summary = dict(line.split(":", 1) for line in result.stderr.splitlines() if not line.startswith("export:"))
    assert summary["file"].strip() == "-" and summary["format"].strip() == "sponge2"
    assert list((tmp_path / "here").iterdir()) == []  # no file named '-'
    info = wide_mcb("schem", "info", "-", "--json", input=result.stdout_bytes)
    assert info.exit_code == 0 and info.json()["size"] == {"width": 4, "height": 4, "length": 4}


def test_dash_output_with_json_is_refused_as_schem_convert_refuses_it(wide_mcb, tmp_path, monkeypatch):
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    result = wide_mcb("export", "--min", "0,60,0", "--max", "3,63,3", "-o", "-", "--json")
    assert result.exit_code == 2
    error = json.loads(result.stderr)["error"]
    assert error["message"] == "-o - writes the file to stdout, where --json prints too"
    assert list((tmp_path / "here").iterdir()) == []
