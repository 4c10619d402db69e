"""A block the target release does not know is refused before any write, named with its count, unless
--replace-unknown maps it (the one upgrade of convert and rotate); verify takes the build's options as they are."""

from __future__ import annotations

import nbtlib
from buildkit import world_at


def _structure_with_a_mod_block(path):
    palette = [nbtlib.Compound({"Name": nbtlib.String(n)}) for n in ("minecraft:stone", "mymod:fancy_lamp")]
    blocks = [
        nbtlib.Compound({"state": nbtlib.Int(s), "pos": nbtlib.List[nbtlib.Int](list(p))})
        for s, p in ((0, (0, 0, 0)), (1, (1, 0, 0)), (1, (1, 1, 0)))
    ]
    root = nbtlib.Compound(
        {
            "DataVersion": nbtlib.Int(4903),
            "size": nbtlib.List[nbtlib.Int]([2, 2, 1]),
            "palette": nbtlib.List[nbtlib.Compound](palette),
            "blocks": nbtlib.List[nbtlib.Compound](blocks),
            "entities": nbtlib.List[nbtlib.Compound]([]),
        }
    )
    nbtlib.File(root, gzipped=True).save(path)
    return path


def test_unknown_blocks_are_refused_then_mapped(wide_mcb, wide_client, tmp_path):
    lamp = _structure_with_a_mod_block(tmp_path / "lamp.nbt")
    refused = wide_mcb("build", lamp, "--target", "0,70,0", "--yes")
    assert refused.exit_code == 1
    assert "1 block unknown in Minecraft 26.2: mymod:fancy_lamp (2 cells)" in refused.stderr
    assert "--replace-unknown BLOCK" in refused.stderr
    assert world_at(wide_client, {(1, 70, 0): None})[(1, 70, 0)] == "minecraft:air"  # nothing was written
    typo = wide_mcb("build", lamp, "--target", "0,70,0", "--yes", "--replace-unknown", "minecraft:glowstnoe")
    assert typo.exit_code == 2 and "did you mean minecraft:glowstone" in typo.stderr
    built = wide_mcb("build", lamp, "--target", "0,70,0", "--yes", "--replace-unknown", "minecraft:glowstone")
    assert built.exit_code == 0, built.stderr
    assert "replaced unknown mymod:fancy_lamp with minecraft:glowstone: 2 cells" in built.stderr
    assert world_at(wide_client, {(1, 70, 0): None, (1, 71, 0): None, (0, 70, 0): None}) == {
        (1, 70, 0): "minecraft:glowstone",
        (1, 71, 0): "minecraft:glowstone",
        (0, 70, 0): "minecraft:stone",
    }
    same = wide_mcb("verify", lamp, "--target", "0,70,0", "--replace-unknown", "minecraft:glowstone", "--drop-extras")
    assert same.exit_code == 0, same.stdout + same.stderr
