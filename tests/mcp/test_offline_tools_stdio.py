"""Every offline tool through the real `mcb mcp`, driven by the official SDK's ClientSession over stdio."""

from __future__ import annotations

import base64
import io
import json
import shutil
from pathlib import Path

from mcpkit import refusal_of, run_sdk, structured

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"


def workspace(tmp_path: Path) -> Path:
    """A workspace root holding the inputs (the server refuses paths outside its root)."""
    shutil.copy(ROOT / "schematics" / "house.schem", tmp_path / "house.schem")
    shutil.copytree(ROOT / "recipes", tmp_path / "recipes")
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name in (
        "v2_nucleation_sample.schem",
        "v2_fawe_sponge2.schem",
        "v3_fawe_sponge3.schem",
        "v1_schemc_example.schem",
        "notsponge_nucleation_xor_is_litematic.schem",
    ):
        shutil.copy(CORPUS / name, folder / name)
    return tmp_path


CALLS = [
    ("schem_validate", {"paths": ["corpus"]}),
    ("schem_info", {"path": "house.schem", "limit": 2}),
    ("schem_rotate", {"path": "house.schem", "degrees": 270, "output": "r.schem"}),
    ("schem_mirror", {"path": "house.schem", "axis": "x", "rules": "geometric", "output": "m.schem"}),
    ("schem_convert", {"path": "corpus/v3_fawe_sponge3.schem", "output": "c.schem"}),
    ("schem_render", {"path": "house.schem", "view": "top", "scale": 4}),
    ("recipe_lint", {"paths": ["recipes"], "exclude": ["terrain/*"]}),
    ("recipe_compile", {"path": "recipes/silo.json", "png": True, "limit": 3}),
    ("block_check", {"states": ["oak_stairs[facing=east]", "stone[foo=bar]"]}),
    ("block_describe", {"block_id": "chest", "mc_version": "1.21.4"}),
    ("terrain_preview_offline", {"path": "recipes/terrain/small-hill.json", "resolution": 32}),
]


def test_every_offline_tool_through_the_sdk(tmp_path):
    root = workspace(tmp_path)

    async def body(session):
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        answers = {}
        for name, arguments in CALLS:
            assert name in listed
            answers[name] = await session.call_tool(name, arguments)
        return answers

    answers = run_sdk(body, cwd=root)
    for name, result in answers.items():
        assert result.is_error is False, (name, result.content[0].text)
        structured(result)
    validate = answers["schem_validate"].structured_content
    assert validate["summary"]["files"] == 5 and validate["summary"]["failed"] >= 1
    assert answers["schem_info"].structured_content["has_more"] is True
    assert (root / "r.schem").exists() and (root / "m.schem").exists() and (root / "c.schem").exists()
    assert answers["recipe_lint"].structured_content["ok"] is True
    assert answers["block_check"].structured_content["invalid"] == 1
    assert answers["block_describe"].structured_content["release"] == "1.21.4"
    assert answers["terrain_preview_offline"].structured_content["world_verified"] is False
    for name in ("schem_render", "recipe_compile", "terrain_preview_offline"):
        kinds = [item.type for item in answers[name].content]
        assert kinds == ["text", "image"], name


def test_a_render_comes_back_as_png_image_content(tmp_path):
    from PIL import Image

    root = workspace(tmp_path)
    before = sorted(p.name for p in root.iterdir())

    async def body(session):
        return await session.call_tool("schem_render", {"path": "house.schem", "view": "iso", "max_side": 100})

    result = run_sdk(body, cwd=root)
    image = result.content[1]
    assert image.mime_type == "image/png"
    picture = Image.open(io.BytesIO(base64.b64decode(image.data)))
    data = structured(result)
    assert picture.size == (data["width"], data["height"]) and max(picture.size) == 100
    assert sorted(p.name for p in root.iterdir()) == before  # schem_render writes no file


