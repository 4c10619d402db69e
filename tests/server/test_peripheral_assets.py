"""asset_list, schematic_export and schematic_import_prepare over real HTTP (protocol §3.12, §6).

Files are inspected with a small NBT reader written here (not the project's codec), and malformed fixtures are
built byte by byte here, so the tests do not lean on the code they check.
"""

from __future__ import annotations

import gzip
import hashlib
import shutil
import struct
import time
import uuid

import httpx
import pytest

from mcb.server.testing import run_server

CORPUS_ACCEPTED = "v2_fawe_sponge2.schem"


# -- a tiny independent NBT reader/writer -------------------------------------------------------------------------
def read_nbt(data: bytes):
    """(root name, [(name, tag id, value)...]) with compounds as ordered lists; lists as (subtype, [values])."""
    raw, pos = gzip.decompress(data), 0

    def take(n):
        nonlocal pos
        pos += n
        return raw[pos - n:pos]

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


def sponge(palette: dict, cells: list[int], size=(1, 1, 1), *, version=2, data_version=4903, offset=(0, 0, 0),
           name=None, extra=(), drop=(), block_entities=(), entities=()) -> bytes:
    def varint(n):
        out = b""
        while True:
            if n < 0x80:
                return out + bytes([n])
            out += bytes([n & 0x7F | 0x80])
            n >>= 7

    fields = [("Version", tag(3, version)), ("DataVersion", tag(3, data_version)), ("Width", tag(2, size[0])),
              ("Height", tag(2, size[1])), ("Length", tag(2, size[2])), ("Offset", tag(11, list(offset))),
              ("PaletteMax", tag(3, len(palette))),
              ("Palette", tag(10, [(k, tag(3, v)) for k, v in palette.items()])),
              ("BlockData", tag(7, b"".join(varint(c) for c in cells))),
              ("BlockEntities", tag(9, (10, list(block_entities)))), ("Entities", tag(9, (10, list(entities))))]
    if name is not None:
        fields.append(("Metadata", tag(10, [("Name", tag(8, name))])))
    fields = [f for f in fields if f[0] not in drop] + list(extra)
    return gzip.compress(b"\x0a" + encode(8, "Schematic") + encode(10, fields))


# -- client -------------------------------------------------------------------------------------------------------
class Rpc:
    def __init__(self, server):
        self.server = server
        self.client = httpx.Client(timeout=30)
        self.library = server.data_dir / "schematics"

    def raw(self, method, params=None, *, admin=False, scope=True):
        body = dict(params or {})
        if scope:
            body.setdefault("player_id", self.server.owner_uuid)
        token = self.server.admin_token if admin else self.server.agent_token
        for _ in range(200):  # retry the journal latch like every client must (§1.7)
            response = self.client.post(self.server.url + "/v1/rpc", json={"method": method, "params": body},
                                        headers={"Authorization": f"Bearer {token}"})
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
        op = self.ok("build_apply", {"plan_id": plan["plan_id"], "plan_hash": plan["plan_hash"],
                                     "idempotency_key": str(uuid.uuid4())})
        deadline = time.monotonic() + 20
        while op["status"] in ("queued", "applying") and time.monotonic() < deadline:
            time.sleep(0.02)
            op = self.ok("operation_status", {"operation_id": op["operation_id"]})
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


def P(pos):
    return {"x": pos[0], "y": pos[1], "z": pos[2]}


@pytest.fixture
def rpc(tmp_path):
    with run_server(tmp_path / "data") as server:
        client = Rpc(server)
        yield client
        client.client.close()


ASSET_KEYS = ["assetId", "name", "width", "height", "length", "blockCount", "dataVersion", "offset", "sha256", "bytes"]
STAIRS = "minecraft:oak_stairs[facing={},half={},shape=straight,waterlogged=false]"
AIR = "minecraft:air"
FENCE = "minecraft:oak_fence[east={},north={},south={},waterlogged=false,west={}]"
# Cells relative to the export's min corner (0, 70, 0); air cells are written explicitly.
STRUCTURE = {
    (0, 0, 0): "minecraft:stone", (1, 0, 0): STAIRS.format("east", "top"), (2, 0, 0): "minecraft:oak_log[axis=x]",
    (0, 0, 1): "minecraft:glass", (1, 0, 1): AIR, (2, 0, 1): "minecraft:stone_bricks",
    (0, 1, 0): "minecraft:oak_log[axis=z]", (1, 1, 0): AIR, (2, 1, 0): FENCE.format("false", "true", "false", "true"),
    (0, 1, 1): "minecraft:red_wool", (1, 1, 1): STAIRS.format("north", "bottom"), (2, 1, 1): AIR,
}
TURN = {"north": "east", "east": "south", "south": "west", "west": "north"}


