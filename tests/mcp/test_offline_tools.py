"""The offline actions called directly, the way the MCP face calls them: arguments checked by the face's parser,
a small Context recording progress and created files. Results are compared with what the CLI prints for the same
input, because both faces call the same core function."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
from pathlib import Path

import pytest
from mcpkit import refusal_of

from mcb.mcp.actions import Cancelled, Refusal
from mcb.mcp.tools.offline import OFFLINE_ACTIONS

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
HOUSE = ROOT / "schematics" / "house.schem"
ACTIONS = {action.name: action for action in OFFLINE_ACTIONS}


class RecordingContext:
    """progress and created files recorded; ``cancel_at``: check_cancelled raises from that call on."""

    def __init__(self, cancel_at: int | None = None):
        self.progress_calls: list[tuple] = []
        self.files: list[Path] = []
        self.checks = 0
        self.cancel_at = cancel_at

    def client(self):
        raise AssertionError("an offline tool asked for the RPC client")

    def progress(self, done, total=None, message=None):
        self.progress_calls.append((done, total, message))

    def check_cancelled(self):
        self.checks += 1
        if self.cancel_at is not None and self.checks >= self.cancel_at:
            raise Cancelled()

    def created(self, path):
        self.files.append(Path(path))


def call(name: str, arguments: dict, ctx=None, root: Path = Path("/")):
    from mcb.mcp.arguments import parse_arguments

    action = ACTIONS[name]
    return action.run(parse_arguments(action, arguments, root=root), ctx or RecordingContext())


def refused(name: str, arguments: dict, ctx=None) -> dict:
    with pytest.raises(Refusal) as caught:
        call(name, arguments, ctx)
    return refusal_of(caught.value.to_dict()["error"])


def cli_json(cli, *args) -> dict:
    return json.loads(cli(*args, "--json").stdout)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_thirteen_offline_tools_in_the_spec_order():
    assert list(ACTIONS) == [
        "schem_validate",
        "schem_info",
        "schem_rotate",
        "schem_mirror",
        "schem_convert",
        "schem_extras",
        "schem_render",
        "schem_materials",
        "recipe_lint",
        "recipe_compile",
        "block_check",
        "block_describe",
        "terrain_preview_offline",
    ]
    writers = {name for name, action in ACTIONS.items() if not action.hints.read_only}
    assert writers == {"schem_rotate", "schem_mirror", "schem_convert", "schem_extras", "recipe_compile"}
    # schem_materials reads the live world when given a target; every other offline tool reads only files
    assert [action.name for action in OFFLINE_ACTIONS if action.hints.open_world] == ["schem_materials"]


def test_validate_a_folder_reports_progress_per_file_and_the_cli_findings(cli):
    ctx = RecordingContext()
    data = call("schem_validate", {"paths": [str(CORPUS)], "limit": 1000}, ctx).data
    expected = cli_json(cli, "schem", "validate", str(CORPUS))
    assert data["summary"] == expected["summary"]
    assert [f["file"] for f in data["files"]] == [f["file"] for f in expected["files"]]
    assert data["diagnostics"] == [d for f in expected["files"] for d in f["diagnostics"]]
    assert (
        data["total_diagnostics"]
        == data["returned"]
        == expected["summary"]["errors"]
        + expected["summary"]["warnings"]
        + sum(1 for f in expected["files"] for d in f["diagnostics"] if d["severity"] == "note")
    )
    assert data["has_more"] is False and "next_offset" not in data and "hint" not in data
    done = [p[0] for p in ctx.progress_calls]
    checked = expected["summary"]["files"]  # the corpus README is passed by, not read
    assert done == list(range(checked + 1))  # 0, then one unit per file read
    assert {p[1] for p in ctx.progress_calls} == {checked}
    finding = data["diagnostics"][0]
    assert set(finding) == {"rule", "severity", "message", "file", "pointer", "line", "column", "hint"}


def test_validate_diagnostics_page_with_offset_and_limit():
    # Each page validates the whole corpus again (85 diagnostics): pages of 30 give a first, a middle and a last,
    # partial page, as pages of 5 did in 17 validations instead of 3.
    first = call("schem_validate", {"paths": [str(CORPUS)], "limit": 30}).data
    assert first["returned"] == 30 and first["has_more"] is True and first["next_offset"] == 30
    assert "offset=30" in first["hint"]
    pages = first["diagnostics"]
    offset = first["next_offset"]
    count = 1
    while True:
        page = call("schem_validate", {"paths": [str(CORPUS)], "limit": 30, "offset": offset}).data
        pages += page["diagnostics"]
        count += 1
        if not page["has_more"]:
            break
        offset = page["next_offset"]
    assert count >= 3 and 0 < page["returned"] < 30
    whole = call("schem_validate", {"paths": [str(CORPUS)], "limit": 1000}).data
    assert pages == whole["diagnostics"] and len(pages) == first["total_diagnostics"]


def test_validate_stops_between_files_when_cancelled(tmp_path):
    for name in (
        "v2_nucleation_sample.schem",
        "v2_fawe_sponge2.schem",
        "v3_fawe_sponge3.schem",
        "v2_nucleation_and.schem",
    ):
        shutil.copy(CORPUS / name, tmp_path / name)
    ctx = RecordingContext(cancel_at=3)  # the check before the run, after file 1, after file 2
    with pytest.raises(Cancelled):
        call("schem_validate", {"paths": [str(tmp_path)]}, ctx)
    assert [p[0] for p in ctx.progress_calls] == [0, 1, 2]


def test_a_missing_input_is_refused_with_its_field(tmp_path):
    error = refused("schem_validate", {"paths": [str(HOUSE), str(tmp_path / "nope")]})
    assert error["code"] == "not_found" and error["field"] == "paths" and error["pointer"] == "/paths/1"
    missing = refused("schem_info", {"path": str(tmp_path / "x.schem")})
    assert missing["field"] == "path" and missing["remedy"] == "give an existing file"  # not "or folder": one file
    assert refused("schem_validate", {"paths": [str(tmp_path / "nope")]})["remedy"] == "give an existing file or folder"


def test_a_folder_given_to_a_one_file_tool_says_which_tools_walk_folders(tmp_path):
    error = refused("schem_info", {"path": str(tmp_path)})
    assert error["code"] == "invalid_argument" and error["field"] == "path"
    assert "is a folder" in error["message"] and "schem_validate" in error["remedy"]


def test_info_pages_the_palette_and_matches_the_cli(cli):
    path = CORPUS / "v2_prismarine_smallhouse1.schem"
    expected = cli_json(cli, "schem", "info", str(path))
    first = call("schem_info", {"path": str(path), "limit": 3}).data
    assert first["returned"] == 3 and first["has_more"] and first["total_palette"] == len(expected["palette"])
    rest = call("schem_info", {"path": str(path), "offset": first["next_offset"], "limit": 4096}).data
    assert rest["has_more"] is False and "next_offset" not in rest
    assert first["palette"] + rest["palette"] == expected["palette"]
    shared = {k: v for k, v in expected.items() if k != "palette"}
    assert {k: first[k] for k in shared} == shared


def test_rotate_writes_the_cli_bytes_and_reports_the_new_file(cli, tmp_path):
    source = tmp_path / "house.schem"
    shutil.copy(HOUSE, source)
    before = digest(source)
    ctx = RecordingContext()
    data = call("schem_rotate", {"path": str(source), "degrees": 90, "output": str(tmp_path / "mcp.schem")}, ctx).data
    cli("schem", "rotate", str(source), "-d", "90", "-o", str(tmp_path / "cli.schem"))
    assert (tmp_path / "mcp.schem").read_bytes() == (tmp_path / "cli.schem").read_bytes()
    assert data["degrees"] == 90 and data["operation"] == "rotate" and data["output"] == str(tmp_path / "mcp.schem")
    assert ctx.files == [tmp_path / "mcp.schem"] and digest(source) == before
    assert [p[0] for p in ctx.progress_calls] == [0, 1]


def test_rotate_in_place_is_not_a_created_file_and_output_rules_are_the_clis(tmp_path):
    source = tmp_path / "house.schem"
    shutil.copy(HOUSE, source)
    ctx = RecordingContext()
    call("schem_rotate", {"path": str(source), "degrees": 180, "in_place": True}, ctx)
    assert ctx.files == [] and digest(source) != digest(HOUSE)
    error = refused("schem_rotate", {"path": str(source), "degrees": 90})
    # in the tool's argument names, not the CLI's flags
    assert (error["code"], error["field"], error["message"]) == ("invalid_argument", "output", "missing output")
    both = refused("schem_rotate", {"path": str(source), "degrees": 90, "in_place": True, "output": "x.schem"})
    assert both["field"] == "output" and "in_place" in both["remedy"]
    assert refused("schem_mirror", {"path": str(source), "axis": "x", "output": str(source)})["field"] == "output"


def test_a_cancelled_rotate_leaves_no_new_file_and_keeps_the_rest(tmp_path):
    from mcb.mcp.context import CallContext

    source = tmp_path / "house.schem"
    shutil.copy(HOUSE, source)
    (tmp_path / "out.schem.bak").write_bytes(b"unrelated")
    before = sorted(p.name for p in tmp_path.iterdir())
    context = CallContext(progress_token=None, notify=lambda message: None, make_client=lambda: None)
    context.check_cancelled = RecordingContext(cancel_at=2).check_cancelled  # cancelled while rotating
    with pytest.raises(Cancelled):
        call("schem_rotate", {"path": str(source), "degrees": 90, "output": str(tmp_path / "out.schem")}, context)
    assert context.remove_created() == [tmp_path / "out.schem"]
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no output, no temp file
    assert source.read_bytes() == HOUSE.read_bytes() and (tmp_path / "out.schem.bak").read_bytes() == b"unrelated"


def test_mirror_geometric_matches_the_cli(cli, tmp_path):
    data = call(
        "schem_mirror", {"path": str(HOUSE), "axis": "z", "rules": "geometric", "output": str(tmp_path / "m.schem")}
    ).data
    expected = cli_json(
        cli, "schem", "mirror", str(HOUSE), "-a", "z", "--rules", "geometric", "-o", str(tmp_path / "c.schem")
    )
    assert {k: v for k, v in data.items() if k != "output"} == {k: v for k, v in expected.items() if k != "output"}
    assert (tmp_path / "m.schem").read_bytes() == (tmp_path / "c.schem").read_bytes()


def test_extras_writes_the_cli_function_and_its_summary(cli, corpus, tmp_path):
    source = corpus / "v2_nucleation_Evaluator_entities.schem"
    ctx = RecordingContext()
    arguments = {"path": str(source), "target": {"x": 5, "y": 70, "z": -3}, "rotation": 270, "mirror": "z"}
    data = call("schem_extras", {**arguments, "output": str(tmp_path / "mcp.mcfunction")}, ctx).data
    expected = cli_json(
        cli, "schem", "extras", str(source), "--target", "5,70,-3", "--rotation", "270", "--mirror", "z",
        "-o", str(tmp_path / "cli.mcfunction"),
    )  # fmt: skip
    assert {k: v for k, v in data.items() if k != "output"} == {k: v for k, v in expected.items() if k != "output"}
    assert (tmp_path / "mcp.mcfunction").read_text() == (tmp_path / "cli.mcfunction").read_text()
    assert ctx.files == [tmp_path / "mcp.mcfunction"] and data["commands"] == 318


WRITERS = {  # every offline tool with an output: its arguments but the output
    "schem_rotate": {"path": str(HOUSE), "degrees": 90},
    "schem_mirror": {"path": str(HOUSE), "axis": "x"},
    "schem_convert": {"path": str(HOUSE)},
    "schem_extras": {"path": str(HOUSE), "target": {"x": 0, "y": 64, "z": 0}},
    "recipe_compile": {"path": str(ROOT / "recipes" / "silo.json")},
}


@pytest.mark.parametrize("tool", WRITERS)
def test_every_writer_refuses_an_existing_output_unless_overwrite_and_never_its_input(tool, tmp_path):
    target = tmp_path / "out.schem"
    target.write_bytes(b"keep me")
    arguments = {**WRITERS[tool], "output": str(target)}
    error = refused(tool, arguments)
    assert error["code"] == "output_exists" and error["retry_with"] == {"overwrite": True}
    assert target.read_bytes() == b"keep me"
    call(tool, {**arguments, **error["retry_with"]})
    assert target.read_bytes() != b"keep me"
    source = tmp_path / Path(WRITERS[tool]["path"]).name
    shutil.copy(WRITERS[tool]["path"], source)
    itself = refused(tool, {**WRITERS[tool], "path": str(source), "output": str(source), "overwrite": True})
    assert itself["code"] == "invalid_argument" and itself["field"] == "output"
    assert source.read_bytes() == Path(WRITERS[tool]["path"]).read_bytes()


def test_convert_refuses_an_existing_output_unless_overwrite(tmp_path):
    target = tmp_path / "out.schem"
    target.write_bytes(b"keep me")
    arguments = {"path": str(CORPUS / "v3_fawe_sponge3.schem"), "output": str(target)}
    error = refused("schem_convert", arguments)
    assert error["code"] == "output_exists" and error["retry_with"] == {"overwrite": True}
    assert target.read_bytes() == b"keep me"
    ctx = RecordingContext()
    data = call("schem_convert", {**arguments, **error["retry_with"]}, ctx).data
    assert data["to"] == "Sponge v2" and data["server"]["accepted"] is True
    assert ctx.files == []  # it existed before: not this call's file
    fresh = RecordingContext()
    call("schem_convert", {**arguments, "output": str(tmp_path / "new.schem")}, fresh)
    assert fresh.files == [tmp_path / "new.schem"]


def test_convert_refusal_names_only_formats_that_hold_the_schematic_as_the_cli_does(tmp_path, cli):
    # Before: lossless_formats held "structure" for the 256³ file, which the write limits then refused.
    source = CORPUS / "v2_nucleation_large_schematic.schem"
    error = refused("schem_convert", {"path": str(source), "output": str(tmp_path / "o.schem")})
    said = cli("schem", "convert", str(source), "-o", str(tmp_path / "o.schem"), "--json")
    assert error["lossless_formats"] == json.loads(said.stderr)["error"]["details"]["lossless_formats"]
    assert error["lossless_formats"] == ["sponge3", "litematic"]


def test_convert_to_v2_that_would_lose_data_is_refused_with_the_losses(tmp_path):
    error = refused(
        "schem_convert",
        {"path": str(CORPUS / "v3_nucleation_workshop_entity.schem"), "output": str(tmp_path / "o.schem")},
    )
    assert error["code"] == "invalid_input" and error["rule"] == "schem.convert.lossy" and error["losses"]
    assert "drop" in error["remedy"] and not (tmp_path / "o.schem").exists()
    assert error["retry_with"] == {"drop_extras": True} and "sponge3" in error["lossless_formats"]
    retried = call(
        "schem_convert",
        {
            "path": str(CORPUS / "v3_nucleation_workshop_entity.schem"),
            "output": str(tmp_path / "o.schem"),
            **error["retry_with"],
        },
        RecordingContext(),
    )
    assert (tmp_path / "o.schem").exists() and retried.data["format"]


def test_render_returns_a_png_image_and_writes_nothing(tmp_path):
    from PIL import Image as PILImage

    shutil.copy(HOUSE, tmp_path / "house.schem")
    outcome = call("schem_render", {"path": "house.schem", "view": "iso"}, root=tmp_path)
    (image,) = outcome.images
    picture = PILImage.open(io.BytesIO(image.png))
    assert picture.format == "PNG" and picture.size == (outcome.data["width"], outcome.data["height"])
    assert outcome.data["image"] == {"mime_type": "image/png", "bytes": len(image.png)}
    small = call("schem_render", {"path": str(HOUSE), "max_side": 64}).data
    assert max(small["width"], small["height"]) == 64
    assert [p.name for p in tmp_path.iterdir()] == ["house.schem"]


def test_recipe_lint_findings_carry_line_and_column(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{\n  "origin": {"x": 0, "y": 64, "z": 0},\n  "operations": [\n'
        '    {"op": "fill", "min": {"x": 0, "y": 0, "z": 0}, "max": {"x": 1, "y": 1, "z": 1},'
        ' "material": "stnoe"}\n  ]\n}\n'
    )
    data = call("recipe_lint", {"paths": [str(bad), str(ROOT / "recipes" / "tower.json")]}).data
    expected = json.loads(cli("recipe", "lint", str(bad), str(ROOT / "recipes" / "tower.json"), "--json").stdout)
    assert data["diagnostics"] == [d for f in expected["files"] for d in f["diagnostics"]]
    assert data["ok"] is False and data["files"][1]["ok"] is True
    located = [d for d in data["diagnostics"] if d["line"] is not None]
    assert located and all(d["column"] for d in located)


def test_recipe_compile_pages_blocks_adds_a_picture_and_writes_a_schematic(cli, tmp_path):
    tower = ROOT / "recipes" / "tower.json"
    ctx = RecordingContext()
    outcome = call(
        "recipe_compile", {"path": str(tower), "png": True, "limit": 10, "output": str(tmp_path / "tower.schem")}, ctx
    )
    expected = cli_json(cli, "recipe", "compile", str(tower))
    assert (
        outcome.data["blocks"] == expected["blocks"][:10]
        and outcome.data["total_blocks"] == len(expected["blocks"])
        and outcome.data["has_more"] is True
    )
    assert outcome.data["palette"] == expected["palette"] and outcome.data["budgets"] == expected["budgets"]
    assert outcome.images[0].png.startswith(b"\x89PNG\r\n\x1a\n")
    assert ctx.files == [tmp_path / "tower.schem"] and outcome.data["outputs"] == {
        "schematic": str(tmp_path / "tower.schem")
    }
    assert call("schem_validate", {"paths": [str(tmp_path / "tower.schem")]}).data["ok"] is True


def test_a_recipe_the_server_refuses_is_refused_with_its_place_and_a_next_call(tmp_path):
    recipe = tmp_path / "r.json"
    recipe.write_text('{"origin": {"x": 0, "y": 64, "z": 0}, "operations": [], "extra": 1}\n')
    error = refused("recipe_compile", {"path": str(recipe)})
    assert error["code"] == "invalid_input" and error["field"] == "path"
    assert error["message"].startswith(f"{recipe}:1:")
    assert error["next_call"]["tool"] == "recipe_lint" and error["next_call"]["arguments"] == {"paths": [str(recipe)]}


def test_block_check_reports_each_state():
    data = call(
        "block_check", {"states": ["oak_stairs[facing=east]", "stnoe", "chest[type=left]", "oak_stairs[facin=east]"]}
    ).data
    assert data["ok"] is False and data["invalid"] == 2 and data["release"] == "26.2"
    good, bad, chest, prop = data["results"]
    assert good["canonical"] == "minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]"
    assert bad["ok"] is False and bad["error"]["did_you_mean"][0] == "minecraft:stone" and chest["ok"] is True
    assert prop["error"]["did_you_mean"] == ["facing"] and prop["error"]["code"] == "block.property.unknown"


def test_block_describe_and_its_did_you_mean():
    data = call("block_describe", {"block_id": "oak_stairs", "mc_version": "1.20.4"}).data
    assert data["release"] == "1.20.4" and data["properties"]["facing"] == ["north", "south", "west", "east"]
    error = refused("block_describe", {"block_id": "oak_stair"})
    assert error["field"] == "block_id" and list(error["did_you_mean"].values()) == ["minecraft:oak_stairs"]
    assert call("block_describe", error["retry_with"]).data["id"] == "minecraft:oak_stairs"
    version = refused("block_describe", {"block_id": "stone", "mc_version": "1.99"})
    assert (version["code"], version["field"]) == ("invalid_argument", "mc_version")
    near = refused("block_describe", {"block_id": "stone", "mc_version": "1.20.9"})
    (suggestion,) = near["did_you_mean"].values()  # the first of the releases the remedy names, each loadable
    assert list(near["did_you_mean"]) == ["1.20.9"] and f"did you mean {suggestion} or" in near["remedy"]
    assert call("block_describe", {"block_id": "stone", "mc_version": suggestion}).data["release"] == suggestion


def test_terrain_preview_offline_is_shaped_like_terrain_preview_with_an_image(cli, tmp_path):
    recipe = ROOT / "recipes" / "terrain" / "small-hill.json"
    outcome = call("terrain_preview_offline", {"path": str(recipe), "resolution": 64})
    written = tmp_path / "hill.png"
    expected = json.loads(
        cli("terrain", "preview", str(recipe), "--offline", "-r", "64", "-o", str(written), "--json").stdout
    )
    assert outcome.data["world_verified"] is False
    assert {k: outcome.data[k] for k in expected if k != "image"} == {k: v for k, v in expected.items() if k != "image"}
    # the agent sees the same picture a person gets from -o: scaled up, with its legend
    assert "imageBase64" not in outcome.data and outcome.images[0].png == written.read_bytes()
    import io

    from PIL import Image as PILImage

    assert max(PILImage.open(io.BytesIO(outcome.images[0].png)).size) >= 256


def test_one_file_carries_its_facts_a_folder_only_verdicts():
    one = call("schem_validate", {"paths": [str(CORPUS / "v2_nucleation_sample.schem")]}).data
    assert one["files"][0]["facts"]["format"] == "Sponge v2" and one["ok"] is True
    folder = call("schem_validate", {"paths": [str(CORPUS)]}).data
    assert all(set(entry) - {"skipped"} == {"file", "ok", "errors", "warnings"} for entry in folder["files"])
    assert [entry["skipped"] for entry in folder["files"] if "skipped" in entry] == ["not a schematic file name"]
    strict = call("schem_validate", {"paths": [str(CORPUS / "v2_nucleation_sample.schem")], "strict": True}).data
    assert one["summary"]["warnings"] and strict["ok"] is False and strict["files"][0]["ok"] is False


def test_every_refusal_names_a_remedy_field(tmp_path):
    cases = [
        ("schem_validate", {"paths": [str(HOUSE)], "mc_version": "9.9"}),
        ("schem_info", {"path": str(ROOT / "recipes" / "tower.json")}),
        ("schem_rotate", {"path": str(HOUSE), "degrees": 90, "output": str(tmp_path / "no" / "r.schem")}),
        ("recipe_lint", {"paths": [str(ROOT / "recipes")], "mc_version": "0.1"}),
        ("block_check", {"states": ["stone"], "mc_version": "x"}),
    ]
    for name, arguments in cases:
        error = refused(name, arguments)
        assert error.get("field") or error.get("no_remedy") or error.get("retry_with"), (name, error)
        assert error["remedy"]
    assert refused(*cases[0])["field"] == "mc_version" and refused(*cases[2])["field"] == "output"
    assert refused(*cases[1])["field"] == "path" and list(tmp_path.iterdir()) == []


def test_every_argument_is_described_and_every_object_closed():
    from mcb.mcp.tools.batch import BATCH_ACTION

    for action in [*OFFLINE_ACTIONS, BATCH_ACTION]:
        schema = action.input_model.model_json_schema()
        for owner in [schema, *schema.get("$defs", {}).values()]:
            assert owner["additionalProperties"] is False, action.name
            for name, field in owner["properties"].items():
                assert field.get("description"), (action.name, name)
        assert "Next:" in action.description, action.name


def test_an_unknown_format_is_refused_by_both_faces(cli, tmp_path):
    result = cli("schem", "convert", str(HOUSE), "-o", str(tmp_path / "x.schem"), "--format", "v9")
    assert result.exit_code == 2 and "unknown schematic format 'v9'" in result.stderr
    error = refused(
        "schem_rotate", {"path": str(HOUSE), "degrees": 90, "output": str(tmp_path / "r.schem"), "format": "v9"}
    )
    assert error["code"] == "invalid_argument" and error["field"] == "format" and not list(tmp_path.iterdir())


def test_stdin_is_never_a_tool_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_text("{}")  # even when a file of that name exists, "-" is the CLI's stdin spelling
    for name, arguments in (
        ("recipe_lint", {"paths": ["-"]}),
        ("recipe_compile", {"path": "-"}),
        ("terrain_preview_offline", {"path": "-"}),
    ):
        from mcb.mcp.tools.batch import CatalogSteps

        action = ACTIONS[name]
        with pytest.raises(Refusal) as caught:
            action.run(CatalogSteps().check(action, arguments), RecordingContext())
        assert caught.value.code == "invalid_argument" and "standard input" in caught.value.message


def test_every_offline_refusal_code_is_in_the_manifest_table(tmp_path):
    from mcb.mcp.manifest import refusal_table
    from mcb.mcp.tools.adapters import REFUSAL_CODES

    table = refusal_table()
    assert set(REFUSAL_CODES) <= set(table["remedied"])
    target = tmp_path / "exists.schem"
    target.write_bytes(b"x")
    emitted = {
        refused(name, arguments)["code"]
        for name, arguments in [
            ("schem_info", {"path": str(tmp_path / "missing.schem")}),
            ("schem_info", {"path": str(ROOT / "recipes" / "tower.json")}),
            ("schem_convert", {"path": str(HOUSE), "output": str(target)}),
            ("schem_rotate", {"path": str(HOUSE), "degrees": 90}),
            ("block_describe", {"block_id": "nope_block"}),
        ]
    }
    assert emitted == {"not_found", "invalid_input", "output_exists", "invalid_argument"}
    assert emitted <= set(REFUSAL_CODES)


def test_validate_excludes_as_the_cli_does(cli, tmp_path):
    (tmp_path / "old").mkdir()
    shutil.copy(HOUSE, tmp_path / "house.schem")
    shutil.copy(HOUSE, tmp_path / "old" / "skipped.schem")
    data = call("schem_validate", {"paths": [str(tmp_path)], "exclude": ["old/*"]}).data
    expected = cli_json(cli, "schem", "validate", str(tmp_path), "--exclude", "old/*")
    walked = [str(tmp_path / "house.schem")]
    assert [f["file"] for f in data["files"]] == [f["file"] for f in expected["files"]] == walked
