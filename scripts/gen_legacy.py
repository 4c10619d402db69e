#!/usr/bin/env python3
"""Build mcb's packaged table for legacy (pre-1.13) ``.schematic`` files from minecraft-data (MIT).

Usage (raw upstream JSON stays outside the repository; only the compact result is committed):

    mkdir -p /tmp/mcd && cd /tmp/mcd && npm pack minecraft-data@3.119.0 && tar xzf minecraft-data-*.tgz
    .venv/bin/python scripts/gen_legacy.py --mcd /tmp/mcd/package \\
        --legacy /work/shared/blockdata/minecraft-data-legacy/legacy.json

Writes cli/mcb/schematics/data/legacy.json.gz:
  states   "id:data" -> the 1.13 block state (minecraft-data's legacy.json, blocks)
  items    "id:data" -> the 1.13 item (legacy.json, items): what a 1.12 flower pot held, for its potted_* state
  ids      1.12 block and item name -> numeric id (minecraft-data pc/1.12 blocks.json and items.json), to read
           SchematicaMapping (names of the ids the saving game used) and flower pots that name their item
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "cli" / "mcb" / "schematics" / "data" / "legacy.json.gz"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mcd", type=Path, required=True, help="unpacked npm minecraft-data (its package folder)")
    parser.add_argument("--legacy", type=Path, required=True, help="minecraft-data-legacy/legacy.json")
    args = parser.parse_args()
    legacy = json.loads(args.legacy.read_text("utf-8"))
    states = legacy["blocks"]
    paths = json.loads((args.mcd / "minecraft-data" / "data" / "dataPaths.json").read_text("utf-8"))
    folder = paths["pc"]["1.12.2"]["blocks"]
    blocks = json.loads((args.mcd / "minecraft-data" / "data" / folder / "blocks.json").read_text("utf-8"))
    items = json.loads(
        (args.mcd / "minecraft-data" / "data" / paths["pc"]["1.12.2"]["items"] / "items.json").read_text("utf-8")
    )
    ids = {f"minecraft:{b['name']}": b["id"] for b in blocks}
    for item in items:  # an item's name is its block's where both exist; items add the rest (e.g. a flower pot's)
        ids.setdefault(f"minecraft:{item['name']}", item["id"])
    for key, state in states.items():  # every key is "id:data" with data 0..15, every value a namespaced state
        block, data = (int(part) for part in key.split(":"))
        if not (0 <= block < 4096 and 0 <= data < 16 and state.startswith("minecraft:")):
            raise SystemExit(f"unexpected entry {key!r}: {state!r}")
    if len({ids[f"minecraft:{b['name']}"] for b in blocks}) != len(blocks):
        raise SystemExit("1.12 block ids are not unique")
    table = {"format": 1, "states": states, "items": legacy["items"], "ids": ids}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    payload = json.dumps(table, sort_keys=True, separators=(",", ":")).encode("utf-8")
    OUT.write_bytes(gzip.compress(payload, compresslevel=9, mtime=0))
    print(
        f"wrote {OUT} ({len(states)} states, {len(legacy['items'])} items, {len(ids)} 1.12 names, "
        f"{OUT.stat().st_size} bytes)"
    )


if __name__ == "__main__":
    main()
