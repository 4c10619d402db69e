"""Write -> read round trips per format and per format pair: lossless wherever both formats hold the data, and
what a format cannot hold is said (``format_losses``), never dropped in silence."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcb.schematics.formats import encode_any, read_any, writable_names
from mcb.schematics.formats.losses import format_losses
from mcb.schematics.model import BlockEntity, Entity, Schematic
from mcb.schematics.nbt import Compound, Int, String

FORMATS = writable_names()

STATES = (
    [
        "minecraft:air",
        "minecraft:stone",
        "minecraft:oak_log[axis=x]",
        "minecraft:chest[facing=east,type=single,waterlogged=false]",
        "minecraft:redstone_wire[east=side,north=none,power=3,south=up,west=none]",
    ]
    + [
        f"minecraft:{c}_wool"
        for c in (
            "white",
            "orange",
            "magenta",
            "light_blue",
            "yellow",
            "lime",
            "pink",
            "gray",
            "light_gray",
            "cyan",
            "purple",
            "blue",
            "brown",
            "green",
            "red",
            "black",
        )
    ]
    + [f"minecraft:note_block[instrument=harp,note={n},powered=false]" for n in range(25)]
)


@st.composite
def schematics(draw, void: bool):
    w, h, l = (draw(st.integers(1, 6)) for _ in range(3))
    used = draw(st.lists(st.sampled_from(STATES), min_size=1, max_size=len(STATES), unique=True))
    palette = ["minecraft:air", *(s for s in used if s != "minecraft:air")]  # a palette up to 46: 6-bit entries
    cells = draw(st.lists(st.integers(0, len(palette) - 1), min_size=w * h * l, max_size=w * h * l))
    blocks = np.array(cells, dtype=np.int32).reshape(h, l, w)
    mask = None
    if void:
        flags = draw(st.lists(st.booleans(), min_size=w * h * l, max_size=w * h * l))
        mask = np.array(flags, dtype=bool).reshape(h, l, w)
        blocks[mask] = 0  # a void cell holds air, as every reader leaves it
        mask = mask if mask.any() else None
    positions = draw(
        st.lists(
            st.tuples(st.integers(0, w - 1), st.integers(0, h - 1), st.integers(0, l - 1)), max_size=3, unique=True
        )
    )
    if mask is not None:
        positions = [p for p in positions if not mask[p[1], p[2], p[0]]]
    entities = [
        BlockEntity(p, "minecraft:chest", Compound(Lock=String(f"k{i}"), Count=Int(i))) for i, p in enumerate(positions)
    ]
    mobs = [
        Entity((draw(st.floats(0, w, width=32)), 0.5, 0.25), "minecraft:armor_stand", Compound(Tag=String("x")))
        for _ in range(draw(st.integers(0, 2)))
    ]
    offset = tuple(draw(st.integers(-40, 40)) for _ in range(3))
    return Schematic(
        width=w,
        height=h,
        length=l,
        palette=palette,
        blocks=blocks,
        data_version=4903,
        offset=offset,
        block_entities=entities,
        entities=mobs,
        void=mask,
    )


def _cells(schem: Schematic) -> list[str | None]:
    """Every cell's state in y, z, x order; None where the file leaves the world unchanged."""
    void = schem.void.ravel() if schem.void is not None else np.zeros(schem.volume, dtype=bool)
    return [None if v else schem.palette[i] for i, v in zip(schem.blocks.ravel().tolist(), void.tolist())]


def _as_air(cells):
    return ["minecraft:air" if c is None else c for c in cells]


def _round_trip(schem: Schematic, fmt: str, tmp_path) -> Schematic:
    path = tmp_path / f"out-{fmt}"
    path.write_bytes(encode_any(schem, fmt))
    return read_any(path)


def _same(a: Schematic, b: Schematic, fmt: str) -> None:
    assert b.size == a.size
    if fmt == "structure":
        assert _cells(b) == _cells(a)
    else:
        assert _cells(b) == _as_air(_cells(a))
    if fmt != "structure":  # a structure is placed from its corner: it keeps no anchor
        assert b.offset == a.offset
    assert sorted((be.pos, be.id, dict(be.data)) for be in b.block_entities) == sorted(
        (be.pos, be.id, dict(be.data)) for be in a.block_entities
    )
    assert [(e.id, e.pos, dict(e.data)) for e in b.entities] == [(e.id, e.pos, dict(e.data)) for e in a.entities]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(schem=schematics(void=True), fmt=st.sampled_from(FORMATS))
def test_each_format_reads_back_what_it_wrote(tmp_path, schem, fmt):
    back = _round_trip(schem, fmt, tmp_path)
    _same(schem, back, fmt)
    losses = {loss["what"] for loss in format_losses(schem, fmt)}
    assert ("void cells" in losses) == (schem.void is not None and fmt != "structure")
    assert ("anchor" in losses) == (fmt == "structure" and any(schem.offset))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(schem=schematics(void=False), first=st.sampled_from(FORMATS), second=st.sampled_from(FORMATS))
def test_every_pair_of_formats_carries_what_both_hold(tmp_path, schem, first, second):
    through = _round_trip(_round_trip(schem, first, tmp_path), second, tmp_path)
    expected_offset = (0, 0, 0) if "structure" in (first, second) else schem.offset
    _same(schem.__class__(**{**schem.__dict__, "offset": expected_offset}), through, second)


def test_a_structure_keeps_untouched_cells_through_a_litematica_only_as_air(corpus, tmp_path):
    wires = read_any(corpus / "nbt_nucleation_wire_shapes.nbt")
    (loss,) = format_losses(wires, "litematic")
    assert loss["count"] == 78 and "written as air" in loss["detail"]
    back = _round_trip(wires, "litematic", tmp_path)
    assert back.void is None and _cells(back) == _as_air(_cells(wires))


def test_a_block_entity_outside_the_box_is_refused_or_said_never_written_unreadable(cli, corpus, tmp_path):
    # sponge-v1.schem's only block entity sits at [5, 11, 9], outside its 1 x 41 x 9 box: a Litematica file
    # holding it could not be read back, a structure dropped it without a word.
    import json

    source = str(corpus / "v1_schematic4j_sponge-v1.schem")
    for out in ("v1.litematic", "v1.nbt"):
        refused = cli("schem", "convert", source, "-o", str(tmp_path / out))
        assert refused.exit_code == 1 and not (tmp_path / out).exists()
        assert "1 block entity (minecraft:campfire) outside the 1 x 41 x 9 box is not written" in refused.stderr
        dropped = cli("schem", "convert", source, "-o", str(tmp_path / out), "--drop-extras", "--json")
        assert dropped.exit_code == 0 and json.loads(dropped.stdout)["dropped"]
        assert cli("schem", "info", str(tmp_path / out)).exit_code == 0
    rotated = cli("schem", "rotate", source, "-d", "90", "-o", str(tmp_path / "r.litematic"))
    assert rotated.exit_code == 0 and "outside the 9 x 41 x 1 box is not written" in rotated.stderr
    assert cli("schem", "info", str(tmp_path / "r.litematic")).exit_code == 0
    kept = cli("schem", "convert", source, "-o", str(tmp_path / "v3.schem"), "--to", "sponge3", "--json")
    assert kept.exit_code == 0 and not json.loads(kept.stdout)["dropped"]
