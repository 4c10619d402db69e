"""Shared helpers of the peripheral server tests: an RPC client over real HTTP, and a tiny NBT reader/writer
written independently of the project's codec (so schematic tests do not lean on the code they check)."""

from __future__ import annotations

import gzip
import struct
import time
import uuid

import httpx
import pytest
from server_rpc import TLS

from mcb.server.testing import run_server


# -- a tiny independent NBT reader/writer -------------------------------------------------------------------------
def read_nbt(data: bytes):
    """(root name, [(name, tag id, value)...]) with compounds as ordered lists; lists as (subtype, [values])."""
    raw, pos = gzip.decompress(data), 0

    def take(n):
        nonlocal pos
        pos += n
        return raw[pos - n : pos]

    def string():
        return take(struct.unpack(">H", take(2))[0]).decode("utf-8")

    def payload(tag):
        if tag in (1, 2, 3, 4):
            size = {1: 1, 2: 2, 3: 4, 4: 8}[tag]
            return int.from_bytes(take(size), "big", signed=True)
        if tag == 7:
            return take(struct.unpack(">i", take(4))[0])
        if tag == 8:
            return string()
        if tag == 9:
            subtype, count = take(1)[0], struct.unpack(">i", take(4))[0]
            return subtype, [payload(subtype) for _ in range(count)]
        if tag == 10:
            entries = []
            while (child := take(1)[0]) != 0:
                name = string()
                entries.append((name, child, payload(child)))
            return entries
        if tag == 11:
            count = struct.unpack(">i", take(4))[0]
            return list(struct.unpack(f">{count}i", take(4 * count)))
        raise AssertionError(f"unexpected tag {tag}")

    assert take(1)[0] == 10
    name = string()
    root = payload(10)
    assert pos == len(raw)
    return name, root


def varints(data: bytes) -> list[int]:
    values, value, shift = [], 0, 0
    for byte in data:
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            values.append(value)
            value, shift = 0, 0
    assert shift == 0
    return values


def tag(tag_id, value):
    return (tag_id, value)


def encode(tag_id, value) -> bytes:
    if tag_id in (1, 2, 3, 4):
        return value.to_bytes({1: 1, 2: 2, 3: 4, 4: 8}[tag_id], "big", signed=True)
    if tag_id == 7:
        return struct.pack(">i", len(value)) + value
    if tag_id == 8:
        raw = value.encode()
        return struct.pack(">H", len(raw)) + raw
    if tag_id == 9:
        subtype, items = value
        return bytes([subtype]) + struct.pack(">i", len(items)) + b"".join(encode(subtype, i) for i in items)
    if tag_id == 10:  # a list of (name, (tag, value)) pairs: duplicates are possible on purpose
        return b"".join(bytes([t]) + encode(8, n)[0:] + encode(t, v) for n, (t, v) in value) + b"\0"
    if tag_id == 11:
        return struct.pack(">i", len(value)) + struct.pack(f">{len(value)}i", *value)
    raise AssertionError(tag_id)


def sponge(
    palette: dict,
    cells: list[int],
    size=(1, 1, 1),
    *,
    version=2,
    data_version=4903,
    offset=(0, 0, 0),
    name=None,
    extra=(),
    drop=(),
    block_entities=(),
    entities=(),
) -> bytes:
    def varint(n):
        out = b""
        while True:
            if n < 0x80:
                return out + bytes([n])
            out += bytes([n & 0x7F | 0x80])
            n >>= 7

    fields = [
        ("Version", tag(3, version)),
        ("DataVersion", tag(3, data_version)),
        ("Width", tag(2, size[0])),
        ("Height", tag(2, size[1])),
        ("Length", tag(2, size[2])),
        ("Offset", tag(11, list(offset))),
        ("PaletteMax", tag(3, len(palette))),
        ("Palette", tag(10, [(k, tag(3, v)) for k, v in palette.items()])),
        ("BlockData", tag(7, b"".join(varint(c) for c in cells))),
        ("BlockEntities", tag(9, (10, list(block_entities)))),
        ("Entities", tag(9, (10, list(entities)))),
    ]
    if name is not None:
        fields.append(("Metadata", tag(10, [("Name", tag(8, name))])))
    fields = [f for f in fields if f[0] not in drop] + list(extra)
    return gzip.compress(b"\x0a" + encode(8, "Schematic") + encode(10, fields))


