"""Recipe toolchain speed: `mcb recipe lint` vs check-jsonschema on 1,000 recipes, and compiling 4096 blocks.

    .venv/bin/pip install check-jsonschema      # the `bench` extra; only needed for the baseline
    .venv/bin/python benchmarks/bench_recipes.py [--files 1000] [--repeat 2]

Both linters run as a user runs them (a fresh process, all files on one command line, same schema file), best of
``--repeat`` runs, on clean files and on a set where 10% have one mistake. mcb does more per file (strict integers,
registry, budgets via the compiler, line:column); the target is to be at least as fast. The in-process lines show
mcb's two paths (the server's compiler first, jsonschema only when it refuses; or jsonschema always). Compiling a
4096-block recipe should take well under 100 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SCHEMA = ROOT / "recipes" / "recipe.schema.json"
BLOCKS = [
    "minecraft:stone_bricks",
    "minecraft:oak_planks",
    "minecraft:spruce_log[axis=y]",
    "minecraft:glass",
    "minecraft:oak_stairs[facing=east,half=bottom]",
    "minecraft:cobblestone",
    "minecraft:quartz_pillar",
]


def pos(x, y, z):
    return {"x": x, "y": y, "z": z}


def random_recipe(rng: random.Random) -> dict:
    """A plausible hand-written recipe: 5-25 shapes, sometimes a repeat, a few hundred blocks."""

    def shape():
        x, y, z = rng.randint(-50, 50), rng.randint(60, 90), rng.randint(-50, 50)
        kind = rng.choice(["box", "box", "line", "cylinder"])
        block = rng.choice(BLOCKS)
        if kind == "box":
            return {
                "type": "box",
                "min": pos(x, y, z),
                "max": pos(x + rng.randint(0, 4), y + rng.randint(0, 3), z + rng.randint(0, 4)),
                "block": block,
                "hollow": rng.random() < 0.3,
            }
        if kind == "line":
            return {
                "type": "line",
                "from": pos(x, y, z),
                "to": pos(x + rng.randint(-8, 8), y + rng.randint(0, 6), z + rng.randint(-8, 8)),
                "block": block,
            }
        return {
            "type": "cylinder",
            "center": pos(x, y, z),
            "radius": rng.randint(0, 4),
            "height": rng.randint(1, 6),
            "block": block,
            "hollow": rng.random() < 0.5,
        }

    operations = [shape() for _ in range(rng.randint(5, 25))]
    if rng.random() < 0.5:
        operations.append(
            {
                "type": "repeat",
                "count": rng.randint(2, 6),
                "offset": pos(rng.randint(0, 6), 0, 0),
                "operations": [shape() for _ in range(rng.randint(1, 4))],
            }
        )
    return {"version": 1, "operations": operations}


def best_of(repeat: int, command: list[str]) -> tuple[float, int]:
    times, code = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        code = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        times.append(time.perf_counter() - start)
    return min(times), code


def break_recipe(value: dict, rng: random.Random) -> dict:
    """One realistic mistake: 5.0 for an integer, an unknown key, or a reversed box."""
    operation = rng.choice(value["operations"])
    mistake = rng.choice(["float", "key", "reversed"])
    if mistake == "float":
        operation["block"] = "minecraft:stone"
        operation.setdefault("min", pos(0, 0, 0))["y"] = 5.0
    elif mistake == "key":
        operation["colour"] = "red"
    else:
        operation.update({"type": "box", "min": pos(5, 0, 0), "max": pos(0, 0, 0), "block": "minecraft:stone"})
        for key in ("from", "to", "center", "radius", "height", "count", "offset", "operations"):
            operation.pop(key, None)
    return value


def bench_lint(files: int, repeat: int, broken_share: float) -> None:
    baseline = shutil.which("check-jsonschema", path=str(BIN)) or shutil.which("check-jsonschema")
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as temp:
        paths = []
        for index in range(files):
            path = Path(temp) / f"recipe-{index:04d}.json"
            value = random_recipe(rng)
            if rng.random() < broken_share:
                value = break_recipe(value, rng)
            path.write_text(json.dumps(value, indent=2))
            paths.append(str(path))
        size = sum(Path(p).stat().st_size for p in paths)
        print(f"lint: {files} recipes ({broken_share:.0%} with a mistake), {size / 1e6:.1f} MB, best of {repeat}")
        mcb_time, mcb_code = best_of(repeat, [str(BIN / "mcb"), "recipe", "lint", "--format", "json", *paths])
        print(
            f"  mcb recipe lint            {mcb_time:7.2f} s  ({1000 * mcb_time / files:.2f} ms/file, exit {mcb_code})"
        )
        if baseline is None:
            print("  check-jsonschema           not installed (pip install check-jsonschema); no ratio")
            return
        base_time, base_code = best_of(
            repeat, [baseline, "--schemafile", str(SCHEMA), "--output-format", "json", *paths]
        )
        print(
            f"  check-jsonschema {_version(baseline):9} {base_time:7.2f} s  "
            f"({1000 * base_time / files:.2f} ms/file, exit {base_code})"
        )
        print(
            f"  ratio check-jsonschema / mcb = {base_time / mcb_time:.2f}x "
            f"({'mcb faster' if mcb_time < base_time else 'mcb slower'})"
        )
        bench_lint_modes([Path(p) for p in paths])


def bench_lint_modes(paths: list[Path]) -> None:
    """In-process per-file cost of mcb's two paths: compiler first (the default) and schema always."""
    from mcb.blocks.registry import load_registry
    from mcb.recipes.lint import RecipeLinter, recipe_validator

    registry = load_registry(None)
    recipe_validator()
    for label, compiler_first in (("compiler first (default)", True), ("jsonschema always", False)):
        linter = RecipeLinter(registry=registry, compiler_first=compiler_first)
        start = time.perf_counter()
        for path in paths:
            linter.lint_file(path)
        elapsed = time.perf_counter() - start
        print(f"  in-process, {label:26} {1000 * elapsed / len(paths):.2f} ms/file")