def rotated_state(state: str, quarter_turns: int) -> str:
    """Hand-written expectations for the directional states above (vanilla BlockData.rotate)."""
    for _ in range(quarter_turns):
        if state.startswith("minecraft:oak_fence["):  # each side's connection moves one side clockwise
            sides = dict(pair.split("=") for pair in state[state.index("[") + 1:-1].split(","))
            turned = {TURN[side]: sides[side] for side in TURN}
            state = FENCE.format(turned["east"], turned["north"], turned["south"], turned["west"])
            continue
        for facing in TURN:
            if f"facing={facing}," in state:
                state = state.replace(f"facing={facing},", f"facing={TURN[facing]},")
                break
        else:
            state = {"minecraft:oak_log[axis=x]": "minecraft:oak_log[axis=z]",
                     "minecraft:oak_log[axis=z]": "minecraft:oak_log[axis=x]"}.get(state, state)
    return state


def build_structure(rpc, base=(0, 70, 0)):
    rpc.place({(base[0] + x, base[1] + y, base[2] + z): s for (x, y, z), s in STRUCTURE.items()})


# -- export → import → apply --------------------------------------------------------------------------------------
@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_export_then_import_reproduces_the_blocks_at_every_rotation(rpc, rotation):
    build_structure(rpc)
    asset = rpc.ok("schematic_export", {"name": "probe", "min": P((0, 70, 0)), "max": P((2, 71, 1)),
                                        "origin": P((1, 70, 0))})
    assert asset["offset"] == P((-1, 0, 0))
    target = (20, 90, -20)
    turns = rotation // 90

    def world_of(cell):
        dx, dy, dz = cell[0] - 1, cell[1], cell[2]  # offset (-1, 0, 0) + cell
        for _ in range(turns):
            dx, dz = -dz, dx
        return (target[0] + dx, target[1] + dy, target[2] + dz)

    # A block where the schematic has air: importing must clear it (every cell, air included, is planned).
    rpc.place({world_of((1, 1, 0)): "minecraft:gold_block"})
    plan = rpc.ok("schematic_import_prepare", {"asset_id": asset["assetId"], "target": P(target),
                                               "rotation": rotation})
    assert set(plan) == {"plan_id", "plan_hash", "changed_blocks", "region", "expires_at"}
    solid = sum(1 for s in STRUCTURE.values() if s != AIR)
    assert plan["changed_blocks"] == solid + 1
    assert rpc.apply(plan)["total_changes"] == len(STRUCTURE)
    seen = rpc.blocks((target[0] - 4, target[1], target[2] - 4), (target[0] + 4, target[1] + 1, target[2] + 4))
    expected = {world_of(cell): rotated_state(state, turns) for cell, state in STRUCTURE.items()}
    assert {pos: seen[pos] for pos in expected} == expected
    assert sum(1 for pos, s in seen.items() if s != AIR and pos not in expected) == 0


def test_import_at_the_export_origin_changes_nothing(rpc):
    build_structure(rpc, (5, 75, 5))
    asset = rpc.ok("schematic_export", {"name": "same", "min": P((5, 75, 5)), "max": P((7, 76, 6)),
                                        "origin": P((0, 0, 0))})
    assert asset["offset"] == P((5, 75, 5))
    plan = rpc.ok("schematic_import_prepare", {"asset_id": asset["assetId"], "target": P((0, 0, 0))})
    assert plan["changed_blocks"] == 0
    assert plan["region"] == rpc.ok("project_context")["region"]


def test_loose_rotation_and_target(rpc):
    build_structure(rpc)
    asset = rpc.ok("schematic_export", {"name": "loose", "min": P((0, 70, 0)), "max": P((0, 70, 0))})
    plan = rpc.ok("schematic_import_prepare", {"asset_id": asset["assetId"], "target": {"x": "30", "y": 80.0, "z": 3},
                                               "rotation": "270"})
    assert plan["changed_blocks"] == 1


