"""Benchmark the local reference server over real HTTP on loopback.

    .venv/bin/python benchmarks/bench_server.py [--seconds 3]

Figures: build_prepare of a 4096-block recipe; build_apply of 4096 blocks end to end with --tick-ms 0;
project_context requests/second with 8 concurrent clients. Baseline: the plugin's nominal write rate from protocol
§15.15 (128 blocks per 2-3 ticks of 50 ms, i.e. about 1024 blocks/s at 2.5 ticks).

Hostile clients (issue 13): the time to refuse the worst numeric strings, in process (loose_int) and over HTTP,
each against the same call with "5" measured interleaved; and the most threads `mcb serve` holds under 1,000 idle
plus 50 dribbling connections (loopback only, bounded), against its count after one request.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx
from _timing import rpc_call

from mcb.server.testing import spawn_server

PLUGIN_BLOCKS_PER_SECOND = 128 / (2.5 * 0.050)
RECIPE = {
    "version": 1,
    "operations": [
        {
            "type": "box",
            "min": {"x": -32, "y": 70, "z": -32},
            "max": {"x": 31, "y": 73, "z": -17},
            "block": "minecraft:stone_bricks",
        }
    ],
}


call = rpc_call


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0, help="duration of the project_context load phase")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # A separate `mcb serve` process, so the clients' threads do not share the server's interpreter lock.
        server = spawn_server(Path(tmp) / "bench", tick_ms=0, test_hooks=False)
        try:
            prepare_s, apply_s, rps = measure(server, args.seconds)
        finally:
            server.stop()
    rate = 4096 / apply_s
    print(f"build_prepare 4096 blocks      : {prepare_s * 1000:8.1f} ms (median of 5)")
    print(
        f"build_apply 4096 blocks, tick 0: {apply_s * 1000:8.1f} ms end to end "
        f"({rate:,.0f} blocks/s; {rate / PLUGIN_BLOCKS_PER_SECOND:.1f}x the plugin's nominal "
        f"{PLUGIN_BLOCKS_PER_SECOND:,.0f} blocks/s)"
    )
    print(f"project_context, 8 clients     : {rps:8.0f} requests/s over {args.seconds:.0f} s")
    hostile_numbers()
    with tempfile.TemporaryDirectory() as tmp:
        server = spawn_server(Path(tmp) / "threads", tick_ms=5, test_hooks=False, extra_args=("--head-timeout", "60"))
        try:
            held_connections(server, idle=1000, dribbling=50, seconds=5.0)
        finally:
            server.stop()


WORST = {
    "1e1000000": "1e1000000",
    "1e999999999999999999": "1e999999999999999999",
    "9 x 10,000": "9" * 10_000,
    "9 x 1,000,000": "9" * 1_000_000,
    "0.(100k zeros)1": "0." + "0" * 100_000 + "1",
}


def _median_call(function, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def hostile_numbers() -> None:
    from mcb.server.errors import RpcError
    from mcb.server.params import loose_int

    def refuse(text):
        try:
            loose_int(text, "m")
        except RpcError:
            return
        raise AssertionError(text)

    print('refusing a loose integer, in process (median of 200, interleaved with the baseline "5"):')
    for label, text in WORST.items():
        worst, base = [], []
        for _ in range(200):
            worst.append(_median_call(lambda text=text: refuse(text), 1))
            base.append(_median_call(lambda: loose_int("5", "m"), 1))
        print(
            f"  {label:<22}: {statistics.median(worst) * 1e6:8.1f} us  "
            f'({statistics.median(worst) / statistics.median(base):5.1f}x accepting "5")'
        )
    with tempfile.TemporaryDirectory() as tmp:
        # tick 0: at a real tick both reads would wait for the same ticks and hide the cost of refusing
        server = spawn_server(Path(tmp) / "numbers", tick_ms=0, test_hooks=False)
        try:
            headers = {"Authorization": f"Bearer {server.agent_token}"}
            with httpx.Client(base_url=server.url, timeout=60, headers=headers) as client:

                def inspect(x):
                    params = {
                        "player_id": "console",
                        "min": {"x": x, "y": 60, "z": 0},
                        "max": {"x": 1, "y": 60, "z": 0},
                    }
                    return client.post("/v1/rpc", content=json.dumps({"method": "region_inspect", "params": params}))

                inspect("0")
                print('region_inspect min.x over HTTP (median of 50, interleaved with min.x "0"):')
                for label, text in WORST.items():
                    worst, base = [], []
                    for _ in range(50):
                        start = time.perf_counter()
                        answer = inspect(text)
                        worst.append(time.perf_counter() - start)
                        assert answer.status_code == 400, answer.text[:200]
                        start = time.perf_counter()
                        assert inspect("0").status_code == 200
                        base.append(time.perf_counter() - start)
                    print(
                        f"  {label:<22}: {statistics.median(worst) * 1000:8.2f} ms  (max {max(worst) * 1000:.2f} ms; "
                        f"{statistics.median(worst) / statistics.median(base):5.2f}x a valid read)"
                    )
        finally:
            server.stop()


def _threads(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return -1


def held_connections(server, *, idle: int, dribbling: int, seconds: float) -> None:
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    address = (host, int(port))
    headers = {"Authorization": f"Bearer {server.agent_token}"}
    body = {"method": "project_context", "params": {"player_id": "console"}}
    probe = httpx.Client(base_url=server.url, timeout=30)
    assert probe.post("/v1/rpc", json=body, headers=headers).status_code == 200
    after_one = _threads(server.process.pid)
    quiet = []
    for _ in range(50):
        start = time.perf_counter()
        assert probe.get("/health").status_code == 200
        quiet.append(time.perf_counter() - start)
    head = (f"POST /v1/rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {server.agent_token}\r\n").encode() * 100
    sockets = [socket.create_connection(address, timeout=10) for _ in range(idle)]
    dribblers = [socket.create_connection(address, timeout=10) for _ in range(dribbling)]
    most, health = after_one, []
    stop_at = time.monotonic() + seconds
    index = 0
    try:
        while time.monotonic() < stop_at:  # bounded by time and by the head's length
            for sock in dribblers:
                sock.send(head[index : index + 1])
            index += 1
            start = time.perf_counter()
            assert probe.get("/health").status_code == 200
            health.append(time.perf_counter() - start)
            most = max(most, _threads(server.process.pid))
            time.sleep(0.05)
        served = probe.post("/v1/rpc", json=body, headers=headers).status_code == 200
    finally:
        for sock in sockets + dribblers:
            sock.close()
        probe.close()
    print(
        f"threads of mcb serve, {idle} idle + {dribbling} dribbling connections: at most {most} "
        f"(after one request: {after_one}); /health median {statistics.median(health) * 1000:.2f} ms "
        f"({statistics.median(health) / statistics.median(quiet):.2f}x with no other connection), "
        f"max {max(health) * 1000:.2f} ms; a request served meanwhile: {served}"
    )


def measure(server, seconds: float) -> tuple[float, float, float]:
    token = server.agent_token
    with httpx.Client(base_url=server.url, timeout=60) as client:
        call(client, token, "project_context")  # warm-up (imports, registry)
        prepare_times, plans = [], []
        for _ in range(5):
            start = time.perf_counter()
            plans.append(call(client, token, "build_prepare", recipe=RECIPE))
            prepare_times.append(time.perf_counter() - start)
        prepare_s = statistics.median(prepare_times)
        plan = plans[-1]
        start = time.perf_counter()
        op = call(
            client, token, "build_apply", plan_id=plan["plan_id"], plan_hash=plan["plan_hash"], idempotency_key="bench"
        )["operation_id"]
        while (status := call(client, token, "operation_status", operation_id=op))["status"] in ("queued", "applying"):
            time.sleep(0.002)
        apply_s = time.perf_counter() - start
        assert status["status"] == "applied" and status["written"] == 4096, status

    counts = [0] * 8
    stop_at = time.perf_counter() + seconds

    def worker(index: int) -> None:
        with httpx.Client(base_url=server.url, timeout=30) as own:
            while time.perf_counter() < stop_at:
                call(own, token, "project_context")
                counts[index] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    begin = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rps = sum(counts) / (time.perf_counter() - begin)
    return prepare_s, apply_s, rps


if __name__ == "__main__":
    main()
