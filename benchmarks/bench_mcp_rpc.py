"""Benchmark what the MCP layer adds to one RPC call, against a real `mcb serve` (subprocess, loopback HTTP).

    .venv/bin/python benchmarks/bench_mcp_rpc.py [--rounds 7] [--calls 50]

One figure, three ways of sending the same `operation_status` for an applied operation, interleaved in rounds so
machine noise hits all alike (median per call over the rounds):
- baseline: McbClient.operation_status in this process (keep-alive HTTP, typed result);
- the catalog action run directly (argument check + adapter + follow_up), no MCP face;
- a tools/call through `mcb mcp` over stdio with the official SDK's ClientSession (JSON-RPC framing both ways).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _timing  # noqa: E402  (compiles mcb's bytecode first)
import anyio  # noqa: E402

from mcb.client import McbClient  # noqa: E402
from mcb.mcp.arguments import parse_arguments  # noqa: E402
from mcb.mcp.tools.rpc import RPC_ACTIONS  # noqa: E402
from mcb.server.testing import spawn_server  # noqa: E402


class _Ctx:
    def __init__(self, client):
        self._client = client

    def client(self):
        return self._client

    def progress(self, *args, **kwargs):
        pass

    def check_cancelled(self):
        pass

    def created(self, path):
        pass


def per_call(fn, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - started) / calls


async def session_rounds(server, operation: str, rounds: int, calls: int) -> dict[str, list[float]]:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {k: v for k, v in os.environ.items() if k.startswith("XDG_")}
    env.update({"MCB_SERVER": server.url, "MCB_AGENT_TOKEN": server.agent_token, "MCB_PLAYER_ID": "console"})
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcb", "mcp"], env=env)
    action = next(a for a in RPC_ACTIONS if a.name == "operation_status")
    arguments = {"operation_id": operation}
    samples: dict[str, list[float]] = {
        "McbClient.operation_status": [],
        "action.run (no face)": [],
        "tools/call via mcb mcp (SDK, stdio)": [],
    }
    with (
        McbClient(server.url, agent_token=server.agent_token, player_id="console") as client,
        open(os.devnull, "w") as errlog,
    ):
        ctx = _Ctx(client)
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool("operation_status", arguments)  # warm-up
                for _ in range(rounds):
                    samples["McbClient.operation_status"].append(
                        per_call(lambda: client.operation_status(operation), calls)
                    )
                    samples["action.run (no face)"].append(
                        per_call(lambda: action.run(parse_arguments(action, arguments, root=None), ctx), calls)
                    )
                    started = time.perf_counter()
                    for _ in range(calls):
                        result = await session.call_tool("operation_status", arguments)
                        assert result.is_error is False
                    samples["tools/call via mcb mcp (SDK, stdio)"].append((time.perf_counter() - started) / calls)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=50)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        server = spawn_server(Path(work) / "srv", tick_ms=0)
        try:
            with McbClient(server.url, agent_token=server.agent_token, player_id="console") as client:
                recipe = {
                    "version": 1,
                    "operations": [
                        {
                            "type": "box",
                            "min": {"x": 0, "y": 100, "z": 0},
                            "max": {"x": 3, "y": 103, "z": 3},
                            "block": "minecraft:stone",
                        }
                    ],
                }
                operation = _timing.apply_recipe(client, recipe).operation_id
            samples = anyio.run(session_rounds, server, operation, options.rounds, options.calls)
        finally:
            server.stop()
    medians = {name: statistics.median(values) for name, values in samples.items()}
    base = medians["McbClient.operation_status"]
    print(
        f"\n## one operation_status call, median per call over {options.rounds} interleaved rounds of {options.calls}"
    )
    for name, value in medians.items():
        print(f"  {name:<40} {value * 1000:8.2f} ms   {value / base:5.2f}x McbClient.operation_status")
    return 0


if __name__ == "__main__":
    sys.exit(main())