# -- export result and file ---------------------------------------------------------------------------------------
def test_export_result_and_exact_file_layout(rpc):
    build_structure(rpc)
    before = int(time.time() * 1000)
    asset = rpc.ok("schematic_export", {"name": "Gate ✓", "min": P((0, 70, 0)), "max": P((2, 71, 1))})
    assert list(asset) == ASSET_KEYS
    uuid.UUID(asset["assetId"])
    path = rpc.library / f"{asset['assetId']}.schem"
    data = path.read_bytes()
    assert (asset["name"], asset["width"], asset["height"], asset["length"], asset["blockCount"]) == (
        "Gate ✓", 3, 2, 2, 12)
    assert asset["dataVersion"] == 4903 and asset["offset"] == P((0, 0, 0))
    assert asset["sha256"] == hashlib.sha256(data).hexdigest() and asset["bytes"] == len(data)
    root_name, root = read_nbt(data)
    assert root_name == "Schematic"
    assert [(name, tag_id) for name, tag_id, _ in root] == [
        ("Version", 3), ("DataVersion", 3), ("Width", 2), ("Height", 2), ("Length", 2), ("Offset", 11),
        ("PaletteMax", 3), ("Palette", 10), ("BlockData", 7), ("BlockEntities", 9), ("Entities", 9), ("Metadata", 10)]
    fields = {name: value for name, _, value in root}
    assert (fields["Version"], fields["DataVersion"], fields["Width"], fields["Height"], fields["Length"]) == (
        2, 4903, 3, 2, 2)
    order = [STRUCTURE[(x, y, z)] for y in range(2) for z in range(2) for x in range(3)]
    first_seen = list(dict.fromkeys(order))
    assert [(name, tag_id, value) for name, tag_id, value in fields["Palette"]] == [
        (state, 3, index) for index, state in enumerate(first_seen)]
    assert fields["PaletteMax"] == len(first_seen)
    assert varints(fields["BlockData"]) == [first_seen.index(state) for state in order]
    assert fields["BlockEntities"] == (10, []) and fields["Entities"] == (10, [])
    meta = {name: (tag_id, value) for name, tag_id, value in fields["Metadata"]}
    assert [name for name, _, _ in fields["Metadata"]] == ["Name", "Author", "Date"]
    assert meta["Name"] == (8, "Gate ✓") and meta["Author"] == (8, "minecraft-builder-mcp")
    assert meta["Date"][0] == 4 and before <= meta["Date"][1] <= int(time.time() * 1000)
    assert [p.name for p in rpc.library.iterdir()] == [path.name]  # no temp file left behind