def test_validate_of_a_folder_reports_progress(tmp_path):
    root = workspace(tmp_path)
    seen = []

    async def body(session):
        async def on_progress(progress, total, message):
            seen.append((progress, total))

        return await session.call_tool("schem_validate", {"paths": ["corpus"]}, progress_callback=on_progress)

    result = run_sdk(body, cwd=root)
    assert result.is_error is False and seen
    values = [p for p, _ in seen]
    assert values == sorted(set(values)) and all(total == 5 for _, total in seen) and values[-1] <= 5


def test_an_unknown_argument_is_refused_by_name(tmp_path):
    root = workspace(tmp_path)

    async def body(session):
        return await session.call_tool("schem_rotate", {"path": "house.schem", "degres": 90, "output": "o.schem"})

    result = run_sdk(body, cwd=root)
    error = refusal_of(structured(result)["error"])
    assert result.is_error is True and error["code"] == "invalid_argument"
    assert error["unknown"] == ["degres"] and error["did_you_mean"] == {"degres": "degrees"}
    assert "'degres'" in error["message"] and "degrees" in error["accepted"] and "degrees" in error["missing"]
    assert not (root / "o.schem").exists()


def test_a_cancelled_rotate_never_answers_and_leaves_no_output(mcp_process, tmp_path):
    """Checklist 40: no response, neither the output nor a temp file, an unrelated .bak and the input untouched."""
    source = tmp_path / "large.schem"
    shutil.copy(CORPUS / "v2_nucleation_large_schematic.schem", source)  # rotating it takes most of a second
    (tmp_path / "out.schem.bak").write_bytes(b"unrelated")
    before = source.read_bytes()
    server = mcp_process()
    server.initialize()
    server.write(
        {
            "jsonrpc": "2.0",
            "id": "r",
            "method": "tools/call",
            "params": {
                "name": "schem_rotate",
                "arguments": {"path": "large.schem", "degrees": 90, "output": "out.schem"},
                "_meta": {"progressToken": 1},
            },
        }
    )
    started = server.recv(timeout=30)
    assert started["method"] == "notifications/progress" and started["params"]["message"] == "rotating"
    server.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "r"}})
    server.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "nobody"}})
    pong = server.request("ping", {}, timeout=30)
    assert pong["result"] == {}
    assert server.close() == 0  # at EOF the running call ends first (MCP-50): all it would ever say is in raw
    while server.recv(timeout=10) is not None:  # read stdout to its end
        pass
    said = [json.loads(line) for line in server.raw]
    assert said[-1] == pong  # nothing at all after the ping's answer, to the end of the process
    assert all(message.get("id") != "r" for message in said)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["large.schem", "out.schem.bak"]
    assert source.read_bytes() == before and (tmp_path / "out.schem.bak").read_bytes() == b"unrelated"


def test_an_agent_validates_rotates_compiles_and_builds_against_mcb_serve(tmp_path):
    """The issue's "done means": one session, offline tools and the live world (`mcb serve`) together."""
    from mcb.server.testing import run_server

    (tmp_path / "work").mkdir()
    root = workspace(tmp_path / "work")
    recipe = json.loads((root / "recipes" / "tower.json").read_text())
    with run_server(tmp_path / "server", tick_ms=2) as server:
        env = {"MCB_SERVER": server.url, "MCB_AGENT_TOKEN": server.agent_token, "MCB_PLAYER_ID": "console"}

        async def body(session):
            async def ok(name, arguments):
                result = await session.call_tool(name, arguments)
                assert result.is_error is False, (name, result.content[0].text)
                return structured(result)

            assert (await ok("schem_validate", {"paths": ["house.schem"]}))["ok"] is True
            await ok("schem_rotate", {"path": "house.schem", "degrees": 90, "output": "house-90.schem"})
            assert (await ok("schem_validate", {"paths": ["house-90.schem"]}))["ok"] is True
            compiled = await ok("recipe_compile", {"path": "recipes/tower.json", "limit": 4096})
            plan = await ok("build_prepare", {"recipe": recipe})
            applied = await ok(
                "build_apply", {**plan["follow_up"][0]["arguments"], "idempotency_key": "tower-1", "wait": True}
            )
            lo, hi = compiled["bounds"]["min"], compiled["bounds"]["max"]
            blocks = []
            for y in range(lo["y"], hi["y"] + 1, 4):  # four layers a call stay under the result cap
                world = await ok(
                    "region_inspect",
                    {"min": {**lo, "y": y}, "max": {**hi, "y": min(y + 3, hi["y"])}, "detail": "blocks"},
                )
                blocks += world["blocks"]
            return compiled, applied, blocks

        compiled, applied, blocks = run_sdk(body, env=env, cwd=root)
    assert applied["status"] == "applied"
    placed = {(b["pos"]["x"], b["pos"]["y"], b["pos"]["z"]): b["state"] for b in blocks}
    wanted = {(b["pos"]["x"], b["pos"]["y"], b["pos"]["z"]): b["state"] for b in compiled["blocks"]}
    assert len(wanted) == compiled["block_count"] and all(placed[pos] == state for pos, state in wanted.items())


