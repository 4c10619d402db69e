"""Real palettes from the shared corpus validate against the release of their own DataVersion.

Expectations come from the corpus README: ordinary WorldEdit/FAWE files are vanilla, while green-cottage (and its
v3 twin) carries modded fence properties (north_east, ...) that an offline validator must flag.
"""

from __future__ import annotations

import pytest

from mcb.blocks.registry import UnknownPropertyError, load_registry
from mcb.errors import UsageError

VANILLA = [
    ("v2_arkitektonika_biomes.schem", "1.15.2"),
    ("v2_fawe_sponge2.schem", "1.21.8"),
    ("v2_nucleation_Evaluator_entities.schem", "1.20.4"),  # (large_schematic inflates to 30 MB: too slow here)
    ("v2_nucleation_cutecounter.schem", "1.18.2"),
    ("v2_prismarine_smallhouse1.schem", "1.16.4"),
    ("v2_schematic4j_interieur-exterieur.schem", "1.19.2"),
    ("v2_schematic4j_issue-1.schem", "1.18"),
    ("v3_nucleation_REGISTER001.schem", "1.21.4"),
    ("v3_prismarine_spongeV3.schem", "1.21.1"),
]


def read_palette(path):
    nbtlib = pytest.importorskip("nbtlib")
    root = nbtlib.load(path)
    root = root["Schematic"] if "Schematic" in root else root
    palette = root.get("Palette")
    if palette is None:
        palette = root["Blocks"]["Palette"]
    return int(root["DataVersion"]), [str(key) for key in palette]


@pytest.mark.parametrize("name,release", VANILLA)
def test_vanilla_palettes_are_valid(corpus, name, release):
    data_version, palette = read_palette(corpus / name)
    reg = load_registry(data_version)
    assert reg.release == release
    invalid = [state for state in palette if not reg.is_valid(state)]
    assert not invalid, invalid[:5]
    # Canonical forms are fixed points and keep the palette distinct where the input was already complete.
    for state in palette:
        canonical = reg.canonicalize(state)
        assert reg.canonicalize(canonical) == canonical


@pytest.mark.parametrize("name", ["v2_schematic4j_green-cottage.schem", "v3_schematic4j_sponge-v3_nonconforming.schem"])
def test_modded_fence_properties_are_flagged(corpus, name):
    data_version, palette = read_palette(corpus / name)
    reg = load_registry(data_version)
    flagged = []
    for state in palette:
        try:
            reg.canonicalize(state)
        except UnknownPropertyError as error:
            flagged.append((state, error))
    assert flagged
    for state, error in flagged:
        assert "fence" in state and error.details["property"] in {
            "north_east",
            "north_west",
            "south_east",
            "south_west",
        }


def test_pre_flattening_data_version_is_refused(corpus):
    data_version, _ = read_palette(corpus / "v3_nucleation_uss-texas.schem")
    assert data_version == 1343  # README: Nucleation writes a bogus 1.12.2 DataVersion
    with pytest.raises(UsageError):
        load_registry(data_version)
