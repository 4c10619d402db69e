"""Every speed trick mcb keeps, measured with and without it in one run (a trick without a "without" row goes).

    .venv/bin/python benchmarks/bench_tricks.py [--repeats N]

1. ``gc_paused`` (mcb.schematics.nbt): the cyclic collector paused while a big acyclic tree is read; the 256^3
   Sponge file read into the model (`read_any`), with and without it.
2. ``mcb serve``'s request parsing (mcb.server.http._loads): the C JSON parser's own ints unless the text holds a
   ``-0`` or a too-long integer, against the Python call per integer it falls back to, on a 4,096-position
   build_prepare request (the boxes and expected_blocks of one plan).
3. ``gc.freeze`` at exit (mcb.console) is measured in bench_startup.py ("without gc.freeze").
4. The reader's memory of compounds of plain values and lists of them (mcb.schematics.nbt_memos: a repeat is a copy
   of what was built, not walked again); the 256^3 Sponge file read into the model, with and without it.
5. ``EncodingMemo`` looking into lists of compounds (mcb.schematics.nbt_encoder: equal inventories that are separate
   lists encoded once); the 256^3 Sponge file written as Sponge v2, with and without it.

Medians of interleaved runs in one process, CPU seconds (time.process_time).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time

from _timing import ROOT

sys.path.insert(0, str(ROOT / "cli"))
LARGE = ROOT.parent / "shared" / "corpus" / "v2_nucleation_large_schematic.schem"


def cpu(function) -> float:
    started = time.process_time()
    function()
    return time.process_time() - started


@contextlib.contextmanager
def _not_paused():
    yield


def interleaved(runs: dict, repeats: int) -> dict:
    seconds: dict = {name: [] for name in runs}
    for _ in range(repeats):
        for name, function in runs.items():
            seconds[name].append(cpu(function))
    return {name: statistics.median(values) for name, values in seconds.items()}


def gc_pause(repeats: int) -> None:
    import mcb.schematics.nbt as nbt
    from mcb.schematics.formats import read_any

    paused = nbt.gc_paused

    def read_with():
        read_any(LARGE)

    def read_without():
        nbt.gc_paused = _not_paused  # the readers look the helper up when they run
        try:
            read_any(LARGE)
        finally:
            nbt.gc_paused = paused

    medians = interleaved({"with": read_with, "without": read_without}, repeats)
    kept, plain = medians["with"], medians["without"]
    print("gc_paused around big reads, the 256^3 Sponge file read into the model (CPU, medians):")
    print(f"  with {kept:6.2f} s   without {plain:6.2f} s   = {kept / plain:.2f}x (kept while < 1)")


def reader_memos(repeats: int) -> None:
    import mcb.schematics.nbt_memos as memos
    from mcb.schematics.formats import read_any

    remembered = memos._LEAVES

    def read_without():
        memos._LEAVES = 0  # nothing remembered: every compound walked
        try:
            read_any(LARGE)
        finally:
            memos._LEAVES = remembered

    medians = interleaved({"with": lambda: read_any(LARGE), "without": read_without}, repeats)
    kept, plain = medians["with"], medians["without"]
    print("the reader's memory of repeated compounds and lists, the 256^3 Sponge file read into the model (CPU):")
    print(f"  with {kept:6.2f} s   without {plain:6.2f} s   = {kept / plain:.2f}x (kept while < 1)")


def encoding_memo(repeats: int) -> None:
    import mcb.schematics.nbt_encoder as encoder
    from mcb.schematics.formats import encode_any, read_any

    schem = read_any(LARGE)
    looked_into = encoder.EncodingMemo.__dict__["_looked_into"]  # the staticmethod itself

    def write_without():
        encoder.EncodingMemo._looked_into = staticmethod(lambda data: [object()])  # a key nothing else has
        try:
            encode_any(schem, "sponge2")
        finally:
            encoder.EncodingMemo._looked_into = looked_into

    medians = interleaved({"with": lambda: encode_any(schem, "sponge2"), "without": write_without}, repeats)
    kept, plain = medians["with"], medians["without"]
    print("EncodingMemo looking into lists of compounds, the 256^3 Sponge file written as Sponge v2 (CPU, medians):")
    print(f"  with {kept:6.2f} s   without {plain:6.2f} s   = {kept / plain:.2f}x (kept while < 1)")


def request_parsing(repeats: int) -> None:
    from mcb.server.http import _parse_int
    from mcb.terrain.jsontext import LiteralFloat

    boxes = [{"type": "box", "min": {"x": x, "y": 64 + y, "z": z}, "max": {"x": x, "y": 64 + y, "z": z},
              "block": "minecraft:stone"} for y in range(16) for z in range(16) for x in range(16)]  # fmt: skip
    expected = [{"pos": b["min"], "state": "minecraft:air"} for b in boxes]
    text = json.dumps({"method": "build_prepare", "params": {"recipe": {"version": 1, "operations": boxes},
                       "expected_blocks": expected, "player_id": "console"}, "requestId": "r"})  # fmt: skip
    from mcb.server.http import _loads

    medians = interleaved(
        {
            "mcb serve's _loads": lambda: [_loads(text) for _ in range(10)],
            "without (a Python call per integer)": lambda: [
                json.loads(text, parse_float=LiteralFloat, parse_int=_parse_int) for _ in range(10)
            ],
        },
        repeats,
    )
    kept, plain = medians["mcb serve's _loads"], medians["without (a Python call per integer)"]
    print(f"mcb serve parsing a 4,096-position build_prepare request ({len(text):,} bytes, CPU per request):")
    print(f"  with {kept / 10 * 1000:6.1f} ms   without {plain / 10 * 1000:6.1f} ms   = {kept / plain:.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    gc_pause(args.repeats)
    reader_memos(args.repeats)
    encoding_memo(args.repeats)
    request_parsing(args.repeats * 4)
    return 0


if __name__ == "__main__":
    sys.exit(main())