def test_the_schematic_tools_take_every_format_through_the_sdk(tmp_path):
    for name in ("watchtower.litematic", "cabin.schematic"):
        shutil.copy(ROOT / "schematics" / name, tmp_path / name)
    shutil.copy(CORPUS / "nbt_nucleation_wire_shapes.nbt", tmp_path / "wires.nbt")

    async def body(session):
        return [
            await session.call_tool(name, arguments)
            for name, arguments in (
                ("schem_info", {"path": "watchtower.litematic"}),
                ("schem_info", {"path": "cabin.schematic"}),
                ("schem_convert", {"path": "watchtower.litematic", "output": "tower.nbt"}),
                ("schem_convert", {"path": "cabin.schematic", "output": "cabin.schem"}),
                ("schem_convert", {"path": "cabin.schematic", "output": "cabin.schem", "format": "sponge3"}),
                ("schem_rotate", {"path": "wires.nbt", "degrees": 90, "output": "wires-90.nbt"}),
                ("schem_render", {"path": "cabin.schematic", "view": "iso", "max_side": 256}),
                ("schem_validate", {"paths": ["."], "profile": "spec"}),
            )
        ]

    tower, cabin, to_structure, refused, to_sponge, turned, picture, walk = run_sdk(body, cwd=tmp_path)
    assert tower.structured_content["kind"] == "litematic" and len(tower.structured_content["regions"]) == 2
    renamed = {r["to"] for r in cabin.structured_content["upgrade"]["renamed"]}
    assert renamed == {"minecraft:oak_wall_sign", "minecraft:smooth_stone_slab"}
    assert to_structure.structured_content["format"] == "structure"
    assert refused.is_error is True and "the server imports no block-entity data" in refused.content[0].text
    assert to_sponge.is_error is False and to_sponge.structured_content["format"] == "sponge3"
    assert turned.structured_content["format"] == "structure" and (tmp_path / "wires-90.nbt").is_file()
    assert picture.is_error is False and any(item.type == "image" for item in picture.content)
    assert walk.structured_content["summary"]["files"] == 6 and walk.structured_content["summary"]["skipped"] == 0


def test_schematic_refusals_name_the_argument_at_fault_in_the_tools_words(tmp_path):
    shutil.copy(ROOT / "schematics" / "cabin.schematic", tmp_path / "cabin.schematic")

    async def body(session):
        return [
            await session.call_tool(name, arguments)
            for name, arguments in (
                ("schem_rotate", {"path": "cabin.schematic", "degrees": 90, "in_place": True}),
                ("schem_rotate", {"path": "cabin.schematic", "degrees": 90, "output": "c.schematic"}),
                ("schem_convert", {"path": "cabin.schematic", "output": "c.schem"}),
            )
        ]

    in_place, legacy_out, lossy = (refusal_of(structured(r)["error"]) for r in run_sdk(body, cwd=tmp_path))
    assert in_place["field"] == "in_place"  # the argument at fault, not mc_version
    assert legacy_out["field"] == "output" and legacy_out["remedy"].endswith("or choose with format")
    assert lossy["remedy"].startswith("keep everything with format sponge3")  # the tool word, not --to
