"""`mcb mcp` speed: answering initialize against a minimal two-command Typer app's --help (whole processes,
interleaved), block_describe calls per second in one session, and schem_validate of a small corpus file.

Targets (issue 14): initialize within 1.5x the Typer app's --help; >= 500 block_describe calls/s; schem_validate
of a small file < 10 ms. The SDK server (mcp 2.3.0 lowlevel Server on its stdio transport) is timed beside them
as the named alternative that was measured and not taken (docs/mcp.md).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import BIN, ROOT

CORPUS = ROOT.parent / "shared" / "corpus"
INIT = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        }
    )
    + "\n"
)

MINIMAL_APP = Path(__file__).resolve().parent / "minimal_typer_app.py"  # the baseline bench_startup uses too

SDK_SERVER = """
import anyio
import mcp.types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[])

server = Server("sdk", version="0", instructions="x", on_list_tools=list_tools)

async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""


def help_process(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def initialize_process(argv: list[str], cwd: str) -> tuple[float, float]:
    """(seconds until the initialize answer is read, seconds until the process has exited)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
    process.stdin.write(INIT.encode())
    process.stdin.flush()
    line = process.stdout.readline()
    answered = time.perf_counter() - start
    process.stdin.close()
    process.wait()
    assert json.loads(line)["result"]["protocolVersion"] == "2025-06-18"
    return answered, time.perf_counter() - start


class Session:
    def __init__(self, cwd: str) -> None:
        self.process = subprocess.Popen(
            [str(BIN / "mcb"), "mcp", "--no-extensions"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=cwd,
        )
        self.next_id = 1
        self.request("initialize", json.loads(INIT)["params"])

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n"
        self.process.stdin.write(line.encode())
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def call(self, name: str, arguments: dict) -> dict:
        result = self.request("tools/call", {"name": name, "arguments": arguments})["result"]
        assert result["isError"] is False, result
        return result

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def main() -> None:
    repeats = int(os.environ.get("BENCH_REPEATS", "9"))
    with tempfile.TemporaryDirectory() as tmp:
        typer_app = MINIMAL_APP
        sdk = Path(tmp) / "sdk_server.py"
        sdk.write_text(SDK_SERVER)
        runs: dict[str, list[float]] = {
            "minimal typer app --help": [],
            "mcb mcp: initialize answered": [],
            "mcb mcp: initialize, then exit": [],
            "SDK server: initialize answered": [],
        }
        for index in range(repeats + 1):  # interleaved; the first round warms caches and is dropped
            typer_time = help_process([sys.executable, str(typer_app), "--help"])
            mcb_answer, mcb_exit = initialize_process([str(BIN / "mcb"), "mcp", "--no-extensions"], tmp)
            sdk_answer, _ = initialize_process([sys.executable, str(sdk)], tmp)
            if index:
                runs["minimal typer app --help"].append(typer_time)
                runs["mcb mcp: initialize answered"].append(mcb_answer)
                runs["mcb mcp: initialize, then exit"].append(mcb_exit)
                runs["SDK server: initialize answered"].append(sdk_answer)
        medians = {name: statistics.median(values) for name, values in runs.items()}
        base = medians["minimal typer app --help"]
        print(f"\n## start-up (whole processes, interleaved, median of {repeats})")
        for name, value in medians.items():
            print(f"  {name:<36} {value * 1000:8.1f} ms   {value / base:5.2f}x minimal typer app --help")
        print(
            f"  target: mcb mcp initialize answered <= 1.5x "
            f"({'met' if medians['mcb mcp: initialize answered'] <= 1.5 * base else 'NOT met'})"
        )

        shutil.copy(CORPUS / "v2_nucleation_and.schem", Path(tmp) / "and.schem")
        session = Session(tmp)
        try:
            session.call("block_describe", {"block_id": "minecraft:stone"})  # warm the registry once
            rates = []
            for _ in range(3):
                start = time.perf_counter()
                for index in range(1000):
                    session.call(
                        "block_describe", {"block_id": "minecraft:oak_stairs" if index % 2 else "minecraft:stone"}
                    )
                rates.append(1000 / (time.perf_counter() - start))
            session.call("schem_validate", {"paths": ["and.schem"]})
            latencies = []
            for _ in range(50):
                start = time.perf_counter()
                session.call("schem_validate", {"paths": ["and.schem"]})
                latencies.append(time.perf_counter() - start)
        finally:
            session.close()
        print("\n## one session (round trips over stdio, one call at a time)")
        print(
            f"  block_describe x1000: median {statistics.median(rates):7.0f} calls/s over 3 runs "
            f"(target >= 500: {'met' if statistics.median(rates) >= 500 else 'NOT met'})"
        )
        print(
            f"  schem_validate v2_nucleation_and.schem (538 B inflated): median "
            f"{statistics.median(latencies) * 1000:.2f} ms of 50 (target < 10 ms: "
            f"{'met' if statistics.median(latencies) < 0.010 else 'NOT met'})"
        )


if __name__ == "__main__":
    main()
