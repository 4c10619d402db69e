"""MaterialCatalog on small hand-made catalogs: version stability, describe limits (terrain-materials §6.4-6.5)."""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcb.server.catalog import BlockDescription, CatalogEntry, CatalogError, MaterialCatalog

ENTRIES = [
    CatalogEntry("minecraft:stone", True, True),
    CatalogEntry("minecraft:water", True, False),
    CatalogEntry("minecraft:iron_pickaxe", False, True),
    CatalogEntry("minecraft:oak_log", True, True),
]


def describer(description):
    return lambda material_id: description


def test_version_is_the_spec_fingerprint_and_ignores_input_order():
    shuffled = ENTRIES[:]
    random.Random(7).shuffle(shuffled)
    fingerprint = (
        "material-catalog-v1\n26.2-test\n" + "minecraft:iron_pickaxe:false:true\n"
        "minecraft:oak_log:true:true\n"
        "minecraft:stone:true:true\n"
        "minecraft:water:true:false\n"
    )
    expected = hashlib.sha256(fingerprint.encode()).hexdigest()[:24]
    assert MaterialCatalog(ENTRIES, "26.2-test").version == expected
    assert MaterialCatalog(shuffled, "26.2-test").version == expected
    assert MaterialCatalog(ENTRIES, "26.3-test").version != expected
    assert MaterialCatalog(ENTRIES[:3], "26.2-test").version != expected


def test_duplicate_ids_are_a_startup_error():
    with pytest.raises(ValueError):
        MaterialCatalog(ENTRIES + [CatalogEntry("minecraft:stone", True, False)], "x")


@pytest.mark.parametrize(
    "description",
    [
        BlockDescription("minecraft:stone", {f"p{i}": ("a",) for i in range(65)}),
        BlockDescription("minecraft:stone", {"big": tuple(str(i) for i in range(257))}),
        BlockDescription("minecraft:stone", {"empty": ()}),
        BlockDescription("minecraft:stone", {"p": ("v" * 16_384,)}),
        BlockDescription("minecraft:" + "s" * 1024, {}),
    ],
)
def test_describe_refuses_instead_of_truncating(description):
    catalog = MaterialCatalog(ENTRIES, "t", describer(description))
    with pytest.raises(CatalogError) as caught:
        catalog.describe("stone")
    assert caught.value.code == "material_properties_unavailable"


def test_describe_limits_are_inclusive():
    description = BlockDescription("minecraft:stone", {f"p{i}": tuple(str(n) for n in range(4)) for i in range(64)})
    assert len(MaterialCatalog(ENTRIES, "t", describer(description)).describe("stone")["properties"]) == 64


def test_registry_failure_reads_as_introspection_unavailable():
    def broken(material_id):
        raise RuntimeError("boom")

    with pytest.raises(CatalogError) as caught:
        MaterialCatalog(ENTRIES, "t", broken).describe("minecraft:oak_log")
    assert (caught.value.code, caught.value.message) == (
        "material_properties_unavailable",
        "Runtime property introspection is unavailable for minecraft:oak_log",
    )


def test_describing_an_item_never_asks_the_registry():
    def refuse(material_id):
        raise AssertionError("item-only entries have no state")

    assert MaterialCatalog(ENTRIES, "t", refuse).describe("iron_pickaxe")["placeable"] is False


ids = st.from_regex(r"minecraft:[a-z_]{1,8}", fullmatch=True)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(ids, st.booleans(), st.booleans()), min_size=1, max_size=60, unique_by=lambda t: t[0]),
    st.sampled_from(["block", "item", "all"]),
    st.integers(1, 32),
    st.text("ab_ ", max_size=4),
)
def test_paging_any_catalog_yields_each_match_once(rows, kind, limit, query):
    catalog = MaterialCatalog([CatalogEntry(*row) for row in rows], "t")
    seen, cursor = [], None
    while True:
        page = catalog.search(query, kind, limit, cursor)
        seen += [r["id"] for r in page["results"]]
        cursor = page.get("next_cursor")
        if cursor is None:
            break
    tokens = " ".join(query.split()).split()
    wanted = sorted(
        i for i, b, it in rows if (kind == "all" or (b if kind == "block" else it)) and all(t in i for t in tokens)
    )
    assert seen == wanted and page["total"] == len(wanted)
