"""A readable Sponge file whose box has a 0 side: every command that writes or draws it says so cleanly (exit 1, a
JSON error with --json), and `mcb mcp` refuses it instead of reporting a bug in mcb."""

from __future__ import annotations

import json

import pytest
from schem_nbt_bytes import document, v2_entries

EMPTY = document(v2_entries(size=(0, 0, 0), data=b""))
COMMANDS = {
    "rotate": ["schem", "rotate", "{src}", "--degrees", "90", "-o", "{out}"],
    "mirror": ["schem", "mirror", "{src}", "--axis", "z", "-o", "{out}"],
    "convert": ["schem", "convert", "{src}", "-o", "{out}"],
    "render top": ["schem", "render", "{src}", "--view", "top", "-o", "{out}"],
    "render iso": ["schem", "render", "{src}", "--view", "iso", "-o", "{out}"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_an_empty_box_is_a_clean_error(cli, tmp_path, command):
    source, output = tmp_path / "empty.schem", tmp_path / "out.schem"
    source.write_bytes(EMPTY)
    argv = [a.format(src=source, out=output) for a in COMMANDS[command]]
    plain = cli(*argv)
    assert plain.exit_code == 1 and plain.stderr.startswith("error: ") and "Traceback" not in plain.stderr
    assert "0 x 0 x 0" in plain.stderr
    answer = cli("--json", *argv)
    assert answer.exit_code == 1 and json.loads(answer.stderr)["error"]["code"] == "sponge.size"
    assert not output.exists()


def test_mcp_refuses_an_empty_box_as_a_fault_of_the_file(tmp_path):
    from mcb.mcp.actions import Refusal
    from mcb.mcp.arguments import parse_arguments
    from mcb.mcp.context import CallContext
    from mcb.mcp.tools.offline import OFFLINE_ACTIONS

    source = tmp_path / "empty.schem"
    source.write_bytes(EMPTY)
    action = next(a for a in OFFLINE_ACTIONS if a.name == "schem_rotate")
    arguments = parse_arguments(
        action, {"path": str(source), "degrees": 90, "output": str(tmp_path / "o.schem")}, root=tmp_path
    )
    context = CallContext(progress_token=None, notify=lambda message: None, make_client=lambda: None)
    with pytest.raises(Refusal) as refused:
        action.run(arguments, context)
    assert refused.value.to_dict()["error"]["code"] != "internal"
