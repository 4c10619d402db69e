"""RPC client helpers shared by the server tests (real HTTP via httpx)."""

from __future__ import annotations

import ssl
import time

import httpx

TERMINAL = {"applied", "conflict", "cancelled", "failed", "recovery_required"}
# The TLS settings every test client shares: httpx otherwise builds a context per client (~20 ms, it loads the CA
# bundle), and these clients only ever speak plain HTTP to a server on loopback.
TLS = ssl.create_default_context()


class Rpc:
    """Talks to a server over real HTTP. ``call`` returns the result or fails the test; ``error`` returns
    (http_status, code, message) and fails the test on success."""

    def __init__(self, handle, token: str = "agent"):
        self.handle = handle
        self.token = handle.agent_token if token == "agent" else handle.admin_token
        self.client = httpx.Client(base_url=handle.url, timeout=30, verify=TLS)

    def close(self):
        self.client.close()

    def post(self, method, params=None, *, token=None, headers=None) -> httpx.Response:
        body = {"method": method, "params": params if params is not None else {}, "requestId": "t"}
        head = {"Authorization": f"Bearer {token or self.token}"}
        head.update(headers or {})
        return self.client.post("/v1/rpc", json=body, headers=head)

    def _params(self, params):
        params = dict(params)
        params.setdefault("player_id", "console")
        return params

    def call(self, method, *, token=None, retry_busy=True, **params):
        for _ in range(200):
            response = self.post(method, self._params(params), token=token)
            body = response.json()
            if body.get("ok"):
                assert response.status_code == 200
                return body["result"]
            code, message = body["error"]["code"], body["error"]["message"]
            if retry_busy and (code == "busy" or message.startswith("busy:")):
                time.sleep(0.01)
                continue
            raise AssertionError(f"{method} failed: {response.status_code} {code}: {message}")
        raise AssertionError(f"{method} stayed busy")

    def error(self, method, *, token=None, retry_busy=True, **params):
        for _ in range(200):
            response = self.post(method, self._params(params), token=token)
            body = response.json()
            assert body.get("ok") is False, f"{method} unexpectedly succeeded: {body}"
            code, message = body["error"]["code"], body["error"]["message"]
            if retry_busy and code == "busy" and method not in ("part_define",):
                time.sleep(0.01)
                continue
            assert set(body) == {"ok", "error"} and set(body["error"]) == {"code", "message"}
            return response.status_code, code, message
        raise AssertionError(f"{method} stayed busy")

    def admin(self, method, **params):
        return self.call(method, token=self.handle.admin_token, **params)

    def wait(self, operation_id, timeout=30.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            status = self.call("operation_status", operation_id=operation_id)
            if status["status"] in TERMINAL:
                return status
            if time.monotonic() > deadline:
                raise AssertionError(f"operation still {status['status']}: {status}")
            time.sleep(0.01)

    def prepare(self, operations, **extra) -> dict:
        return self.call("build_prepare", recipe={"version": 1, "operations": operations}, **extra)

    def apply(self, plan, key) -> dict:
        return self.call("build_apply", plan_id=plan["plan_id"], plan_hash=plan["plan_hash"], idempotency_key=key)

    def build(self, operations, key, **extra) -> dict:
        """Prepare, apply and wait; returns the terminal status."""
        plan = self.prepare(operations, **extra)
        return self.wait(self.apply(plan, key)["operation_id"])

    def inspect_blocks(self, low, high) -> dict:
        result = self.call("region_inspect", min=pos(*low), max=pos(*high), detail="blocks")
        return {(b["pos"]["x"], b["pos"]["y"], b["pos"]["z"]): b["state"] for b in result["blocks"]}

    def step_until(self, operation_id, message, steps: int = 10) -> dict:
        """With the apply held (``test_hold_apply``): let the engine through one step at a time until the status
        message is ``message``; returns that status. Each step runs in the hook's tick, before the status read."""
        for _ in range(steps):
            self.admin("test_hold_apply", held=True, steps=1)
            status = self.call("operation_status", operation_id=operation_id)
            if status["message"] == message:
                return status
            assert status["status"] in ("queued", "applying"), status
        raise AssertionError(f"never saw {message!r}")

    def set_blocks(self, *pairs):
        return self.admin("test_set_blocks", blocks=[{"pos": pos(*p), "state": s} for p, s in pairs])


def pos(x, y, z) -> dict:
    return {"x": x, "y": y, "z": z}


def box(low, high, block, **extra) -> dict:
    return {"type": "box", "min": pos(*low), "max": pos(*high), "block": block, **extra}
