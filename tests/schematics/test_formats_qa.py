"""What a user sees when the offline toolchain meets every format: hints that lead somewhere, no silent losses,
one vocabulary across commands (found by a QA pass over the corpus and the samples)."""

from __future__ import annotations

import shutil
from pathlib import Path

from schem_nbt_bytes import document

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "schematics"


def test_a_refused_conversion_suggests_only_formats_that_keep_everything(cli, tmp_path):
    # The watchtower has cells it leaves unchanged (outside its two regions) and a chest: Sponge v3 cannot hold
    # the first, so only Litematica (its regions written again) and a structure keep everything.
    tower = cli("schem", "convert", str(SAMPLES / "watchtower.litematic"), "-o", str(tmp_path / "t.schem"))
    assert tower.exit_code == 1
    assert "hint: keep everything with --to litematic or structure, or drop it on purpose with --drop-extras" in (
        tower.stderr
    )
    # The cabin's block entities fit every format but the server's.
    cabin = cli("schem", "convert", str(SAMPLES / "cabin.schematic"), "-o", str(tmp_path / "c.schem"))
    assert "keep everything with --to sponge3 or litematic or structure, or drop" in cabin.stderr
    followed = cli(
        "schem", "convert", str(SAMPLES / "watchtower.litematic"), "-o", str(tmp_path / "t.schem"), "--to", "structure"
    )
    assert followed.exit_code == 0, followed.stderr


def test_rendering_a_folder_never_overwrites_one_picture_with_another(cli, tmp_path):

    folder = tmp_path / "builds"
    (folder / "old").mkdir(parents=True)
    shutil.copy(SAMPLES / "house.schem", folder / "house.schem")
    shutil.copy(SAMPLES / "watchtower.litematic", folder / "house.litematic")
    shutil.copy(SAMPLES / "cabin.schematic", folder / "old" / "house.schematic")
    pictures = tmp_path / "pictures"
    result = cli("schem", "render", str(folder), "-o", str(pictures))
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in pictures.iterdir()) == ["house.png", "house.schem.png", "house.schematic.png"]
    assert result.stdout.count("wrote ") == 3


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


def test_help_and_hints_name_options_that_exist_and_defaults_that_hold(cli, tmp_path):
    import re

    def help_of(*command):
        text = cli(*command, "--help", env={"COLUMNS": "80"}).stdout
        return re.sub(r"[\s│]+", " ", text)

    assert "default *.schem, *.litematic, *.nbt and *.schematic for schematics" in help_of("schem", "validate")
    for command in ("convert", "rotate", "mirror"):
        words = help_of("schem", command)
        assert "upgrade the states to (default: the file's own release; 26.2 for legacy files" in words, command
        assert "as the command's help says" not in words
    (tmp_path / "notes.txt").write_text("x")
    assert "--glob" in cli("schem", "validate", str(tmp_path)).stderr
    for command in (["schem", "info"], ["schem", "render", "-o", str(tmp_path / "pictures")]):
        result = cli(*command[:2], str(tmp_path), *command[2:])
        assert result.exit_code == 1 and "no schematic found" in result.stderr
        assert "--glob" not in result.stderr  # info and render have no --glob


def test_validate_and_info_name_a_files_kind_alike(cli):
    import json

    for name, kind in (("watchtower.litematic", "litematic"), ("cabin.schematic", "legacy"), ("house.schem", "sponge")):
        info = json.loads(cli("schem", "info", str(SAMPLES / name), "--json").stdout)
        for profile in ("server", "spec"):
            report = json.loads(cli("schem", "validate", str(SAMPLES / name), "--format", "json", "-p", profile).stdout)
            assert report["files"][0]["facts"]["kind"] == info["kind"] == kind, (name, profile)


def test_a_walk_names_each_unreadable_file_once_and_counts_read_right(cli, tmp_path):
    import gzip

    folder = tmp_path / "w"
    folder.mkdir()
    shutil.copy(SAMPLES / "house.schem", folder)
    cut = gzip.decompress((SAMPLES / "watchtower.litematic").read_bytes())
    # a structure whose only block lies outside its size: the structure reader refuses it
    (folder / "outside.nbt").write_bytes(
        document(
            [
                ("DataVersion", 3, 4903),
                ("size", 9, (3, [2, 2, 2])),
                ("palette", 9, (10, [[("Name", 8, "minecraft:stone")]])),
                ("blocks", 9, (10, [[("pos", 9, (3, [5, 0, 0])), ("state", 3, 0)]])),
                ("entities", 9, (10, [])),
            ],
            "",
        )
    )
    (folder / "cut.litematic").write_bytes(gzip.compress(cut)[:300])
    info = cli("schem", "info", str(folder))
    assert info.exit_code == 1
    assert f"{folder / 'outside.nbt'}: block at 5,0,0 lies outside the 2 x 2 x 2 size" in info.stderr
    assert f"{folder / 'outside.nbt'}: {folder / 'outside.nbt'}" not in info.stderr
    spec = cli("schem", "validate", "-p", "spec", str(folder), str(SAMPLES / "cabin.schematic"))
    assert f"{folder / 'outside.nbt'}: error[structure.blocks.position] at /blocks/0/pos: block at 5,0,0" in spec.stdout
    assert "flower pot plants: from the block entity into the state (potted_*) (1 cell)" in spec.stdout


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