def test_export_palette_index_above_127_uses_multibyte_varints(rpc):
    colours = ["white", "orange", "magenta", "light_blue", "yellow", "lime", "pink", "gray", "light_gray", "cyan",
               "purple", "blue", "brown", "green", "red", "black"]
    kinds = ["wool", "concrete", "terracotta", "stained_glass", "carpet", "concrete_powder"]
    plain = """stone granite polished_granite diorite polished_diorite andesite polished_andesite dirt coarse_dirt
        cobblestone oak_planks spruce_planks birch_planks jungle_planks acacia_planks dark_oak_planks sand red_sand
        gravel gold_ore iron_ore coal_ore gold_block iron_block diamond_block emerald_block lapis_block
        redstone_block coal_block netherrack glowstone obsidian bricks mossy_cobblestone stone_bricks""".split()
    states = [f"minecraft:{c}_{k}" for k in kinds for c in colours] + [f"minecraft:{b}" for b in plain]
    cells = {(i % 10, 64 + i // 100, (i // 10) % 10): s for i, s in enumerate(states)}
    for chunk in range(0, len(states), 64):
        rpc.place(dict(list(cells.items())[chunk:chunk + 64]))
    asset = rpc.ok("schematic_export", {"name": "many", "min": P((0, 64, 0)), "max": P((9, 65, 9))})
    fields = {name: value for name, _, value in read_nbt((rpc.library / f"{asset['assetId']}.schem").read_bytes())[1]}
    assert fields["PaletteMax"] > 128
    palette = {index: state for state, _, index in fields["Palette"]}
    decoded = varints(fields["BlockData"])
    assert len(decoded) == 200 and len(states) > 128
    for (x, y, z), state in cells.items():
        assert palette[decoded[x + z * 10 + (y - 64) * 100]] == state


# -- export errors --------------------------------------------------------------------------------------------------
def test_export_errors_in_order(rpc):
    base = {"name": "n", "min": P((0, 70, 0)), "max": P((1, 70, 1))}
    assert rpc.error("schematic_export", {**base, "max": P((65, 70, 0)), "name": ""}) == (
        "out_of_bounds", "Export exceeds project region")
    assert rpc.error("schematic_export", {**base, "min": P((2, 70, 0))}) == (
        "invalid_request", "Invalid inclusive region bounds")
    assert rpc.error("schematic_export", {**base, "max": P((16, 85, 15))}) == (
        "budget_exceeded", "Export at most 4096 blocks")
    assert rpc.error("schematic_export", {"name": "n", "max": P((1, 70, 1))}) == (
        "invalid_request", "Integer coordinate required: min")
    for name in ["", "   ", None]:
        assert rpc.error("schematic_export", {**base, "name": name}) == ("invalid_request",
                                                                         "Required bounded string: name")
    for name in ["n" * 65, "tab\there", "bell\u0007", "x\u0085"]:
        assert rpc.error("schematic_export", {**base, "name": name}) == (
            "invalid_request", "Asset name must contain 1..64 printable characters")
    assert rpc.error("schematic_export", {**base, "origin": P((2**31 - 1, 0, 0)), "min": P((-2, 70, 0))}) == (
        "invalid_request", "integer overflow")
    assert rpc.ok("schematic_export", {**base, "name": "n" * 64})["name"] == "n" * 64


def test_export_refuses_block_entities_without_writing(rpc):
    rpc.place({(1, 70, 1): "minecraft:chest[facing=west]"})
    assert rpc.error("schematic_export", {"name": "c", "min": P((0, 70, 0)), "max": P((2, 70, 2))}) == (
        "unsupported_block_entity",
        "Schematic export cannot retain block-entity data at BlockPos[x=1, y=70, z=1]; no asset was written")
    assert not rpc.library.exists() or list(rpc.library.iterdir()) == []


def test_export_needs_loaded_chunks(rpc):
    rpc.ok("test_set_chunk_loaded", {"chunk": {"x": 1, "z": 0}, "loaded": False}, admin=True, scope=False)
    assert rpc.error("schematic_export", {"name": "c", "min": P((14, 70, 0)), "max": P((17, 70, 0))})[0] == (
        "chunk_not_loaded")


def test_export_into_a_full_library(rpc):
    first = rpc.ok("schematic_export", {"name": "one", "min": P((0, 70, 0)), "max": P((0, 70, 0))})
    data = (rpc.library / f"{first['assetId']}.schem").read_bytes()
    for index in range(63):
        rpc.put_file(f"copy{index:02d}", data)
    assert len(rpc.ok("asset_list")["assets"]) == 64
    assert rpc.error("schematic_export", {"name": "two", "min": P((0, 70, 0)), "max": P((0, 70, 0))}) == (
        "invalid_request", "Asset library is full (64 files maximum)")
    rpc.put_file("copy63", data)
    assert rpc.error("asset_list")[0] == "invalid_request"


# -- asset_list ---------------------------------------------------------------------------------------------------
def test_asset_list_sorts_by_file_name_and_filters_by_name(rpc, corpus):
    rpc.put_file("b-second", sponge({"minecraft:stone": 0}, [0], name="Tower East"))
    rpc.put_file("A_first", sponge({"minecraft:dirt": 0}, [0], name="cellar"))
    shutil.copy(corpus / CORPUS_ACCEPTED, rpc.library / "corpus.schem")
    (rpc.library / "notes.txt").write_text("ignored")
    listed = rpc.ok("asset_list")["assets"]
    assert [a["assetId"] for a in listed] == ["A_first", "b-second", "corpus"]
    assert listed[2]["name"] == "Imported schematic"
    assert listed[2]["sha256"] == hashlib.sha256((corpus / CORPUS_ACCEPTED).read_bytes()).hexdigest()
    assert [a["assetId"] for a in rpc.ok("asset_list", {"query": "TOWER"})["assets"]] == ["b-second"]
    assert rpc.ok("asset_list", {"query": "a_first"})["assets"] == []  # matches names, not ids
    assert len(rpc.ok("asset_list", {"query": ""})["assets"]) == 3


@pytest.mark.parametrize("file_name", ["-dash.schem", "has space.schem", "x" * 65 + ".schem", ".schem"])
def test_one_badly_named_file_fails_the_listing(rpc, file_name):
    rpc.put_file("good", sponge({"minecraft:stone": 0}, [0]))
    (rpc.library / file_name).write_bytes(sponge({"minecraft:stone": 0}, [0]))
    assert rpc.error("asset_list")[0] == "invalid_request"


def test_one_invalid_file_fails_the_listing_but_not_dataversion(rpc):
    rpc.put_file("future", sponge({"minecraft:stone": 0}, [0], data_version=99999))
    assert rpc.ok("asset_list")["assets"][0]["dataVersion"] == 99999
    assert rpc.error("schematic_import_prepare", {"asset_id": "future", "target": P((0, 70, 0))}) == (
        "invalid_request", "Schematic DataVersion is newer than the target server")
    rpc.put_file("v3", sponge({"minecraft:stone": 0}, [0], version=3))
    assert rpc.error("asset_list") == ("invalid_request", "Only Sponge schematic version 2 is supported")


def test_symlinks_are_refused(rpc, tmp_path):
    rpc.put_file("real", sponge({"minecraft:stone": 0}, [0]))
    (rpc.library / "link.schem").symlink_to(rpc.library / "real.schem")
    assert rpc.error("asset_list")[0] == "invalid_request"
    assert rpc.error("schematic_import_prepare", {"asset_id": "link", "target": P((0, 70, 0))}) == (
        "invalid_request", "Asset not found or is not a regular file")


# -- import errors --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("data, message", [
    (sponge({"minecraft:stone": 0}, [0], version=3), "Only Sponge schematic version 2 is supported"),
    (sponge({"minecraft:stone": 0}, [0], extra=[("BiomeData", tag(7, b""))]),
     "Unsupported schematic fields (biomes/custom data are not imported)"),
    (sponge({"minecraft:chest": 0}, [0], block_entities=[[("Id", tag(8, "minecraft:chest"))]]),
     "BlockEntities are unsupported; import rejected without dropping data"),
    (sponge({"minecraft:stone": 0}, [0], entities=[[("Id", tag(8, "minecraft:pig"))]]),
     "Entities are unsupported; import rejected without dropping data"),
    (sponge({"minecraft:stone": 0}, [0, 0], size=(1, 1, 1)), "BlockData has extra entries"),
    (sponge({"minecraft:stone": 0}, [1]), "BlockData refers to missing palette index"),
    (sponge({"minecraft:stone": 0}, [0] * 4097, size=(4097, 1, 1)), "Schematic volume must be 1..4096"),
    (sponge({"minecraft:stone[color=blue]": 0}, [0]), "Invalid runtime schematic block state"),
    (sponge({"minecraft:stone": 0, "minecraft:dirt": 0}, [0]), "Invalid or duplicate palette index"),
    (gzip.decompress(sponge({"minecraft:stone": 0}, [0])), None),
])
def test_import_rejects_files_outside_the_server_subset(rpc, data, message):
    rpc.put_file("bad", data)
    code, text = rpc.error("schematic_import_prepare", {"asset_id": "bad", "target": P((0, 70, 0))})
    assert code == "invalid_request"
    if message is not None:
        assert text == message


