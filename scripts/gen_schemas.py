"""Write (or check) every JSON Schema that mcb publishes, generated from the pydantic models.

    .venv/bin/python scripts/gen_schemas.py           # rewrite the committed files
    .venv/bin/python scripts/gen_schemas.py --check   # exit 1 and name the files that drifted

To publish another schema, add one entry to SCHEMAS: a repo-relative path and a zero-argument function returning the
file's exact text (import inside the function so one broken model does not hide the others).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _recipe_schema() -> str:
    from mcb.recipes.model import schema_text

    return schema_text()


def _terrain_schema() -> str:
    from mcb.terrain.model import schema_text

    return schema_text("terrain.schema.json")


def _brush_schema() -> str:
    from mcb.terrain.model import schema_text

    return schema_text("brush.schema.json")


SCHEMAS: dict[str, Callable[[], str]] = {
    "recipes/recipe.schema.json": _recipe_schema,
    "recipes/terrain.schema.json": _terrain_schema,
    "recipes/brush.schema.json": _brush_schema,
}


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report files that differ from the models")
    args = parser.parse_args(argv)
    drifted = []
    for relative, generate in SCHEMAS.items():
        path = ROOT / relative
        text = generate()
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        if args.check:
            drifted.append(relative)
        else:
            _write_atomically(path, text)
            print(f"wrote {relative}")
    if drifted:
        print("out of date (run scripts/gen_schemas.py): " + ", ".join(drifted), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