def _version(command: str) -> str:
    output = subprocess.run([command, "--version"], capture_output=True, text=True).stdout
    return output.strip().rsplit(" ", 1)[-1]


def bench_compile(repeat: int) -> None:
    from mcb.blocks.registry import load_registry
    from mcb.recipes.compile import compile_geometry, compile_recipe

    registry = load_registry(None)
    cube = {
        "version": 1,
        "operations": [
            {"type": "box", "min": pos(0, 64, 0), "max": pos(15, 79, 15), "block": "minecraft:stone_bricks"}
        ],
    }
    mixed = {
        "version": 1,
        "operations": [
            {
                "type": "cylinder",
                "center": pos(0, 64, 0),
                "radius": 12,
                "height": 8,
                "block": "minecraft:stone",
                "hollow": True,
            },
            {
                "type": "repeat",
                "count": 8,
                "offset": pos(0, 1, 0),
                "operations": [
                    {"type": "line", "from": pos(-20, 64, -20), "to": pos(20, 64, 20), "block": "minecraft:oak_planks"},
                    {"type": "box", "min": pos(-10, 64, 22), "max": pos(10, 64, 32), "block": "minecraft:glass"},
                ],
            },
            {"type": "box", "min": pos(-10, 72, -10), "max": pos(10, 72, 10), "block": "minecraft:oak_slab[type=top]"},
            {"type": "cylinder", "center": pos(0, 73, 0), "radius": 3, "height": 5, "block": "minecraft:oak_log"},
        ],
    }
    print(f"compile (median of {max(repeat, 25)} runs, registry warm):")
    for name, value in (("16x16x16 box", cube), ("cylinders, lines, repeat", mixed)):
        compiled = compile_recipe(value, registry)
        for label, call in (
            ("geometry", lambda value=value: compile_geometry(value)),
            ("geometry + canonical states", lambda value=value: compile_recipe(value, registry)),
        ):
            runs = []
            for _ in range(max(repeat, 25)):
                start = time.perf_counter()
                call()
                runs.append(time.perf_counter() - start)
            median = statistics.median(runs) * 1000
            print(
                f"  {name:26} {len(compiled):5} blocks, scan {compiled.scan_used:6}  {label:28} "
                f"{median:6.2f} ms  ({100 / median:.0f}x under the 100 ms target)"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    bench_lint(args.files, args.repeat, 0.0)
    bench_lint(args.files, args.repeat, 0.1)
    bench_compile(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