def test_import_parameter_errors(rpc):
    rpc.put_file("ok", sponge({"minecraft:stone": 0}, [0]))
    target = {"target": P((0, 70, 0))}
    assert rpc.error("schematic_import_prepare", {**target, "asset_id": "../ok"}) == (
        "invalid_request", "Invalid asset ID; paths are not accepted")
    assert rpc.error("schematic_import_prepare", {**target, "asset_id": "ok.schem"})[1] == (
        "Invalid asset ID; paths are not accepted")
    assert rpc.error("schematic_import_prepare", {**target, "asset_id": "missing"}) == (
        "invalid_request", "Asset not found or is not a regular file")
    assert rpc.error("schematic_import_prepare", target) == ("invalid_request", "Required bounded string: asset_id")
    assert rpc.error("schematic_import_prepare", {"asset_id": "ok"}) == ("invalid_request",
                                                                         "Integer coordinate required: target")
    for rotation in [45, -90, 360, 90.5]:
        expected = "Integer coordinate required: rotation" if rotation == 90.5 else (
            "Rotation must be 0, 90, 180 or 270 degrees")
        assert rpc.error("schematic_import_prepare", {**target, "asset_id": "ok", "rotation": rotation}) == (
            "invalid_request", expected)
    assert rpc.error("schematic_import_prepare", {"asset_id": "ok", "target": P((64, 70, 65))}) == (
        "out_of_bounds", "Recipe exceeds project region")