def test_counts_of_one_read_right_in_refusals_and_warnings(cli, tmp_path):
    fixture = str(SAMPLES / "rotation_fixture.schem")
    unknown = cli("schem", "convert", fixture, "-o", str(tmp_path / "old.schem"), "--mc-version", "1.16")
    assert f"error: {fixture}: 1 block unknown in Minecraft 1.16: minecraft:crafter (1 cell)" in unknown.stderr
    mirrored = cli("schem", "mirror", fixture, "-a", "x", "-o", str(tmp_path / "m.schem"))
    assert "warning: 3 block states come out geometrically wrong" in mirrored.stderr


def _plain_blocks_list(schem):
    """The structure's ``blocks`` list built tag by tag, the obvious way (the oracle of the packed encoder)."""
    import numpy as np

    from mcb.schematics.formats.common import dense_palette, without
    from mcb.schematics.nbt import TAG_COMPOUND, Compound, Int, List, String

    _, cells = dense_palette(schem.blocks, schem.palette, schem.void)
    by_pos = {be.pos: be for be in schem.block_entities}
    flat = cells.ravel()
    keep = np.ones(flat.size, dtype=bool) if schem.void is None else ~schem.void.ravel()
    entries = List((), TAG_COMPOUND)
    for i in np.flatnonzero(keep).tolist():
        x, z, y = i % schem.width, (i // schem.width) % schem.length, i // (schem.width * schem.length)
        entry = Compound(state=Int(int(flat[i])), pos=List([Int(x), Int(y), Int(z)], 3))
        be = by_pos.get((x, y, z))
        if be is not None:
            nbt = Compound(id=String(be.id)) if be.id else Compound()
            nbt.update(without(be.data or {}, "x", "y", "z", "id"))
            entry["nbt"] = nbt
        entries.append(entry)
    return entries


def test_structure_blocks_are_packed_byte_for_byte_as_tags_would_encode_them(corpus):
    # the packed writer turned an 86 x 82 x 101 legacy build into a structure in 0.9 s instead of 12 s (and the
    # 256^3 build at all: it ran out of memory); the bytes are those of the tag-by-tag encoding
    from dataclasses import replace

    import numpy as np

    from mcb.schematics.formats import read_any
    from mcb.schematics.formats.structure import structure_tree
    from mcb.schematics.model import BlockEntity
    from mcb.schematics.nbt_encoder import encode_nbt

    tower = read_any(SAMPLES / "watchtower.litematic")  # cells left unchanged, a chest
    y, z, x = (int(v) for v in np.argwhere(tower.void)[0])
    void_spot = (x, y, z)
    on_void = replace(tower, block_entities=[*tower.block_entities, BlockEntity(void_spot, "minecraft:barrel", {})])
    for schem in (
        read_any(corpus / "v2_prismarine_smallhouse1.schem"),
        tower,
        on_void,
        read_any(SAMPLES / "cabin.schematic"),
    ):
        name, root = structure_tree(schem)
        plain = dict(root, blocks=_plain_blocks_list(schem))
        assert encode_nbt(root, name) == encode_nbt(plain, name)


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


def test_a_name_that_says_another_format_is_warned_and_a_bad_replacement_is_a_usage_error(cli, tmp_path):
    odd = cli("schem", "convert", str(SAMPLES / "house.schem"), "-o", str(tmp_path / "h.litematic"), "--to", "sponge2")
    assert odd.exit_code == 0 and "h.litematic is named like a litematic file but holds Sponge v2 data" in odd.stderr
    typo = cli(
        "schem",
        "convert",
        str(SAMPLES / "house.schem"),
        "-o",
        str(tmp_path / "h.nbt"),
        "--replace-unknown",
        "minecraft:stoen",
    )
    assert typo.exit_code == 2 and "--replace-unknown minecraft:stoen" in typo.stderr


def test_legacy_block_entity_data_is_said_to_be_kept_as_1_12_wrote_it(corpus):
    from mcb.schematics.formats import read_any

    cabin = read_any(SAMPLES / "cabin.schematic")
    kept = [c for c in cabin.source.conversions if c["change"].startswith("block-entity data")]
    assert kept and kept[0]["cells"] == len(cabin.block_entities) and kept[0]["carried"] is False
