"""`schem_materials` over MCP: the same list `mcb materials --json` prints, paginated; with a target, the world of a
live `mcb serve` read through `mcb mcp` on stdio (no operation); a target outside the area refused naming it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from mcpkit import refusal_of
from test_offline_tools import call

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
HOUSE = CORPUS / "v2_schematic4j_interieur-exterieur.schem"
GATE = "v2_nucleation_and.schem"


def test_offline_the_list_is_the_cli_one_paginated(cli):
    expected = json.loads(cli("materials", str(HOUSE), "--json").stdout)
    first = call("schem_materials", {"path": str(HOUSE), "limit": 50}).data
    rest = call("schem_materials", {"path": str(HOUSE), "offset": 50, "limit": 2000}).data
    assert first["items"] + rest["items"] == expected["items"]
    assert first["total_items"] == expected["kinds"] == 352 and first["has_more"] and not rest["has_more"]
    assert first["next_offset"] == 50 and first["items_total"] == expected["items_total"] == 36_385
    assert first["world"] is None and first["target"] is None


def test_with_a_target_it_reads_the_live_world_over_stdio(mcp_process, server_env, live_server, tmp_path):
    from mcb.client import McbClient

    shutil.copy(CORPUS / GATE, tmp_path / GATE)
    mcp = mcp_process(env=server_env, cwd=tmp_path)
    mcp.initialize()
    offline = mcp.call("schem_materials", {"path": GATE})["result"]["structuredContent"]
    placed = mcp.call("schem_materials", {"path": GATE, "target": {"x": 0, "y": 100, "z": 0}})["result"]
    assert placed["isError"] is False, placed
    data = placed["structuredContent"]
    world = data["world"]
    # Nothing of it stands at y=100 over the build site: every item is still to place, nothing is in the way.
    assert world["compared"] == data["cells"] and world["in_place"] == 0 and world["in_the_way"] == []
    assert world["to_place"] == offline["items_total"] == data["items_total"]
    assert all(row["needed"] == row["count"] and row["in_place"] == 0 for row in data["items"])
    client = McbClient(live_server.url, agent_token=live_server.agent_token, player_id="console")
    assert client.project_context().operations_total == 0

    # The box is the one schem_build's dry run names for the same placement, in the same shape.
    estimate = mcp.call("schem_build", {"path": GATE, "target": {"x": 0, "y": 100, "z": 0}, "dry_run": True})
    assert data["box"] == estimate["result"]["structuredContent"]["box"] and set(data["box"]) == {"min", "max"}

    outside = mcp.call("schem_materials", {"path": GATE, "target": {"x": 5000, "y": 100, "z": 0}})["result"]
    assert outside["isError"] is True
    error = refusal_of(outside["structuredContent"]["error"])
    assert (error["code"], error["rule"], error["field"]) == ("invalid_input", "out_of_bounds", "target")
    assert error["next_call"]["tool"] == "project_context"  # as the server's own out_of_bounds carries it
    assert (
        error["message"].startswith("nothing was read: the file's box ")
        and "is outside the project area" in (error["message"])
    )
