"""Atomic writes: whole file or nothing, sensible permissions, temp files cleaned up."""

from __future__ import annotations

import os
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