def test_import_placement_overflow(rpc):
    rpc.put_file("far", sponge({"minecraft:stone": 0}, [0, 0], size=(2, 1, 1), offset=(2**31 - 1, 0, 0)))
    assert rpc.error("schematic_import_prepare", {"asset_id": "far", "target": P((0, 70, 0))}) == (
        "invalid_request", "integer overflow")


def test_import_while_writes_are_paused(rpc):
    rpc.put_file("ok", sponge({"minecraft:stone": 0}, [0]))
    rpc.ok("test_pause_writes", {"paused": True}, admin=True, scope=False)
    assert rpc.error("schematic_import_prepare", {"asset_id": "ok", "target": P((0, 70, 0))})[0] == "cancelled"


def test_corpus_file_places_by_its_offset(rpc, corpus):
    rpc.library.mkdir(parents=True)
    shutil.copy(corpus / CORPUS_ACCEPTED, rpc.library / "fawe.schem")
    offset = rpc.ok("asset_list")["assets"][0]["offset"]
    assert rpc.error("schematic_import_prepare", {"asset_id": "fawe", "target": P((0, 0, 0))})[0] == "out_of_bounds"
    target = (offset["x"], 80 - offset["y"], offset["z"])  # a half turn maps offset + cell to -(offset + cell)
    plan = rpc.ok("schematic_import_prepare", {"asset_id": "fawe", "target": P(target), "rotation": 180})
    rpc.apply(plan)
    placed = rpc.blocks((-1, 80, -1), (1, 80, 1))
    assert sum(1 for s in placed.values() if s != AIR) == 4


def test_export_refuses_entities_but_ignores_players(rpc):
    box = {"name": "e", "min": P((0, 70, 0)), "max": P((2, 71, 2))}
    hook = {"admin": True, "scope": False}
    rpc.ok("test_spawn_entity", {"type": "player", "pos": {"x": 1.5, "y": 70, "z": 1.5}}, **hook)
    rpc.ok("test_spawn_entity", {"type": "minecraft:pig", "pos": {"x": 3.01, "y": 70, "z": 1}}, **hook)
    assert rpc.ok("schematic_export", box)["blockCount"] == 18
    rpc.ok("test_spawn_entity", {"type": "minecraft:item_frame", "pos": {"x": 2.99, "y": 71.5, "z": 0.2}}, **hook)
    assert rpc.error("schematic_export", box) == (
        "unsupported_entity", "Export region contains entities; this prototype exports blocks only")


def test_import_respects_the_journal_latch(rpc):
    rpc.put_file("ok", sponge({"minecraft:stone": 0}, [0]))
    state = rpc.server.state
    params = {"asset_id": "ok", "target": P((0, 70, 0)), "player_id": rpc.server.owner_uuid}
    body = {"method": "schematic_import_prepare", "params": params}
    headers = {"Authorization": f"Bearer {rpc.server.agent_token}"}
    for flag, expected in [("io_busy", ("busy", "A journal step is in progress; retry")),
                           ("halted", ("recovery_required", "Journal unavailable"))]:
        with state.lock:
            setattr(state, flag, True)
        try:
            error = rpc.client.post(rpc.server.url + "/v1/rpc", json=body, headers=headers).json()["error"]
        finally:
            with state.lock:
                setattr(state, flag, False)
        assert (error["code"], error["message"]) == expected


def test_a_symlinked_data_dir_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with run_server(tmp_path / "link") as server:
        client = Rpc(server)
        assert client.error("asset_list")[0] == "invalid_request"
        assert client.error("schematic_export", {"name": "n", "min": P((0, 70, 0)), "max": P((0, 70, 0))})[0] == (
            "invalid_request")
        client.client.close()
