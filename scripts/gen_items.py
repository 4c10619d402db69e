#!/usr/bin/env python3
"""Build mcb serve's list of item-only materials from minecraft-data (MIT) item and block lists.

Usage (the same unpacked npm package as scripts/gen_registry.py):

    mkdir -p /tmp/mcd && cd /tmp/mcd && npm pack minecraft-data@3.119.0 && tar xzf minecraft-data-*.tgz
    .venv/bin/python scripts/gen_items.py --mcd /tmp/mcd/package

Writes cli/mcb/server/data/item_ids.json: the items of the newest release minecraft-data has item data for that
are not blocks there (``iron_pickaxe``, ``spawn eggs``, ...), sorted, with their provenance. Blocks that are items
too come from the block registry (mcb.server.catalog_data.is_item_form, checked here against the same item list).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "cli" / "mcb" / "server" / "data" / "item_ids.json"
RELEASE = "26.1"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mcd", type=Path, required=True, help="the unpacked npm package directory (…/package)")
    args = parser.parse_args()
    data = args.mcd / "minecraft-data" / "data"
    paths = json.loads((data / "dataPaths.json").read_text())["pc"][RELEASE]
    items_file = data / paths["items"] / "items.json"
    blocks_file = data / paths["blocks"] / "blocks.json"
    items = {item["name"] for item in json.loads(items_file.read_text())}
    blocks = {block["name"] for block in json.loads(blocks_file.read_text())}

    sys.path.insert(0, str(ROOT / "cli"))
    from mcb.server.catalog_data import is_item_form

    wrong = sorted(name for name in blocks if (name in items) != is_item_form(name))
    if wrong:
        print(f"is_item_form disagrees with {items_file} for: {', '.join(wrong)}", file=sys.stderr)
        return 1
    package = json.loads((args.mcd / "package.json").read_text())
    document = {
        "source": f"npm minecraft-data {package['version']} (MIT), data/{paths['items']}/items.json minus "
        f"data/{paths['blocks']}/blocks.json",
        "items_sha256": hashlib.sha256(items_file.read_bytes()).hexdigest(),
        "release": RELEASE,
        "item_only": sorted(items - blocks),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(document, indent=1) + "\n")
    print(f"{OUT.relative_to(ROOT)}: {len(document['item_only'])} item-only ids ({len(items)} items in {RELEASE})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
