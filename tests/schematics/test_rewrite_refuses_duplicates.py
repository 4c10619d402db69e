"""A rewrite never picks one of two values a compound names twice: rotate, mirror and convert refuse such a file
with the rule validation and the server give (`nbt.duplicate`), and write nothing."""

from __future__ import annotations

import pytest
from schem_nbt_bytes import document, v2_entries

TWICE = {
    "BlockData": document(v2_entries(extra=[("BlockData", 7, bytes([1, 1, 1, 1]))])),
    "Id in a block entity": document(
        v2_entries(
            extra=[
                (
                    "BlockEntities",
                    9,
                    (10, [[("Pos", 11, [0, 0, 0]), ("Id", 8, "minecraft:chest"), ("Id", 8, "minecraft:barrel")]]),
                )
            ]
        )
    ),
}
REWRITES = {
    "rotate": ["schem", "rotate", "{src}", "--degrees", "90", "-o", "{out}"],
    "mirror": ["schem", "mirror", "{src}", "--axis", "x", "-o", "{out}"],
    "convert": ["schem", "convert", "{src}", "-o", "{out}"],
    "render": ["schem", "render", "{src}", "-o", "{out}"],  # a picture of one of the two values would mislead
}


@pytest.mark.parametrize("what", TWICE)
@pytest.mark.parametrize("rewrite", REWRITES)
def test_a_rewrite_refuses_a_tag_named_twice(cli, tmp_path, what, rewrite):
    source, output = tmp_path / "twice.schem", tmp_path / "out.schem"
    source.write_bytes(TWICE[what])
    validated = cli("schem", "validate", str(source), "--json")
    assert validated.exit_code == 1 and "nbt.duplicate" in validated.stdout
    result = cli(*[a.format(src=source, out=output) for a in REWRITES[rewrite]])
    assert result.exit_code == 1, result.stdout
    assert "nbt.duplicate" in result.stderr or "names the same tag twice" in result.stderr, result.stderr
    assert not output.exists() and source.read_bytes() == TWICE[what]
