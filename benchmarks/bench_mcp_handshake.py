"""`mcb mcp`'s handshake against `mcb --version`: whole processes, run interleaved, medians.

    .venv/bin/python benchmarks/bench_mcp_handshake.py [--repeats 15] [--tree DIR ...]

Rows: `mcb --version` (the baseline: mcb's own start-up), `mcb mcp` until its `initialize` answer is read, and
until the first `tools/list` answer is read (the tool table built: ~30 pydantic models and their schemas). Issue
21 measured 256 ms = 2.6x for initialize, then +158 ms for tools/list; the target is to keep it from growing, with
nothing bought by tricks (a client does this once per session). ``--tree DIR`` adds the same rows for another
checkout's ``cli`` folder (put first on the path), all interleaved in one run, so two versions compare under the
same load.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _timing  # noqa: E402,F401  (compiles mcb's bytecode)

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def mcb(tree: str | None) -> list[str]:
    prefix = f"import sys; sys.path.insert(0, {tree!r}); " if tree else "import sys; "
    return [sys.executable, "-c", prefix + "from mcb.console import main; sys.exit(main())"]


def version(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([*argv, "--version"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def handshake(argv: list[str], cwd: str) -> tuple[float, float]:
    """(seconds until the initialize answer is read, seconds until the first tools/list answer is read)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [*argv, "mcp", "--no-extensions"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
    )
    process.stdin.write((json.dumps(INIT) + "\n").encode())
    process.stdin.flush()
    assert json.loads(process.stdout.readline())["result"]["protocolVersion"] == "2025-11-25"
    initialized = time.perf_counter() - start
    process.stdin.write((json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n").encode())
    process.stdin.write((json.dumps(LIST) + "\n").encode())
    process.stdin.flush()
    assert len(json.loads(process.stdout.readline())["result"]["tools"]) >= 31
    listed = time.perf_counter() - start
    process.stdin.close()
    process.wait()
    return initialized, listed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--tree", action="append", default=[], help="another checkout's cli folder")
    options = parser.parse_args()
    trees = [None, *options.tree]
    samples: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as cwd:
        for index in range(options.repeats + 1):  # interleaved; the first round warms caches and is dropped
            for tree in trees:
                label = "" if tree is None else f" [{tree}]"
                argv = mcb(tree)
                base = version(argv)
                initialized, listed = handshake(argv, cwd)
                if index:
                    samples.setdefault(f"mcb --version{label}", []).append(base)
                    samples.setdefault(f"mcb mcp: initialize answered{label}", []).append(initialized)
                    samples.setdefault(f"mcb mcp: first tools/list answered{label}", []).append(listed)
    medians = {name: statistics.median(values) for name, values in samples.items()}
    print(f"\n## mcb mcp handshake (whole processes, interleaved, median of {options.repeats})")
    for tree in trees:
        label = "" if tree is None else f" [{tree}]"
        base = medians[f"mcb --version{label}"]
        for name in (
            f"mcb --version{label}",
            f"mcb mcp: initialize answered{label}",
            f"mcb mcp: first tools/list answered{label}",
        ):
            print(f"  {name:<60} {medians[name] * 1000:8.1f} ms   {medians[name] / base:5.2f}x mcb --version")
        extra = medians[f"mcb mcp: first tools/list answered{label}"] - medians[f"mcb mcp: initialize answered{label}"]
        print(f"  {'tools/list after initialize' + label:<60} {extra * 1000:+8.1f} ms")


if __name__ == "__main__":
    main()
