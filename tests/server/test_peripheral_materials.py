"""material_search / material_describe over real HTTP against ``mcb serve`` (protocol §3.2-3.3, terrain-materials §6).

Expected values come from the block registry and from the spec's algorithms recomputed here, never from the
server's own catalog code.
"""

from __future__ import annotations

import hashlib

import httpx
import pytest

from mcb.blocks.registry import load_registry
from mcb.server.testing import run_server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with run_server(tmp_path_factory.mktemp("materials")) as handle:
        yield handle


@pytest.fixture(scope="module")
def rpc(server):
    client = httpx.Client(timeout=30)

    def call(method, params=None, *, scope=True):
        body = dict(params or {})
        if scope:
            body.setdefault("player_id", server.owner_uuid)
        response = client.post(
            server.url + "/v1/rpc",
            json={"method": method, "params": body},
            headers={"Authorization": f"Bearer {server.agent_token}"},
        )
        return response.status_code, response.json()

    yield call
    client.close()


def ok(rpc, method, params=None):
    status, body = rpc(method, params)
    assert status == 200 and body["ok"], body
    return body["result"]


def error(rpc, method, params=None):
    status, body = rpc(method, params)
    assert not body["ok"], body
    assert status == (403 if body["error"]["code"] == "permission_denied" else 400)
    return body["error"]["code"], body["error"]["message"]


