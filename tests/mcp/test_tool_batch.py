"""tool_batch (spec §2.3): called directly, then through `mcb mcp` where the steps meet the session's profile and
workspace root."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from mcb.mcp.actions import Action, Cancelled, Hints, Outcome, Refusal
from mcb.mcp.tools.batch import BATCH_ACTION, CatalogSteps, make_batch_action

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mcpkit import refusal_of  # noqa: E402
from test_offline_tools import CORPUS, HOUSE, RecordingContext  # noqa: E402

LARGE = CORPUS / "v2_nucleation_large_schematic.schem"


def run_batch(arguments: dict, ctx=None, action: Action = BATCH_ACTION):
    return action.run(action.input_model.model_validate(arguments), ctx or RecordingContext())


def convert(source: Path, output: Path) -> dict:
    return {"tool": "schem_convert", "arguments": {"path": str(source), "output": str(output)}}


def failing(output: Path) -> dict:  # v3 with entities cannot become v2 without drop_extras
    return convert(CORPUS / "v3_nucleation_workshop_entity.schem", output)


@pytest.mark.parametrize("stop_on_error", [None, True])
def test_the_first_failure_stops_the_batch_by_default(tmp_path, stop_on_error):
    steps = [
        convert(CORPUS / "v3_fawe_sponge3.schem", tmp_path / "a.schem"),
        failing(tmp_path / "b.schem"),
        convert(CORPUS / "v3_nucleation_test_cube.schem", tmp_path / "c.schem"),
    ]
    arguments = {"steps": steps} if stop_on_error is None else {"steps": steps, "stop_on_error": stop_on_error}
    data = run_batch(arguments).data
    assert (data["status"], data["completed"], data["failed"], data["not_run"]) == ("stopped", 1, 1, 1)
    assert [(r["index"], r["ok"]) for r in data["results"]] == [(0, True), (1, False)]
    assert refusal_of(data["results"][1]["error"])["rule"] == "schem.convert.lossy"
    assert (tmp_path / "a.schem").exists() and not (tmp_path / "c.schem").exists()


def test_stop_on_error_false_carries_on_and_reports_partial(tmp_path):
    steps = [
        convert(CORPUS / "v3_fawe_sponge3.schem", tmp_path / "a.schem"),
        failing(tmp_path / "b.schem"),
        convert(CORPUS / "v3_nucleation_test_cube.schem", tmp_path / "c.schem"),
    ]
    ctx = RecordingContext()
    data = run_batch({"steps": steps, "stop_on_error": False}, ctx).data
    assert (data["status"], data["completed"], data["failed"]) == ("partial", 2, 1) and "not_run" not in data
    assert [r["ok"] for r in data["results"]] == [True, False, True]
    assert data["results"][2]["result"]["output"] == str(tmp_path / "c.schem") and (tmp_path / "c.schem").exists()
    whole = [p for p in ctx.progress_calls if p[0] == int(p[0])]
    assert [p[0] for p in whole if "steps" in (p[2] or "")] == [1, 2, 3] and {p[1] for p in whole} == {3}
    assert ctx.files == []  # finished steps' files are theirs to keep; a later cancel of the call keeps them


def test_a_bad_step_refuses_the_whole_batch_before_anything_runs(tmp_path):
    first = convert(CORPUS / "v3_fawe_sponge3.schem", tmp_path / "a.schem")
    with pytest.raises(Refusal) as caught:
        run_batch(
            {
                "steps": [
                    first,
                    {"tool": "block_describe", "arguments": {"block_id": "stone"}},
                    {"tool": "schem_convrt", "arguments": {}},
                ]
            }
        )
    error = refusal_of(caught.value.to_dict()["error"])
    assert (error["field"], error["pointer"], error["did_you_mean"]) == (
        "steps[2].tool",
        "/steps/2/tool",
        {"schem_convrt": "schem_convert"},
    )
    with pytest.raises(Refusal) as caught:
        run_batch({"steps": [first, {"tool": "schem_render", "arguments": {"path": str(HOUSE), "scale": 0}}]})
    error = refusal_of(caught.value.to_dict()["error"])
    assert error["code"] == "invalid_argument" and error["pointer"] == "/steps/1/arguments/scale"
    with pytest.raises(Refusal) as caught:
        run_batch({"steps": [first, {"tool": "tool_batch", "arguments": {"steps": [first]}}]})
    assert caught.value.field == "steps[1].tool"
    assert not (tmp_path / "a.schem").exists()


def test_a_cancel_between_steps_keeps_finished_files_and_removes_the_cancelled_steps(tmp_path):
    steps = [
        convert(CORPUS / name, tmp_path / f"{i}.schem")
        for i, name in enumerate(
            ["v3_fawe_sponge3.schem", "v3_nucleation_test_cube.schem", "v3_prismarine_spongeV3.schem"]
        )
    ]
    (tmp_path / "2.schem.bak").write_bytes(b"unrelated")
    # checks: before step 0, step 0's own two, before step 1, step 1's first (before writing), step 1's
    # second (after writing: the cancel lands here)
    ctx = RecordingContext(cancel_at=6)
    with pytest.raises(Cancelled):
        run_batch({"steps": steps}, ctx)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0.schem", "2.schem.bak"]
    assert (tmp_path / "2.schem.bak").read_bytes() == b"unrelated"


def test_step_images_follow_in_order_with_their_content_indexes():
    outcome = run_batch(
        {
            "steps": [
                {"tool": "schem_render", "arguments": {"path": str(HOUSE), "view": "top"}},
                {"tool": "block_describe", "arguments": {"block_id": "stone"}},
                {"tool": "schem_render", "arguments": {"path": str(HOUSE), "view": "iso"}},
            ]
        }
    )
    assert [r.get("images") for r in outcome.data["results"]] == [[1], None, [2]]
    assert len(outcome.images) == 2 and outcome.images[0].caption.startswith("top view")


class _Nothing(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _crash(args, ctx):
    raise RuntimeError("a bug")


def _big(args, ctx):
    return Outcome({"text": "x" * 5000})


class _Steps(CatalogSteps):
    cap_bytes = 4000
    extra = {
        name: Action(
            name=name,
            title=name,
            description="test step",
            input_model=_Nothing,
            hints=Hints(True, False, True, False),
            run=run,
            group="test",
        )
        for name, run in (("test_crash", _crash), ("test_big", _big))
    }

    def resolve(self, name):
        return self.extra.get(name) or super().resolve(name)


def test_a_step_that_crashes_is_internal_and_an_oversized_result_is_omitted_not_cut():
    batch = make_batch_action(_Steps())
    data = run_batch(
        {
            "steps": [
                {"tool": "test_big"},
                {"tool": "test_crash"},
                {"tool": "block_describe", "arguments": {"block_id": "stone"}},
            ],
            "stop_on_error": False,
        },
        action=batch,
    ).data
    assert data["status"] == "partial" and data["truncated"] is True
    assert data["results"][0] == {
        "index": 0,
        "tool": "test_big",
        "ok": True,
        "result": {"omitted_bytes": len(json.dumps({"text": "x" * 5000}, separators=(",", ":")))},
    }
    assert data["results"][1]["error"]["code"] == "internal" and data["results"][2]["result"]["id"] == "minecraft:stone"
    assert len(json.dumps(data, separators=(",", ":"))) <= 4000


# -- through `mcb mcp` ------------------------------------------------------------------------------------------


def test_steps_meet_the_sessions_root_and_profile(mcp_process, tmp_path):
    shutil.copy(HOUSE, tmp_path / "house.schem")
    server = mcp_process("--offline")
    server.initialize()
    answer = server.call(
        "tool_batch",
        {
            "steps": [
                {"tool": "schem_convert", "arguments": {"path": "house.schem", "output": "out.schem"}},
                {"tool": "schem_info", "arguments": {"path": str(HOUSE)}},
            ]
        },
    )["result"]
    error = refusal_of(answer["structuredContent"]["error"])
    assert answer["isError"] is True and (error["code"], error["field"]) == ("path_denied", "steps[1].arguments")
    hidden = server.call("tool_batch", {"steps": [{"tool": "project_context"}]})["result"]
    assert hidden["isError"] is True and refusal_of(hidden["structuredContent"]["error"])["restart_with"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["house.schem"]
    ok = server.call(
        "tool_batch",
        {
            "steps": [
                {"tool": "schem_convert", "arguments": {"path": "house.schem", "output": "out.schem"}},
                {"tool": "schem_render", "arguments": {"path": "out.schem", "max_side": 100}},
            ]
        },
    )["result"]
    assert ok["isError"] is False and ok["structuredContent"]["status"] == "completed"
    assert [item["type"] for item in ok["content"]] == ["text", "image"]
    assert ok["content"][1]["mimeType"] == "image/png" and ok["structuredContent"]["results"][1]["images"] == [1]


def test_a_misspelt_step_tool_over_stdio_suggests_the_whole_name_keyed_by_what_was_given(mcp_process, tmp_path):
    shutil.copy(HOUSE, tmp_path / "house.schem")
    server = mcp_process("--offline")
    server.initialize()
    answer = server.call(
        "tool_batch",
        {
            "steps": [
                {"tool": "schem_info", "arguments": {"path": "house.schem"}},
                {"tool": "schem_valdiate", "arguments": {"paths": ["house.schem"]}},
            ]
        },
    )["result"]
    error = refusal_of(answer["structuredContent"]["error"])
    assert answer["isError"] is True and error["code"] == "invalid_argument"
    assert (error["field"], error["did_you_mean"]) == ("steps[1].tool", {"schem_valdiate": "schem_validate"})
    assert "schem_validate" in error["message"]


def test_a_single_suggestion_is_never_split_into_letters():
    from mcb.mcp.actions import did_you_mean_of

    assert did_you_mean_of("schem_validate", "tool") == {"tool": "schem_validate"}
    assert did_you_mean_of(["schem_validate", "schem_info"], "tool") == {"tool": "schem_validate"}
    assert did_you_mean_of({"a": "b"}) == {"a": "b"}


def test_a_cancelled_batch_never_answers_and_leaves_only_finished_steps(mcp_process, tmp_path):
    shutil.copy(LARGE, tmp_path / "large.schem")
    server = mcp_process()
    server.initialize()
    steps = [
        {"tool": "schem_rotate", "arguments": {"path": "large.schem", "degrees": 90, "output": f"out{i:02}.schem"}}
        for i in range(32)
    ]
    server.write(
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "tool_batch", "arguments": {"steps": steps}, "_meta": {"progressToken": "b"}},
        }
    )
    first = server.recv(timeout=30)
    assert first["method"] == "notifications/progress" and first["params"]["progressToken"] == "b"
    server.write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
    pong = server.request("ping", {})
    assert pong["result"] == {}
    assert server.close() == 0  # at EOF the running call ends first (MCP-50): all it would ever say is in raw
    while server.recv(timeout=10) is not None:  # read stdout to its end
        pass
    said = [json.loads(line) for line in server.raw]
    assert said[-1] == pong  # no response for the cancelled call, ever, and nothing else after the ping's answer
    assert all(message.get("id") != 7 for message in said)
    written = sorted(p.name for p in tmp_path.iterdir() if p.name != "large.schem")
    assert len(written) < 32 and written == [f"out{i:02}.schem" for i in range(len(written))]  # a prefix, no temp
    for name in written:
        assert (tmp_path / name).stat().st_size > 1000
