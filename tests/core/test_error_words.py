"""An error carries its field and a template; each face chooses the words (mcb.errors): the same refusal reads
``--in-place`` / ``-o NAME.schem`` on the command line and ``in_place`` / ``output=NAME.schem`` over MCP."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mcb.errors import McbError, UsageError, escaped, face_words, fill, render

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
LEGACY = CORPUS / "legacy_schematic4j_9383.schematic"
ENTITIES = CORPUS / "v3_nucleation_workshop_entity.schem"


def mcp_refusal(tool: str, arguments: dict) -> dict:
    """The refusal ``tool`` answers with, called as mcb mcp calls it."""
    from mcb.mcp.actions import Refusal
    from mcb.mcp.arguments import parse_arguments
    from mcb.mcp.tools.offline import OFFLINE_ACTIONS

    action = next(action for action in OFFLINE_ACTIONS if action.name == tool)

    class Context:
        def progress(self, *args):
            pass

        def check_cancelled(self):
            pass

        def created(self, path):
            pass

    with pytest.raises(Refusal) as caught:
        action.run(parse_arguments(action, arguments, root=Path("/")), Context())
    error = caught.value.to_dict()["error"]
    return {"code": error["code"], "message": error["message"], **error["data"]}


def test_a_template_names_arguments_tools_and_settings_each_face_its_own_way():
    from mcb.mcp.refusals import mcp_words

    error = UsageError("{in_place} keeps the format; {format} v3 would not", hint="use {output=NEW.schem}")
    assert error.template == "{in_place} keeps the format; {format} v3 would not"
    assert (error.message, error.hint) == ("in_place keeps the format; format v3 would not", "use output=NEW.schem")
    assert str(error) == error.message and error.to_json()["hint"] == "use output=NEW.schem"
    with face_words(lambda name, value: f"<{name}:{value}>"):
        assert error.message == "<in_place:None> keeps the format; <format:None> v3 would not"
    assert error.message.startswith("in_place")  # the face's words end with its block
    assert render("check {server}; {project_context}; {drop_extras=true}", mcp_words) == (
        "check MCB_SERVER; project_context; drop_extras=true"
    )


def test_outside_text_keeps_its_braces_and_the_table_fills_only_its_numbers():
    error = McbError(f"Invalid value for '-d': {escaped(repr('{x}'))} is not a valid integer")
    assert error.message == "Invalid value for '-d': '{x}' is not a valid integer"
    assert fill("a later operation wrote at {pos}; see {project_context}", {"pos": "1,2,3"}) == (
        "a later operation wrote at 1,2,3; see {project_context}"
    )


def test_a_refusal_names_the_flag_on_the_command_line_and_the_argument_over_mcp(cli, tmp_path):
    copy = tmp_path / "old.schematic"
    shutil.copy(LEGACY, copy)
    result = cli("schem", "mirror", str(copy), "--axis", "x", "--in-place")
    assert result.exit_code == 2
    assert "error: --in-place cannot rewrite a legacy .schematic file" in result.stderr
    assert "hint: write the result as a new file with -o NAME.schem (or .litematic, .nbt)" in result.stderr
    refusal = mcp_refusal("schem_mirror", {"path": str(copy), "axis": "x", "in_place": True})
    assert refusal["message"].startswith("in_place cannot rewrite a legacy .schematic file")
    assert refusal["remedy"] == "write the result as a new file with output=NAME.schem (or .litematic, .nbt)"
    assert refusal["field"] == "in_place"


def test_each_command_names_the_format_as_it_calls_it(cli, tmp_path):
    convert = cli("schem", "convert", str(ENTITIES), "-o", str(tmp_path / "x.jpg"))
    assert "or choose the format with --to" in convert.stderr
    export = cli("export", "--min", "0,0,0", "--max", "1,1,1", "-o", str(tmp_path / "x.jpg"))
    assert "or choose the format with --format" in export.stderr
    refusal = mcp_refusal("schem_convert", {"path": str(ENTITIES), "output": str(tmp_path / "x.jpg")})
    assert refusal["remedy"].endswith("or choose the format with format") and refusal["field"] == "output"


def test_a_known_fix_is_data_on_the_error_for_both_faces(cli, tmp_path):
    """A lossy conversion carries retry_with: mcb mcp offers the call again, the CLI's --json has it in details."""
    result = cli("schem", "convert", str(ENTITIES), "-o", str(tmp_path / "x.schem"), "--json")
    error = json.loads(result.stderr)["error"]
    assert error["hint"].endswith("or drop it on purpose with --drop-extras")
    assert error["details"]["retry_with"] == {"drop_extras": True}
    refusal = mcp_refusal("schem_convert", {"path": str(ENTITIES), "output": str(tmp_path / "y.schem")})
    assert refusal["retry_with"] == {"drop_extras": True}
    assert refusal["remedy"].endswith("or drop it on purpose with drop_extras")


def test_a_global_setting_is_named_with_its_environment_variable(cli, monkeypatch):
    from mcb.mcp.refusals import remedy_text
    from mcb.refusals import NOT_REACHED

    monkeypatch.setenv("MCB_AGENT_TOKEN", "token")
    result = cli("--server", "http://127.0.0.1:9", "context")
    assert result.exit_code == 6
    assert "hint: nothing was sent: is the server running? check --server / MCB_SERVER" in result.stderr
    assert "check MCB_SERVER" in remedy_text(NOT_REACHED) and "--server" not in remedy_text(NOT_REACHED)


def test_mcb_mcp_says_the_tables_not_reached_when_nothing_listens():
    from mcb.client.errors import TransportError
    from mcb.mcp.refusals import remedy_text, transport_refusal
    from mcb.refusals import NOT_REACHED

    error = TransportError("refused", method="project_context", request_started=False, reason="io_error")
    refusal = transport_refusal(error, "project_context", {}, server="http://127.0.0.1:9")
    assert refusal.data["plugin"] == "gone" and refusal.remedy == remedy_text(NOT_REACHED)
    assert refusal.data["restart_with"] == NOT_REACHED.restart_with


def test_what_the_user_typed_is_not_read_as_a_template(cli):
    result = cli("schem", "rotate", str(LEGACY), "-o", "x.schem", "-d", "90", "{output}")
    assert result.exit_code == 2 and "{output}" in result.stderr and "--output" not in result.stderr


@pytest.mark.parametrize(
    "method,code,message,reason",
    [
        ("terrain_prepare", "invalid_request", "Tile index outside terrain", "tile_outside_terrain"),
        (
            "recovery_review",
            "permission_denied",
            "Recovery requires explicit administrator capability",
            "admin_required",
        ),
        ("chat_poll", "permission_denied", "Chat routing requires the administrator capability", "admin_required"),
        ("build_apply", "permission_denied", "Player is not the project owner", None),
    ],
)
def test_the_server_words_mcb_acts_on_are_read_once_by_the_table(method, code, message, reason):
    """The terrain run ends at the last tile, and `mcb rpc` suggests --admin, by these reasons (no text matching)."""
    from mcb.client.errors import error_from_envelope

    assert error_from_envelope(method, code, message).details.get("reason") == reason


def test_why_an_operation_failed_is_read_by_the_table():
    from mcb.refusals import failure_reason

    assert failure_reason("failed", "Plan expired; prepare from fresh state") == "plan_expired"
    assert failure_reason("failed", "Administrator abandoned uncertain history; world unchanged") == "abandoned"
    assert failure_reason("failed", "World write failed: disk full") is None
    assert failure_reason("cancelled", "Plan expired") is None