def hex24(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


REGISTRY_BLOCKS = load_registry().names()


def page_all(rpc, **params):
    ids, cursor, pages = [], None, 0
    while True:
        result = ok(rpc, "material_search", {**params, **({"cursor": cursor} if cursor else {})})
        ids += [entry["id"] for entry in result["results"]]
        pages += 1
        cursor = result.get("next_cursor")
        if cursor is None:
            return ids, result["total"], pages


# -- search results ---------------------------------------------------------------------------------------------
def test_default_search_is_blocks_sixteen_at_a_time_with_ordered_keys(rpc):
    result = ok(rpc, "material_search")
    assert list(result) == ["catalog_version", "query", "kind", "total", "results", "next_cursor"]
    assert result["query"] == "" and result["kind"] == "block"
    assert result["total"] == len(REGISTRY_BLOCKS)
    assert [r["id"] for r in result["results"]] == REGISTRY_BLOCKS[:16]
    assert all(list(r) == ["id", "block", "item"] and r["block"] is True for r in result["results"])
    assert len(result["next_cursor"]) <= 100


@pytest.mark.parametrize("kind", ["block", "all", "item"])
def test_cursor_paging_covers_the_catalog_once_in_order(rpc, kind):
    ids, total, pages = page_all(rpc, kind=kind, limit=32)
    assert len(ids) == total == len(set(ids))
    assert ids == sorted(ids)
    assert pages == -(-total // 32)
    if kind == "block":
        assert ids == REGISTRY_BLOCKS


def test_kinds_overlap_as_flags_say(rpc):
    every, _, _ = page_all(rpc, kind="all", limit=32)
    blocks, _, _ = page_all(rpc, kind="block", limit=32)
    items, _, _ = page_all(rpc, kind="item", limit=32)
    assert set(blocks) | set(items) == set(every)
    assert "minecraft:water" in blocks and "minecraft:water" not in items
    assert "minecraft:iron_pickaxe" in items and "minecraft:iron_pickaxe" not in blocks
    assert "minecraft:oak_planks" in blocks and "minecraft:oak_planks" in items


def test_query_is_normalised_and_every_token_must_match_the_full_id(rpc):
    result = ok(rpc, "material_search", {"query": "  OAK   stairs  ", "limit": 32})
    assert result["query"] == "oak stairs"
    expected = [name for name in REGISTRY_BLOCKS if "oak" in name and "stairs" in name]
    assert [r["id"] for r in result["results"]] == expected and result["total"] == len(expected)
    assert "next_cursor" not in result


def test_prefix_tokens_match_because_the_namespace_is_part_of_the_id(rpc):
    assert ok(rpc, "material_search", {"query": "craft"})["total"] == len(REGISTRY_BLOCKS)
    result = ok(rpc, "material_search", {"query": "minecraft:st", "limit": 32})
    assert [r["id"] for r in result["results"]] == [n for n in REGISTRY_BLOCKS if n.startswith("minecraft:st")][:32]


def test_unknown_token_gives_an_empty_result(rpc):
    result = ok(rpc, "material_search", {"query": "copper unknown"})
    assert result["total"] == 0 and result["results"] == [] and "next_cursor" not in result


@pytest.mark.parametrize(
    "query, kind, hits",
    [
        ("water", "item", []),
        ("minecraft:water", "block", ["minecraft:water"]),
        ("iron_pickaxe", "block", []),
        ("iron_pickaxe", "item", ["minecraft:iron_pickaxe"]),
    ],
)
def test_block_only_and_item_only_materials(rpc, query, kind, hits):
    result = ok(rpc, "material_search", {"query": query, "kind": kind})
    assert [r["id"] for r in result["results"] if r["id"] == f"minecraft:{query.split(':')[-1]}"] == hits


def test_limit_accepts_loose_integers(rpc):
    assert len(ok(rpc, "material_search", {"limit": "5"})["results"]) == 5
    assert len(ok(rpc, "material_search", {"limit": 7.0})["results"]) == 7
    assert len(ok(rpc, "material_search", {"limit": None})["results"]) == 16


def test_cursor_is_bound_to_version_scope_and_offset(rpc):
    result = ok(rpc, "material_search", {"query": "stone", "kind": "all", "limit": 3})
    version, scope, offset = result["next_cursor"].split(":")
    assert version == result["catalog_version"]
    assert scope == hex24("all\nstone")
    assert offset == "3"
    second = ok(rpc, "material_search", {"query": "STONE ", "kind": "all", "limit": 3, "cursor": result["next_cursor"]})
    assert [r["id"] for r in second["results"]] == [n for n in page_all(rpc, query="stone", kind="all")[0]][3:6]


def test_offset_equal_to_total_is_an_empty_last_page(rpc):
    first = ok(rpc, "material_search", {"query": "oak", "limit": 1})
    version, scope, _ = first["next_cursor"].split(":")
    last = ok(rpc, "material_search", {"query": "oak", "limit": 1, "cursor": f"{version}:{scope}:{first['total']:09d}"})
    assert last["results"] == [] and "next_cursor" not in last and last["total"] == first["total"]


def test_catalog_version_is_the_spec_hash_of_the_entries(rpc, server):
    entries = []
    cursor = None
    while True:
        result = ok(rpc, "material_search", {"kind": "all", "limit": 32, **({"cursor": cursor} if cursor else {})})
        entries += result["results"]
        cursor = result.get("next_cursor")
        if cursor is None:
            break
    lines = "".join(f"{e['id']}:{str(e['block']).lower()}:{str(e['item']).lower()}\n" for e in entries)
    runtime = server.state.registry.release + "/mcb-serve-" + server.state.registry.release
    assert result["catalog_version"] == hex24(f"material-catalog-v1\n{runtime}\n{lines}")


def test_project_context_summary_matches_the_search_counts(rpc):
    summary = ok(rpc, "project_context")["material_catalog"]
    assert summary["version"] == ok(rpc, "material_search")["catalog_version"]
    assert summary["materials"] == ok(rpc, "material_search", {"kind": "all"})["total"]
    assert summary["blocks"] == len(REGISTRY_BLOCKS)
    assert summary["items"] == ok(rpc, "material_search", {"kind": "item"})["total"]
    assert (summary["search_default_limit"], summary["search_max_limit"]) == (16, 32)


# -- search errors ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("query", ["q" * 97, "x\ny", "tab\there", "c1\u0085control", "\u007f"])
def test_bad_queries(rpc, query):
    assert error(rpc, "material_search", {"query": query}) == (
        "invalid_material_query",
        "query must contain at most 96 printable characters",
    )


def test_query_length_counts_utf16_units(rpc):
    assert ok(rpc, "material_search", {"query": "q" * 96})["total"] == 0
    assert error(rpc, "material_search", {"query": "\U0001f600" * 49})[0] == "invalid_material_query"


@pytest.mark.parametrize("kind", ["entity", "BLOCK", "", 3])
def test_bad_kind(rpc, kind):
    assert error(rpc, "material_search", {"kind": kind}) == (
        "invalid_material_query",
        "kind must be block, item, or all",
    )


@pytest.mark.parametrize("limit", [-1, 0, 33, 2**31 - 1])
def test_limit_out_of_range(rpc, limit):
    assert error(rpc, "material_search", {"limit": limit}) == (
        "invalid_material_query",
        "limit must be between 1 and 32",
    )


@pytest.mark.parametrize("limit", [1.5, "many", True, {"n": 1}, 2**31])
def test_limit_not_an_integer(rpc, limit):
    assert error(rpc, "material_search", {"limit": limit}) == ("invalid_request", "Integer coordinate required: limit")


def test_query_is_checked_before_kind_and_limit(rpc):
    assert (
        error(rpc, "material_search", {"query": "a\nb", "kind": "entity", "limit": 99})[0] == "invalid_material_query"
    )
    assert error(rpc, "material_search", {"kind": "entity", "limit": 99})[1] == "kind must be block, item, or all"


@pytest.mark.parametrize(
    "cursor",
    [
        "bad",
        "a" * 101,
        "::",
        f"{'0' * 24}:{'0' * 24}:1234567890",
        f"{'A' * 24}:{'0' * 24}:1",
        f"{'0' * 24}:{'0' * 24}:1\n",
    ],
)
def test_malformed_cursors(rpc, cursor):
    assert error(rpc, "material_search", {"cursor": cursor}) == ("invalid_cursor", "Malformed material catalog cursor")


def test_cursor_from_another_query_or_kind(rpc):
    cursor = ok(rpc, "material_search", {"query": "oak"})["next_cursor"]
    expected = ("invalid_cursor", "Cursor belongs to another query or kind")
    assert error(rpc, "material_search", {"query": "spruce", "cursor": cursor}) == expected
    assert error(rpc, "material_search", {"query": "oak", "kind": "all", "cursor": cursor}) == expected


def test_stale_cursor(rpc):
    cursor = ok(rpc, "material_search", {"query": "oak"})["next_cursor"]
    version, scope, offset = cursor.split(":")
    other = "f" * 24 if version != "f" * 24 else "e" * 24
    assert error(rpc, "material_search", {"query": "oak", "cursor": f"{other}:{scope}:{offset}"}) == (
        "stale_cursor",
        "Material catalog changed; restart the search",
    )


def test_cursor_beyond_the_matches(rpc):
    version, scope, _ = ok(rpc, "material_search", {"query": "oak"})["next_cursor"].split(":")
    assert error(rpc, "material_search", {"query": "oak", "cursor": f"{version}:{scope}:999999999"}) == (
        "invalid_cursor",
        "Cursor exceeds the matching catalog",
    )


def test_empty_or_null_cursor_is_the_first_page(rpc):
    first = ok(rpc, "material_search")
    assert ok(rpc, "material_search", {"cursor": ""}) == first == ok(rpc, "material_search", {"cursor": None})


def test_search_is_scoped(rpc):
    status, body = rpc("material_search", {"player_id": "someone-else"})
    assert status == 403 and body["error"]["code"] == "permission_denied"


# -- describe ---------------------------------------------------------------------------------------------------
def test_describe_block_has_state_fields_in_order(rpc):
    result = ok(rpc, "material_describe", {"id": "oak_stairs"})
    info = load_registry().block("oak_stairs")
    assert list(result) == [
        "id",
        "block",
        "item",
        "catalog_version",
        "placeable",
        "default_state",
        "properties",
        "behavior",
    ]
    assert result["id"] == "minecraft:oak_stairs" and result["block"] and result["item"] and result["placeable"]
    assert result["default_state"] == info.default_state
    assert list(result["properties"]) == sorted(info.properties)
    assert result["properties"]["waterlogged"] == ["false", "true"]
    assert result["properties"]["facing"] == list(info.properties["facing"])
    assert result["behavior"] == ["waterloggable", "half_property"]
    assert result["catalog_version"] == ok(rpc, "material_search")["catalog_version"]


@pytest.mark.parametrize(
    "material, behavior",
    [
        ("minecraft:water", ["fluid"]),
        ("sand", ["gravity"]),
        ("minecraft:oak_door", ["multi_block", "half_property"]),
        ("chest", ["waterloggable", "block_entity"]),
        ("oak_leaves", ["waterloggable", "leaf_decay"]),
        ("stone_button", ["attachment_sensitive"]),
    ],
)
def test_describe_behavior_hints(rpc, material, behavior):
    assert ok(rpc, "material_describe", {"id": material})["behavior"] == behavior


def test_describe_plain_block_has_no_behavior_and_empty_properties(rpc):
    result = ok(rpc, "material_describe", {"id": "minecraft:stone"})
    assert result["default_state"] == "minecraft:stone" and result["properties"] == {} and "behavior" not in result


def test_describe_block_only_and_item_only(rpc):
    water = ok(rpc, "material_describe", {"id": "water"})
    assert (water["block"], water["item"], water["placeable"]) == (True, False, True)
    assert water["properties"]["level"] == [str(n) for n in range(16)]
    pickaxe = ok(rpc, "material_describe", {"id": "minecraft:iron_pickaxe"})
    assert pickaxe == {
        "id": "minecraft:iron_pickaxe",
        "block": False,
        "item": True,
        "catalog_version": water["catalog_version"],
        "placeable": False,
    }


@pytest.mark.parametrize("params", [{}, {"id": ""}, {"id": "   "}, {"id": "a" * 257}, {"id": None}, {"id": ["stone"]}])
def test_describe_requires_a_bounded_id(rpc, params):
    assert error(rpc, "material_describe", params) == ("invalid_request", "Required bounded string: id")


@pytest.mark.parametrize(
    "material",
    [
        "a" * 129,
        "minecraft:stone[foo=bar]",
        "minecraft:chest{}",
        "other:stone",
        "Stone",
        " stone",
        "minecraft:",
        "stone\n",
    ],
)
def test_describe_rejects_non_ids(rpc, material):
    assert error(rpc, "material_describe", {"id": material}) == (
        "invalid_material",
        "Expected one exact Minecraft material ID without properties or NBT",
    )


@pytest.mark.parametrize(
    "material, shown",
    [
        ("copper_doorx", "minecraft:copper_doorx"),
        ("minecraft:../stone", "minecraft:../stone"),
        ("a" * 118, "minecraft:" + "a" * 118),
    ],
)
def test_describe_unknown_material(rpc, material, shown):
    assert error(rpc, "material_describe", {"id": material}) == (
        "invalid_material",
        f"Unknown runtime material: {shown}",
    )


def test_non_text_query_or_kind_is_a_request_error_before_limit(rpc):
    assert error(rpc, "material_search", {"query": {"q": 1}, "limit": 1.5}) == (
        "invalid_request",
        "Expected a string: query",
    )
    assert error(rpc, "material_search", {"kind": ["block"], "limit": 0}) == (
        "invalid_request",
        "Expected a string: kind",
    )
    assert ok(rpc, "material_search", {"query": 5.0})["query"] == "5.0"


@pytest.mark.parametrize(
    "material, block, item",
    [
        ("potted_poppy", True, False),
        ("oak_wall_sign", True, False),
        ("redstone_wire", True, False),
        ("redstone", False, True),
        ("carrots", True, False),
        ("carrot", False, True),
        ("white_candle_cake", True, False),
        ("water_cauldron", True, False),
        ("cauldron", True, True),
        ("crimson_stem", True, True),
        ("melon_stem", True, False),
        ("skeleton_wall_skull", True, False),
        ("skeleton_skull", True, True),
    ],
)
def test_item_flags_follow_vanilla(rpc, material, block, item):
    result = ok(rpc, "material_describe", {"id": material})
    assert (result["block"], result["item"], result["placeable"]) == (block, item, block)


def test_the_catalog_is_close_to_the_live_26_2_one(rpc):
    """Protocol §3.2: Paper 26.2 lists 1691 materials, 1196 blocks and 1537 items. Items new in 26.2 that are not
    blocks are missing here (minecraft-data has items up to 26.1)."""
    summary = ok(rpc, "project_context")["material_catalog"]
    assert summary["blocks"] == 1196
    assert 1680 <= summary["materials"] <= 1691 and 1530 <= summary["items"] <= 1537
    for query, expected in (
        ("allay_spawn_egg", ["minecraft:allay_spawn_egg"]),
        ("netherite_upgrade_smithing_template", ["minecraft:netherite_upgrade_smithing_template"]),
        ("potted_fern", []),
    ):
        assert [r["id"] for r in ok(rpc, "material_search", {"query": query, "kind": "item"})["results"]] == expected
