"""A build that cannot fit says why (issue 29, "Hints"): larger than the project area (no target helps; a local
`mcb serve` takes --region), below the world's floor or above its top (no area helps), or sticking out (another
target helps). The sizes and distances are computed here from the file (nbtlib) and the area."""

from __future__ import annotations

import nbtlib
import pytest

CHESTS = "v2_nucleation_new_chest_test.schem"  # 7 x 5 x 12, paste offset -2,-1,-2
AREA = ((-64, 0, -64), (64, 128, 64))  # a new `mcb serve`'s project area


@pytest.fixture
def build(cli, live_server, monkeypatch):
    monkeypatch.setenv("MCB_SERVER", live_server.url)
    monkeypatch.setenv("MCB_AGENT_TOKEN", live_server.agent_token)
    monkeypatch.setenv("MCB_PLAYER_ID", "console")

    def run(file, target: str):
        result = cli("build", str(file), "--target", target, "--dry-run", "--drop-extras")
        assert result.exit_code == 1 and "Traceback" not in result.stderr, result.stderr
        error, hint = result.stderr.splitlines()[:2]
        return error, hint

    return run


def test_a_build_larger_than_the_area_says_so_and_names_serves_region(build, corpus):
    root = nbtlib.load(corpus / "v3_nucleation_uss-texas.schem")["Schematic"]
    size = [int(root[k]) for k in ("Width", "Height", "Length")]
    room = [b - a + 1 for a, b in zip(*AREA)]
    error, hint = build(corpus / "v3_nucleation_uss-texas.schem", "0,64,0")
    larger = " and ".join(axis for axis, s, r in zip("xyz", size, room) if s > r)
    assert error == (
        f"error: the build is {size[0]:,} x {size[1]:,} x {size[2]:,} blocks (W x H x L), larger than the project "
        f"area {room[0]:,} x {room[1]:,} x {room[2]:,} on {larger}: no --target puts it inside; nothing was written"
    )
    # the region that holds it where it was asked for: the area grown to the build's far corner (offset 0,0,0)
    high = [max(h, t + s - 1) for h, t, s in zip(AREA[1], (0, 64, 0), size)]
    assert f"`mcb serve --region -64,0,-64,{high[0]},{high[1]},{high[2]}`" in hint and "/ai area" in hint


@pytest.mark.parametrize("y", [-100, 500])
def test_a_target_below_the_floor_or_above_the_top_says_that(build, corpus, y):
    height = int(nbtlib.load(corpus / CHESTS)["Height"])
    bottom = y - 1  # the paste offset's y is -1
    top = bottom + height - 1
    error, hint = build(corpus / CHESTS, f"0,{y},0")
    if y < 0:
        assert f"reaches y={bottom}, below the world's floor (y=-64): no project area holds it there" in error
        assert hint == f"hint: raise --target's y by at least {AREA[0][1] - bottom}, into the project area (y 0 .. 128)"
    else:
        assert f"reaches y={top}, above the world's top (y=319): no project area holds it there" in error
        assert hint == f"hint: lower --target's y by at least {top - AREA[1][1]}, into the project area (y 0 .. 128)"
    assert "choose another --target" not in hint


def test_a_build_that_sticks_out_names_the_sides(build, corpus):
    error, hint = build(corpus / CHESTS, "0,-2,0")
    assert error.endswith("it sticks out 3 blocks down (-y); nothing was written")  # y -3 .. 1 against 0
    assert (
        hint == "hint: choose another --target, or ask the owner to enlarge the area (/ai area; `mcb serve --region`)"
    )
