"""Drive `mcb mcp` from tests: raw lines over a subprocess's stdio, or the official SDK's ClientSession."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

LEGACY_INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tests", "version": "1"}}
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


class McpProcess:
    """`python -m mcb mcp ARGS` with line access to stdout; stderr is collected for the end."""

    def __init__(self, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mcb", "mcp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
            cwd=cwd,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.raw: list[bytes] = []
        self._stderr: list[bytes] = []
        self._next_id = 1000
        self._threads = [
            threading.Thread(target=self._pump, daemon=True),
            threading.Thread(target=self._pump_err, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.raw.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def _pump_err(self) -> None:
        for line in self.proc.stderr:
            self._stderr.append(line)

    def write(self, data: bytes | str | dict) -> None:
        if isinstance(data, dict):
            data = json.dumps(data) + "\n"
        if isinstance(data, str):
            data = data.encode("utf-8")
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def recv(self, timeout: float = 10.0) -> dict | None:
        """The next stdout message, or None at EOF; fails the test after ``timeout`` seconds."""
        line = self.lines.get(timeout=timeout)
        return None if line is None else json.loads(line)

    def silent(self, seconds: float = 0.3) -> bool:
        """True when nothing arrives on stdout within ``seconds``."""
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            return True
        self.lines.put(line)  # keep it for the caller's next recv
        return False

    def request(self, method: str, params: Any = None, *, id: Any = None, timeout: float = 30.0) -> dict:
        """Send a request and return its response; notifications seen meanwhile land in ``self.notes``."""
        if id is None:
            self._next_id += 1
            id = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        self.write(message)
        return self.wait_for(id, timeout=timeout)

    notes: list[dict]

    def wait_for(self, id: Any, timeout: float = 30.0) -> dict:
        self.__dict__.setdefault("notes", [])
        deadline = time.monotonic() + timeout
        while True:
            message = self.recv(timeout=max(0.01, deadline - time.monotonic()))
            assert message is not None, f"stdout closed before the answer to {id!r}; stderr: {self.stderr()}"
            if "id" in message and message["id"] == id and type(message["id"]) is type(id):
                return message
            self.notes.append(message)

    def initialize(self, version: str = "2025-06-18") -> dict:
        response = self.request("initialize", {**LEGACY_INIT, "protocolVersion": version})
        self.write({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return response

    def call(self, name: str, arguments: dict | None = None, **kwargs) -> dict:
        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        return self.request("tools/call", params, **kwargs)

    def close(self, timeout: float = 30.0) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        status = self.proc.wait(timeout=timeout)
        for thread in self._threads:
            thread.join(timeout=5)
        return status

    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


def sdk_params(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None):
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(
        command=sys.executable, args=["-m", "mcb", "mcp", *args], env={**os.environ, **(env or {})}, cwd=cwd
    )


def run_sdk(body, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, errlog=None):
    """Run ``await body(session)`` on an initialized SDK ClientSession talking to `mcb mcp ARGS`."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    async def main():
        async with stdio_client(sdk_params(*args, env=env, cwd=cwd), errlog=errlog or sys.stderr) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await body(session)

    return anyio.run(main)


def structured(result) -> dict:
    """structuredContent of an SDK CallToolResult, checked against its text copy (MCP-37)."""
    data = result.structured_content
    assert result.content[0].type == "text"
    assert json.loads(result.content[0].text) == data
    return data


def refusal_of(error: dict) -> dict:
    """A refusal's error object, checked to be MCP-32's shape ``{code, message, data}`` with a remedy sentence in
    ``data``; returned as one view (code, message and data's keys) for the assertions that follow."""
    assert set(error) == {"code", "message", "data"}, error
    assert isinstance(error["data"], dict) and error["data"].get("remedy"), error
    return {"code": error["code"], "message": error["message"], **error["data"]}
