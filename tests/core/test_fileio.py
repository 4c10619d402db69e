"""Atomic writes: whole file or nothing, sensible permissions, temp files cleaned up."""

from __future__ import annotations

import os
import re
import stat

import pytest

from mcb.fileio import write_atomic


def test_new_file_gets_umask_permissions_not_tempfile_0600(tmp_path):
    old = os.umask(0o022)
    try:
        import importlib

        import mcb.fileio

        importlib.reload(mcb.fileio)
        target = mcb.fileio.write_atomic(tmp_path / "out.png", b"data")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o644
    assert target.read_bytes() == b"data"


def test_replacing_keeps_the_files_mode_and_mode_can_be_forced(tmp_path):
    target = tmp_path / "recipe.json"
    target.write_text("old")
    os.chmod(target, 0o640)
    write_atomic(target, "new text")
    assert target.read_text() == "new text"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    write_atomic(tmp_path / "tokens.json", "secret", mode=0o600, sync_dir=True)
    assert stat.S_IMODE(os.stat(tmp_path / "tokens.json").st_mode) == 0o600


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path):
    target = tmp_path / "plan.json"
    target.write_text("old")

    with pytest.raises(TypeError):
        write_atomic(target, 12345)  # not bytes or text: fails while writing
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]


def _state_file(path):
    from mcb.batch.state import BatchState

    return BatchState.load(path, server="http://127.0.0.1:1", project_id=None)


def _token_file(path):
    from mcb.config import read_token_file

    os.chmod(path, 0o600)
    return read_token_file(path, "agent_token")


def _serve_tokens(path):
    from mcb.server.config import load_tokens

    return load_tokens(path.parent)


@pytest.mark.parametrize(
    "name,read,refusal",
    [
        ("b.state.json", _state_file, "is unreadable: NaN is not a JSON number"),
        ("agent.token", _token_file, "looks like JSON but does not parse"),
        ("tokens.json", _serve_tokens, "is not valid JSON (NaN is not a JSON number)"),
    ],
)
def test_files_mcb_writes_are_read_by_the_one_strict_reader(tmp_path, name, read, refusal):
    """NaN (and 1e400) is not JSON although Python's json reads it: mcb.fileio.loads_json refuses it everywhere."""
    path = tmp_path / name
    path.write_text('{"format": 1, "agent_token": "' + "a" * 40 + '", "steps": {}, "n": NaN}')
    with pytest.raises(Exception, match=re.escape(refusal)):
        read(path)
    assert "NaN" in path.read_text()  # left as it was