# -- client -------------------------------------------------------------------------------------------------------
class Rpc:
    """An RPC client on one server; ``ok``/``error`` retry the journal latch like every client must (§1.7)."""

    def __init__(self, server):
        self.server = server
        self.client = httpx.Client(timeout=30, verify=TLS)
        self.library = server.data_dir / "schematics"

    def close(self):
        self.client.close()

    def raw(self, method, params=None, *, admin=False, scope=True):
        body = dict(params or {})
        if scope:
            body.setdefault("player_id", self.server.owner_uuid)
        token = self.server.admin_token if admin else self.server.agent_token
        for _ in range(200):
            response = self.client.post(
                self.server.url + "/v1/rpc",
                json={"method": method, "params": body},
                headers={"Authorization": f"Bearer {token}"},
            )
            if response.json().get("error", {}).get("message") != "A journal step is in progress; retry":
                break
            time.sleep(0.01)
        return response.status_code, response.json()

    def ok(self, method, params=None, **kw):
        status, body = self.raw(method, params, **kw)
        assert status == 200 and body["ok"], body
        return body["result"]

    def error(self, method, params=None, **kw):
        status, body = self.raw(method, params, **kw)
        assert not body["ok"], body
        assert status == (403 if body["error"]["code"] == "permission_denied" else 400)
        return body["error"]["code"], body["error"]["message"]

    def apply(self, plan):
        op = self.ok(
            "build_apply",
            {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"], "idempotency_key": str(uuid.uuid4())},
        )
        op = self.wait(op["operation_id"])
        assert op["status"] == "applied", op
        return op

    def place(self, blocks: dict):
        ops = [{"type": "box", "min": P(pos), "max": P(pos), "block": state} for pos, state in blocks.items()]
        return self.apply(self.ok("build_prepare", {"recipe": {"version": 1, "operations": ops}}))

    def blocks(self, low, high) -> dict:
        result = self.ok("region_inspect", {"min": P(low), "max": P(high), "detail": "blocks"})
        return {(b["pos"]["x"], b["pos"]["y"], b["pos"]["z"]): b["state"] for b in result["blocks"]}

    def put_file(self, asset_id: str, data: bytes):
        self.library.mkdir(parents=True, exist_ok=True)
        (self.library / f"{asset_id}.schem").write_bytes(data)

    def hook(self, method, params=None):
        return self.ok(method, params, admin=True, scope=False)

    def wait(self, operation_id):
        deadline = time.monotonic() + 20
        while True:
            status = self.ok("operation_status", {"operation_id": operation_id})
            if status["status"] not in ("queued", "applying") or time.monotonic() > deadline:
                return status
            time.sleep(0.02)

    def build(self, low, high, block):
        """Prepare and apply one box; returns the terminal operation status (not necessarily applied)."""
        recipe = {"version": 1, "operations": [{"type": "box", "min": P(low), "max": P(high), "block": block}]}
        plan = self.ok("build_prepare", {"recipe": recipe})
        op = self.ok(
            "build_apply",
            {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"], "idempotency_key": str(uuid.uuid4())},
        )
        return self.wait(op["operation_id"])


def P(pos):
    return {"x": pos[0], "y": pos[1], "z": pos[2]}


@pytest.fixture(name="rpc")
def peripheral_rpc(tmp_path):
    with run_server(tmp_path / "data") as server:
        client = Rpc(server)
        yield client
        client.close()
